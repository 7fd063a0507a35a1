"""Precomputed rankings (:mod:`citegraph.retrieval.precomputed`) on real BM25 indexes: a row
answers exactly what the search answers, only when it may, and a fill resumes."""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path

import pytest

from citegraph.errors import CitegraphError
from citegraph.retrieval import bm25 as m
from citegraph.retrieval.base import Document
from citegraph.retrieval.precomputed import (
    FOLDER,
    Precomputed,
    PrecomputedRankings,
    compute_rankings,
    paper_query,
)
from citegraph.synth import SynthSpec, records

from conftest import citegraph

DEPTH = 40


@pytest.fixture(scope="module")
def corpus() -> list[Document]:
    """600 synthetic papers, some with keywords (left out of a paper's query)."""
    return [
        Document(r["paper_id"], r["title"], r["abstract"] or "", "graph; citation" if i % 7 == 0 else "")
        for i, r in enumerate(records(SynthSpec(papers=600, seed=5)))
    ]


class Counting:
    """A retriever that counts the queries it searches (and can fail after some)."""

    def __init__(self, retriever, fail_after: int | None = None):
        self.retriever, self.fail_after, self.searched = retriever, fail_after, 0

    @property
    def name(self) -> str:
        return self.retriever.name

    def search(self, queries, k, pools=None):
        if self.fail_after is not None and self.searched + len(queries) > self.fail_after:
            raise RuntimeError("interrupted")
        self.searched += len(queries)
        return self.retriever.search(queries, k, pools)


def built(corpus, path: Path, backend: str, **options):
    index = m.build_bm25(corpus, path, backend=backend, threads=2, **options)
    index.name = "bm25"
    return index, m.read_manifest(path)


def test_a_row_answers_what_the_search_answers_at_every_depth_up_to_its_own(corpus, backend, tmp_path):
    index, manifest = built(corpus, tmp_path / "bm25", backend)
    compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, None, DEPTH, batch=64)
    counting = Counting(index)
    served = Precomputed.around(counting, tmp_path / "bm25", manifest)
    assert isinstance(served, Precomputed)
    queries = [paper_query(d) for d in corpus[::5]]
    for k in (1, 10, DEPTH):
        assert served.search(queries, k) == index.search(queries, k)
    assert counting.searched == 0
    # a ranking shorter than the depth (few papers share a rare word) ends where the search's ends
    words = [dataclasses.replace(queries[0], title=word, abstract="") for word in queries[0].title.split()]
    rare = min(words, key=lambda q: len(index.search([q], DEPTH)[0]) or DEPTH + 1)  # fewest hits, not none
    short = PrecomputedRankings.open(tmp_path / "bm25" / FOLDER, writable=True)
    short.fill(index, [rare], batch=1)
    [searched] = index.search([rare], DEPTH)
    assert 0 < len(searched) < DEPTH
    assert served.search([rare], DEPTH) == [searched]
    assert counting.searched == 0


def test_what_no_row_may_answer_is_searched(corpus, tmp_path):
    index, manifest = built(corpus, tmp_path / "bm25", "bm25s")
    compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, corpus[:100], DEPTH)
    counting = Counting(index)
    served = Precomputed.around(counting, tmp_path / "bm25", manifest)
    paper = paper_query(corpus[7])
    edited = dataclasses.replace(paper, abstract=paper.abstract + " graph citation")
    asks = [
        ([paper], DEPTH + 1, None),  # deeper than the rows
        ([edited], 10, None),  # another text than the row's
        ([paper.text], 10, None),  # a free text
        ([corpus[7]], 10, None),  # the paper with its keywords: another query
        ([paper_query(corpus[300])], 10, None),  # a paper without a computed row
        ([paper], 10, [{d.id for d in corpus[::2]}]),  # a pool
    ]
    for queries, k, pools in asks:
        before = counting.searched
        assert served.search(queries, k, pools) == index.search(queries, k, pools)
        assert counting.searched == before + 1, (queries, k, pools)
    assert served.search([paper], 10) == index.search([paper], 10)
    assert counting.searched == len(asks)


def test_a_fill_resumes_and_an_edited_paper_is_ranked_again(corpus, tmp_path):
    index, manifest = built(corpus, tmp_path / "bm25", "bm25s")
    interrupted = Counting(index, fail_after=250)
    with pytest.raises(RuntimeError, match="interrupted"):
        compute_rankings(interrupted, tmp_path / "bm25", manifest, lambda: corpus, None, DEPTH, batch=100)
    assert PrecomputedRankings.open(tmp_path / "bm25" / FOLDER).computed() == 200  # two whole batches
    resumed = Counting(index)
    rankings = compute_rankings(resumed, tmp_path / "bm25", manifest, lambda: corpus, None, DEPTH, batch=100)
    assert resumed.searched == len(corpus) - 200
    assert rankings.computed() == len(corpus)
    edited = [dataclasses.replace(corpus[7], title="graph citation recommendation")]
    again = Counting(index)
    rankings.fill(again, [*edited, *corpus[:50]])
    assert again.searched == 1
    assert Precomputed(index, rankings).search([paper_query(edited[0])], 10) == index.search(
        [paper_query(edited[0])], 10
    )
    # another depth is another set of rows
    assert compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, [], DEPTH // 2).computed() == 0


def test_rows_of_another_index_or_corpus_are_not_used(corpus, tmp_path, caplog):
    index, manifest = built(corpus, tmp_path / "bm25", "bm25s")
    compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, corpus[:20], DEPTH)
    retuned, manifest = built(corpus, tmp_path / "bm25", "bm25s", k1=1.5)
    with caplog.at_level(logging.WARNING):
        assert Precomputed.around(retuned, tmp_path / "bm25", manifest) is retuned
    assert "computed on another index" in caplog.text
    with pytest.raises(CitegraphError, match="built from another corpus"):
        compute_rankings(retuned, tmp_path / "bm25", manifest, lambda: corpus[1:], None, DEPTH)
    with pytest.raises(CitegraphError, match="is not a paper of the index's corpus"):
        compute_rankings(retuned, tmp_path / "bm25", manifest, lambda: corpus, [Document("absent", "x")], DEPTH)


def test_without_an_index_the_command_says_which_to_build(tmp_path):
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(tmp_path)}
    env.pop("CITEGRAPH_URI", None)
    done = citegraph("index", "rankings", "--multifield", env=env)
    assert done.returncode != 0
    assert "citegraph index bm25 --multifield" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
