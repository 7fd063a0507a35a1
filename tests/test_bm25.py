"""BM25 on both backends, on real indexes: the appendix formula by hand, Lucene and bm25s
agreeing, exact pool restriction, flat vs multifield, the manifest, and k1/b tuning; the
numpy kernel against the formula and both backends' indexes, a subset counted included."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from citegraph.errors import CitegraphError
from citegraph.retrieval import bm25 as m
from citegraph.retrieval.base import Document, Retriever
from citegraph.retrieval.bm25 import lucene as bm25_lucene
from citegraph.retrieval.bm25.kernel import Statistics, TermCounts
from citegraph.retrieval.corpus import fingerprint
from citegraph.synth import SynthSpec, records

QUERIES = 50  # the backend fixture (conftest.py) runs each test on bm25s and Lucene


@pytest.fixture(scope="module")
def synth() -> tuple[list[Document], list[str]]:
    """3,000 synthetic papers to index and the texts of 50 more as queries."""
    docs = [
        Document(r["paper_id"], r["title"], r["abstract"] or "")
        for r in records(SynthSpec(papers=3000 + QUERIES, seed=11))
    ]
    return docs[:-QUERIES], [d.text for d in docs[-QUERIES:]]


@pytest.fixture(scope="module")
def indexes(synth, tmp_path_factory):
    """Indexes of the synthetic corpus, built on first use: (backend, multifield) -> retriever."""
    built: dict[tuple[str, bool], Retriever] = {}

    def get(backend: str, multifield: bool = False) -> Retriever:
        if (backend, multifield) not in built:
            path = tmp_path_factory.mktemp(f"{backend}-{multifield}")
            built[backend, multifield] = m.build_bm25(synth[0], path, backend=backend, multifield=multifield, threads=2)
        return built[backend, multifield]

    return get


def test_analysis_imitates_lucene():
    assert m.analyze("The Porter's stemmers are running in the U.S. since 1,000 years") == [
        "porter",
        "stemmer",
        "run",
        "u.",
        "sinc",
        "1,000",
        "year",
    ]


@pytest.mark.lucene
def test_analysis_is_lucene_s():
    pytest.importorskip("pyserini", reason="needs the [lucene] extra")
    bm25_lucene._java()
    from jnius import autoclass

    analyzer = autoclass("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
    stopwords = autoclass("org.apache.lucene.analysis.en.EnglishAnalyzer").ENGLISH_STOP_WORDS_SET
    assert stopwords.size() == len(m.STOPWORDS) and all(stopwords.contains(w) for w in m.STOPWORDS)
    text = (
        "Graph Neural Networks (GNNs) for citation-recommendation: 3D point-clouds & BERT-based "
        "re-ranking; Schrödinger's naïve café, v1.2, 10:30 a.m., R&D, don't foo_bar."
    )
    assert m.analyze(text) == list(autoclass("io.anserini.analysis.AnalyzerUtils").analyze(analyzer, text))


# Three short documents (one without abstract) and a query; terms after analysis:
TINY = [
    Document("d1", "Graph neural networks", "Graph models of citation graphs"),
    Document("d2", "Citation recommendation", "Ranking papers by their citation context"),
    Document("d3", "Neural ranking for citation"),
]
TINY_QUERY = "graph citation"


def appendix_bm25(query: list[str], docs: list[list[str]], k1: float, b: float) -> list[float]:
    """MDCR appendix A.1, over the documents that have the field (Lucene's docCount)."""
    present = [d for d in docs if d]
    avgdl = sum(map(len, present)) / len(present)
    scores = []
    for d in docs:
        s = 0.0
        for q in query:
            n = sum(q in other for other in present)
            idf = math.log((len(present) - n + 0.5) / (n + 0.5) + 1)
            f = d.count(q)
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(d) / avgdl)) if f else 0.0
        scores.append(s)
    return scores


def test_tiny_index_scores_are_the_appendix_formula(backend, tmp_path):
    k1, b = 1.2, 0.75
    flat = m.build_bm25(TINY, tmp_path / "flat", backend=backend, k1=k1, b=b)
    assert m.analyze(TINY_QUERY) == ["graph", "citat"]
    assert m.analyze(TINY[0].text) == ["graph", "neural", "network", "graph", "model", "citat", "graph"]
    if backend == "lucene":  # Lucene stores lengths in one byte: check these are exact
        from jnius import autoclass

        small_float = autoclass("org.apache.lucene.util.SmallFloat")
        lengths = {len(m.analyze(text)) for d in TINY for text in (d.text, d.title, d.abstract)}
        assert all(small_float.byte4ToInt(small_float.intToByte4(n)) == n for n in lengths)
    # Both drop the constant (k1 + 1); Lucene's scores are float32 rounded to 1e-4.
    tolerance = 1e-4 if backend == "lucene" else 1e-5

    expected = appendix_bm25(m.analyze(TINY_QUERY), [m.analyze(d.text) for d in TINY], k1, b)
    got = {h.id: h.score for h in flat.search([TINY_QUERY], 10)[0]}
    assert got == pytest.approx({d.id: s / (k1 + 1) for d, s in zip(TINY, expected)}, abs=tolerance)

    weights = {"title": 2.0, "abstract": 0.5}
    multi = m.build_bm25(TINY, tmp_path / "multi", backend=backend, multifield=True, k1=k1, b=b, fields=weights)
    expected = [
        sum(w * s for w, s in zip(weights.values(), per_field))
        for per_field in zip(
            appendix_bm25(m.analyze(TINY_QUERY), [m.analyze(d.title) for d in TINY], k1, b),
            appendix_bm25(m.analyze(TINY_QUERY), [m.analyze(d.abstract) for d in TINY], k1, b),
        )
    ]
    got = {h.id: h.score for h in multi.search([TINY_QUERY], 10)[0]}
    assert got == pytest.approx({d.id: s / (k1 + 1) for d, s in zip(TINY, expected)}, abs=tolerance)


def kernel_scores(query: str, counts: TermCounts, k1: float, b: float, counted: np.ndarray | None = None) -> np.ndarray:
    repeated = Counter(m.analyze(query))
    terms = list(repeated)
    return Statistics(counts.lengths, counted).scores(counts.frequencies(terms), [repeated[t] for t in terms], k1, b)


def test_kernel_is_the_appendix_formula():
    """Over every document with a term (Lucene's docCount), or over a subset as if alone."""
    k1, b = 1.2, 0.75
    query = TINY_QUERY + " graphs"  # a term twice: counted once per occurrence
    docs = [m.analyze(d.text) for d in TINY] + [m.analyze("the of and"), m.analyze("Ranking graphs of graphs")]
    counts = TermCounts(docs)
    expected = appendix_bm25(m.analyze(query), docs, k1, b)
    assert kernel_scores(query, counts, k1, b) == pytest.approx([s / (k1 + 1) for s in expected], rel=1e-12)

    counted = np.array([True, False, True, False, True])
    expected = appendix_bm25(m.analyze(query), [d for d, c in zip(docs, counted) if c], k1, b)
    got = kernel_scores(query, counts, k1, b, counted)
    assert got[counted] == pytest.approx([s / (k1 + 1) for s in expected], rel=1e-12)
    assert not got[~counted].any() and got[counted].all()
    assert not kernel_scores("nothing indexed", counts, k1, b).any()
    # A mask counts exactly its documents, one without terms too (contextualisation counts every sentence).
    every = Statistics(counts.lengths, np.ones(len(docs), bool))
    assert (every.documents, every.average_length) == (5, sum(map(len, docs)) / 5)


def test_kernel_scores_as_an_index_of_the_counted_documents(backend, synth, tmp_path):
    """The kernel against a real index of each backend: over every document, and over a masked
    subset against an index of that subset alone (how the contexts signal hides the seed's
    sentences). Titles only: under 40 terms, Lucene's one-byte lengths are exact."""
    docs = [Document(d.id, d.title) for d in synth[0][:600]]
    counts = TermCounts(m.analyze(d.text) for d in docs)
    assert 0 < counts.lengths.min() and counts.lengths.max() <= 40
    tolerance = 1e-4 if backend == "lucene" else 1e-5  # float32, Lucene's rounded to 1e-4
    k1, b = 1.2, 0.75
    subset = np.arange(len(docs)) % 3 != 0
    queries = [d.title for d in synth[0][::97]] + synth[1][:5]  # titles that are indexed, and longer texts
    for name, counted in (("all", None), ("subset", subset)):
        kept = [d for d, shown in zip(docs, subset if counted is not None else np.ones(len(docs), bool)) if shown]
        index = m.build_bm25(kept, tmp_path / name, backend=backend, k1=k1, b=b)
        rows = {d.id: row for row, d in enumerate(docs)}
        for query, hits in zip(queries, index.search(queries, 20)):
            scores = kernel_scores(query, counts, k1, b, counted)
            assert hits and len(hits) == min(20, np.count_nonzero(scores))
            assert [h.score for h in hits] == pytest.approx([scores[rows[h.id]] for h in hits], abs=tolerance)
            assert sorted(scores, reverse=True)[: len(hits)] == pytest.approx([h.score for h in hits], abs=tolerance)


@pytest.mark.lucene
@pytest.mark.parametrize("multifield", [False, True])
def test_lucene_and_bm25s_agree(indexes, synth, multifield):
    pytest.importorskip("pyserini", reason="needs the [lucene] extra")
    queries = synth[1]
    lucene = indexes("lucene", multifield).search(queries, 10)
    fallback = indexes("bm25s", multifield).search(queries, 10)
    overlap = sum(len({h.id for h in a} & {h.id for h in b}) / 10 for a, b in zip(lucene, fallback)) / len(queries)
    print(f"overlap@10 Lucene vs bm25s, multifield={multifield}: {overlap:.3f}")
    assert overlap >= 0.95


@pytest.mark.parametrize("deep_share", [0, bm25_lucene.DEEP_SHARE, math.inf])
def test_pools_rank_like_the_filtered_full_ranking(backend, indexes, synth, monkeypatch, deep_share):
    """Lucene's filter (share 0), deep-k with its fallback (inf) and the mix agree with the truth."""
    monkeypatch.setattr(bm25_lucene, "DEEP_SHARE", deep_share)
    docs, queries = synth
    retriever = indexes(backend)
    queries = queries[:6]
    full = retriever.search(queries, len(docs))
    ids = [d.id for d in docs]
    rng = random.Random(5)
    deep = {h.id for h in full[0][-3:]}  # ranked at the very bottom for the first query
    assert len(full[0]) > 500
    bottom_half = {h.id for h in full[1][len(full[1]) // 2 :]} | {"not-indexed"}
    pools = [deep, bottom_half, set(rng.sample(ids, 65)), set(rng.sample(ids, 2700)), set(ids), set()]
    for k in (1, 10, 100):
        pooled = retriever.search(queries, k, pools)
        for ranking, truth, pool in zip(pooled, full, pools):
            expected = [h for h in truth if h.id in pool][:k]
            assert [h.id for h in ranking] == [h.id for h in expected]
            assert [h.score for h in ranking] == pytest.approx([h.score for h in expected], abs=1e-5)
    shared = retriever.search(queries, 10, [pools[2]] * len(queries))  # one pool object for all
    assert all({h.id for h in ranking} <= pools[2] for ranking in shared)


def test_title_weight_changes_the_ranking(backend, tmp_path):
    docs = [
        Document("in-title", "Quantum annealing", "A study of combinatorial optimisation on hardware"),
        Document(
            "in-abstract",
            "Combinatorial optimisation on hardware",
            "A study of quantum annealing, where quantum annealing is compared",
        ),
    ]
    docs += [Document(f"filler{i}", f"Filler paper {i}", "On other topics entirely") for i in range(8)]
    query = ["quantum annealing"]
    flat = m.build_bm25(docs, tmp_path / "flat", backend=backend)
    multi = m.build_bm25(docs, tmp_path / "multi", backend=backend, multifield=True)
    assert (flat.name, multi.name) == ("bm25", "bm25:multifield")
    assert flat.search(query, 1)[0][0].id == "in-abstract"
    titles = m.bm25(tmp_path / "multi", fields={"title": 5.0, "abstract": 1.0})
    abstracts = m.bm25(tmp_path / "multi", fields={"title": 0.2, "abstract": 1.0})
    assert titles.search(query, 1)[0][0].id == "in-title"
    assert abstracts.search(query, 1)[0][0].id == "in-abstract"
    with pytest.raises(ValueError):
        m.bm25(tmp_path / "flat", fields={"title": 1.0})


def test_manifest_opens_the_index_that_was_built(backend, tmp_path):
    docs = TINY
    built = m.build_bm25(
        docs,
        tmp_path / "index",
        backend=backend,
        multifield=True,
        k1=1.1,
        b=0.6,
        fields={"title": 3.0, "abstract": 1.0},
    )
    assert m.read_manifest(tmp_path / "index") == {
        "backend": backend,
        "multifield": True,
        "k1": 1.1,
        "b": 0.6,
        "fields": {"title": 3.0, "abstract": 1.0},
        "fingerprint": fingerprint(docs),
        "documents": 3,
    }
    opened = m.bm25(tmp_path / "index", expected_fingerprint=fingerprint(docs))
    assert type(opened) is type(built) and (opened.k1, opened.b, opened.fields) == (1.1, 0.6, built.fields)
    assert opened.search([TINY_QUERY], 3) == built.search([TINY_QUERY], 3)
    # Other parameters at open time are the same as building with them.
    rebuilt = m.build_bm25(docs, tmp_path / "other", backend=backend, multifield=True, k1=2.0, b=0.3)
    assert m.bm25(tmp_path / "index", k1=2.0, b=0.3, fields=m.DEFAULT_WEIGHTS).search(
        [TINY_QUERY], 3
    ) == rebuilt.search([TINY_QUERY], 3)
    with pytest.raises(CitegraphError, match="another corpus"):
        m.bm25(tmp_path / "index", expected_fingerprint="0" * 16)
    with pytest.raises(CitegraphError, match="no BM25 index"):
        m.bm25(tmp_path / "nothing")


def test_tuning_picks_the_better_cell(backend, tmp_path):
    """Relevant: a long paper saying "alpha" ten times; not: a one-word paper. Only without
    length normalisation (b = 0) does the relevant one rank first."""
    filler = " ".join(f"w{i}" for i in range(90))
    docs = [Document("long", "alpha " * 10, filler), Document("short", "alpha")]
    docs += [Document(f"other{i}", f"beta w{i}", filler) for i in range(4)]
    m.build_bm25(docs, tmp_path / "index", backend=backend)
    from citegraph.evaluation.tuning import tune

    tuning = tune(
        tmp_path / "index",
        {"q": "alpha"},
        {"q": {"long": 1}},
        pools={"q": {"long", "short"}},
        k1s=(1.2, 3.0),
        bs=(1.0, 0.0),
    )
    assert tuning.table == pytest.approx({(1.2, 1.0): 0.5, (1.2, 0.0): 1.0, (3.0, 1.0): 0.5, (3.0, 0.0): 1.0})
    assert (tuning.k1, tuning.b, tuning.map) == (1.2, 0.0, 1.0)
