"""Start-up: how long a CLI command takes from the shell, in a fresh process each time.

    .venv/bin/python benchmarks/startup.py                 # the S2ORC sample, 5 runs a case
    .venv/bin/python benchmarks/startup.py --runs 10

The real S2ORC sample (1,000 papers, ``../shared/data``) is ingested into an embedded
ArcadeDB in a temporary data folder and indexed twice (a data folder per BM25 backend:
Lucene and bm25s); then each case runs ``--runs`` times as ``python -m citegraph.cli …``
and the wall times are printed (min and median, seconds) with the machine's 1-minute load
average around them (2 cores shared: anything else running slows a case down):

* ``--help``: importing the CLI;
* ``search`` with the Lucene and the bm25s index: BM25 for one text, titles shown (from
  the corpus text ``citegraph index`` records beside the indexes: no graph is started);
* ``search --topics``: 50 topics in one process, a TREC run written.
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

SAMPLE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "samples" / "s2orc" / "metadata_sample.jsonl"


def cli(data: Path, *args: str) -> float:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=Path, default=SAMPLE, help="S2ORC metadata JSONL to load.")
    args = parser.parse_args()
    sample = args.sample.resolve()
    with tempfile.TemporaryDirectory(prefix="citegraph-startup-") as tmp:
        root = Path(tmp)
        folders = {}
        for backend in ("lucene", "bm25s"):
            folders[backend] = root / backend
            cli(folders[backend], "ingest", "s2orc", str(sample), "--no-progress")
            cli(folders[backend], "index", "bm25", "--backend", backend)
            subprocess.run(
                [sys.executable, "-m", "citegraph.cli", "server", "stop"],
                check=False,
                capture_output=True,
                env={**os.environ, "CITEGRAPH_DATA_DIR": str(folders[backend])},
            )
        topics = root / "topics.tsv"
        titles = [line.split('"title": "', 1)[1].split('"', 1)[0] for line in sample.read_text().splitlines()[:50]]
        topics.write_text("".join(f"t{i}\t{t}\n" for i, t in enumerate(titles)), encoding="utf-8")
        cases = {
            "citegraph --help": (folders["lucene"], ["--help"]),
            "search TEXT --with bm25 (Lucene)": (
                folders["lucene"],
                ["search", "graph neural networks", "--with", "bm25"],
            ),
            "search TEXT --with bm25 (bm25s)": (
                folders["bm25s"],
                ["search", "graph neural networks", "--with", "bm25"],
            ),
            "search --topics (50) --run (Lucene)": (
                folders["lucene"],
                ["search", "--topics", str(topics), "--run", str(root / "run.trec"), "--with", "bm25"],
            ),
        }
        print(f"# start-up benchmark, {datetime.date.today()}: {args.runs} runs a case, fresh process each")
        print(
            f"# machine: {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}"
        )
        print(f"{'case':40} {'min s':>7} {'median s':>9}   load before → after")
        for name, (data, argv) in cases.items():
            before = os.getloadavg()[0]
            times = [cli(data, *argv) for _ in range(args.runs)]
            print(
                f"{name:40} {min(times):7.2f} {statistics.median(times):9.2f}   {before:.2f} → {os.getloadavg()[0]:.2f}"
            )


if __name__ == "__main__":
    main()
