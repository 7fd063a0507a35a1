"""Recommendation latency over HTTP: POST /recommend of `citegraph serve` on synthetic graphs
of one or more sizes.

    .venv/bin/python benchmarks/recommend.py                          # 200k papers, ~2M citations
    .venv/bin/python benchmarks/recommend.py --papers 20000           # a quick run
    .venv/bin/python benchmarks/recommend.py --work /tmp/rec-bench    # keep the graph and index for reruns
    .venv/bin/python benchmarks/recommend.py --papers 200000,2000000 --work /var/tmp/rec   # 2M ÷ 200k

For each size a synthetic S2ORC corpus (``citegraph.synth``, seed 0, cached as
``benchmarks/ingest.py`` caches it) is bulk-loaded into an embedded ArcadeDB and indexed
with BM25 (Lucene when the [lucene] extra is installed, else bm25s). Every size is loaded
first; then, size after size in the same run, with ``citegraph serve`` started on it as a
child process (BM25 + graph signals, the default weights):

* **baselines** — BM25 search alone for the seed papers' texts (in this process, k = 100 as
  the recommender asks), a one-paper lookup over Bolt, and ``GET /paper/{id}`` over HTTP
  (HTTP plus one graph lookup: the service's floor);
* **enrichment** (``retrieval.signals.enrich``, in this process) of each seed's BM25 top
  100 to 300, SymTax's prefetch → enrich step;
* **the graph side** — the same recommender in this process for the same paper ids, its
  BM25 rankings searched before the timing (:class:`Searched`): what a request costs beside
  the text index, whose posting lists grow with the corpus;
* **/recommend for a paper id** (held-out-style seeds: papers with ≥ 3 references), one
  request at a time: p50 and p95 — the target is p50 < 40 ms at 200k;
* **/recommend for a new paper** (title + abstract of other papers, no references: text,
  enrichment and features, no reference neighbourhood);
* **4 concurrent clients** asking for paper ids: requests/s, p50 and p95; the target is
  ≥ 1.5 × the requests/s of one client;
* **/recommend for a paper id, rankings precomputed**: ``citegraph index rankings --ids``
  for the warm-up and timed seeds (timed), the service restarted, the same requests again:
  what a paper-id request costs when it reads its BM25 ranking instead of searching (a
  full build would rank every paper; the rows are removed afterwards).

With several sizes a last table divides each larger graph's p50 and p95 by the first's:
the local queries (lookup, enrichment, the graph side, /recommend) should stay flat, p50 ≤
1.3× from 200k to 2M. For the paper-id cases the CPU time the service process and the
graph server spent per request is printed too (from ``/proc``): what bounds the throughput
on this machine's two cores, whatever the load average.

Every request asks for a different paper, so the service's per-seed cache never answers.
Before timing, the database's and the BM25 index's files are read once (into the OS page
cache: a graph just built or loaded beside other work has its index files there or not, by
chance, and a first lookup read them from disk), then every paper and edge is read once
(``stats/citation_degrees``, ``stats/relationships``), as a serving graph is warm: otherwise
the first minutes of a 2M graph are measured filling ArcadeDB's page cache. A warm-up of
``--warmup`` requests (other papers) then runs (JIT of the graph server).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from ingest import corpus  # benchmarks/ingest.py: the cached synthetic corpus

from citegraph.config import Config
from citegraph.graph import open_backend, open_store
from citegraph.graph.processes import free_port
from citegraph.ingest import formats
from citegraph.ingest.bulk import bulk_ingest
from citegraph.recommend import Recommender
from citegraph.recommend.held_out import held_out_citations
from citegraph.retrieval.bm25 import read_manifest
from citegraph.retrieval.corpus import documents
from citegraph.retrieval.precomputed import FOLDER
from citegraph.retrieval.signals import enrich
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


def cpu_ms(pids: tuple[int, int]) -> tuple[float, float]:
    """User + system CPU time of each process so far, in ms (Linux /proc)."""

    def one(pid: int) -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

    return one(pids[0]), one(pids[1])


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


@dataclass
class Graph:
    """One size's graph, index and measurements."""

    papers: int
    config: Config
    load: float = 0.0
    indexing: float = 0.0
    backend: str = ""
    index_bytes: int = 0
    counts: dict = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu: tuple[float, float] = (0.0, 0.0)
    cpu_many: tuple[float, float] = (0.0, 0.0)
    cpu_rows: tuple[float, float] = (0.0, 0.0)
    rankings: float = 0.0  # seconds of `index rankings` for the timed and warm-up seeds
    wall_many: float = 0.0
    warmup: float = 0.0
    load_average: tuple[float, float] = (0.0, 0.0)


class Searched:
    """A retriever that answers each query with the ranking ``inner`` gave it the first time:
    the recommender's graph side timed apart from the text index."""

    def __init__(self, inner):
        self.inner = inner
        self.rankings: dict[tuple[str, int], list] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    def search(self, queries, k, pools=None):
        [query] = queries
        if (query.id, k) not in self.rankings:
            self.rankings[query.id, k] = self.inner.search([query], k, pools)
        return self.rankings[query.id, k]


def prepare(papers: int, work: Path, args) -> Graph:
    graph = Graph(papers, Config(data_dir=work / "data", heap=args.heap))
    path, _ = corpus(papers, args.corpus_dir)
    with open_store(graph.config) as store:
        graph.load, graph.indexing, graph.backend = loaded(graph.config, store, "s2orc", path, args.heap)
        graph.counts = {row["label"]: row["count"] for row in store.run("stats/labels")}
    folder = Path(graph.config.data_dir) / "indexes" / BM25().folder
    shutil.rmtree(folder / FOLDER, ignore_errors=True)  # rankings are made for the last case, removed after it
    graph.index_bytes = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    return graph


def measure(graph: Graph, args) -> None:
    """Every case on ``graph``: BM25 and enrichment in this process, the rest over HTTP."""
    config, times = graph.config, graph.times
    indexes = Path(config.data_dir) / "indexes"
    with open_store(config) as store:
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
        started = time.perf_counter()
        for folder in (Path(config.data_dir) / "arcadedb" / "databases", indexes):
            read_files(folder)
        for statement in ("stats/citation_degrees", "stats/relationships"):  # every paper and edge read once
            store.run(statement)
        graph.warmup = time.perf_counter() - started
        load_before = os.getloadavg()[0]
        bm25 = BM25().searcher(indexes)
        for seed in warm[:10]:
            bm25.search([seed.document], 100)
        prefetched: list[list[str]] = []

        def search(seed) -> None:
            [ranking] = bm25.search([seed.document], 100 + len(seed.references) + 1)
            prefetched.append([hit.id for hit in ranking[:100]])

        times["bm25"] = timed_each(search, one)
        for ids in prefetched[:10]:
            enrich(store, ids, 300)
        times["enrich"] = timed_each(lambda ids: enrich(store, ids, 300), prefetched)
        times["lookup"] = timed_each(lambda s: store.run("paper", id=s.id), one)
        with Recommender(store, [Searched(bm25)]) as recommender:
            for seed in one:  # searches once (untimed)
                recommender.recommend(seed.id, k=20)
            times["graph_side"] = timed_each(lambda s: recommender.recommend(s.id, k=20), one)
        with serving(config, args) as (client, pids):
            for seed in warm:
                post(client, {"paper": seed.id, "k": 20})
            times["http_lookup"] = timed_each(lambda s: client.get(f"/paper/{s.id}").raise_for_status(), one)
            cpu = cpu_ms(pids)
            times["by_id"] = timed_each(lambda s: post(client, {"paper": s.id, "k": 20}), one)
            graph.cpu = per_request(cpu, cpu_ms(pids), len(one))
            times["by_text"] = timed_each(
                lambda s: post(client, {"title": s.title, "abstract": s.abstract, "year": s.year, "k": 20}),
                texts,
            )
            cpu = cpu_ms(pids)
            times["many"], graph.wall_many = concurrent(
                str(client.base_url), [{"paper": s.id, "k": 20} for s in many], args.clients
            )
            graph.cpu_many = per_request(cpu, cpu_ms(pids), len(many))
        (wanted := Path(config.data_dir) / "rankings-seeds.txt").write_text("".join(f"{s.id}\n" for s in [*warm, *one]))
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "citegraph.cli", "index", "rankings", "--ids", str(wanted), "--no-progress"],
            env=service_env(config, args),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        graph.rankings = time.perf_counter() - started
        with serving(config, args) as (client, pids):
            for seed in warm:
                post(client, {"paper": seed.id, "k": 20})
            cpu = cpu_ms(pids)
            times["by_id_rows"] = timed_each(lambda s: post(client, {"paper": s.id, "k": 20}), one)
            graph.cpu_rows = per_request(cpu, cpu_ms(pids), len(one))
        shutil.rmtree(indexes / BM25().folder / FOLDER)
    graph.load_average = (load_before, os.getloadavg()[0])


def service_env(config: Config, args) -> dict[str, str]:
    """A citegraph command's environment: it attaches to the graph server this process started."""
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(config.data_dir), "CITEGRAPH_HEAP": args.heap}
    env.pop("CITEGRAPH_URI", None)  # the embedded server this process runs
    return env


@contextlib.contextmanager
def serving(config: Config, args) -> Iterator[tuple[httpx.Client, tuple[int, int]]]:
    """``citegraph serve`` on the graph, started afresh (it opens the indexes as they are now):
    a client, and the pids of the service and of the graph server."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "citegraph.cli", "serve", "--port", str(port)],
        env=service_env(config, args),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_serving(url, server, timeout=300)
        pid = json.loads((Path(config.data_dir) / "arcadedb" / "server.json").read_text())["pid"]
        with httpx.Client(base_url=url, timeout=120) as client:
            yield client, (server.pid, pid)
    finally:
        server.terminate()
        server.wait(timeout=60)


def per_request(before: tuple[float, float], after: tuple[float, float], requests: int) -> tuple[float, float]:
    return (after[0] - before[0]) / requests, (after[1] - before[1]) / requests


CASES = (  # (key, row, target)
    ("bm25", "BM25 search alone, k = 100 (in process; baseline)", "—"),
    ("lookup", "one paper's lookup over Bolt (in process)", "—"),
    ("enrich", "enrichment of a BM25 top 100 → 300 (in process)", "p50 < 5 ms, p95 < 10 ms"),
    ("graph_side", "recommender by paper id, BM25 searched beforehand (in process; the graph side)", "—"),
    ("http_lookup", "GET /paper/{id} over HTTP", "—"),
    ("by_id", "POST /recommend, paper id (BM25 + graph signals, k = 20)", "p50 < 40 ms, p95 < 150 ms"),
    ("by_text", "POST /recommend, new paper's title + abstract", "—"),
    ("by_id_rows", "POST /recommend, paper id, BM25 rankings precomputed (`index rankings`)", "—"),
)


def read_files(folder: Path) -> None:
    """Every file under ``folder`` read once, which leaves it in the OS page cache."""
    for file in folder.rglob("*"):
        if file.is_file():
            with open(file, "rb") as f:
                while f.read(1 << 24):
                    pass


def report(graph: Graph, args) -> None:
    times = graph.times
    base = ms(times["bm25"], 50)
    print(
        f"\n# recommend benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; {graph.counts.get('Paper', 0):,} papers (bulk load {graph.load:.0f} s), "
        f"BM25 {graph.backend} (index {graph.indexing:.0f} s, {graph.index_bytes / 2**30:.2f} GiB), "
        f"the files and the graph read once before timing ({graph.warmup:.0f} s), "
        f"ArcadeDB heap {args.heap}, page cache {f'{args.page_ram:,} MB' if args.page_ram else 'a quarter of it'}; "
        f"{args.requests} requests per case; "
        "1-min load average {:.1f} → {:.1f}".format(*graph.load_average)
    )
    print("| case | p50 ms | p95 ms | p50 ÷ BM25 alone | target |")
    print("|---|---:|---:|---:|---|")
    for key, row, target in CASES:
        print(
            f"| {row} | {ms(times[key], 50):.1f} | {ms(times[key], 95):.1f} | {ms(times[key], 50) / base:.2f} | {target} |"
        )
    many = times["many"]
    print(
        f"| POST /recommend, paper id, {args.clients} concurrent clients | {ms(many, 50):.1f} | "
        f"{ms(many, 95):.1f} | {ms(many, 50) / base:.2f} | — |"
    )
    one_rate = 1000 / statistics.mean(times["by_id"])
    print(
        f"\n{args.clients} concurrent clients: {len(many) / graph.wall_many:.1f} requests/s "
        f"({len(many)} requests in {graph.wall_many:.1f} s); one client: {one_rate:.1f} requests/s; ratio "
        f"{len(many) / graph.wall_many / one_rate:.2f} (target ≥ 1.5)"
    )
    print(
        f"CPU per paper-id request, one client: service {graph.cpu[0]:.1f} ms, graph server {graph.cpu[1]:.1f} ms; "
        f"{args.clients} clients: service {graph.cpu_many[0]:.1f} ms, graph server {graph.cpu_many[1]:.1f} ms; "
        f"rankings precomputed: service {graph.cpu_rows[0]:.1f} ms, graph server {graph.cpu_rows[1]:.1f} ms"
    )
    print(
        f"`index rankings --ids` for the {args.warmup + args.requests} warm-up and timed seeds: {graph.rankings:.1f} s "
        "(the graph's texts streamed once to check the index's fingerprint, then one BM25 search a seed)"
    )


def ratios(graphs: list[Graph]) -> None:
    """Each larger graph's p50 and p95 against the first's: what growing the graph costs."""
    first = graphs[0]
    print(f"\n# ratios to the {first.papers:,}-paper graph (the same run)")
    print("| case | " + " | ".join(f"{g.papers:,}: p50 ÷, p95 ÷" for g in graphs[1:]) + " | target (p50) |")
    print("|---|" + "---:|" * (len(graphs) - 1) + "---|")
    for key, row, _ in (*CASES, ("many", "POST /recommend, paper id, concurrent clients", "—")):
        cells = [
            f"{ms(g.times[key], 50) / ms(first.times[key], 50):.2f}, {ms(g.times[key], 95) / ms(first.times[key], 95):.2f}"
            for g in graphs[1:]
        ]
        target = "≤ 1.3" if key in ("lookup", "enrich", "graph_side", "by_id", "by_id_rows", "http_lookup") else "—"
        print(f"| {row} | " + " | ".join(cells) + f" | {target} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--papers",
        default="200000",
        help="graph sizes, comma-separated (e.g. 200000,2000000): each loaded first, then measured in turn",
    )
    parser.add_argument("--requests", type=int, default=300, help="requests per case")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--heap", default="4g")
    parser.add_argument(
        "--page-ram",
        type=int,
        help="MB of ArcadeDB's page cache (arcadedb.maxPageRAM; by default a quarter of the heap): "
        "set it to hold the largest graph, as Neo4j's page cache is sized to the store",
    )
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "citegraph-bench")
    parser.add_argument(
        "--work", type=Path, help="keep the graphs and indexes here (one folder per size) and reuse them"
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.papers.split(",") if n]
    if args.page_ram:  # ArcadeDB reads its settings from the JVM's system properties
        os.environ["JAVA_TOOL_OPTIONS"] = f"-Darcadedb.maxPageRAM={args.page_ram}"

    with tempfile.TemporaryDirectory(prefix="citegraph-recommend-") as tmp:
        work = args.work or Path(tmp)
        graphs = [prepare(papers, work / str(papers), args) for papers in sizes]
        for graph in graphs:
            measure(graph, args)
    for graph in graphs:
        report(graph, args)
    if len(graphs) > 1:
        ratios(graphs)


if __name__ == "__main__":
    main()
