"""The bulk path's first half: read the records once into a compact graph in a work folder.

The streaming ingest (:func:`citegraph.ingest.pipeline.ingest`) MERGEs batch after batch
over Bolt, which is what makes it resumable and safe on a populated graph, and what made
it take 433 s for 200k papers / 2M citations into ArcadeDB here: every MERGE is an index
lookup and a transaction's worth of bookkeeping. A *fresh* graph needs none of that. The
bulk path (:mod:`citegraph.ingest.bulk`) builds the whole graph first, here, and hands it
to the database's own bulk loader (:mod:`citegraph.ingest.arcadedb_loader`, or the CSV
files of :mod:`citegraph.ingest.neo4j_admin`):

1. **Read once.** While the pipeline validates the input, a :class:`Builder` files every
   record it reads: ids become dense integers, relationships integer arrays, texts go to
   spill files in a work folder. Properties are the model's
   (:data:`citegraph.graph.model.GRAPH`), as the streaming writer sends them.
2. **Finish** in numpy: relationships are deduplicated as the streaming MERGEs would
   (a repeated CITES keeps the last non-null ``contexts``/``sections``/``n_contexts``,
   a repeated WROTE the last ``position``), self-citations are dropped, and
   ``citation_count`` (inbound CITES) is one ``bincount``: under a second for 200k
   papers / 2M citations, where the streaming writer's batched Cypher recount takes 6 s
   after the load (``benchmarks/ingest.py``, case ``recount``). The MDCR prefilter's
   ``eligible`` is decided here too, from what the reader gave and the counts, so the
   loader writes it with each paper: marking 2M loaded papers over Bolt afterwards took
   most of the 2M/20M bulk ingest (every paper record rewritten, the index updated).

Memory: the builder keeps every paper id (cited ones included) and author id in a dict
(an int each), and int64 arrays per relationship, which numpy sorts to merge them; the
Python process peaked at 0.45 GiB for 200k papers / 2M citations and 3.2 GiB for 2M / 20M
(benchmarks/README.md). Titles, abstracts and contexts only pass through the spill files,
except the properties of a paper given by more than one record, which are merged in
memory. (Just over 400 lines: the builder and the graph it finishes share one work-folder
layout, which is easier to keep right in one file.)
"""

from __future__ import annotations

import json
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CitegraphError
from ..graph import model
from . import pipeline
from .formats import Format
from .pipeline import ExternalPolicy, IngestOptions, IngestSummary, Prefilter, Progress
from .records import (
    AcmConcept,
    ArxivCategory,
    CategoryMapping,
    Citation,
    Field,
    Item,
    MergedId,
    Paper,
    Record,
    Reference,
    SnapshotPaper,
    record_type,
)
from .selection import Selection
from .topics import TopicTree, in_topic_props
from .writer import WriteStats

encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


@dataclass(frozen=True, slots=True)
class VertexGroup:
    """Nodes of one label set, in the order of their indices within ``space``; each row is
    a JSON object of the node's properties (JSON text, as the ArcadeDB loader sends it)."""

    space: str  # the label whose key edges index into: 'Paper' for papers and stubs alike
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


def _bools(values: array) -> np.ndarray:
    return np.frombuffer(values, dtype=np.int8).astype(bool) if len(values) else np.zeros(0, bool)


def _index(keys: dict[str, int], key: str) -> int:
    found = keys.get(key)
    if found is None:
        found = keys[key] = len(keys)
    return found


class Builder:
    """Files records as they are read; :meth:`finish` turns them into a :class:`CompactGraph`.

    Paper-space indices count paper ids in the order they are first met, as a paper or as
    a citation end; ``paper_row`` says which line of ``papers.jsonl`` holds a paper's
    first record (-1 while the id is only cited: a stub).
    """

    def __init__(self, work: Path, ingested: date, prefilter: Prefilter = Prefilter()):
        self.work = work
        self.prefilter = prefilter
        graph = model.GRAPH  # read when building, so that a property added to the model arrives
        self.paper, self.author, self.category, self.concept = map(
            graph.node, ("Paper", "Author", "ArxivCategory", "AcmConcept")
        )
        # every paper is new to the empty graph: it gets the run's date (papers.cypher: ON CREATE)
        self.run_props = {p.name: ingested.isoformat() for p in self.paper.properties if p.set_by == "run"}
        self.reference = graph.relationship("CITES")
        self.papers: dict[str, int] = {}
        self.paper_row = array("q")
        self.rows = 0
        # per row, what the prefilter reads (prefilter/mark): year given, title not blank, abstract length
        self.has_year, self.has_title, self.abstract_len = array("b"), array("b"), array("q")
        self.updates: dict[int, dict] = {}  # row → properties from later records of the same paper
        self.merges: list[tuple[str, str]] = []  # applied by Cypher after the load (ingest/merge_ids)
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
        self.topics = TopicTree()
        self.stats = WriteStats()
        self._papers_out = open(work / "papers.jsonl", "w", encoding="utf-8")
        self._authors_out = open(work / "authors.jsonl", "w", encoding="utf-8")
        self._props_out = open(work / "cites_props.jsonl", "w", encoding="utf-8")
        self._add: dict[type, Callable[[Any], None]] = {
            Paper: self._paper,
            Citation: self._citation,
            Field: self._field,
            ArxivCategory: self._category,
            AcmConcept: self._concept,
            CategoryMapping: self._mapping,
            MergedId: lambda m: self.merges.append((m.old_id, m.into_id)),
        }

    def add(self, record: Record) -> None:
        kind = record_type(record)
        self.stats.records[kind.__name__] += 1
        self._add[kind](record)

    def _paper_index(self, paper_id: str) -> int:
        found = self.papers.get(paper_id)
        if found is None:
            found = self.papers[paper_id] = len(self.paper_row)
            self.paper_row.append(-1)
        return found

    def _paper(self, paper: Paper) -> None:
        i = self._paper_index(paper.id)
        row = self.paper_row[i]
        values = self.paper.values(paper)
        if row < 0:
            row = self.paper_row[i] = self.rows
            self.rows += 1
            self._papers_out.write(encode({"id": paper.id, **values, **self.run_props}) + "\n")
            for criterion in (self.has_year, self.has_title, self.abstract_len):
                criterion.append(0)
        elif isinstance(paper, SnapshotPaper):  # a restated work replaces its edges too: Cypher's work
            raise CitegraphError(
                f"work {paper.id} is stated twice (a newer partition restates it): load the "
                "older partitions with --bulk, then ingest the newer ones without it"
            )
        else:  # papers.cypher: SET p += props, so a later record's non-null values win
            self.updates.setdefault(row, {}).update(values)
        if "year" in values:
            self.has_year[row] = 1
        if "title" in values:  # Cypher's trim(): whitespace at either end
            self.has_title[row] = values["title"].strip() != ""
        if "abstract" in values:
            self.abstract_len[row] = len(values["abstract"])
        for name in paper.fields:
            self.in_field[0].append(i)
            self.in_field[1].append(_index(self.fields, name))
        for code in paper.categories:
            self.in_category[0].append(i)
            self.in_category[1].append(_index(self.categories, code))
        self.topics.add(i, paper)
        for position, author in enumerate(paper.authors):
            a = self.authors.get(author.id)
            if a is None:  # paper_authors.cypher: ON CREATE SET name, so the first name stays
                a = self.authors[author.id] = len(self.authors)
                self._authors_out.write(encode({"id": author.id, **self.author.values(author)}) + "\n")
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
        if props := self.reference.values(ref):
            self.cite_props.append(len(self.cites[0]) - 1)
            self._props_out.write(encode(props) + "\n")

    def _field(self, record: Field) -> None:
        _index(self.fields, record.name)

    def _category(self, c: ArxivCategory) -> None:
        self.category_props[_index(self.categories, c.code)] = self.category.values(c)

    def _concept(self, c: AcmConcept) -> None:
        i = _index(self.concepts, c.code)
        # acm_concepts.cypher: SET c += props, so a later record's non-null values win
        self.concept_props.setdefault(i, {}).update(self.concept.values(c))
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
        (self.work / "paper_ids.json").write_text(encode(ids[:n]), encoding="utf-8")

        arrays = {
            **self._cites(new, n),
            "wrote": self._wrote(new, n),
            "in_field": _unique_pairs(new[_ints(self.in_field[0])], _ints(self.in_field[1])),
            "in_category": _unique_pairs(new[_ints(self.in_category[0])], _ints(self.in_category[1])),
            "broader": _unique_pairs(_ints(self.broader[0]), _ints(self.broader[1])),
            "maps_to": _unique_pairs(_ints(self.maps_to[0]), _ints(self.maps_to[1])),
        }
        arrays["eligible"] = self._eligible(arrays["citation_count"][: self.rows])
        topics = self.topics.finish(new, self.work)
        for name, values in arrays.items():
            np.save(self.work / f"{name}.npy", values)
        manifest = {
            "papers": self.rows,
            "stubs": n - self.rows,
            "stubs_found": int(stubs.size),
            "authors": len(self.authors),
            "fields": list(self.fields),
            "categories": [{"code": code, **self.category_props.get(i, {})} for code, i in self.categories.items()],
            "concepts": [{"code": code, **self.concept_props.get(i, {})} for code, i in self.concepts.items()],
            "topics": topics,
            "updates": {str(r): props for r, props in self.updates.items()},
            "merges": self.merges,
            "stats": {
                "records": dict(self.stats.records),
                "citations": self.stats.citations,
                "self_citations": self.stats.self_citations,
            },
        }
        (self.work / "manifest.json").write_text(encode(manifest), encoding="utf-8")
        return CompactGraph(self.work, manifest)

    def _eligible(self, counts: np.ndarray) -> np.ndarray:
        """prefilter/mark for every full paper (stubs never are), from its properties and
        ``citation_count``: the same test, so bulk and streaming mark the same papers."""
        thresholds = self.prefilter
        return (
            (_bools(self.has_year))
            & _bools(self.has_title)
            & (_ints(self.abstract_len) >= thresholds.min_abstract)
            & (counts >= thresholds.min_citations)
        )

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
        return {
            "citation_count": np.bincount(edge_cited, minlength=n),
            "cites": np.stack([edge_citing[plain], edge_cited[plain]]),
            "cites_with_props": np.stack([edge_citing[with_props], edge_cited[with_props]]),
            "prop_group": prop_group,
            "props_per_group": per_group,
        }

    def _wrote(self, new: np.ndarray, n: int) -> np.ndarray:
        """One WROTE per (author, paper) with the position of its last mention, as
        ``SET w.position`` leaves it; rows author, paper, position."""
        a, p, position = (_ints(v) for v in self.wrote)
        p = new[p]
        key = a * max(n, 1) + p
        order = np.argsort(key, kind="stable")
        last = order[np.r_[key[order][1:] != key[order][:-1], True]] if a.size else np.zeros(0, np.int64)
        return np.stack([a[last], p[last], position[last]])


#: The arrays of ``finish`` that hold one relationship per column.


def _unique_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not a.size:
        return np.zeros((2, 0), np.int64)
    width = int(b.max()) + 1
    key = np.unique(a * width + b)
    return np.stack([key // width, key % width])


def _positions(positions: np.ndarray) -> Iterator[dict]:
    """WROTE's properties, produced only when the loader reads them."""
    for position in positions.tolist():
        yield {"position": position}


def _edges(name: str, kind: str, pairs: np.ndarray, props: Iterator[dict] | None) -> EdgeGroup:
    declared = model.GRAPH.relationship(kind)
    return EdgeGroup(name, kind, declared.source, declared.target, pairs, props)


@dataclass(frozen=True, slots=True)
class CompactGraph:
    """A finished graph in a work folder: what a loader reads, in whichever process."""

    work: Path
    manifest: dict

    @classmethod
    def open(cls, work: Path) -> CompactGraph:
        return cls(Path(work), json.loads((Path(work) / "manifest.json").read_text(encoding="utf-8")))

    def _array(self, name: str) -> np.ndarray:
        """Memory-mapped: describing the groups (and counting them) reads no array."""
        return np.load(self.work / f"{name}.npy", mmap_mode="r")

    def paper_ids(self) -> list[str]:
        """Final index → paper id (stubs after full papers)."""
        return json.loads((self.work / "paper_ids.json").read_text(encoding="utf-8"))

    def _papers(self, counts: np.ndarray) -> Iterator[str]:
        """Spilled paper rows with their citation_count and eligible appended as text
        (parsing and re-encoding every row took a fifth of the load); merged where a
        paper had more than one record."""
        updates = self.manifest["updates"]
        eligible = self._array("eligible").tolist()
        with open(self.work / "papers.jsonl", encoding="utf-8") as f:
            for row, (line, count, ok) in enumerate(zip(f, counts.tolist(), eligible)):
                if str(row) in updates:
                    yield encode({**json.loads(line), **updates[str(row)], "citation_count": count, "eligible": ok})
                else:  # a row is an object with an id, ending in '}\n'
                    yield f'{line[:-2]},"citation_count":{count},"eligible":{"true" if ok else "false"}}}'

    def _stubs(self, counts: np.ndarray) -> Iterator[str]:
        papers = self.manifest["papers"]
        for paper_id, count in zip(self.paper_ids()[papers:], counts[papers:].tolist()):
            yield encode({"id": paper_id, "citation_count": count, "eligible": False})

    def _authors(self) -> Iterator[str]:
        with open(self.work / "authors.jsonl", encoding="utf-8") as f:
            for line in f:
                yield line[:-1]

    def vertices(self) -> list[VertexGroup]:
        m, counts = self.manifest, self._array("citation_count")
        return [
            group
            for group in [
                VertexGroup("Paper", ("Paper",), m["papers"], self._papers(counts)),
                VertexGroup("Paper", ("Paper", model.GRAPH.stub_label), m["stubs"], self._stubs(counts)),
                VertexGroup("Author", ("Author",), m["authors"], self._authors()),
                VertexGroup("Field", ("Field",), len(m["fields"]), (encode({"name": f}) for f in m["fields"])),
                VertexGroup("ArxivCategory", ("ArxivCategory",), len(m["categories"]), map(encode, m["categories"])),
                VertexGroup("AcmConcept", ("AcmConcept",), len(m["concepts"]), map(encode, m["concepts"])),
                VertexGroup("Topic", ("Topic",), len(m["topics"]), map(encode, m["topics"])),
            ]
            if group.count
        ]

    def _merged_cite_props(self) -> Iterator[dict]:
        """CITES properties in the order of ``cites_with_props``: each edge's spilled lines
        merged as successive ``coalesce(new, old)`` SETs would, yielded at its last line."""
        prop_group, remaining = self._array("prop_group"), np.array(self._array("props_per_group"))  # counted down
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
        return [
            group
            for group in [
                _edges("cites", "CITES", self._array("cites"), None),
                _edges("cites_with_contexts", "CITES", self._array("cites_with_props"), self._merged_cite_props()),
                _edges("wrote", "WROTE", wrote[:2], _positions(wrote[2])),
                _edges("in_field", "IN_FIELD", self._array("in_field"), None),
                _edges("in_category", "IN_CATEGORY", self._array("in_category"), None),
                _edges("broader", "BROADER", self._array("broader"), None),
                _edges("maps_to", "MAPS_TO", self._array("maps_to"), None),
                _edges("broader_topic", "BROADER_TOPIC", self._array("broader_topic"), None),
                _edges("in_topic", "IN_TOPIC", self._array("in_topic"), in_topic_props(self.work)),
            ]
            if group.pairs.shape[1]
        ]

    def write_stats(self) -> WriteStats:
        """Counted from the groups the loader loads (memory-mapped arrays: only their shapes are read)."""
        stats = self.manifest["stats"]
        return WriteStats(
            nodes_created=sum(g.count for g in self.vertices()),
            relationships_created=sum(g.pairs.shape[1] for g in self.edges()),
            external_created=self.manifest["stubs_found"],
            self_citations=stats["self_citations"],
            citations=stats["citations"],
            records=Counter(stats["records"]),
        )


class _Tee:
    """Stands in for the format in the pipeline's validation, handing every record read
    to the builder, so that one read both validates and builds."""

    def __init__(self, fmt: Format, builder: Builder):
        self.fmt, self.builder = fmt, builder

    def read(self, file: Path, selection: Selection = Selection()) -> Iterator[Item]:
        for item in self.fmt.read(file, selection):
            if item.record is not None:
                self.builder.add(item.record)
            yield item


def build(
    fmt: Format, files: list[Path], options: IngestOptions, progress: Progress, summary: IngestSummary, work: Path
) -> tuple[CompactGraph, dict[Path, int]]:
    """Validate ``files`` as the streaming ingest does (same errors, same rejects file with
    ``skip_bad``) and build their graph in ``work``; also returns each file's line count.
    Bad input raises before anything reaches a database."""
    options = pipeline.widened(fmt, files, options, progress)
    builder = Builder(work, options.clock(), options.prefilter)
    try:
        lines = pipeline.validate(_Tee(fmt, builder), files, options, progress, summary)
    finally:
        builder.close()
    summary.lines = sum(lines.values())
    return builder.finish(options.external), lines
