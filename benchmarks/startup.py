"""Start-up: how long a CLI command takes from the shell, in a fresh process each time.

    .venv/bin/python benchmarks/startup.py                 # the S2ORC sample, 5 runs a case
    .venv/bin/python benchmarks/startup.py --runs 10
    .venv/bin/python benchmarks/startup.py --graph acl200 --data-dir ~/citegraph-acl200

Each case runs ``--runs`` times as ``python -m citegraph.cli …`` and the wall times are
printed (min and median, seconds) with the machine's 1-minute load average around them
(2 cores shared: anything else running slows a case down).

``--graph s2orc`` (the default, quick): the real S2ORC sample (1,000 papers,
``../shared/data``) is ingested into an embedded ArcadeDB in a temporary data folder and
indexed twice (a data folder per BM25 backend: Lucene and bm25s). Its cases:

* ``--help``: importing the CLI;
* ``search`` with the Lucene and the bm25s index: BM25 for one text, titles shown (from
  the corpus text ``citegraph index`` records beside the indexes: no graph is started);
* ``search --topics``: 50 topics in one process, a TREC run written;
* the resident-graph cases below, on the Lucene folder.

``--graph acl200``: the real ACL-200 graph (``../shared/data/graphs/acl200``, 10,298 papers)
with ScisummNet's 1,000 papers and 16,586 citing sentences on its edges — the graph
``citegraph cite`` is documented on (docs/cite.md) — ingested into ``--data-dir`` and
indexed (BM25, Lucene) the first time; a later run with the same ``--data-dir`` reuses it
(``startup-benchmark.done`` there says it is complete). Its cases: ``--help`` and the
resident-graph cases.

The resident-graph cases — ``search TEXT``, ``cite --context "… [CIT]."`` and ``paper ID`` —
run first with no server running (each command starts the data folder's ArcadeDB server and
stops it: the baseline), then after ``citegraph graph start`` (each attaches to the resident
server over Bolt), which is stopped at the end. The first ``cite`` on the resident graph is
timed apart: it reads the graph's citing sentences and keeps them for the next commands
(docs/graph.md).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SAMPLE = SHARED / "samples" / "s2orc" / "metadata_sample.jsonl"
ACL200 = SHARED / "graphs" / "acl200"
SCISUMMNET = SHARED / "samples" / "scisummnet" / "From-ScisummNet-2019"
DONE = "startup-benchmark.done"  # in a --data-dir whose graph and index are complete


class Graph:
    """A data folder's resident-graph cases: what to search, cite and show."""

    def __init__(self, text: str, context: str, paper: str):
        self.cases = {
            "search TEXT": ["search", text],
            "cite --context": ["cite", "--context", context],
            "paper ID": ["paper", paper],
        }


S2ORC = Graph("graph neural networks", "TRAIL-induced apoptosis resistance in cancer cells [CIT].", "77490025")
ACL = Graph(
    "statistical machine translation",
    "Phrase-based translation is tuned with minimum error rate training [CIT].",
    "P07-2045",
)


def run(data: Path, *args: str) -> float:
    """``citegraph ARGS`` on ``data``'s embedded graph: its wall time (the benchmark ends if it fails)."""
    env = {**os.environ, "CITEGRAPH_DATA_DIR": str(data)}
    env.pop("CITEGRAPH_URI", None)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "citegraph.cli", *args], env=env, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"citegraph {' '.join(args)} failed:\n{done.stderr}")
    return seconds


def stop_server(data: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "citegraph.cli", "graph", "stop"],
        check=False,
        capture_output=True,
        env={**os.environ, "CITEGRAPH_DATA_DIR": str(data)},
    )


def s2orc_folders(root: Path, sample: Path) -> dict[str, Path]:
    """A data folder per BM25 backend with the sample ingested and indexed."""
    folders = {}
    for backend in ("lucene", "bm25s"):
        folders[backend] = root / backend
        run(folders[backend], "ingest", "s2orc", str(sample), "--no-progress")
        run(folders[backend], "index", "bm25", "--backend", backend)
        stop_server(folders[backend])
    return folders


def acl200_folder(data: Path) -> Path:
    """``data`` with ACL-200 ∪ ScisummNet ingested and indexed, built unless an earlier run did."""
    if (data / DONE).is_file():
        return data
    print(f"# building {data}: ACL-200 + ScisummNet, BM25 index (once)", flush=True)
    started = time.perf_counter()
    run(data, "ingest", "acl200", str(ACL200.resolve()), "--no-progress")
    run(data, "ingest", "scisummnet", str(SCISUMMNET.resolve()), "--skip-bad", "--no-progress")
    run(data, "index", "bm25", "--backend", "lucene")
    stop_server(data)
    (data / DONE).write_text(
        f"built {datetime.datetime.now():%Y-%m-%d %H:%M} in {time.perf_counter() - started:.0f} s\n"
    )
    return data


def timed(name: str, runs: int, data: Path, argv: list[str]) -> None:
    before = os.getloadavg()[0]
    times = [run(data, *argv) for _ in range(runs)]
    print(
        f"{name:44} {min(times):7.2f} {statistics.median(times):9.2f}   {before:.2f} → {os.getloadavg()[0]:.2f}",
        flush=True,
    )


def once(name: str, data: Path, argv: list[str]) -> None:
    before = os.getloadavg()[0]
    print(f"{name:44} {run(data, *argv):7.2f} {'':9}   {before:.2f}", flush=True)


def resident_cases(runs: int, data: Path, graph: Graph) -> None:
    """Each case without a running server (the baseline), then attached to a resident one."""
    stop_server(data)
    for name, argv in graph.cases.items():
        timed(f"{name} (own server)", runs, data, argv)
    once("citegraph graph start (once)", data, ["graph", "start"])
    try:
        # the first to read the citing sentences keeps them for the graph's state (reads them all)
        once("cite --context (resident graph, first)", data, graph.cases["cite --context"])
        for name, argv in graph.cases.items():
            timed(f"{name} (resident graph)", runs, data, argv)
    finally:
        stop_server(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--graph", choices=("s2orc", "acl200"), default="s2orc", help="The cases' graph.")
    parser.add_argument("--sample", type=Path, default=SAMPLE, help="S2ORC metadata JSONL to load (s2orc).")
    parser.add_argument(
        "--data-dir", type=Path, help="acl200: the data folder to build once and reuse (default: a temporary one)."
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="citegraph-startup-") as tmp:
        root = Path(tmp)
        if args.graph == "acl200":
            data = acl200_folder((args.data_dir or root / "acl200").resolve())
        else:
            sample = args.sample.resolve()
            folders = s2orc_folders(root, sample)
            data = folders["lucene"]
            topics = root / "topics.tsv"
            titles = [line.split('"title": "', 1)[1].split('"', 1)[0] for line in sample.read_text().splitlines()[:50]]
            topics.write_text("".join(f"t{i}\t{t}\n" for i, t in enumerate(titles)), encoding="utf-8")
        print(
            f"# start-up benchmark, {datetime.date.today()}, {args.graph}: {args.runs} runs a case, fresh process each"
        )
        print(
            f"# machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}"
        )
        print(f"{'case':44} {'min s':>7} {'median s':>9}   load before → after", flush=True)
        timed("citegraph --help", args.runs, data, ["--help"])
        if args.graph == "s2orc":
            search = ["search", "graph neural networks", "--with", "bm25"]
            timed("search TEXT --with bm25 (Lucene)", args.runs, folders["lucene"], search)
            timed("search TEXT --with bm25 (bm25s)", args.runs, folders["bm25s"], search)
            timed(
                "search --topics (50) --run (Lucene)",
                args.runs,
                data,
                ["search", "--topics", str(topics), "--run", str(root / "run.trec"), "--with", "bm25"],
            )
        resident_cases(args.runs, data, ACL if args.graph == "acl200" else S2ORC)


if __name__ == "__main__":
    main()
