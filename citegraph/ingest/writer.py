"""Batched, idempotent graph writes: a batch of records becomes one transaction.

Every statement is an ``UNWIND $rows ... MERGE`` from ``cypher/ingest/``, so writing a
batch twice changes nothing and a killed ingest can simply be run again. The statements
of a batch run in dependency order inside one transaction — nothing of a batch is
written unless all of it is:

1. taxonomy nodes (fields, arXiv categories, ACM concepts, the arXiv→ACM map);
2. papers' OpenAlex topic tree nodes (:mod:`citegraph.ingest.topics`), papers, then their
   fields, categories, topics and authors;
3. ``:External`` stubs for citation ends not in the graph, then the ``CITES`` edges
   (grouped by citing paper; a paper citing more than :data:`MANY_REFERENCES` papers has
   its edges merged from the cited ends, that many a statement);
4. merged ids (their citations moved to the id they were merged into; their topics go in 2);
5. each citing paper's ``cited_ids``: its edges read back in the transaction and the list
   sorted here (:func:`sorted_lists`), not by the server.

``citation_count`` of the cited papers is left to :meth:`GraphWriter.recount`, which the
ingest runs once over every cited paper after the last batch: setting it per new edge
rewrote the cited paper's whole record (abstract included) once per citation, which
doubled the time of the ``CITES`` statement and its commit. The papers the ingest will
recount are created without a count (``recounted``): on ArcadeDB, replacing a 0 in the
``citation_count`` index scans every paper indexed under 0, so a recount from 0 took
eight times as long as one from none (benchmarks/README.md, streaming ingest).

A :class:`~citegraph.ingest.records.SnapshotPaper` restates a work whole: its citations,
fields, categories, topics and authorships that the new state lacks go first (2; topics no
work is linked to any more go with them, then the tree nodes left without one below), so an update
partition leaves the graph a fresh ingest of the final state would build.

The property maps come from the graph model (:mod:`citegraph.graph.model`), read at each
write; the statements set them with ``SET n += row.props``, so a property added to the
model needs no change here nor in the Cypher. The one exception is the run's date
(``ingested``, set by ``papers`` on a paper it creates or upgrades from a stub), which the
writer is given once: every batch of a run carries the same date.

A batch is bounded by records (the caller's batch size) and by bytes: one whose statements
would exceed citegraph's limit per statement (:data:`~citegraph.graph.store.MAX_MESSAGE`) is
split in halves until each fits (long abstracts or many contexts), the ``extra`` statements
going with the last half.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from ..batches import batched
from ..graph import GraphStore, MessageTooLarge, Write, model
from ..vocabulary import CONTEXT_MARKER
from .records import (
    AcmConcept,
    ArxivCategory,
    CategoryMapping,
    Citation,
    Field,
    MergedId,
    Paper,
    Record,
    SnapshotPaper,
    record_type,
)
from .topics import paper_topic_rows, topic_rows


@dataclass
class WriteStats:
    """What the graph says a write changed, plus what the writer chose to skip."""

    nodes_created: int = 0
    relationships_created: int = 0
    properties_set: int = 0
    external_created: int = 0
    external_upgraded: int = 0
    self_citations: int = 0
    citations: int = 0
    contexts: int = 0
    unmarked_contexts: int = 0  # contexts in which the reader found no [CIT] marker
    records: Counter = field(default_factory=Counter)

    def add(self, other: WriteStats) -> None:
        for name in (
            "nodes_created",
            "relationships_created",
            "properties_set",
            "external_created",
            "external_upgraded",
            "self_citations",
            "citations",
            "contexts",
            "unmarked_contexts",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.records.update(other.records)


#: References of one paper over which its edges are merged from the cited ends
#: (``ingest/cites_many``), this many a statement: merged from the citing end, each edge
#: was checked against all the paper's edges so far (quadratic: 5,000 references, 45 s).
MANY_REFERENCES = 1000


def sorted_lists(rows: list[dict]) -> list[Write]:
    """``ingest/cited_ids`` for the papers and cited ids ``ingest/cited_lists`` read, each
    list sorted here rather than by the server (see that statement)."""
    return [Write("ingest/cited_ids", {"rows": [{"id": r["id"], "cited": sorted(r["cited"])} for r in rows]})]


def relisted(rows: list[dict]) -> list[Write]:
    """The papers of the rows' ``citing`` lists, whose edges a statement changed, listed anew."""
    ids = list(dict.fromkeys(paper for row in rows for paper in row["citing"]))
    return [Write("ingest/cited_lists", {"ids": ids}, then=sorted_lists)] if ids else []


def utc_today() -> date:
    """The clock of an ingest run (``IngestOptions.clock``): the UTC date, as the graph stores it."""
    return datetime.now(UTC).date()


class GraphWriter:
    """Turns batches of records into transactions on a :class:`GraphStore`; ``ingested`` is
    the run's date, stamped on the papers it creates (default: today's, UTC)."""

    def __init__(self, store: GraphStore, ingested: date | None = None, recounted: Collection[str] = frozenset()):
        self.store = store
        self.ingested = (ingested or utc_today()).isoformat()
        # papers whose citation_count the caller sets afterwards (recount): created without
        # one, since on ArcadeDB replacing one of the index's many 0s scans them all
        self.recounted = recounted

    def _start_count(self, paper_id: str) -> int | None:
        return None if paper_id in self.recounted else 0

    def write(self, records: Sequence[Record], extra: Sequence[Write] = ()) -> WriteStats:
        """Write ``records`` (and the ``extra`` statements) in one transaction, or in as
        many as it takes to stay under citegraph's limit per statement."""
        try:
            return self._write(records, extra)
        except MessageTooLarge:
            if len(records) < 2:
                raise
        half = len(records) // 2
        stats = self.write(records[:half])
        stats.add(self.write(records[half:], extra))
        return stats

    def _write(self, records: Sequence[Record], extra: Sequence[Write]) -> WriteStats:
        stats = WriteStats(records=Counter(record_type(r).__name__ for r in records))
        graph = model.GRAPH
        paper, author, category, concept = map(graph.node, ("Paper", "Author", "ArxivCategory", "AcmConcept"))
        reference = graph.relationship("CITES")
        steps: list[Write] = []
        roles: list[str] = []

        def add(query: str, key: str, rows: list, role: str = "", **params) -> None:
            if rows:
                steps.append(Write(f"ingest/{query}", {key: rows, **params}))
                roles.append(role)

        by_type: dict[type, list] = {}
        for record in records:
            by_type.setdefault(record_type(record), []).append(record)
        papers: list[Paper] = by_type.get(Paper, [])

        add("fields", "rows", [{"name": f.name} for f in by_type.get(Field, [])])
        add(
            "arxiv_categories",
            "rows",
            [{"code": c.code, "props": category.values(c)} for c in by_type.get(ArxivCategory, [])],
        )
        add(
            "acm_concepts",
            "rows",
            [
                {"code": c.code, "props": concept.values(c), "broader": list(c.broader)}
                for c in by_type.get(AcmConcept, [])
            ],
        )
        add(
            "category_maps",
            "rows",
            [{"category": m.category, "codes": list(m.acm_codes)} for m in by_type.get(CategoryMapping, [])],
        )

        restated = [p for p in papers if isinstance(p, SnapshotPaper)]
        add(
            "restate_citations",
            "rows",
            [{"id": p.id, "references": [r.cited_id for r in p.references]} for p in restated],
        )
        add("restate_links", "rows", [{"id": p.id} for p in restated])
        # a work merged away (4) takes the topics only it had with it, as a restated one does
        unlinked = [{"id": p.id} for p in restated] + [{"id": m.old_id} for m in by_type.get(MergedId, [])]
        add("restate_topics", "rows", unlinked)
        if unlinked:
            steps.append(Write("ingest/prune_topics", {}))
            roles.append("")
        add("topics", "rows", topic_rows(papers))
        add(
            "papers",
            "rows",
            [{"id": p.id, "props": paper.values(p), "count": self._start_count(p.id)} for p in papers],
            "papers",
            ingested=self.ingested,
        )
        add("paper_fields", "rows", [{"id": p.id, "names": list(p.fields)} for p in papers if p.fields])
        add("paper_categories", "rows", [{"id": p.id, "codes": list(p.categories)} for p in papers if p.categories])
        add("paper_topics", "rows", paper_topic_rows(papers))
        add(
            "paper_authors",
            "rows",
            [
                {
                    "id": p.id,
                    "authors": [
                        {"id": a.id, "props": author.values(a), "position": i} for i, a in enumerate(p.authors)
                    ],
                }
                for p in papers
                if p.authors
            ],
        )

        edges = [(p.id, ref) for p in papers for ref in p.references]
        edges += [(c.citing_id, c.reference) for c in by_type.get(Citation, [])]
        kept = [(citing, ref) for citing, ref in edges if citing != ref.cited_id]
        stats.self_citations = len(edges) - len(kept)
        stats.citations = len(kept)
        contexts = [context for _, ref in kept for context in ref.contexts]
        stats.contexts = len(contexts)
        stats.unmarked_contexts = sum(CONTEXT_MARKER not in context for context in contexts)
        present = {p.id for p in papers}
        ends = dict.fromkeys(end for citing, ref in kept for end in (citing, ref.cited_id) if end not in present)
        add("stubs", "rows", [{"id": end, "count": self._start_count(end)} for end in ends], "stubs")
        by_citing: dict[str, list[dict]] = {}
        for citing, ref in kept:
            by_citing.setdefault(citing, []).append({"cited": ref.cited_id, "props": reference.values(ref)})
        add(
            "cites",
            "rows",
            [{"citing": citing, "refs": refs} for citing, refs in by_citing.items() if len(refs) <= MANY_REFERENCES],
        )
        for citing, refs in by_citing.items():
            if len(refs) > MANY_REFERENCES:
                for part in batched(refs, MANY_REFERENCES):
                    add("cites_many", "refs", part, citing=citing)
        if merged := [{"id": m.old_id, "into": m.into_id} for m in by_type.get(MergedId, [])]:
            steps.append(Write("ingest/merge_ids", {"rows": merged}, then=relisted))
            roles.append("")
        # the papers whose citations this batch wrote or restated list them anew, in its transaction
        listed = list(dict.fromkeys([*by_citing, *(p.id for p in restated)]))
        if listed:
            steps.append(Write("ingest/cited_lists", {"ids": listed}, then=sorted_lists))
            roles.append("")
        steps.extend(extra)
        roles.extend("extra" for _ in extra)

        if not steps:
            return stats
        for role, counters in zip(roles, self.store.write(*steps)):
            if role == "extra":  # bookkeeping such as checkpoints is not data
                continue
            stats.nodes_created += counters["nodes_created"]
            stats.relationships_created += counters["relationships_created"]
            stats.properties_set += counters["properties_set"]
            if role == "stubs":
                stats.external_created += counters["nodes_created"]
            elif role == "papers":
                stats.external_upgraded += counters["labels_removed"]
        return stats

    def recount(self, ids: Iterable[str], batch: int = 10_000) -> None:
        """Set ``citation_count`` of the papers ``ids`` to their inbound CITES, ``batch``
        papers a transaction (absolute, so running it again changes nothing)."""
        for part in batched(ids, batch):
            self.store.write(Write("ingest/citation_counts", {"ids": part}))

    def drop_external(self, limit: int = 10_000) -> int:
        """Delete every :External stub (and its citations), in batches, the papers that cited
        them listed anew in each batch's transaction; returns how many."""
        total = 0
        while deleted := self._drop_some(limit):
            total += deleted
        return total

    def _drop_some(self, limit: int) -> int:
        """One transaction of :meth:`drop_external`: up to ``limit`` stubs deleted; returns how many."""
        deleted: list[int] = []  # by each try of the transaction (the driver retries transient failures)

        def relist(rows: list[dict]) -> list[Write]:
            deleted.append(rows[0]["deleted"])
            return relisted(rows)

        self.store.write(Write("ingest/drop_external", {"limit": limit}, then=relist))
        return deleted[-1]
