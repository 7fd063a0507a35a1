"""Recommendation latency over HTTP: POST /recommend of `citegraph serve` on a synthetic graph.

    .venv/bin/python benchmarks/recommend.py                          # 200k papers, ~2M citations
    .venv/bin/python benchmarks/recommend.py --papers 20000           # a quick run
    .venv/bin/python benchmarks/recommend.py --work /tmp/rec-bench    # keep the graph and index for reruns

A synthetic S2ORC corpus (``citegraph.synth``, seed 0, cached as ``benchmarks/ingest.py``
caches it) is bulk-loaded into an embedded ArcadeDB, indexed with BM25 (Lucene when the
[lucene] extra is installed, else bm25s), and ``citegraph serve`` is started on it as a
child process: BM25 + graph signals with the default weights. Then, in the same run:

* **baselines** — BM25 search alone for the seed papers' texts (in this process, k = 100 as
  the recommender asks), and ``GET /paper/{id}`` over HTTP (HTTP plus one graph lookup: the
  service's floor);
* **/recommend for a paper id** (held-out-style seeds: papers with ≥ 3 references), one
  request at a time: p50 and p95 — the target is p50 < 100 ms;
* **/recommend for a new paper** (title + abstract of other papers, no references: text,
  enrichment and features, no reference neighbourhood);
* **4 concurrent clients** asking for paper ids: requests/s, p50 and p95; the target is
  ≥ 1.5 × the requests/s of one client.

For the paper-id cases the CPU time the service process and the graph server spent per
request is printed too (from ``/proc``): what bounds the throughput on this machine's
two cores, whatever the load average.

Every request asks for a different paper, so the service's per-seed cache never answers;
a warm-up of ``--warmup`` requests (other papers) runs first (JIT of the graph server).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from ingest import corpus  # benchmarks/ingest.py: the cached synthetic corpus

from citegraph.config import Config
from citegraph.graph import open_backend, open_store
from citegraph.graph.processes import free_port
from citegraph.ingest import formats
from citegraph.ingest.bulk import bulk_ingest
from citegraph.recommend.held_out import held_out_citations
from citegraph.retrieval.bm25 import read_manifest
from citegraph.retrieval.corpus import documents
from citegraph.retrieval.spec import BM25
from citegraph.service.serving import wait_serving


def ms(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def timed_each(call, items) -> list[float]:
    out = []
    for item in items:
        started = time.perf_counter()
        call(item)
        out.append((time.perf_counter() - started) * 1000)
    return out


def cpu_ms(pid: int) -> float:
    """User + system CPU time of a process so far, in ms (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def post(client: httpx.Client, body: dict) -> None:
    response = client.post("/recommend", json=body)
    response.raise_for_status()
    if not response.json()["recommendations"]:
        raise RuntimeError(f"no recommendation for {body}")


def concurrent(url: str, bodies: list[dict], clients: int) -> tuple[list[float], float]:
    """``clients`` threads, each with its own connection, share the bodies; latencies and wall seconds."""
    queue = list(reversed(bodies))
    lock = threading.Lock()
    latencies: list[float] = []

    def work() -> None:
        with httpx.Client(base_url=url, timeout=120) as client:
            while True:
                with lock:
                    if not queue:
                        return
                    body = queue.pop()
                started = time.perf_counter()
                post(client, body)
                with lock:
                    latencies.append((time.perf_counter() - started) * 1000)

    threads = [threading.Thread(target=work) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, time.perf_counter() - started


def loaded(config: Config, store, fmt: str, path: Path, heap: str) -> tuple[float, float, str]:
    """The graph bulk-loaded from ``path`` and BM25-indexed in ``config``'s data folder, unless
    done before (``--work``): load and index seconds, and the BM25 backend."""
    started = time.perf_counter()
    if not store.value("bulk/any_node"):
        bulk_ingest(open_backend(config), store, formats.get(fmt), [path], heap=heap)
    load = time.perf_counter() - started
    indexes = Path(config.data_dir) / "indexes"
    started = time.perf_counter()
    if not (indexes / BM25().folder / "manifest.json").exists():
        BM25().build(documents(store), indexes)
    return load, time.perf_counter() - started, read_manifest(indexes / BM25().folder)["backend"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=200_000)
    parser.add_argument("--requests", type=int, default=300, help="requests per case")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--heap", default="4g")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "citegraph-bench")
    parser.add_argument(
        "--work", type=Path, help="keep the graph and the index here and reuse them (default: a temporary folder)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="citegraph-recommend-") as tmp:
        work = args.work or Path(tmp)
        config = Config(data_dir=work / "data", heap=args.heap)
        path, _ = corpus(args.papers, args.corpus_dir)
        with open_store(config) as store:
            load, indexing, backend = loaded(config, store, "s2orc", path, args.heap)
            indexes = work / "data" / "indexes"

            need = args.warmup + 3 * args.requests
            seeds = [e.seed for e in held_out_citations(store, need, seed=0)]
            if len(seeds) < need:
                raise SystemExit(f"only {len(seeds)} papers with 3 or more references; ask for fewer --requests")
            warm, one, texts, many = (
                seeds[: args.warmup],
                seeds[args.warmup : args.warmup + args.requests],
                seeds[args.warmup + args.requests : args.warmup + 2 * args.requests],
                seeds[args.warmup + 2 * args.requests :],
            )

            bm25 = BM25().open(indexes)
            for seed in warm[:10]:
                bm25.search([seed.document], 100)
            alone = timed_each(lambda s: bm25.search([s.document], 100 + len(s.references) + 1), one)

            port = free_port()
            url = f"http://127.0.0.1:{port}"
            env = {**os.environ, "CITEGRAPH_DATA_DIR": str(config.data_dir), "CITEGRAPH_HEAP": args.heap}
            env.pop("CITEGRAPH_URI", None)  # the embedded server this process runs
            server = subprocess.Popen(
                [sys.executable, "-m", "citegraph.cli", "serve", "--port", str(port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                wait_serving(url, server, timeout=300)
                graph = json.loads((Path(config.data_dir) / "arcadedb" / "server.json").read_text())["pid"]
                load_before = os.getloadavg()[0]
                with httpx.Client(base_url=url, timeout=120) as client:
                    for seed in warm:
                        post(client, {"paper": seed.id, "k": 20})
                    lookup = timed_each(lambda s: client.get(f"/paper/{s.id}").raise_for_status(), one)
                    cpu = (cpu_ms(server.pid), cpu_ms(graph))
                    by_id = timed_each(lambda s: post(client, {"paper": s.id, "k": 20}), one)
                    cpu = ((cpu_ms(server.pid) - cpu[0]) / len(one), (cpu_ms(graph) - cpu[1]) / len(one))
                    by_text = timed_each(
                        lambda s: post(client, {"title": s.title, "abstract": s.abstract, "year": s.year, "k": 20}),
                        texts,
                    )
                cpu_many = (cpu_ms(server.pid), cpu_ms(graph))
                together, wall = concurrent(url, [{"paper": s.id, "k": 20} for s in many], args.clients)
                cpu_many = ((cpu_ms(server.pid) - cpu_many[0]) / len(many), (cpu_ms(graph) - cpu_many[1]) / len(many))
                load_after = os.getloadavg()[0]
            finally:
                server.terminate()
                server.wait(timeout=60)
            counts = {row["label"]: row["count"] for row in store.run("stats/labels")}

    base = ms(alone, 50)
    print(
        f"# recommend benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {counts.get('Paper', 0):,} papers (bulk load {load:.0f} s), "
        f"BM25 {backend} (index {indexing:.0f} s), ArcadeDB heap {args.heap}; "
        f"{args.requests} requests per case; 1-min load average {load_before:.1f} → {load_after:.1f}"
    )
    print("| case | p50 ms | p95 ms | p50 ÷ BM25 alone | target |")
    print("|---|---:|---:|---:|---|")
    print(f"| BM25 search alone, k = 100 (in process; baseline) | {base:.1f} | {ms(alone, 95):.1f} | 1.00 | — |")
    print(
        f"| GET /paper/{{id}} over HTTP | {ms(lookup, 50):.1f} | {ms(lookup, 95):.1f} | "
        f"{ms(lookup, 50) / base:.2f} | — |"
    )
    print(
        f"| POST /recommend, paper id (BM25 + graph signals, k = 20) | {ms(by_id, 50):.1f} | {ms(by_id, 95):.1f} | "
        f"{ms(by_id, 50) / base:.2f} | p50 < 50 ms, p95 < 150 ms |"
    )
    print(
        f"| POST /recommend, new paper's title + abstract | {ms(by_text, 50):.1f} | {ms(by_text, 95):.1f} | "
        f"{ms(by_text, 50) / base:.2f} | — |"
    )
    print(
        f"| POST /recommend, paper id, {args.clients} concurrent clients | {ms(together, 50):.1f} | "
        f"{ms(together, 95):.1f} | {ms(together, 50) / base:.2f} | — |"
    )
    one_rate = 1000 / statistics.mean(by_id)
    print(
        f"\n{args.clients} concurrent clients: {len(together) / wall:.1f} requests/s "
        f"({len(together)} requests in {wall:.1f} s); one client: {one_rate:.1f} requests/s; ratio "
        f"{len(together) / wall / one_rate:.2f} (target ≥ 1.5)"
    )
    print(
        f"CPU per paper-id request, one client: service {cpu[0]:.1f} ms, graph server {cpu[1]:.1f} ms; "
        f"{args.clients} clients: service {cpu_many[0]:.1f} ms, graph server {cpu_many[1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
