"""Precomputed rankings (:mod:`citegraph.retrieval.precomputed`) on real BM25 indexes: a row
answers exactly what the search answers, only when it may, and a fill resumes."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import threading
from pathlib import Path

import httpx
import numpy as np
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
from citegraph.retrieval.spec import BM25
from citegraph.synth import SynthSpec, records

from conftest import citegraph, citegraph_ok

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
    # rows of another depth are not replaced by a fill at this one
    with pytest.raises(
        CitegraphError, match=f"holds 600 rankings of depth {DEPTH} on this index: give --depth {DEPTH}"
    ):
        compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, [], DEPTH // 2)
    assert PrecomputedRankings.open(tmp_path / "bm25" / FOLDER).computed() == len(corpus)
    shutil.rmtree(tmp_path / "bm25" / FOLDER)  # as the message says
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


# -- a damaged folder: every damage is searched instead, with one warning -------------------
def _array(name: str, change):
    """A damage that rewrites one array of the folder through ``change``."""

    def damage(folder: Path) -> None:
        path = folder / f"{name}.npy"
        np.save(path, change(np.load(path)))

    return damage


def _manifest(change):
    def damage(folder: Path) -> None:
        path = folder / "manifest.json"
        path.write_text(change(json.loads(path.read_text())))

    return damage


def _truncate(name: str, keep: float):
    def damage(folder: Path) -> None:
        path = folder / f"{name}.npy"
        path.write_bytes(path.read_bytes()[: int(path.stat().st_size * keep)])

    return damage


def _replaced(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.write_text("not a folder\n")


def _garbage_queries(folder: Path) -> None:
    (folder / "queries.npy").write_bytes(b"\x93NUMPY garbage")


def _pickled_ids(folder: Path) -> None:
    ids = np.load(folder / "ids.npy")
    np.save(folder / "ids.npy", np.array([i.decode() for i in ids], dtype=object), allow_pickle=True)


def _set(values, rows=slice(None), columns=slice(None)):
    def change(array):
        array = array.copy()
        array[rows, columns] = values
        return array

    return change


def _hits_and_scores(change):
    def damage(folder: Path) -> None:
        _array("hits", change)(folder)
        _array("scores", change)(folder)

    return damage


#: The damages the third hostile probe made to an `index rankings` folder (issue 39 §4.4), and
#: more: the first 15 gave tracebacks, the in-range ones wrong answers.
DAMAGES = {
    "manifest deleted": lambda folder: (folder / "manifest.json").unlink(),
    "manifest not JSON": lambda folder: (folder / "manifest.json").write_text('{"depth": 4'),
    "manifest a list": _manifest(lambda m: json.dumps([m])),
    "manifest without its depth": _manifest(lambda m: json.dumps({k: v for k, v in m.items() if k != "depth"})),
    "depth a string": _manifest(lambda m: json.dumps({**m, "depth": str(m["depth"])})),
    "depth negative": _manifest(lambda m: json.dumps({**m, "depth": -m["depth"]})),
    "rows miscounted": _manifest(lambda m: json.dumps({**m, "rows": m["rows"] + 1})),
    "ids deleted": lambda folder: (folder / "ids.npy").unlink(),
    "hits deleted": lambda folder: (folder / "hits.npy").unlink(),
    "scores truncated": _truncate("scores", 0.5),
    "hits truncated": _truncate("hits", 0.9),
    "scores empty": _truncate("scores", 0),
    "queries not an array": _garbage_queries,
    "ids pickled": _pickled_ids,
    "scores of another type": _array("scores", lambda a: a.astype(np.float64)),
    "hits 1-D": _array("hits", np.ravel),
    "short ids": _array("ids", lambda a: a[:-1]),
    "ids shuffled": _array("ids", lambda a: a[::-1]),
    "the folder a file": _replaced,
    "hits out of range": _array("hits", _set(10**6, columns=0)),
    "hits negative out of range": _array("hits", _set(-7, columns=1)),
    "rows reversed": _hits_and_scores(lambda a: a[::-1]),
    "rows set to -5": _array("hits", _set(-5)),
    "NaN scores": _array("scores", _set(np.nan)),
    "a row's scores swapped with another's": _array("scores", lambda a: a[[1, 0, *range(2, len(a))]]),
}


@pytest.fixture(scope="module")
def ranked(corpus, tmp_path_factory) -> Path:
    """An indexes folder with a BM25 index and the rankings of its first 100 papers."""
    indexes = tmp_path_factory.mktemp("ranked") / "indexes"
    index, manifest = built(corpus, indexes / BM25().folder, "bm25s")
    compute_rankings(index, indexes / BM25().folder, manifest, lambda: corpus, corpus[:100], DEPTH)
    return indexes


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_rankings_folder_is_searched_with_one_warning(corpus, ranked, damage, tmp_path, caplog):
    indexes = tmp_path / "indexes"
    shutil.copytree(ranked, indexes)
    searcher = BM25().searcher(indexes)
    queries = [paper_query(d) for d in corpus[:100:7]]
    DAMAGES[damage](indexes / BM25().folder / FOLDER)
    with caplog.at_level(logging.WARNING, logger="citegraph.retrieval.precomputed"):
        served = BM25().open(indexes)
        for k in (1, 10, DEPTH):
            assert served.search(queries, k) == searcher.search(queries, k), k
    warned = [r for r in caplog.records if r.name == "citegraph.retrieval.precomputed"]
    assert len(warned) == 1, [r.getMessage() for r in warned]
    assert str(indexes / BM25().folder / FOLDER) in warned[0].getMessage()
    assert "searching instead" in warned[0].getMessage()


def test_one_fill_at_a_time_and_rows_of_another_depth_are_kept(corpus, tmp_path):
    """Two fills at depths 40 and 20 both reported success, and only 20's rows survived."""
    index, manifest = built(corpus, tmp_path / "bm25", "bm25s")
    started, release = threading.Event(), threading.Event()

    class Held(Counting):  # a fill that holds its lock until released
        def search(self, queries, k, pools=None):
            started.set()
            release.wait(60)
            return super().search(queries, k, pools)

    first = threading.Thread(
        target=compute_rankings, args=(Held(index), tmp_path / "bm25", manifest, lambda: corpus, corpus[:50], DEPTH)
    )
    first.start()
    assert started.wait(60)
    try:
        with pytest.raises(CitegraphError, match="another `citegraph index rankings` is filling .*bm25/rankings"):
            compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, corpus[:50], DEPTH // 2)
    finally:
        release.set()
        first.join(60)
    with pytest.raises(CitegraphError, match=f"holds 50 rankings of depth {DEPTH}"):
        compute_rankings(index, tmp_path / "bm25", manifest, lambda: corpus, corpus[:50], DEPTH // 2)
    kept = PrecomputedRankings.open(tmp_path / "bm25" / FOLDER)
    assert (kept.depth, kept.computed()) == (DEPTH, 50)


def test_recommend_and_serve_on_a_damaged_folder_answer_as_searching(acl, server_env, tmp_path):
    """An empty scores.npy ended `recommend` with "Aborted!" and stopped `serve` from starting."""
    from http_service import serving

    env = {**server_env, "CITEGRAPH_DATA_DIR": str(tmp_path / "data")}
    citegraph_ok("index", "bm25", "--backend", "bm25s", env=env)
    (tmp_path / "ids.txt").write_text("P05-1012\nN03-1017\n")
    citegraph_ok("index", "rankings", "--depth", "150", "--ids", str(tmp_path / "ids.txt"), env=env)
    asked = ("recommend", "--paper", "P05-1012", "--format", "json")
    read = citegraph_ok(*asked, env=env)
    rankings = tmp_path / "data" / "indexes" / BM25().folder / FOLDER
    (rankings / "scores.npy").write_bytes(b"")
    searched = citegraph_ok(*asked, env=env)
    assert json.loads(searched.stdout) == json.loads(read.stdout)
    assert "Traceback" not in searched.stderr
    assert [line for line in searched.stderr.splitlines() if "searching instead" in line] == [
        next(line for line in searched.stderr.splitlines() if str(rankings) in line)
    ]
    with serving(env, tmp_path / "serve.log") as (url, _):
        answer = httpx.post(f"{url}/recommend", json={"paper": "P05-1012", "k": 20}, timeout=60)
        assert answer.status_code == 200, answer.text
        assert [r["id"] for r in answer.json()["recommendations"]] == [
            r["id"] for r in json.loads(read.stdout)["recommendations"]
        ]
    assert "searching instead" in (tmp_path / "serve.log").read_text()
