"""Every statement of ``citegraph/cypher/**`` (the Browser query pack included) is checked by
Neo4j's own Cypher front-end: the parser and semantic analysis Neo4j ships as the npm
package ``@neo4j-cypher/language-support``, pinned in ``tools/cypher-lint/``.

ArcadeDB accepting a statement does not prove Neo4j 5 runs it (ArcadeDB still takes
``exists(n.prop)``, for one). The linter is given the parameters each header declares and
the graph's labels, relationship types and property keys, so it reports syntax and
semantic errors, deprecations, misspelt labels and properties and undeclared parameters.
It also checks the access mode each header declares against Neo4j's parse tree (an
updating clause or command needs ``Mode: write``; a ``SET`` inside a string literal is not
one). Any error fails, and any warning not in ``tools/cypher-lint/allowed.toml`` (where each
entry says why it is accepted).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import pytest

from citegraph.graph import queries
from citegraph.graph.model import GRAPH

LINT = Path(__file__).resolve().parents[1] / "tools" / "cypher-lint"
ALLOWED = LINT / "allowed.toml"


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """What the linter may assume the graph holds (its DbSchema, whose keys the fields are named after)."""

    labels: list[str]
    relationshipTypes: list[str]
    propertyKeys: list[str]


@cache
def graph_vocabulary() -> Vocabulary:
    """The graph's labels, relationship types and property keys, from the declarative graph
    model (``citegraph/graph/model.py``): a misspelling inside a write statement is caught
    too, and tests/test_graph_model.py checks that the write statements set what it declares."""
    labels = {node.label for node in GRAPH.nodes} | {GRAPH.stub_label}
    types = {relationship.type for relationship in GRAPH.relationships}
    keys = {node.key.name for node in GRAPH.nodes} | {
        prop.name for element in (*GRAPH.nodes, *GRAPH.relationships) for prop in element.properties
    }
    return Vocabulary(sorted(labels), sorted(types), sorted(keys))


@dataclass(frozen=True, slots=True)
class Statement:
    name: str  # the query name, e.g. signals/pair_counts
    index: int  # which statement of its file, from 0
    text: str
    parameters: dict[str, str]  # declared name → type
    mode: str = "read"  # declared access mode


@dataclass(frozen=True, slots=True)
class Finding:
    name: str
    index: int
    severity: str  # 'error' or 'warning'
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return (
            f"cypher/{self.name}.cypher statement {self.index + 1}, line {self.line}:{self.column}: "
            f"{self.severity}: {self.message}"
        )


def every_statement() -> list[Statement]:
    """Each statement of each query file, as citegraph's loader splits it, with the
    parameters its header declares."""
    found = []
    for name in queries.names():
        query = queries.load(name)
        declared = {p.name: p.type for p in query.parameters.values()}
        found += [Statement(name, i, text, declared, query.mode) for i, text in enumerate(query.statements)]
    return found


@pytest.fixture(scope="module")
def linter() -> None:
    """``npm ci`` of the pinned package, run again only when the lock file changes."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not (npm and node):
        pytest.skip("node and npm are needed for the Neo4j Cypher lint (tools/cypher-lint); install Node.js")
    installed = LINT / "node_modules" / ".package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < (LINT / "package-lock.json").stat().st_mtime:
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=LINT, check=True, capture_output=True)


def lint(statements: list[Statement], vocabulary: Vocabulary) -> list[Finding]:
    job = {"schema": asdict(vocabulary), "statements": [asdict(s) for s in statements]}
    done = subprocess.run(
        ["node", str(LINT / "lint.mjs")], input=json.dumps(job), capture_output=True, text=True, check=True
    )
    return [Finding(**f) for f in json.loads(done.stdout)]


def allowed() -> list[dict]:
    entries = tomllib.loads(ALLOWED.read_text(encoding="utf-8")).get("allow", [])
    for entry in entries:
        assert entry.get("reason", "").strip(), f"{ALLOWED}: the entry for {entry.get('query')} gives no reason"
    return entries


def is_allowed(finding: Finding, entries: list[dict]) -> bool:
    return finding.severity == "warning" and any(
        e["query"] == finding.name and e["message"] in finding.message for e in entries
    )


def test_every_query_passes_neo4j_front_end(linter):
    statements = every_statement()
    assert len({s.name for s in statements}) == len(queries.names())
    entries = allowed()
    findings = lint(statements, graph_vocabulary())
    unexpected = [str(f) for f in findings if not is_allowed(f, entries)]
    assert not unexpected, "Neo4j's Cypher front-end reports:\n" + "\n".join(unexpected)
    unused = [e["query"] for e in entries if not any(is_allowed(f, [e]) for f in findings)]
    assert not unused, f"{ALLOWED}: entries no finding needs any more: {unused}"


def test_vocabulary_is_the_graphs():
    vocabulary = graph_vocabulary()
    assert {"Paper", "External", "Author", "Field", "ArxivCategory", "AcmConcept", "Topic", "IngestCheckpoint"} == set(
        vocabulary.labels
    )
    assert {"CITES", "WROTE", "IN_FIELD", "IN_CATEGORY", "BROADER", "MAPS_TO", "BROADER_TOPIC", "IN_TOPIC"} == set(
        vocabulary.relationshipTypes
    )
    assert {
        "id",
        "title",
        "abstract",
        "year",
        "citation_count",
        "eligible",
        "contexts",
        "n_contexts",
        "code",
        "alt_labels",
        "key",
        "position",
    } <= set(vocabulary.propertyKeys)


SEEDED = {  # a fault Neo4j 5 rejects or warns about → what the linter must say
    "MATCH (p:Paper) WHERE exists(p.abstract) RETURN p.id": "error: The property existence syntax",
    "MATCH (p:Paper) RETURN q.id": "error: Variable `q` not defined",
    "MATCH (p:Paper) RETURN id(p)": "warning: The query used a deprecated function. ('id'",
    "MATCH (p:Papr) RETURN p.id": "warning: Label Papr is not present in the database",
    "MATCH (p:Paper)-[:CITE]->(c:Paper) RETURN c.id": "warning: Relationship type CITE is not present",
    "MATCH (p:Paper) RETURN p.yaer": "warning: yaer is not present in the database",
    "MATCH (p:Paper {id: $id}) RETURN p.title, $limit": "error: Parameter $limit is not defined.",
    "MATCH (p:Paper) RETURN levenshtein(p.title, 'x')": "error: Function levenshtein is not present",
    "MATCH (p:Paper {id: $id}) SET p.eligible = true": "error: the header declares Mode: read but Neo4j's parser "
    "finds setClause",
    "CREATE INDEX paper_title IF NOT EXISTS FOR (p:Paper) ON (p.title)": "error: the header declares Mode: read but "
    "Neo4j's parser finds createCommand",
    "MATCH (p:Paper) CALL (p) { DETACH DELETE p } IN TRANSACTIONS": "error: CALL { } IN TRANSACTIONS commits by itself",
}
#: Statements declared ``Mode: read`` that Neo4j's front-end must accept as reads.
READS = (
    "MATCH (p:Paper) WHERE p.title = 'SET p.title = 1; DELETE p' RETURN p.id",
    "MATCH (p:Paper) // MERGE (q:Paper)\nRETURN p.id AS `CREATE`",
)


@pytest.fixture(scope="module")
def seeded(linter) -> dict[str, list[str]]:
    """The linter's findings on each seeded fault (one node run for all)."""
    texts = list(SEEDED)
    findings = lint(
        [Statement("seeded", i, text, {"id": "string"}) for i, text in enumerate(texts)], graph_vocabulary()
    )
    return {text: [f"{f.severity}: {f.message}" for f in findings if f.index == i] for i, text in enumerate(texts)}


@pytest.mark.parametrize("text", list(SEEDED))
def test_lint_reports_what_neo4j_rejects(seeded, text):
    """The lint can fail: each seeded fault is reported."""
    assert any(found.startswith(SEEDED[text]) for found in seeded[text]), seeded[text]


def test_the_declared_mode_is_checked_against_the_parse_tree_not_keywords(linter):
    """Update keywords inside a string literal, a comment or a name are no write; a read
    declared as a write is refused too (it would be routed to the leader)."""
    reads = [Statement("reads", i, text, {}) for i, text in enumerate(READS)]
    assert lint(reads, graph_vocabulary()) == []
    [wrongly_written] = lint([Statement("w", 0, READS[0], {}, "write")], graph_vocabulary())
    assert wrongly_written.message.startswith("the header declares Mode: write but Neo4j's parser finds no update")
