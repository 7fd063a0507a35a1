"""Per-topic cost of a dense re-rank of BM25's top 20 (``evaluate trec --rerank-depth 20``), BM25
alone as the baseline, under each OpenMP wait policy (issue 39 §3).

    .venv/bin/python benchmarks/rerank.py                                 # ACL-200, 552 topics, MiniLM
    .venv/bin/python benchmarks/rerank.py --topics 100 --policies passive
    .venv/bin/python benchmarks/rerank.py --synthetic 113000 --topics 100  # records with abstracts

The collection: the bundled ACL-200 papers (10,296 with a title, real; abstracts almost never: short
candidates) or, with ``--synthetic N``, N papers of ``citegraph.synth`` (seed 0) with their
abstracts, the shape of a BibTeX export (about 1.2 kB of abstract a record). BM25 is built over
it (Lucene when the [lucene] extra is installed, else bm25s) and its texts recorded beside the
index, as ``citegraph index bm25`` does. The topics are the titles of ``--topics`` papers drawn
with seed 0 (ACL-200: papers citing at least 3 others of it). The encoder is the packaged MiniLM,
opened as ``evaluate trec`` opens a re-ranker (:func:`~citegraph.retrieval.dense.pool_encoder.open_for_rerank`:
it encodes the candidates it is handed, caching each text's vector).

Each policy runs in its own process, as the OpenMP runtime reads its wait policy once, when torch
loads: ``passive`` is what citegraph sets (``OMP_WAIT_POLICY=PASSIVE``), ``spin`` is libgomp's
own default (``GOMP_SPINCOUNT=300000``: what ran before), ``one-thread`` is ``OMP_NUM_THREADS=1``.
Per case, per topic: wall and CPU milliseconds (CPU of the whole process, every thread), p50 and
p95, and the 1-minute load average before and after the case. Cases:

* ``bm25 top 20`` — one topic a call: the baseline;
* ``re-rank, cold`` — one topic a call, the topic's BM25 top 20 re-ranked with an empty vector
  cache at the start (a topic encodes its candidates that no earlier topic had, and itself);
* ``re-rank, warm`` — the same again: every candidate cached, the topic alone is encoded;
* ``evaluate trec, cold/warm`` — every topic in one call (:func:`citegraph.evaluation.trec.collection.rank_topics`,
  what ``evaluate trec`` runs), another empty cache: seconds over the run, per topic.

The rankings of every policy are compared with the first run's (the order, and the scores to the
last bit). With ``--work W`` the folder stays: a TREC collection that the command itself ranks,
without a graph (the texts are recorded beside the index)::

    CITEGRAPH_DATA_DIR=W citegraph evaluate trec --topics W/topics.tsv --qrels W/qrels.txt \\
        --with 'bm25,rrf(bm25,minilm)' --rerank-depth 20 --out W/trec
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from citegraph.retrieval.base import Document

ACL200 = Path(__file__).resolve().parents[1] / "citegraph" / "data" / "acl200"
DEPTH = 20
POLICIES: dict[str, dict[str, str]] = {
    "passive": {},  # citegraph's default (citegraph/retrieval/dense/encoders.py)
    "spin": {"GOMP_SPINCOUNT": "300000"},  # libgomp's default when no policy is set
    "one-thread": {"OMP_NUM_THREADS": "1"},
}


# -- the collection (parent process) -------------------------------------------------------
Collection = tuple[list[Document], list[Document], dict[str, set[str]]]  # corpus, topics, qrels


def acl200(topics: int) -> Collection:
    with gzip.open(ACL200 / "papers.jsonl.gz", "rt", encoding="utf-8") as f:
        papers = [json.loads(line) for line in f]
    docs = [Document(p["paper_id"], p["title"], p.get("abstract") or "") for p in papers if p.get("title")]
    known = {d.id: d for d in docs}
    cited: dict[str, set[str]] = defaultdict(set)
    with gzip.open(ACL200 / "edges.tsv.gz", "rt", encoding="utf-8") as f:
        for line in f:
            citing, target, *_ = line.rstrip("\n").split("\t")
            if citing in known and target in known:
                cited[citing].add(target)
    eligible = sorted(p for p, targets in cited.items() if len(targets) >= 3)
    random.Random(0).shuffle(eligible)
    chosen = eligible[:topics]
    return docs, [Document(p, known[p].title) for p in chosen], {p: cited[p] for p in chosen}


def synthetic(papers: int, topics: int) -> Collection:
    from citegraph.synth import SynthSpec, records

    found = list(records(SynthSpec(papers=papers, seed=0)))
    docs = [Document(r["paper_id"], r["title"], r["abstract"] or "") for r in found]
    chosen = random.Random(0).sample(found, topics)
    qrels = {r["paper_id"]: set(r["outbound_citations"]) for r in chosen}
    return docs, [Document(r["paper_id"], r["title"]) for r in chosen], qrels


def prepare(work: Path, corpus: str, topics: int) -> str:
    """A TREC collection in ``work`` (kept for reruns): the BM25 index and the recorded texts in
    ``indexes/`` (as ``citegraph index bm25`` leaves them in a data folder), ``topics.tsv`` and
    ``qrels.txt`` (each topic's cited papers); a description."""
    from citegraph.retrieval.docstore import DocStore
    from citegraph.retrieval.spec import BM25

    done = work / "collection.json"
    if done.is_file() and json.loads(done.read_text())["key"] == [corpus, topics, "trec"]:
        return json.loads(done.read_text())["description"]
    shutil.rmtree(work / "indexes", ignore_errors=True)
    started = time.perf_counter()
    docs, chosen, qrels = acl200(topics) if corpus == "acl200" else synthetic(int(corpus), topics)
    BM25().build(DocStore(work / "indexes").recording(docs), work / "indexes")
    (work / "topics.tsv").write_text("".join(f"{t.id}\t{t.title}\n" for t in chosen), encoding="utf-8")
    (work / "qrels.txt").write_text("".join(f"{q} 0 {d} 1\n" for q in qrels for d in sorted(qrels[q])))
    with_abstract = sum(bool(d.abstract) for d in docs)
    description = (
        f"{'ACL-200' if corpus == 'acl200' else 'synthetic'}: {len(docs):,} papers ({with_abstract:,} with an "
        f"abstract), {len(chosen)} topics (titles), indexed in {time.perf_counter() - started:.0f} s"
    )
    done.write_text(json.dumps({"key": [corpus, topics, "trec"], "description": description}))
    return description


# -- one policy (child process) -------------------------------------------------------------
def timed_topics(call, topics: list[Document]) -> dict:
    """``call(i)`` for every topic: wall and CPU milliseconds each, and the load before and after."""
    wall, cpu, load = [], [], os.getloadavg()[0]
    for i in range(len(topics)):
        c, t = time.process_time(), time.perf_counter()
        call(i)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return {"wall": wall, "cpu": cpu, "load": [load, os.getloadavg()[0]]}


def timed_run(call, topics: list[Document]) -> dict:
    """``call()`` once for every topic: its seconds spread over the topics."""
    load, c, t = os.getloadavg()[0], time.process_time(), time.perf_counter()
    call()
    n = len(topics)
    return {
        "wall": [(time.perf_counter() - t) * 1000 / n],
        "cpu": [(time.process_time() - c) * 1000 / n],
        "load": [load, os.getloadavg()[0]],
    }


def child(work: Path, policy: str) -> None:
    from citegraph.evaluation.trec.collection import rank_topics
    from citegraph.formats.trec import read_topics
    from citegraph.heavy import torch  # through citegraph's seam, which sets the wait policy first
    from citegraph.retrieval.dense.pool_encoder import PoolEncoder, open_for_rerank
    from citegraph.retrieval.docstore import DocStore
    from citegraph.retrieval.spec import BM25, parse_spec

    trec_topics = read_topics(work / "topics.tsv")
    topics = [Document(t.id, t.text) for t in trec_topics]  # as rank_topics asks them
    indexes = work / "indexes"
    bm25 = BM25().searcher(indexes)
    bm25.search([t.title for t in topics[:20]], DEPTH)  # warm: the JVM's JIT, the index's pages
    pools = [{h.id for h in hits} for hits in bm25.search(topics, DEPTH)]
    cases: dict[str, dict] = {"bm25 top 20": timed_topics(lambda i: bm25.search([topics[i]], DEPTH), topics)}

    caches = work / "embeddings" / policy
    shutil.rmtree(caches, ignore_errors=True)
    started = time.perf_counter()
    reranker = open_for_rerank(parse_spec("minilm"), indexes, caches / "per-topic", DocStore(indexes).get)
    load_seconds = time.perf_counter() - started
    assert isinstance(reranker, PoolEncoder)
    encoder = reranker.encoder
    encoder.encode(topics[:32])  # warm: the first forward allocates
    rankings: list = [None] * len(topics)

    def rerank(i: int) -> None:
        rankings[i] = reranker.search([topics[i]], DEPTH, [pools[i]])[0]

    cases["re-rank, cold"] = timed_topics(rerank, topics)
    cases["re-rank, warm"] = timed_topics(rerank, topics)
    batch = open_for_rerank(parse_spec("minilm"), indexes, caches / "run", DocStore(indexes).get)
    cases["evaluate trec, cold"] = timed_run(lambda: rank_topics(batch, trec_topics, DEPTH, pools), topics)
    found: dict = {}
    cases["evaluate trec, warm"] = timed_run(
        lambda: found.update(rank_topics(batch, trec_topics, DEPTH, pools)), topics
    )

    texts = [d.text for d in DocStore(indexes).get({i for pool in pools for i in pool}).values()]
    tokens = [len(ids) for ids in encoder.tokenizer(texts, truncation=True, max_length=encoder.max_length)["input_ids"]]
    both = [rankings, [found[t.id] for t in topics]]  # per topic, and in one call

    def digest(hit) -> str:
        return hashlib.sha256(json.dumps([[[hit(h) for h in r] for r in run] for run in both]).encode()).hexdigest()

    print(
        json.dumps(
            {
                "cases": cases,
                "threads": torch.get_num_threads(),
                "model_load": load_seconds,
                "candidates": len(texts),
                "tokens": statistics.mean(tokens),
                "scores": digest(lambda h: (h.id, h.score)),
                "order": digest(lambda h: h.id),
            }
        )
    )


# -- the report (parent process) -----------------------------------------------------------
def same(run: dict, first: dict) -> str:
    if run["scores"] == first["scores"]:
        return "identical, score for score"
    return "the same order, scores apart in their last bits" if run["order"] == first["order"] else "another order"


def quantile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=552)
    parser.add_argument("--synthetic", type=int, help="papers of a synthetic corpus with abstracts (default: ACL-200)")
    parser.add_argument("--policies", default=",".join(POLICIES), help=f"comma-separated, of {', '.join(POLICIES)}")
    parser.add_argument("--rounds", type=int, default=1, help="each policy's process this many times, in turn")
    parser.add_argument("--work", type=Path, help="keep the index and topics here (default: a temporary folder)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    policies = args.policies.split(",")
    if unknown := set(policies) - set(POLICIES):
        parser.error(f"unknown policies {', '.join(sorted(unknown))}; choose of {', '.join(POLICIES)}")
    if args.child:
        child(args.work, args.child)
        return

    with tempfile.TemporaryDirectory(prefix="citegraph-rerank-") as tmp:
        work = args.work or Path(tmp)
        described = prepare(work, str(args.synthetic) if args.synthetic else "acl200", args.topics)
        unset = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_NUM_THREADS")  # each policy sets its own
        clean = {k: v for k, v in os.environ.items() if k not in unset}
        runs = []
        for _ in range(args.rounds):
            for policy in policies:
                done = subprocess.run(
                    [sys.executable, __file__, "--work", str(work), "--child", policy],
                    env=clean | POLICIES[policy],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode:
                    raise SystemExit(f"the {policy} run failed:\n{done.stderr[-3000:]}")
                runs.append((policy, json.loads(done.stdout.strip().splitlines()[-1])))

    from citegraph.heavy import torch

    first = runs[0][1]
    print(
        f"# rerank benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, torch {torch.__version__}; {described}; BM25 top {DEPTH} re-ranked by the "
        f"packaged MiniLM (float32, load {first['model_load']:.1f} s); {first['candidates']:,} distinct candidates, "
        f"{first['tokens']:.0f} tokens each on average"
        + "".join(f"; {policy} ranks as the first run: {same(found, first)}" for policy, found in runs[1:])
    )
    print("| case | policy (torch threads) | p50 ms | p95 ms | CPU ms a topic | p50 ÷ bm25's | 1-min load |")
    print("|---|---|---:|---:|---:|---:|---|")
    for policy, found in runs:
        base = quantile(found["cases"]["bm25 top 20"]["wall"], 50)
        for case, timing in found["cases"].items():
            wall = timing["wall"]
            p95 = f"{quantile(wall, 95):.1f}" if len(wall) > 1 else "—"
            print(
                f"| {case} | {policy} ({found['threads']}) | {quantile(wall, 50):.1f} | {p95} | "
                f"{statistics.mean(timing['cpu']):.1f} | {quantile(wall, 50) / base:.1f} | "
                f"{timing['load'][0]:.1f} → {timing['load'][1]:.1f} |"
            )


if __name__ == "__main__":
    main()
