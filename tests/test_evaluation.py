"""The evaluation harness end to end on a synthetic corpus in a real graph: large-scale
pools and MDCR, citegraph's BM25 against the same run read back from a TREC file, the
table shapes, the files and figures, and a golden run whose numbers are pinned."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from citegraph.evaluation.harness import run
from citegraph.evaluation.large_scale import pools
from citegraph.evaluation.large_scale.config import PoolsConfig
from citegraph.evaluation.large_scale.score import LargeScale
from citegraph.evaluation.mdcr import build as mdcr
from citegraph.evaluation.mdcr.config import MDCRConfig
from citegraph.evaluation.mdcr.score import MDCR, PUBLISHED_SCINCL_TEST, fingerprint, read_benchmark
from citegraph.evaluation.report import draw, load_tables
from citegraph.evaluation.scorers import RunFile
from citegraph.formats.trec import write_run
from citegraph.ingest import formats, ingest
from citegraph.retrieval.base import Document
from citegraph.retrieval.bm25 import build_bm25
from citegraph.retrieval.corpus import documents
from citegraph.retrieval.spec import BM25
from citegraph.synth import SynthSpec, generate


@pytest.fixture
def corpus(store, tmp_path):
    generate(SynthSpec(papers=1500, seed=3, topics=12), tmp_path / "corpus.jsonl")
    ingest(store, formats.get("s2orc"), [tmp_path / "corpus.jsonl"])
    bm25 = build_bm25(list(documents(store)), tmp_path / "bm25", backend="bm25s")
    return store, bm25


def test_large_scale_tables_files_and_external_runs(corpus, tmp_path):
    store, bm25 = corpus
    manifest = pools.dataset_level(
        store, tmp_path / "pools", PoolsConfig(repeats=2, seed=4), n_queries=30, sizes=(300, 900)
    )
    queries = [json.loads(line) for line in (tmp_path / "pools" / "queries.jsonl").open()]
    first = manifest.pools[0]
    pool = set((tmp_path / "pools" / first["file"]).read_text().split())
    docs = [Document(q["id"], q["title"], q["abstract"]) for q in queries]
    rankings = bm25.search(docs, 501, [pool] * len(docs))
    write_run(tmp_path / "bm25.run", {d.id: [h for h in r if h.id != d.id] for d, r in zip(docs, rankings)}, "bm25")
    external = RunFile(tmp_path / "bm25.run", "bm25-file")

    tables = run(LargeScale(tmp_path / "pools"), [bm25, external], tmp_path / "out").tables
    assert [t.title.split(":")[0] for t in tables] == ["MAP", "nDCG", "R@30"]
    map_table = tables[0]
    assert map_table.columns == ["300", "900"]
    ours = map_table.rows["bm25"]
    assert ours["300"][0] > ours["900"][0] > 0  # bigger pools are harder
    for name in ("results.json", "results.csv", "results.md", "dataset-level-MAP.png", "dataset-level-MAP.svg"):
        assert (tmp_path / "out" / name).is_file()
    saved = json.loads((tmp_path / "out" / "results.json").read_text())["per_query"]
    assert len(saved["bm25"]["300/0"]["MAP"]) == 30
    # the same ranking, read back from a TREC file, scores the same on the pool it was made for
    assert saved["bm25-file"]["300/0"] == saved["bm25"]["300/0"]
    assert "**" in (tmp_path / "out" / "results.md").read_text()  # best per column marked


def test_mdcr_tables_ours_and_official(corpus, tmp_path):
    store, _ = corpus
    manifest = mdcr.build(store, tmp_path / "mdcr", MDCRConfig(n_queries=5, seed=2))
    benchmark, docs = read_benchmark(tmp_path / "mdcr", "test")
    assert set(benchmark) == {f for f, n in manifest.graph["queries_per_field"].items() if n} and len(benchmark) >= 2
    bm25 = BM25().build(list(docs.values()), tmp_path / "work")
    tables = run(MDCR(tmp_path / "mdcr"), [bm25], tmp_path / "out").tables
    map_fields, _, r5, per_type = tables
    fields = list(benchmark)
    assert map_fields.columns == [*fields, "AVG"]
    avg = map_fields.rows["bm25"]["AVG"][0]
    assert avg == pytest.approx(sum(map_fields.rows["bm25"][f][0] for f in fields) / len(fields))
    assert set(per_type.columns) == {"graph", "most_cited", "random"}
    assert per_type.rows["bm25"]["random"][0] > per_type.rows["bm25"]["graph"][0]  # random negatives are easy
    assert "SciNCL (published)" not in map_fields.rows
    heat = tmp_path / "out" / "mdcr-test-map-per-type.png"
    assert heat.is_file()
    heat.unlink()
    assert heat in draw(load_tables(tmp_path / "out"), tmp_path / "out")  # `citegraph report` redraws

    # a folder without citegraph's manifest is not thereby the official release: no published row
    bare = tmp_path / "bare"
    bare.mkdir()
    for name in ("mdcr_test.json", "mdcr_test_data.jsonl"):
        shutil.copy(tmp_path / "mdcr" / name, bare / name)
    results = run(MDCR(bare), [bm25], tmp_path / "out-bare")
    assert "SciNCL (published)" not in results.tables[0].rows and not results.config["official_release"]
    assert "release_files" not in results.config

    # said to be the release: the published row beside ours, and the files it was said of, fingerprinted
    results = run(MDCR(bare, official_release=True), [bm25], tmp_path / "out-official")
    assert results.tables[0].rows["SciNCL (published)"]["AVG"][0] == PUBLISHED_SCINCL_TEST["MAP"]
    assert results.tables[0].rows["bm25"] == map_fields.rows["bm25"]
    assert results.config["release_files"] == fingerprint(bare, "test")


def test_an_mdcr_fingerprint_is_each_files_size_and_sha256(tmp_path):
    (tmp_path / "mdcr_test.json").write_bytes(b'{"Physics": {}}\n')
    (tmp_path / "mdcr_test_data.jsonl").write_bytes(b"")
    assert fingerprint(tmp_path, "test") == {
        "mdcr_test.json": {"bytes": 16, "sha256": hashlib.sha256(b'{"Physics": {}}\n').hexdigest()},
        "mdcr_test_data.jsonl": {
            "bytes": 0,
            "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        },
    }
    (tmp_path / "mdcr_test_data.jsonl").write_bytes(b"\n")  # one byte changed: another fingerprint
    assert fingerprint(tmp_path, "test")["mdcr_test_data.jsonl"]["sha256"] != hashlib.sha256(b"").hexdigest()


def test_golden_run(corpus, tmp_path):
    """Pinned numbers: a change in the synthetic corpus, pools, BM25 or metrics shows here."""
    store, bm25 = corpus
    pools.dataset_level(store, tmp_path / "pools", PoolsConfig(repeats=1, seed=11), n_queries=20, sizes=(500,))
    tables = run(LargeScale(tmp_path / "pools"), [bm25], tmp_path / "out").tables
    values = {t.title.split(":")[0]: round(t.rows["bm25"]["500"][0], 4) for t in tables}
    assert values == GOLDEN


GOLDEN = {"MAP": 0.1643, "nDCG": 0.4442, "R@30": 0.4455}
