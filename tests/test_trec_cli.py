"""A test collection given as BibTeX + TREC topics + qrels, from files to a scored table in
three commands (ingest bibtex, index bm25, evaluate trec) on a real ArcadeDB server; topic
searches in one process without the graph; dense indexes over given ids; re-ranking that
encodes only the candidates, once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from citegraph.evaluation.scorers import RunFile
from citegraph.evaluation.trec.collection import score_runs
from citegraph.formats.trec import read_qrels, read_topics

from conftest import citegraph, citegraph_ok

COLLECTION = Path(__file__).parent / "fixtures" / "trec" / "collection"
TOPICS, QRELS, CORPUS = COLLECTION / "topics.txt", COLLECTION / "qrels.txt", COLLECTION / "corpus.bib"


def _loaded(env: dict) -> None:
    citegraph_ok("ingest", "bibtex", str(CORPUS), "--no-progress", env=env)
    citegraph_ok("index", "bm25", "--backend", "bm25s", env=env)


def evaluate_trec(systems: str, out: Path, *options: str, env: dict):
    """`citegraph evaluate trec` of the fixture collection's topics and qrels, which must succeed."""
    args = ["--topics", str(TOPICS), "--qrels", str(QRELS), "--with", systems, *options, "--out", str(out)]
    return citegraph_ok("evaluate", "trec", *args, env=env)


def test_three_commands_from_files_to_a_scored_table(store, server_env, tmp_path):
    _loaded(server_env)
    done = evaluate_trec("bm25", tmp_path / "out", "-k", "5", env=server_env)
    assert "R@5" in done.stdout and "nDCG@5" in done.stdout and "MAP" in done.stdout and "MRR" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    per_topic_map = results["per_query"]["bm25"]["MAP"]
    assert per_topic_map["2"] > 0  # qrels say 10.3233/ds-190001, the graph 10.3233/DS-190001: matched
    assert results["per_query"]["bm25"]["MRR"]["3"] == 1.0  # the one paper about dense retrieval comes first
    # the table is the scoring of the run the command wrote, by the same measures
    run = RunFile(tmp_path / "out" / "runs" / "bm25.trec")
    again = score_runs(read_topics(TOPICS), read_qrels(QRELS), {"bm25": run.rankings}, 5)
    assert again.table.rows["bm25"] == {m: [v[0], None] for m, v in results["tables"][0]["rows"]["bm25"].items()}
    assert f"{results['tables'][0]['rows']['bm25']['MAP'][0] * 100:.2f}" in done.stdout


def test_a_topic_file_with_a_repeated_id_is_scored_once_per_id(store, server_env, tmp_path):
    """Topic 2 is given twice (lines 8 and 22): by default the later text is searched and scored, as
    Anserini reads topics into a map and trec_eval scores per id; a warning names both lines;
    --on-duplicate first keeps the first; --on-duplicate error and --strict refuse."""
    _loaded(server_env)
    repeated = COLLECTION / "topics-repeated.txt"
    args = ["evaluate", "trec", "--topics", str(repeated), "--qrels", str(QRELS), "--with", "bm25", "-k", "5"]
    done = citegraph_ok(*args, "--out", str(tmp_path / "last"), env=server_env)
    assert "topics-repeated.txt:22: field 'id' topic 2 also given at line 8" in done.stderr
    last = json.loads((tmp_path / "last" / "results.json").read_text())
    assert last["config"]["topics"] == 3 and set(last["per_query"]["bm25"]["MAP"]) == {"1", "2", "3"}
    assert last["per_query"]["bm25"]["MRR"]["2"] == 1.0  # 'citation graph database' finds the graph paper first
    citegraph_ok(*args, "--on-duplicate", "first", "--out", str(tmp_path / "first"), env=server_env)
    first = json.loads((tmp_path / "first" / "results.json").read_text())
    assert first["per_query"]["bm25"]["MRR"]["2"] < 1.0  # 'genetics of reading' finds the genetics paper
    for refuse in (["--on-duplicate", "error"], ["--strict"]):
        failed = citegraph(*args, *refuse, "--out", str(tmp_path / "x"), env=server_env)
        assert failed.returncode != 0 and "Traceback" not in failed.stderr
        assert "topics-repeated.txt:22: field 'id' topic 2 already given at line 8" in failed.stderr
    offline = {**server_env, "CITEGRAPH_URI": "bolt://127.0.0.1:9"}
    run = tmp_path / "run.trec"
    searched = citegraph_ok("search", "--topics", str(repeated), "-k", "1", "--run", str(run), env=offline)
    assert "3 topics, top 1 each" in searched.stdout and "topic 2 also given at line 8" in searched.stderr
    assert [line.split()[:3] for line in run.read_text().splitlines()][1] == ["2", "Q0", "10.3233/DS-190001"]
    refused = citegraph("search", "--topics", str(repeated), "--strict", env=offline)
    assert refused.returncode != 0 and "already given at line 8" in refused.stderr


def test_topic_search_in_one_process_without_the_graph(store, server_env, tmp_path):
    _loaded(server_env)
    offline = {**server_env, "CITEGRAPH_URI": "bolt://127.0.0.1:9"}  # nothing listens: a graph call would fail
    out = tmp_path / "run.trec"
    done = citegraph_ok("search", "--topics", str(TOPICS), "--field", "desc", "-k", "3", "--run", str(out), env=offline)
    assert "3 topics, top 3 each" in done.stdout
    lines = [line.split() for line in out.read_text().splitlines()]
    assert {line[0] for line in lines} == {"1", "2", "3"} and all(line[5] == "bm25" for line in lines)
    shown = citegraph_ok("search", "citation graph database", "-k", "1", "--json", env=offline)
    assert json.loads(shown.stdout)["title"] == "Graph databases for scholarly knowledge"


@pytest.mark.slow  # two commands that run the real MiniLM
def test_a_dense_rerank_waits_passively_and_ranks_as_the_spinning_default_did(store, server_env, tmp_path):
    """`evaluate trec` re-ranks with torch's OpenMP threads waiting passively (citegraph.heavy: two
    spinning threads on shared cores ran several times slower); libgomp's own default, 300,000 spins
    at every barrier (what ran before), ranks every topic the same, each run from an empty vector
    cache (the packaged MiniLM, alone and fused; a cosine may move in its last bits from process to
    process, as MKL's sums do)."""
    _loaded(server_env)
    embeddings = Path(server_env["CITEGRAPH_DATA_DIR"]) / "embeddings"
    unset = {k: v for k, v in server_env.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    runs = {}
    for name, policy in (("passive", {}), ("spin", {"GOMP_SPINCOUNT": "300000"})):
        for earlier in embeddings.glob("vectors-*.sqlite"):
            earlier.unlink()
        done = evaluate_trec(
            "bm25,minilm,rrf(bm25,minilm)",
            tmp_path / name,
            "--rerank-depth",
            "5",
            env=unset | policy | {"OMP_DISPLAY_ENV": "VERBOSE"},
        )
        assert f"GOMP_SPINCOUNT = '{policy.get('GOMP_SPINCOUNT', '0')}'" in done.stderr
        runs[name] = {f.name: RunFile(f).rankings for f in (tmp_path / name / "runs").glob("*.trec")}
    assert set(runs["passive"]) == set(runs["spin"]) == {"bm25.trec", "minilm.trec", "rrf_bm25_minilm.trec"}
    for run, rankings in runs["passive"].items():
        spun = runs["spin"][run]
        assert {t: [h.id for h in hits] for t, hits in rankings.items()} == {
            t: [h.id for h in hits] for t, hits in spun.items()
        }
        for topic, hits in rankings.items():
            assert [h.score for h in hits] == pytest.approx([h.score for h in spun[topic]], rel=1e-6)


def test_dense_index_over_given_ids_and_a_reranker_encoding_only_candidates(store, server_env, tiny_bert, tmp_path):
    _loaded(server_env)
    for earlier in (Path(server_env["CITEGRAPH_DATA_DIR"]) / "embeddings").glob("vectors-*.sqlite"):
        earlier.unlink()  # caches other tests left in the session's data dir (e.g. `cite --model`): counted below
    encoder = f"hf:{tiny_bert}"
    ids = tmp_path / "ids.txt"
    ids.write_text("10.1007/S11192-021-0001\n10.3233/DS-190001\nnot-a-paper\n", encoding="utf-8")
    done = citegraph_ok("index", "dense", "--encoder", encoder, "--ids", str(ids), env=server_env)
    assert "2 documents" in done.stdout and "1 of the 3 ids" in done.stderr
    found = citegraph_ok("search", "graphs", "--with", encoder, "-k", "5", "--json", env=server_env)
    assert {json.loads(line)["id"] for line in found.stdout.splitlines()} == {
        "10.1007/S11192-021-0001",
        "10.3233/DS-190001",
    }
    evaluate_trec(f"bm25,{encoder}", tmp_path / "out", "--rerank-depth", "3", env=server_env)
    [cache] = (Path(server_env["CITEGRAPH_DATA_DIR"]) / "embeddings").glob("vectors-*.sqlite")
    bm25 = RunFile(tmp_path / "out" / "runs" / "bm25.trec")
    candidates = {h.id for hits in bm25.rankings.values() for h in hits}
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM vec").fetchone()[0] == len(candidates)  # only the candidates
    evaluate_trec(
        f"bm25,{encoder}", tmp_path / "out", "--rerank-depth", "3", env=server_env
    )  # a second run: the candidates come from the cache
    with sqlite3.connect(cache) as db:
        assert db.execute("SELECT count(*) FROM vec").fetchone()[0] == len(candidates)
    reranked = RunFile(next((tmp_path / "out" / "runs").glob("hf_*.trec")))
    for topic, hits in reranked.rankings.items():
        assert {h.id for h in hits} == {h.id for h in bm25.rankings[topic]}  # the same candidates, re-ordered
