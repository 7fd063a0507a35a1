"""Named Cypher queries, loaded from ``citegraph/cypher/<name>.cypher``.

Cypher text lives only in those files so that it can be read, reviewed and pasted into
Neo4j Browser as it is. Each file opens with ``//`` comment lines saying what the query
does, one line per parameter and what it returns::

    // Papers most cited within the corpus.
    // $limit: int — how many
    // Mode: read
    // Returns: id, title, year, citation_count

A parameter of type ``id`` is a string in the one form ids are stored in
(:func:`citegraph.vocabulary.canonical_id`), whoever gives it: ``citegraph query -p``,
``POST /queries/…`` or a caller.

The loader keeps that header as the query's documentation, checks that the declared
parameters are exactly the ones the text uses, and so can convert command-line strings
to the declared types and reject a call that forgets one before it reaches the server.

``Mode: read`` or ``Mode: write`` (required) is the access mode the statement runs with:
the store sends a read through the driver's ``execute_read`` and a write through
``execute_write``, and against a Neo4j cluster that decides which server answers (a
follower or the leader). It is declared, not guessed from keywords, because a keyword can
sit in a string literal; tests/test_cypher_lint.py checks each declaration against what
Neo4j's own parser finds in the statement.

A file may hold several statements separated by a ``;`` at the end of a line (schema
files do: Neo4j runs schema commands one per transaction).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ..errors import CitegraphError
from ..vocabulary import canonical_id, lone_surrogate, not_unicode

PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_DECLARED = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(\w+)\s*(?:—\s*(.*))?$")
TYPES = {"int": int, "float": float, "string": str, "id": str, "bool": bool, "list": list, "map": dict}
#: A parameter that counts rows (LIMIT $n, SKIP $n): ArcadeDB reads it as a 32-bit int,
#: so 2^63-1 would reach it as -1, and refuses 2^31-1 itself ("Database error", measured on
#: every query with a LIMIT): 2^31-2 is the largest it runs.
_COUNTING = re.compile(r"\b(?:LIMIT|SKIP)\s+\$([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
ROW_COUNT = range(2**31 - 1)  # 0 to 2^31-2
_STATEMENT_END = re.compile(r";[ \t]*(?:\n|$)")
_NAME = re.compile(r"^[a-z0-9_]+(?:/[a-z0-9_]+)*$")
_MODE = re.compile(r"^Mode\s*:\s*(.*?)\s*$")
MODES = ("read", "write")


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    type: str  # a key of TYPES
    doc: str

    def parse(self, text: str) -> object:
        """Convert a command-line string to this parameter's type."""
        if self.type in ("string", "id"):
            return self.accept(text)
        if self.type == "bool" and text.lower() in ("true", "false"):
            return text.lower() == "true"
        try:
            return self.accept(json.loads(text))
        except (ValueError, CitegraphError):  # ValueError: not JSON, or an integer json will not build (4,300+ digits)
            shown = repr(text) if len(text) <= 80 else f"{text[:60]!r}… ({len(text):,} characters)"
            raise CitegraphError(
                f"parameter ${self.name} must be {self.type} (JSON for list/map), got {shown}"
            ) from None

    def accept(self, value: object) -> object:
        """``value`` (decoded JSON) as this parameter's type — an int serves as a float, a
        bool never as a number, an int must fit Bolt's 64 bits, a text must be Unicode — or
        a CitegraphError."""
        if self.type == "float" and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, TYPES[self.type]) or (self.type in ("int", "float") and isinstance(value, bool)):
            raise CitegraphError(f"${self.name} must be {self.type}, got {json.dumps(value)[:80]}")
        if self.type == "int" and isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise CitegraphError(f"${self.name} is out of the 64-bit range")
        if found := lone_surrogate(value):
            raise CitegraphError(f"${self.name}: {not_unicode(found[1])}")
        return canonical_id(value) if self.type == "id" and isinstance(value, str) else value


@dataclass(frozen=True, slots=True)
class CypherQuery:
    name: str
    doc: str
    statements: tuple[str, ...]
    parameters: dict[str, Parameter]
    mode: str  # one of MODES, from the header
    counting: tuple[str, ...] = ()  # parameters that count rows (LIMIT/SKIP), found once when parsed

    @property
    def text(self) -> str:
        return ";\n".join(self.statements)

    def check(self, params: dict[str, object]) -> None:
        missing = sorted(self.parameters.keys() - params.keys())
        if missing:
            raise CitegraphError(f"query '{self.name}' needs parameter(s) {', '.join('$' + m for m in missing)}")
        unknown = sorted(params.keys() - self.parameters.keys())
        if unknown:  # a parameter the statement no longer reads would be ignored in silence
            raise CitegraphError(f"query '{self.name}' has no parameter(s) {', '.join('$' + u for u in unknown)}")
        for name in self.counting:
            value = params[name]
            if isinstance(value, int) and value not in ROW_COUNT:
                raise CitegraphError(
                    f"${name} counts rows: it must be between 0 and {ROW_COUNT.stop - 1:,}, got {value}"
                )


def _cypher_dir():
    return resources.files("citegraph") / "cypher"


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def parse(name: str, text: str) -> CypherQuery:
    lines = text.splitlines()
    header = []
    for line in lines:
        if not line.lstrip().startswith("//"):
            break
        header.append(line.lstrip()[2:].strip())
    statements = tuple(s.strip() for s in _STATEMENT_END.split(_strip_comments(text)) if s.strip())
    if not header:
        raise CitegraphError(f"query '{name}' has no header comment (what it does, parameters, returns)")
    if not statements:
        raise CitegraphError(f"query '{name}' holds no statement")
    declared = {}
    for line in header:
        if match := _DECLARED.match(line):
            pname, ptype, pdoc = match.groups()
            if ptype not in TYPES:
                raise CitegraphError(
                    f"query '{name}': parameter ${pname} has unknown type '{ptype}' (known: {', '.join(TYPES)})"
                )
            declared[pname] = Parameter(pname, ptype, (pdoc or "").strip())
    used = {p for s in statements for p in PARAMETER.findall(s)}
    if used != declared.keys():
        raise CitegraphError(f"query '{name}': the header declares {sorted(declared)} but the text uses {sorted(used)}")
    return CypherQuery(
        name,
        "\n".join(header).strip(),
        statements,
        declared,
        _mode(name, header),
        tuple(dict.fromkeys(_COUNTING.findall(";\n".join(statements)))),
    )


def _mode(name: str, header: list[str]) -> str:
    """The access mode the header's one ``Mode:`` line declares."""
    modes = [match.group(1) for line in header if (match := _MODE.match(line))]
    if len(modes) != 1:
        raise CitegraphError(
            f"query '{name}': the header must declare its access mode once, as '// Mode: read' "
            f"or '// Mode: write' (found {len(modes)})"
        )
    if modes[0] not in MODES:
        raise CitegraphError(f"query '{name}': unknown mode '{modes[0]}' (known: {', '.join(MODES)})")
    return modes[0]


@cache
def load(name: str) -> CypherQuery:
    """The query stored as ``cypher/<name>.cypher`` (``name`` may hold ``/`` for subfolders)."""
    if not _NAME.match(name):
        raise CitegraphError(f"invalid query name '{name}'")
    path = _cypher_dir().joinpath(*f"{name}.cypher".split("/"))
    if not path.is_file():
        raise CitegraphError(f"no query named '{name}'; see `citegraph query --list`")
    return parse(name, path.read_text(encoding="utf-8"))


def names() -> list[str]:
    """Every query name, subfolders included, sorted."""
    found: list[str] = []

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".cypher"):
                found.append(prefix + child.name.removesuffix(".cypher"))

    walk(_cypher_dir(), "")
    return sorted(found)
