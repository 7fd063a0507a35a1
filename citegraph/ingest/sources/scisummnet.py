"""ScisummNet (as shipped in CL-SciSumm 2019): ACL papers with full text and real citing sentences.

The folder holds one folder per cited paper, named by its ACL Anthology id::

    <id>/Reference_XML/<id>.xml     the paper, sentence-split: <S sid> title, <ABSTRACT>, <SECTION>s
    <id>/citing_sentences.json      [{citance_No, citing_paper_id, raw_text, clean_text, ...}, ...]

Each XML becomes the cited :class:`Paper` (title, abstract, ``full_text``: every ``<S>``
one a line, so line k is ``<S sid="k">``, the title line 0; the sids are 0, 1, … in all
1,000 files; a few papers have empty sentences, even an empty title); each citing sentence a citing :class:`Paper`
(id, year from the id, the title where the bundled ACL-200 graph has one) and a
:class:`Citation` whose contexts are that citing paper's sentences, with the citation
marked ``[CIT]`` (see :func:`mark`). ``clean_text`` is used, ``raw_text`` where it is empty
(1,602 of 16,589: PDF extraction run-ons, still ending in the citing sentence).

Locations: an XML is one record at line 1 (a parse error at its own line); a citance is
located at the line its JSON object starts on, and all sentences of one citing paper go
out with its first one, so that the edge's contexts are written whole in one batch.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ...errors import CitegraphError, Location, Problem
from ...vocabulary import ACL_NEW_ID, ACL_OLD_ID, CONTEXT_MARKER
from ..records import Citation, Item, Paper, Reference
from ..source import BadField, integer, json_failure, json_objects, lone_surrogate_problem, nfc, text

XML_DIR, CITANCES = "Reference_XML", "citing_sentences.json"

_PARTICLE = r"(?:(?:[Vv]an|[Vv]on|[Dd]e|[Dd]er|[Dd]en|[Dd]e\s+[Ll]a|[Dd]ella|[Dd]i|[Dd]u|[Ll]e|[Dd]os|[Dd]as)\s+)?"
_NAME = _PARTICLE + r"[^\W\d_][^\W\d_]*(?:[-'’][^\W\d_]+)*"
#: An author-year citation: "Brants, 2000", "Brants (2000)", "Brants et al. 2000a", "Och and Ney (2003)".
AUTHOR_YEAR = re.compile(
    rf"(?P<name>{_NAME})(?:\s+et\s+al\.?|\s+(?:and|&)\s+{_NAME})?"
    r",?\s*(?P<open>\(\s*)?(?P<year>(?:19|20)\d\d)[a-z]?(?(open)[^()]{0,30}\))"
)
NUMERIC = re.compile(r"\[\s*\d+\s*\]")


def acl_year(paper_id: str) -> int:
    """The year an ACL Anthology id states: ``P14-2043`` → 2014, ``W99-0613`` → 1999,
    ``2020.acl-main.1`` → 2020. Two-digit years from 65 on are 19xx (the Anthology starts
    in 1965), the others 20xx."""
    if ACL_OLD_ID.fullmatch(paper_id):
        yy = int(paper_id[1:3])
        return (1900 if yy >= 65 else 2000) + yy
    new = ACL_NEW_ID.fullmatch(paper_id)
    if new:
        return int(new.group(1))
    raise BadField(None, f"{paper_id!r} is not an ACL Anthology id (like P14-2043 or 2020.acl-main.1)")


def _citations(sentence: str, year: int) -> list[re.Match]:
    """The author-year strings of ``year`` whose name is capitalised ("in 2000" is no citation)."""
    return [
        m
        for m in AUTHOR_YEAR.finditer(sentence)
        if int(m.group("year")) == year and m.group("name").split()[-1][0].isupper()
    ]


def cited_surname(sentences: Iterable[str], year: int) -> str | None:
    """The cited paper's first author, as its citing sentences name it: the name most often
    written before the paper's year (the sources give the citing authors, not the cited)."""
    votes = Counter(m.group("name").casefold() for s in sentences for m in _citations(s, year))
    return votes.most_common(1)[0][0] if votes else None


def mark(sentence: str, surname: str | None, year: int) -> str | None:
    """``sentence`` with the citation of the cited paper replaced by ``[CIT]``, or None.

    The citation is the author-year string of ``surname`` and ``year`` (all of them, if
    the sentence repeats it); failing that, the only author-year string of that year; a
    sentence without author-year strings and exactly one numeric marker ("[12]") has
    that marker replaced.
    """
    found = _citations(sentence, year)
    ours = [m for m in found if surname and m.group("name").casefold() == surname]
    if not ours and len(found) == 1:
        ours = found
    if not ours:
        numeric = NUMERIC.findall(sentence)
        if len(numeric) == 1 and not AUTHOR_YEAR.search(sentence):
            return sentence.replace(numeric[0], CONTEXT_MARKER, 1)
        return None
    out, at = [], 0
    for m in ours:
        out += [sentence[at : m.start()], CONTEXT_MARKER]
        at = m.end()
    return "".join(out + [sentence[at:]])


# -- files ------------------------------------------------------------------------------
def files(path: Path) -> list[Path]:
    """Per cited-paper folder (``path`` itself, or the folders in it): its XML, then its citances."""
    if not path.is_dir():
        raise CitegraphError(f"{path}: the scisummnet format reads a folder (of paper folders)")
    folders = [path] if (path / CITANCES).is_file() else sorted(p for p in path.iterdir() if p.is_dir())
    found = []
    for folder in folders:
        xml, citances = folder / XML_DIR / f"{folder.name}.xml", folder / CITANCES
        if not xml.is_file() or not citances.is_file():
            raise CitegraphError(
                f"{folder}: a ScisummNet paper folder holds {XML_DIR}/{folder.name}.xml and {CITANCES}"
            )
        found += [xml, citances]
    if not found:
        raise CitegraphError(f"{path}: not a ScisummNet folder (one folder per paper with {CITANCES})")
    return found


def read(file: Path) -> Iterator[Item]:
    return _citances(file) if file.name == CITANCES else _reference(file)


def _clean(value: str | None) -> str:
    return " ".join(nfc(html.unescape(value or "")).split())


def _reference(file: Path) -> Iterator[Item]:
    where = Location(file, 1)
    try:
        root = ET.parse(file).getroot()
    except ET.ParseError as exc:
        line = exc.position[0]
        yield Item(Location(file, line), problem=Problem(Location(file, line), None, f"malformed XML: {exc}"))
        return
    sentences = [_clean("".join(s.itertext())) for s in root.iter("S")]
    title = sentences[0] if sentences else ""
    abstract = " ".join(_clean(s.text) for s in root.iterfind("ABSTRACT/S")) or None
    paper_id = file.stem
    yield Item(
        where,
        record=Paper(
            id=paper_id,
            title=title or None,
            abstract=abstract,
            year=_year(paper_id),
            full_text="\n".join(sentences) if any(sentences) else None,
        ),
    )


def _year(paper_id: str) -> int | None:
    try:
        return acl_year(paper_id)
    except BadField:
        return None


@cache
def acl200_titles() -> dict[str, str]:
    """Titles of the bundled ACL-200 graph's papers, by id."""
    bundled = Path(str(resources.files("citegraph") / "data" / "acl200" / "papers.jsonl.gz"))
    return {
        obj["paper_id"]: obj["title"] for _, obj in json_objects(bundled) if isinstance(obj, dict) and obj.get("title")
    }


def _located_objects(file: Path) -> Iterator[tuple[Location, dict[str, Any] | Problem]]:
    """The objects of a JSON array, each with the line it starts on."""
    raw = file.read_bytes()
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = Location(file, raw.count(b"\n", 0, exc.start) + 1)
        yield where, Problem(where, None, "not valid UTF-8")
        return
    decoder = json.JSONDecoder()
    at = len(body) - len(body.lstrip())
    if not body.startswith("[", at):
        where = Location(file, body.count("\n", 0, at) + 1)
        yield where, Problem(where, None, "expected a JSON array of citing sentences")
        return
    at += 1
    while True:
        while at < len(body) and body[at] in " \t\r\n,":
            at += 1
        where = Location(file, body.count("\n", 0, at) + 1)
        if at >= len(body):
            yield where, Problem(where, None, "malformed JSON: the array is not closed (truncated file?)")
            return
        if body[at] == "]":
            return
        try:
            value, at = decoder.raw_decode(body, at)
        except (ValueError, RecursionError) as exc:
            at_line = Location(file, exc.lineno) if isinstance(exc, json.JSONDecodeError) else where
            yield at_line, Problem(at_line, None, json_failure(exc))
            return
        if not isinstance(value, dict):
            yield where, Problem(where, None, f"expected a JSON object, got {type(value).__name__}")
        else:
            yield where, lone_surrogate_problem(where, value) or value


def _citance(obj: dict[str, Any]) -> tuple[str, str]:
    citing = text(obj, "citing_paper_id", required=True)
    try:
        acl_year(citing)
    except BadField as bad:
        raise BadField("citing_paper_id", bad.reason) from None
    integer(obj, "citance_No")
    sentence = text(obj, "clean_text") or text(obj, "raw_text")
    if sentence is None:
        raise BadField("raw_text", "the citing sentence is empty (and so is clean_text)")
    return citing, " ".join(sentence.split())


def _citances(file: Path) -> Iterator[Item]:
    cited = file.parent.name
    year = _year(cited)
    problems: list[Item] = []
    by_citing: dict[str, list[str]] = {}
    first_line: dict[str, Location] = {}
    for where, value in _located_objects(file):
        if isinstance(value, Problem):
            problems.append(Item(where, problem=value))
            continue
        try:
            citing, sentence = _citance(value)
        except BadField as bad:
            problems.append(Item(where, problem=Problem(where, bad.field, bad.reason)))
            continue
        first_line.setdefault(citing, where)
        by_citing.setdefault(citing, []).append(sentence)
    surname = cited_surname((s for group in by_citing.values() for s in group), year) if year else None
    titles = acl200_titles()
    found = list(problems)
    for citing, sentences in by_citing.items():
        where = first_line[citing]
        contexts = tuple(mark(s, surname, year) or s if year else s for s in sentences)
        found += [
            Item(where, record=Paper(id=citing, year=acl_year(citing), title=titles.get(citing))),
            Item(where, record=Citation(citing, Reference(cited, contexts=contexts))),
        ]
    yield from sorted(found, key=lambda item: item.where.line)
