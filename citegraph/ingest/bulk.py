"""Bulk ingest into an empty graph: ArcadeDB's batch loader, or CSV files for neo4j-admin.

The streaming ingest (:func:`citegraph.ingest.pipeline.ingest`) MERGEs batch after batch
over Bolt, which is what makes it resumable and safe on a populated graph, and what made
it take 433 s for 200k papers / 2M citations into ArcadeDB here: every MERGE is an index
lookup and a transaction's worth of bookkeeping. A *fresh* graph needs none of that. The bulk path builds the whole graph
first and hands it to the database's own bulk loader:

1. **Read once.** The input is validated by the pipeline's own validation, unchanged (same
   errors, same rejects file with ``skip_bad``), while a builder files every record it
   reads: ids become dense integers, relationships integer arrays, texts go to spill
   files in a work folder. Bad input raises before anything reaches the database.
2. **Finish** in numpy: relationships are deduplicated as the streaming MERGEs would
   (a repeated CITES keeps the last non-null ``contexts``/``sections``/``n_contexts``,
   a repeated WROTE the last ``position``), self-citations are dropped, and
   ``citation_count`` (inbound CITES) is one ``bincount``: under a second for 200k
   papers / 2M citations, where the streaming writer's batched Cypher recount takes 6 s
   after the load (``benchmarks/ingest.py``, case ``recount``).
3. **Load.**
   *ArcadeDB* (:func:`bulk_ingest`): the server closes the database, a child process
   opens its files with the ``arcadedb-embedded`` wheel and creates every vertex and
   edge through ArcadeDB's ``GraphBatch`` (the engine's bulk graph API, which its own
   Neo4j importer uses too), and the server reopens it. A child process, because the
   wheel starts a JVM through JPype and pyserini's JVM (pyjnius) cannot share a process
   with it. ArcadeDB's ``IMPORT DATABASE`` of the same graph as Neo4j-export JSONL on the
   running server is slower (45 s against 33 s for 200k/2M, case ``import`` of the
   benchmark: it parses the whole file three times; through the HTTP API it also needs
   ``autoCommit`` off, or it runs out of a 4 GB heap) and cannot give the same graph: it
   sets ``id`` on every vertex and puts every type under a common supertype with a
   unique index on ``id``.
   *Neo4j* (:func:`export_neo4j_admin`): header and data CSV files and the
   ``neo4j-admin database import full`` command that loads them.
4. **Complete** over Bolt with the same Cypher as the streaming ingest
   (:func:`complete_import`): the MDCR prefilter, then the schema of
   ``cypher/schema.cypher``, whose indexes are so built once from the loaded data.

Memory: the builder keeps every paper id (cited ones included) and author id in a dict
(an int each), and int64 arrays per relationship, which numpy sorts to merge them; the
Python process peaked at 0.45 GiB for 200k papers / 2M citations and 3.2 GiB for 2M / 20M
(benchmarks/README.md). Titles, abstracts and contexts only pass through the spill files,
except the properties of a paper given by more than one record, which are merged in
memory. The loader's JVM filled a 4 GB heap at 200k/2M and needed 8 GB at 2M/20M
(``bulk_ingest(..., heap="8g")``).
"""

from __future__ import annotations

import csv
import json
import shlex
import subprocess
import sys
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice, repeat
from pathlib import Path

import numpy as np

from ..errors import CitegraphError, ServerError
from ..graph import ArcadeServer, GraphStore, Write
from ..graph.arcadedb import DATABASE
from ..graph.schema import apply_schema
from . import pipeline
from .formats import Format
from .pipeline import ExternalPolicy, IngestOptions, IngestSummary, NoProgress, Progress, prefilter
from .records import AcmConcept, ArxivCategory, CategoryMapping, Citation, Field, Item, Paper, Record, Reference
from .writer import WriteStats

STUB_TYPE = "External~Paper"  # what ArcadeDB's Cypher calls the type of a (:Paper:External) node
STUB_PARENTS = ("External", "Paper")
ARRAY_DELIMITER = "\x1f"  # ASCII unit separator: between array elements in the neo4j-admin CSV files
_CHUNK = 100_000  # vertices or edges per GraphBatch call
# GraphBatch commits every this many records: with its default (one commit per flush) the
# update of every vertex's edge-list heads at close ran out of an 8 GB heap at 2M papers /
# 20M citations; with it the load takes 8 GB and scales linearly from 200k/2M.
_COMMIT_EVERY = 50_000
_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


@dataclass(frozen=True, slots=True)
class VertexGroup:
    """Nodes of one label set, in the order of their indices within ``space``; each row is
    a JSON object of the node's properties (JSON text, as the ArcadeDB loader sends it)."""

    space: str  # 'paper', 'author', 'field', 'category' or 'concept': what edges index into
    type: str  # ArcadeDB vertex type
    labels: tuple[str, ...]
    count: int
    rows: Iterator[str]


@dataclass(frozen=True, slots=True)
class EdgeGroup:
    """Relationships of one type: ``pairs[0]`` indexes ``source``'s space, ``pairs[1]`` ``target``'s."""

    name: str  # of the group's files
    type: str
    source: str
    target: str
    pairs: np.ndarray  # int64, shape (2, n)
    props: Iterator[dict] | None  # one map per pair, or none at all


# -- 1. read once: records → ids, integer arrays and spill files ------------------------
def _ints(values: array) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int64).copy() if len(values) else np.zeros(0, np.int64)


def _index(keys: dict[str, int], key: str) -> int:
    found = keys.get(key)
    if found is None:
        found = keys[key] = len(keys)
    return found


def _cite_props(ref: Reference) -> dict:
    """The CITES properties a reference sets, as ingest/cites does (empty lists are null)."""
    props: dict = {}
    if ref.contexts:
        props["contexts"] = list(ref.contexts)
    if ref.sections:
        props["sections"] = list(ref.sections)
    if ref.n_contexts is not None:
        props["n_contexts"] = ref.n_contexts
    return props


class _Builder:
    """Files records as they are read; :meth:`finish` turns them into a :class:`CompactGraph`.

    Paper-space indices count paper ids in the order they are first met, as a paper or as
    a citation end; ``paper_row`` says which line of ``papers.jsonl`` holds a paper's
    first record (-1 while the id is only cited: a stub).
    """

    def __init__(self, work: Path):
        self.work = work
        self.papers: dict[str, int] = {}
        self.paper_row = array("q")
        self.rows = 0
        self.updates: dict[int, dict] = {}  # row → properties from later records of the same paper
        self.authors: dict[str, int] = {}
        self.fields: dict[str, int] = {}
        self.categories: dict[str, int] = {}
        self.category_props: dict[int, dict] = {}
        self.concepts: dict[str, int] = {}
        self.concept_props: dict[int, dict] = {}
        self.cites = array("q"), array("q")  # citing, cited: one entry per reference read
        self.cite_props = array("q")  # which entries of ``cites`` carry properties (spilled in order)
        self.wrote = array("q"), array("q"), array("q")  # author, paper, position
        self.in_field = array("q"), array("q")
        self.in_category = array("q"), array("q")
        self.broader = array("q"), array("q")
        self.maps_to = array("q"), array("q")
        self.stats = WriteStats()
        self._papers_out = open(work / "papers.jsonl", "w", encoding="utf-8")
        self._authors_out = open(work / "authors.jsonl", "w", encoding="utf-8")
        self._props_out = open(work / "cites_props.jsonl", "w", encoding="utf-8")
        self._add = {Paper: self._paper, Citation: self._citation, Field: self._field,
                     ArxivCategory: self._category, AcmConcept: self._concept, CategoryMapping: self._mapping}

    def add(self, record: Record) -> None:
        self.stats.records[type(record).__name__] += 1
        self._add[type(record)](record)

    def _paper_index(self, paper_id: str) -> int:
        found = self.papers.get(paper_id)
        if found is None:
            found = self.papers[paper_id] = len(self.paper_row)
            self.paper_row.append(-1)
        return found

    def _paper(self, paper: Paper) -> None:
        i = self._paper_index(paper.id)
        row = self.paper_row[i]
        if row < 0:
            self.paper_row[i] = self.rows
            self.rows += 1
            self._papers_out.write(_encode({"id": paper.id, **paper.props()}) + "\n")
        else:  # papers.cypher: SET p += props, so a later record's non-null values win
            self.updates.setdefault(row, {}).update(paper.props())
        for name in paper.fields:
            self.in_field[0].append(i)
            self.in_field[1].append(_index(self.fields, name))
        for code in paper.categories:
            self.in_category[0].append(i)
            self.in_category[1].append(_index(self.categories, code))
        for position, author in enumerate(paper.authors):
            a = self.authors.get(author.id)
            if a is None:  # paper_authors.cypher: ON CREATE SET name, so the first name stays
                a = self.authors[author.id] = len(self.authors)
                self._authors_out.write(_encode({"id": author.id, "name": author.name}) + "\n")
            self.wrote[0].append(a)
            self.wrote[1].append(i)
            self.wrote[2].append(position)
        for ref in paper.references:
            self._cite(i, paper.id, ref)

    def _citation(self, citation: Citation) -> None:
        self._cite(self._paper_index(citation.citing_id), citation.citing_id, citation.reference)

    def _cite(self, citing: int, citing_id: str, ref: Reference) -> None:
        if ref.cited_id == citing_id:
            self.stats.self_citations += 1
            return
        self.stats.citations += 1
        self.cites[0].append(citing)
        self.cites[1].append(self._paper_index(ref.cited_id))
        if props := _cite_props(ref):
            self.cite_props.append(len(self.cites[0]) - 1)
            self._props_out.write(_encode(props) + "\n")

    def _field(self, record: Field) -> None:
        _index(self.fields, record.name)

    def _category(self, c: ArxivCategory) -> None:
        values = {"name": c.name, "archive": c.archive, "group": c.group, "group_name": c.group_name,
                  "active": c.active}
        self.category_props[_index(self.categories, c.code)] = {k: v for k, v in values.items() if v is not None}

    def _concept(self, c: AcmConcept) -> None:
        i = _index(self.concepts, c.code)
        props = self.concept_props.setdefault(i, {})
        props.update({"scheme": c.scheme, "alt_labels": list(c.alt_labels)})
        if c.label is not None:  # acm_concepts.cypher: label = coalesce(new, old)
            props["label"] = c.label
        for code in c.broader:
            self.broader[0].append(i)
            self.broader[1].append(_index(self.concepts, code))

    def _mapping(self, m: CategoryMapping) -> None:
        c = _index(self.categories, m.category)
        for code in m.acm_codes:
            self.maps_to[0].append(c)
            self.maps_to[1].append(_index(self.concepts, code))

    def close(self) -> None:
        for f in (self._papers_out, self._authors_out, self._props_out):
            f.close()

    # -- 2. finish --------------------------------------------------------------------
    def finish(self, external: ExternalPolicy) -> CompactGraph:
        """Renumber papers (full papers in record order, then stubs), merge relationships
        and count citations; writes the arrays and a manifest beside the spill files."""
        self.close()
        row = _ints(self.paper_row)
        stubs = np.flatnonzero(row < 0)
        new = row.copy()  # paper-space index → final index
        new[stubs] = self.rows + np.arange(stubs.size)
        n = self.rows + (stubs.size if external == "keep" else 0)
        ids: list[str | None] = [None] * (self.rows + stubs.size)
        for paper_id, i in zip(self.papers, new.tolist()):
            ids[i] = paper_id
        (self.work / "paper_ids.json").write_text(_encode(ids[:n]), encoding="utf-8")

        arrays = {
            **self._cites(new, n),
            "wrote": self._wrote(new, n),
            "in_field": _unique_pairs(new[_ints(self.in_field[0])], _ints(self.in_field[1])),
            "in_category": _unique_pairs(new[_ints(self.in_category[0])], _ints(self.in_category[1])),
            "broader": _unique_pairs(_ints(self.broader[0]), _ints(self.broader[1])),
            "maps_to": _unique_pairs(_ints(self.maps_to[0]), _ints(self.maps_to[1])),
        }
        for name, values in arrays.items():
            np.save(self.work / f"{name}.npy", values)
        manifest = {
            "papers": self.rows, "stubs": n - self.rows, "stubs_found": int(stubs.size),
            "authors": len(self.authors), "fields": list(self.fields),
            "categories": [{"code": code, **self.category_props.get(i, {})} for code, i in self.categories.items()],
            "concepts": [{"code": code, **self.concept_props.get(i, {})} for code, i in self.concepts.items()],
            "updates": {str(r): props for r, props in self.updates.items()},
            "stats": {"records": dict(self.stats.records), "citations": self.stats.citations,
                      "self_citations": self.stats.self_citations},
        }
        (self.work / "manifest.json").write_text(_encode(manifest), encoding="utf-8")
        return CompactGraph(self.work, manifest)

    def _cites(self, new: np.ndarray, n: int) -> dict[str, np.ndarray]:
        """One CITES per (citing, cited) among the ``n`` papers kept; ``citation_count``.

        Edges without properties go to ``cites``; the others to ``cites_with_props``, in
        the order in which their last spilled properties line comes, which is when
        :meth:`CompactGraph._merged_cite_props` can yield their merged properties. For
        that merge, ``prop_group`` maps every spilled line to its edge (-1: dropped with
        a stub) and ``props_per_group`` counts each edge's lines.
        """
        citing, cited = new[_ints(self.cites[0])], new[_ints(self.cites[1])]
        kept = np.flatnonzero((citing < n) & (cited < n))  # with external='drop': no edge to or from a stub
        key = citing[kept] * n + cited[kept]
        order = np.argsort(key, kind="stable")
        first = np.r_[True, key[order][1:] != key[order][:-1]] if key.size else np.zeros(0, bool)
        group = np.empty(kept.size, np.int64)
        group[order] = np.cumsum(first) - 1
        edges = kept[order[first]]  # each edge's first reference
        edge_citing, edge_cited = citing[edges], cited[edges]

        group_of = np.full(citing.size, -1, np.int64)
        group_of[kept] = group
        prop_group = group_of[_ints(self.cite_props)]
        lines = np.flatnonzero(prop_group >= 0)
        per_group = np.bincount(prop_group[lines], minlength=edges.size)
        last_groups, last_at = np.unique(prop_group[lines][::-1], return_index=True)
        with_props = last_groups[np.argsort(lines[::-1][last_at])]
        plain = per_group == 0
        return {"citation_count": np.bincount(edge_cited, minlength=n),
                "cites": np.stack([edge_citing[plain], edge_cited[plain]]),
                "cites_with_props": np.stack([edge_citing[with_props], edge_cited[with_props]]),
                "prop_group": prop_group, "props_per_group": per_group}

    def _wrote(self, new: np.ndarray, n: int) -> np.ndarray:
        """One WROTE per (author, paper) with the position of its last mention, as
        ``SET w.position`` leaves it; rows author, paper, position."""
        a, p, position = (_ints(v) for v in self.wrote)
        p = new[p]
        key = a * max(n, 1) + p
        order = np.argsort(key, kind="stable")
        last = order[np.r_[key[order][1:] != key[order][:-1], True]] if a.size else np.zeros(0, np.int64)
        return np.stack([a[last], p[last], position[last]])


def _unique_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not a.size:
        return np.zeros((2, 0), np.int64)
    width = int(b.max()) + 1
    key = np.unique(a * width + b)
    return np.stack([key // width, key % width])


@dataclass(frozen=True, slots=True)
class CompactGraph:
    """A finished graph in a work folder: what a loader reads, in whichever process."""

    work: Path
    manifest: dict

    @classmethod
    def open(cls, work: Path) -> CompactGraph:
        return cls(Path(work), json.loads((Path(work) / "manifest.json").read_text(encoding="utf-8")))

    def _array(self, name: str) -> np.ndarray:
        return np.load(self.work / f"{name}.npy")

    def paper_ids(self) -> list[str]:
        """Final index → paper id (stubs after full papers)."""
        return json.loads((self.work / "paper_ids.json").read_text(encoding="utf-8"))

    def _papers(self, counts: np.ndarray) -> Iterator[str]:
        """Spilled paper rows with their citation_count appended as text (parsing and
        re-encoding every row took a fifth of the load); merged where a paper had more
        than one record."""
        updates = self.manifest["updates"]
        with open(self.work / "papers.jsonl", encoding="utf-8") as f:
            for row, (line, count) in enumerate(zip(f, counts.tolist())):
                if str(row) in updates:
                    yield _encode({**json.loads(line), **updates[str(row)], "citation_count": count})
                else:  # a row is an object with an id, ending in '}\n'
                    yield f'{line[:-2]},"citation_count":{count}}}'

    def _stubs(self, counts: np.ndarray) -> Iterator[str]:
        papers = self.manifest["papers"]
        for paper_id, count in zip(self.paper_ids()[papers:], counts[papers:].tolist()):
            yield _encode({"id": paper_id, "citation_count": count})

    def _authors(self) -> Iterator[str]:
        with open(self.work / "authors.jsonl", encoding="utf-8") as f:
            for line in f:
                yield line[:-1]

    def vertices(self) -> list[VertexGroup]:
        m, counts = self.manifest, self._array("citation_count")
        return [group for group in [
            VertexGroup("paper", "Paper", ("Paper",), m["papers"], self._papers(counts)),
            VertexGroup("paper", STUB_TYPE, ("Paper", "External"), m["stubs"], self._stubs(counts)),
            VertexGroup("author", "Author", ("Author",), m["authors"], self._authors()),
            VertexGroup("field", "Field", ("Field",), len(m["fields"]), (_encode({"name": f}) for f in m["fields"])),
            VertexGroup("category", "ArxivCategory", ("ArxivCategory",), len(m["categories"]),
                        map(_encode, m["categories"])),
            VertexGroup("concept", "AcmConcept", ("AcmConcept",), len(m["concepts"]), map(_encode, m["concepts"])),
        ] if group.count]

    def _merged_cite_props(self) -> Iterator[dict]:
        """CITES properties in the order of ``cites_with_props``: each edge's spilled lines
        merged as successive ``coalesce(new, old)`` SETs would, yielded at its last line."""
        prop_group, remaining = self._array("prop_group"), self._array("props_per_group")
        pending: dict[int, dict] = {}
        with open(self.work / "cites_props.jsonl", encoding="utf-8") as f:
            for line, group in zip(f, prop_group.tolist()):
                if group < 0:
                    continue
                props = json.loads(line)
                if group in pending:
                    props = pending.pop(group) | props
                remaining[group] -= 1
                if remaining[group]:
                    pending[group] = props
                else:
                    yield props

    def edges(self) -> list[EdgeGroup]:
        wrote = self._array("wrote")
        return [group for group in [
            EdgeGroup("cites", "CITES", "paper", "paper", self._array("cites"), None),
            EdgeGroup("cites_with_contexts", "CITES", "paper", "paper", self._array("cites_with_props"),
                      self._merged_cite_props()),
            EdgeGroup("wrote", "WROTE", "author", "paper", wrote[:2], ({"position": p} for p in wrote[2].tolist())),
            EdgeGroup("in_field", "IN_FIELD", "paper", "field", self._array("in_field"), None),
            EdgeGroup("in_category", "IN_CATEGORY", "paper", "category", self._array("in_category"), None),
            EdgeGroup("broader", "BROADER", "concept", "concept", self._array("broader"), None),
            EdgeGroup("maps_to", "MAPS_TO", "category", "concept", self._array("maps_to"), None),
        ] if group.pairs.shape[1]]

    def write_stats(self) -> WriteStats:
        stats = self.manifest["stats"]
        return WriteStats(nodes_created=sum(g.count for g in self.vertices()),
                          relationships_created=sum(g.pairs.shape[1] for g in self.edges()),
                          external_created=self.manifest["stubs_found"], self_citations=stats["self_citations"],
                          citations=stats["citations"], records=Counter(stats["records"]))


class _Tee:
    """Stands in for the format in the pipeline's validation, handing every record read
    to the builder, so that one read both validates and builds."""

    def __init__(self, fmt: Format, builder: _Builder):
        self.fmt, self.builder = fmt, builder

    def read(self, file: Path) -> Iterator[Item]:
        for item in self.fmt.read(file):
            if item.record is not None:
                self.builder.add(item.record)
            yield item


def _build(fmt: Format, files: list[Path], options: IngestOptions, progress: Progress, summary: IngestSummary,
           work: Path) -> tuple[CompactGraph, dict[Path, int]]:
    builder = _Builder(work)
    try:
        lines = pipeline.validate(_Tee(fmt, builder), files, options, progress, summary)
    finally:
        builder.close()
    summary.lines = sum(lines.values())
    return builder.finish(options.external), lines


def complete_import(store: GraphStore, options: IngestOptions = IngestOptions()) -> dict[str, int]:
    """After a bulk load: the schema, then the MDCR prefilter; returns the prefilter counts.
    Run it on Neo4j too, after ``neo4j-admin``.

    The schema comes first because the prefilter finds its papers by id, in batches (one
    statement over millions of papers deadlocks on ArcadeDB): without the unique index
    every lookup would scan.
    """
    apply_schema(store)
    return prefilter(store, options.prefilter)


# -- 3a. ArcadeDB -----------------------------------------------------------------------
def bulk_ingest(server: ArcadeServer, store: GraphStore, fmt: Format, paths: list[Path],
                options: IngestOptions = IngestOptions(), progress: Progress | None = None,
                *, heap: str | None = None) -> IngestSummary:
    """Load ``paths`` into the empty graph of the embedded ``server`` (``store`` speaks to it).

    Produces the graph the streaming :func:`~citegraph.ingest.pipeline.ingest` would,
    marks the files ingested (so a streaming ingest of them skips them) and returns the
    same summary. ``heap`` is the loader's JVM heap (default: the server's, else 4g).
    ``options.batch_size`` and ``restart`` do not apply. Raises before touching the
    database if the graph is not empty or the input is bad.
    """
    progress = progress or NoProgress()
    started = time.perf_counter()
    summary = IngestSummary(format=fmt.name)
    files = [file for path in paths for file in fmt.files(Path(path))]
    summary.files = len(files)
    if store.value("bulk/any_node"):
        raise CitegraphError("the bulk ingest loads an empty graph only, and this one holds nodes: "
                             "ingest without --bulk, or start from an empty database")
    database = store.database or DATABASE
    with tempfile.TemporaryDirectory(prefix="bulk-", dir=server.home) as work:
        graph, lines = _build(fmt, files, options, progress, summary, Path(work))
        progress.start("loading", None)
        try:
            loaded = _load_arcadedb(server, database, graph, heap or server.heap)
        finally:
            progress.finish()
        summary.write = graph.write_stats()
    expected = {"vertices": summary.write.nodes_created, "edges": summary.write.relationships_created}
    if loaded != expected:
        raise ServerError(f"the ArcadeDB bulk loader created {loaded} where the graph has {expected}: "
                          "recreate the database and report this")
    if options.external == "drop":
        summary.external_dropped = summary.write.external_created
    summary.eligibility = complete_import(store, options)
    store.write(*(Write("ingest/checkpoint_set", {"key": pipeline.checkpoint_key(fmt, file), "file": str(file),
                                                  "line": lines[file], "done": True}) for file in files))
    summary.seconds = time.perf_counter() - started
    return summary


def _load_arcadedb(server: ArcadeServer, database: str, graph: CompactGraph, heap: str | None) -> dict:
    """Close the database on the server, load it in a child process, reopen it.

    The child runs in the server's home because ArcadeDB writes its log to ./log.
    """
    log = graph.work / "loader.log"
    command = [sys.executable, "-m", __name__, str(graph.work), str(server.home / "databases" / database), heap or ""]
    server.server_command(f"close database {database}")
    try:
        with open(log, "w") as stderr:
            done = subprocess.run(command, stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=server.home,
                                  check=False)
    finally:
        server.server_command(f"open database {database}")
    if done.returncode:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise ServerError(f"the ArcadeDB bulk loader failed (exit {done.returncode}); the database may hold part "
                          f"of the graph, so recreate it before trying again. Last lines of its log:\n{tail}")
    return json.loads(done.stdout.splitlines()[-1])


def _create_types(schema, vertex_types: set[str], edge_types: set[str]) -> None:
    """The types a Cypher CREATE would have made: one per label set, the stub type under both labels."""
    for name in sorted(vertex_types - {STUB_TYPE}):
        schema.get_or_create_vertex_type(name)
    if STUB_TYPE in vertex_types and not schema.exists_type(STUB_TYPE):
        stub = schema.create_vertex_type(STUB_TYPE)
        for parent in STUB_PARENTS:
            schema.get_or_create_vertex_type(parent)
            stub.addSuperType(parent)
    for name in sorted(edge_types):
        schema.get_or_create_edge_type(name)


def load_into_arcadedb(work: Path, database: Path, heap: str | None = None) -> dict[str, int]:
    """Load the compact graph in ``work`` into the ArcadeDB database files at ``database``
    (closed by every server) through ``GraphBatch``; runs in the loader's own process.
    Returns how many vertices and edges ArcadeDB says it created.

    Rows cross into Java as one JSON text per chunk through the wheel's bridge classes
    (``VertexBatcher``, ``EdgeBatcher``; the wheel is pinned to one version): the
    wheel's Python wrappers would fall back to one JPype call per edge for list-valued
    properties such as ``contexts``.
    """
    import arcadedb_embedded as arcadedb
    import jpype

    graph = CompactGraph.open(work)
    db = arcadedb.open_database(str(database), jvm_kwargs={"heap_size": heap} if heap else None)
    try:
        vertices, edges = graph.vertices(), graph.edges()
        _create_types(db.schema, {g.type for g in vertices}, {g.type for g in edges})
        vertex_batcher = jpype.JClass("com.arcadedb.python.VertexBatcher")
        edge_batcher = jpype.JClass("com.arcadedb.python.EdgeBatcher")
        batch = (db.get_java_database().batch().withBidirectional(True).withCommitEvery(_COMMIT_EVERY)
                 .withExpectedEdgeCount(sum(g.pairs.shape[1] for g in edges)).build())
        rids: dict[str, list[str]] = {}  # per space: index → RID
        for group in vertices:
            space = rids.setdefault(group.space, [])
            while chunk := list(islice(group.rows, _CHUNK)):
                rows = f"[{','.join(chunk)}]"
                space.extend(str(vertex_batcher.createVerticesJson(batch, group.type, rows)).split(";"))
        for group in edges:
            sources, targets = rids[group.source], rids[group.target]
            for lo in range(0, group.pairs.shape[1], _CHUNK):
                part = group.pairs[:, lo:lo + _CHUNK].tolist()
                if group.props is None:
                    edge_batcher.newEdgesJoined(batch, ";".join(sources[i] for i in part[0]), group.type,
                                                ";".join(targets[i] for i in part[1]))
                else:
                    rows = [{"_src": sources[s], "_dst": targets[t], **p}
                            for s, t, p in zip(part[0], part[1], group.props)]
                    edge_batcher.newEdgesJson(batch, group.type, _encode(rows))
        batch.close()
    finally:
        db.close()
    return {"vertices": sum(map(len, rids.values())), "edges": int(batch.getTotalEdgesCreated())}


# -- 3b. Neo4j: neo4j-admin database import full -----------------------------------------
# Columns of each node file and relationship file (name, neo4j-admin type). Integers are
# 'long' because that is what the driver writes for a Python int.
_NODE_COLUMNS = {
    "Paper": [("id", "ID(Paper)"), ("title", ""), ("abstract", ""), ("year", "long"), ("venue", ""), ("doi", ""),
              ("arxiv_id", ""), ("citation_count", "long")],
    STUB_TYPE: [("id", "ID(Paper)"), ("citation_count", "long")],
    "Author": [("id", "ID(Author)"), ("name", "")],
    "Field": [("name", "ID(Field)")],
    "ArxivCategory": [("code", "ID(ArxivCategory)"), ("name", ""), ("archive", ""), ("group", ""),
                      ("group_name", ""), ("active", "boolean")],
    "AcmConcept": [("code", "ID(AcmConcept)"), ("label", ""), ("scheme", ""), ("alt_labels", "string[]")],
}
_EDGE_COLUMNS = {"CITES": [("contexts", "string[]"), ("sections", "string[]"), ("n_contexts", "long")],
                 "WROTE": [("position", "long")]}
_ID_SPACES = {"paper": ("Paper", "id"), "author": ("Author", "id"), "field": ("Field", "name"),
              "category": ("ArxivCategory", "code"), "concept": ("AcmConcept", "code")}


@dataclass(frozen=True, slots=True)
class Neo4jAdminExport:
    """CSV files for ``neo4j-admin database import full`` and how to run it."""

    summary: IngestSummary
    database: str
    nodes: list[tuple[str, Path, Path]] = field(default_factory=list)  # labels 'A:B', header, data
    relationships: list[tuple[str, Path, Path]] = field(default_factory=list)  # type, header, data

    def command_for(self, mounted_at: str | None = None) -> list[str]:
        """The Neo4j 5 command; the database must not exist yet. Afterwards create it, and run
        :func:`complete_import` against it (schema and prefilter).

        ``mounted_at``: where the export folder is seen by neo4j-admin, e.g. ``/import`` in
        the docker-compose container (the files are named relative to it).
        """
        root = self.nodes[0][1].parent if self.nodes else None

        def seen(path: Path) -> str:
            return f"{mounted_at.rstrip('/')}/{path.relative_to(root)}" if mounted_at and root else str(path)

        return ["neo4j-admin", "database", "import", "full", self.database,
                f"--array-delimiter=U+{ord(ARRAY_DELIMITER):04X}", "--multiline-fields=true", "--id-type=string",
                *(f"--nodes={labels}={seen(header)},{seen(data)}" for labels, header, data in self.nodes),
                *(f"--relationships={kind}={seen(header)},{seen(data)}" for kind, header, data in self.relationships)]

    @property
    def command(self) -> list[str]:
        return self.command_for()

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)


def export_neo4j_admin(fmt: Format, paths: list[Path], out: Path, options: IngestOptions = IngestOptions(),
                       progress: Progress | None = None, *, database: str = "neo4j") -> Neo4jAdminExport:
    """Write the graph of ``paths`` as neo4j-admin CSV files (a header file and a data file
    per label set and relationship type) into ``out``.

    The files are RFC 4180 CSV in UTF-8: comma-separated, fields holding a comma, a quote
    or a line break are quoted, quotes doubled; texts keep their line breaks, hence
    ``--multiline-fields=true``. Array elements are separated by U+001F, which no
    citegraph text holds (export refuses one that does). Absent values are empty fields,
    which neo4j-admin leaves unset; so is an empty ``alt_labels`` list, which the
    streaming ingest stores as an empty list. ``eligible`` is not exported: run
    :func:`complete_import` on the imported database.
    """
    progress = progress or NoProgress()
    started = time.perf_counter()
    summary = IngestSummary(format=fmt.name)
    files = [file for path in paths for file in fmt.files(Path(path))]
    summary.files = len(files)
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bulk-", dir=out) as work:
        graph, _ = _build(fmt, files, options, progress, summary, Path(work))
        progress.start("writing CSV", None)
        try:
            export = _write_csv(graph, out, summary, database)
        finally:
            progress.finish()
        summary.write = graph.write_stats()
    if options.external == "drop":
        summary.external_dropped = summary.write.external_created
    summary.seconds = time.perf_counter() - started
    return export


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        for element in value:
            if ARRAY_DELIMITER in element:
                raise CitegraphError(f"cannot export {element[:80]!r} for neo4j-admin: it holds U+001F, "
                                     "the array delimiter")
        return ARRAY_DELIMITER.join(value)
    return str(value)


def _csv_pair(out: Path, stem: str, header: list[str]):
    header_file, data_file = out / f"{stem}.header.csv", out / f"{stem}.csv"
    with open(header_file, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerow(header)
    return header_file, data_file


def _write_csv(graph: CompactGraph, out: Path, summary: IngestSummary, database: str) -> Neo4jAdminExport:
    export = Neo4jAdminExport(summary, database)
    keys: dict[str, list[str]] = {"paper": graph.paper_ids()}
    for group in graph.vertices():
        columns = _NODE_COLUMNS[group.type]
        stem = group.type.replace("~", "_").lower()
        header_file, data_file = _csv_pair(out, stem, [f"{name}:{kind}" if kind else name for name, kind in columns])
        key = columns[0][0]
        space_keys = keys.setdefault(group.space, []) if group.space != "paper" else None
        with open(data_file, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            for row in map(json.loads, group.rows):
                if space_keys is not None:
                    space_keys.append(row[key])
                writer.writerow([_cell(row.get(name)) for name, _ in columns])
        export.nodes.append((":".join(group.labels), header_file, data_file))
    for group in graph.edges():
        extra = _EDGE_COLUMNS.get(group.type, []) if group.props is not None else []
        header = [f":START_ID({_ID_SPACES[group.source][0]})", f":END_ID({_ID_SPACES[group.target][0]})",
                  *(f"{name}:{kind}" for name, kind in extra)]
        header_file, data_file = _csv_pair(out, group.name, header)
        sources, targets = keys[group.source], keys[group.target]
        props = group.props if group.props is not None else repeat({})
        with open(data_file, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            for s, t, p in zip(group.pairs[0].tolist(), group.pairs[1].tolist(), props):
                writer.writerow([sources[s], targets[t], *(_cell(p.get(name)) for name, _ in extra)])
        export.relationships.append((group.type, header_file, data_file))
    return export


if __name__ == "__main__":  # the loader's process: python -m citegraph.ingest.bulk WORK DATABASE [HEAP]
    print(json.dumps(load_into_arcadedb(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] or None)))
