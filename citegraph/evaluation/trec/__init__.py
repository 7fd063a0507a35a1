"""Any TREC-style collection in the graph, registered as the benchmark ``trec`` (the benchmark
itself: :class:`.collection.TRECCollection`). Light to import (the CLI lists it)."""

from __future__ import annotations

from pathlib import Path

from ...formats.trec import TOPIC_DUPLICATE_POLICIES, TOPIC_ON_DUPLICATE_HELP, TopicDuplicatePolicy
from ...options import Option
from ..entry import Registered, RetrieverOption


def _build(
    topics: Path,
    qrels: Path,
    field: str | None,
    k: int,
    depth: int,
    rerank_depth: int | None,
    on_duplicate: TopicDuplicatePolicy,
    strict: bool,
):
    from ...formats.trec import read_qrels, read_topics
    from .collection import TRECCollection

    warnings: list[str] = []
    found = read_topics(topics, field, "error" if strict else on_duplicate, warnings.append)
    return TRECCollection(found, read_qrels(qrels), k, depth, rerank_depth, tuple(warnings))


TREC = Registered(
    "trec",
    "Any TREC-style collection in the graph: R@k, nDCG@k, MAP, MRR, paired tests against the first "
    "retriever; one TREC run per retriever in OUT/runs.",
    _build,
    (
        Option(
            "topics",
            "--topics",
            "Topic file: TREC <top>/<topic>, qid<TAB>text, or JSONL.",
            Path,
            required=True,
            path="file",
        ),
        Option(
            "qrels",
            "--qrels",
            "TREC qrels (qid 0 doc grade); DOIs match whatever their case.",
            Path,
            required=True,
            path="file",
        ),
        Option(
            "field", "--field", "The topic text: title (default), desc, narr, or several joined with + (title+desc)."
        ),
        Option("k", "-k", "The cut-off of R@k and nDCG@k.", int, 10),
        Option("depth", "--depth", "Papers each retriever ranks per topic (MAP, MRR).", int, 100),
        Option(
            "rerank_depth",
            "--rerank-depth",
            "The first retriever's top N per topic, re-ranked by each of the others; "
            "a dense encoder encodes only those candidates (cached: a second run encodes only the topics).",
            int,
            minimum=1,
        ),
        Option("on_duplicate", "--on-duplicate", TOPIC_ON_DUPLICATE_HELP, TOPIC_DUPLICATE_POLICIES, "last"),
        Option(
            "strict",
            "--strict",
            "Refuse a repeated topic id (file:line:field) instead of keeping one text.",
            bool,
            False,
        ),
    ),
    RetrieverOption(
        "indexes",
        help="Retrievers to score; the first is the baseline of the paired tests and, with "
        "--rerank-depth, the first stage.",
        rerank="rerank_depth",
    ),
)
