"""Lucene size benchmark: BM25 index build time and size on disk per million papers.

    .venv/bin/python benchmarks/lucene.py                       # 200k papers
    .venv/bin/python benchmarks/lucene.py --papers 2000000      # the 2M case, on a quiet machine

A synthetic corpus (``citegraph.synth``, seed 0; title + abstract, as ``index bm25`` indexes
the graph's papers) is streamed into ``citegraph.retrieval.bm25.build_bm25`` (Lucene through
pyserini, one contents field, ``--threads`` indexing threads). Printed: papers, the text
indexed (UTF-8 bytes of title and abstract), build seconds, the index's bytes on disk, and
both per million papers, with the 1-minute load average before and after (the machine is
shared). ``docs/scale.md`` sizes its BM25 shards from these figures.
"""

from __future__ import annotations

import argparse
import datetime
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from citegraph.retrieval.base import Document
from citegraph.retrieval.bm25 import build_bm25
from citegraph.synth import SynthSpec, records


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=200_000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="where the index is built (default: a temporary folder)"
    )
    args = parser.parse_args()
    text_bytes = 0

    def documents() -> Iterator[Document]:
        nonlocal text_bytes
        for r in records(SynthSpec(papers=args.papers)):
            doc = Document(r["paper_id"], r["title"], r["abstract"] or "")
            text_bytes += len(doc.title.encode()) + len(doc.abstract.encode())
            yield doc

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=args.workdir) as folder:
        index = Path(folder) / "lucene"
        started = time.perf_counter()
        build_bm25(documents(), index, backend="lucene", threads=args.threads)
        seconds = time.perf_counter() - started
        size = folder_bytes(index)
    per_million = 1_000_000 / args.papers
    print(
        f"# Lucene benchmark, {datetime.date.today()}: {args.papers:,} synthetic papers, threads={args.threads}, "
        f"{os.cpu_count()} cores; 1-min load average {load_before:.1f} → {os.getloadavg()[0]:.1f}"
    )
    print(
        "| papers | text MiB | build s (incl. generating) | index MiB | index ÷ text | build s / M papers | index GiB / M papers |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(
        f"| {args.papers:,} | {text_bytes / 2**20:,.0f} | {seconds:,.1f} | {size / 2**20:,.0f} | "
        f"{size / text_bytes:.2f} | {seconds * per_million:,.0f} | {size * per_million / 2**30:.2f} |"
    )


if __name__ == "__main__":
    main()
