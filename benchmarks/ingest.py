"""Ingest benchmark: the streaming Bolt ingest against the bulk path, on a synthetic corpus.

    .venv/bin/python benchmarks/ingest.py                    # 200k papers, ~2M citations
    .venv/bin/python benchmarks/ingest.py --papers 20000     # a quick run
    .venv/bin/python benchmarks/ingest.py --papers 2000000 --cases bulk,csv --heap 8g

Cases, each in a fresh process against its own embedded ArcadeDB server in a temporary
folder (so that every peak RSS is that case's alone):

* ``stream``  — ``citegraph.ingest.ingest``: batched UNWIND MERGE over Bolt (the baseline);
  phases: validate (one read), write (the batches), the citation_count recount, the
  prefilter, and the rest (the files' checkpoints);
* ``bulk``    — ``citegraph.ingest.bulk.bulk_ingest``: one read that validates and spills,
  the DuckDB build (``--memory``: its memory_limit; eligibility decided there), GraphBatch
  loader, then the schema over Bolt; phases read, build, load and the rest;
* ``csv``     — ``export_neo4j_admin``: the CSV parts for neo4j-admin (no database);
* ``recount`` — after a bulk load, ``citation_count`` recomputed by the batched Cypher
  pass the streaming writer uses (ingest/citation_counts, 10k papers a transaction): the
  alternative to counting in Python while building, which the bulk path does;
* ``openalex-stream``, ``openalex-bulk``, ``openalex-csv`` — the same three paths on the same
  corpus written as an OpenAlex works snapshot (``citegraph synth --openalex``: gzipped
  partition parts, abstracts as inverted indexes), read by the ``openalex`` reader.

The corpus is S2ORC metadata JSONL from ``citegraph.synth`` (seed 0), generated once per
size and layout into ``--corpus-dir``. Wall seconds cover the whole call (validation, load, schema,
prefilter). Peak RSS: the case's Python process (ru_maxrss: the read and the DuckDB build,
and for ``csv`` the export), the ArcadeDB server (VmHWM) and, for ``bulk``, the loader child
process. Disk: the database (or the CSV parts), and the build's work folder (spill files
and DuckDB's database) when the load or the CSV export starts. Ratios are to ``stream`` of the same run.
Each case's line gives the machine's 1-minute load average before and after it: with 2
cores, anything else running shows there and slows the case down.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASES = ("stream", "bulk", "csv", "recount", "openalex-stream", "openalex-bulk", "openalex-csv")


class Phases:
    """A progress sink that times the phases a pipeline announces ('validating', 'loading');
    when the load (or the CSV export) starts, it measures the build's work folders under ``watch``."""

    def __init__(self, watch: Path | None = None):
        self.seconds: dict[str, float] = {}
        self.ended: dict[str, float] = {}
        self._current: tuple[str, float] | None = None
        self.watch, self.build_disk = watch, 0

    def start(self, description: str, total: int | None) -> None:
        if self.watch and description in ("loading", "writing CSV"):
            self.build_disk = sum(tree_bytes(work) for work in self.watch.glob("bulk-*"))
        self._current = (description, time.perf_counter())

    def advance(self, lines: int) -> None:
        pass

    def finish(self) -> None:
        name, started = self._current
        self.ended[name] = time.perf_counter()
        self.seconds[name] = self.ended[name] - started

    def split(self, named: dict[str, str], after: str, rest: str) -> dict[str, float]:
        """Seconds per phase under the names given (label → phase), and under ``rest`` the
        time from the end of phase ``after`` until now spent outside the later phases."""
        later = sum(self.seconds[p] for p in named.values() if self.ended[p] > self.ended[after])
        return {label: self.seconds[phase] for label, phase in named.items()} | {
            rest: time.perf_counter() - self.ended[after] - later
        }


def peak_rss(pid: int) -> int:
    """The peak resident set of a live process, from /proc (Linux), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


def corpus(papers: int, folder: Path, layout: str = "s2orc") -> tuple[Path, float | None]:
    """The synthetic corpus of ``papers`` papers in ``layout`` (s2orc or openalex), generated
    unless already there."""
    from citegraph.synth import SynthSpec, generate, generate_openalex

    path = folder / (f"synth-s2orc-{papers}.jsonl" if layout == "s2orc" else f"synth-openalex-topics-{papers}")
    if path.exists():
        return path, None
    folder.mkdir(parents=True, exist_ok=True)
    write = generate if layout == "s2orc" else generate_openalex
    stats = write(SynthSpec(papers=papers), path.with_suffix(".part"))
    path.with_suffix(".part").rename(path)
    return path, stats.seconds


def source_of(case: str) -> tuple[str, str]:
    """'openalex-bulk' → ('openalex', 'bulk'); a plain case reads S2ORC."""
    source, _, kind = case.rpartition("-")
    return source or "s2orc", kind


def run_case(case: str, path: Path, papers: int, heap: str, home: Path, memory: str) -> dict:
    """One case in this process; returns its measurements."""
    from neo4j import GraphDatabase

    from citegraph.graph import ArcadeDBBackend, ArcadeServer, GraphStore
    from citegraph.graph.arcadedb import DATABASE, USER
    from citegraph.ingest import formats, ingest
    from citegraph.ingest.bulk import bulk_ingest
    from citegraph.ingest.bulk.neo4j_admin import export_neo4j_admin
    from citegraph.ingest.writer import GraphWriter
    from citegraph.synth import paper_id

    source, case_kind = source_of(case)
    fmt = formats.get(source)
    result: dict = {"case": case}
    case = case_kind
    if case == "csv":
        started = time.perf_counter()
        phases = Phases(watch=home / "csv")
        export = export_neo4j_admin(fmt, [path], home / "csv", progress=phases, memory=memory)
        result.update(
            seconds=time.perf_counter() - started,
            citations=export.summary.write.citations,
            disk=tree_bytes(home / "csv"),
            build_disk=phases.build_disk,
            phases={"read": phases.seconds["validating"], "build": phases.seconds["building"]},
        )
    else:
        server = ArcadeServer(home / "arcadedb", heap=heap)
        info = server.start()
        store = GraphStore(GraphDatabase.driver(info.uri, auth=(USER, server.password())), DATABASE)
        try:
            started = time.perf_counter()
            phases = Phases(watch=home / "arcadedb")
            if case == "stream":
                summary = ingest(store, fmt, [path], progress=phases)
                result["phases"] = phases.split(
                    {
                        "validate": "validating",
                        "write": "writing",
                        "recount": "recounting citations",
                        "prefilter": "marking eligibility",
                    },
                    after="writing",
                    rest="checkpoints and the rest",
                )
            else:
                summary = bulk_ingest(ArcadeDBBackend(server), store, fmt, [path], progress=phases, memory=memory)
                result["loader_rss"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
                result["build_disk"] = phases.build_disk
                result["phases"] = phases.split(
                    {
                        "read": "validating",
                        "build": "building",
                        "load": "loading",
                        "indexes": "indexing",
                        "compaction": "compacting the indexes",
                    },
                    after="loading",
                    rest="merges+checkpoints",
                )
            result.update(
                seconds=time.perf_counter() - started,
                citations=summary.write.citations,
                eligible=summary.eligibility["eligible"],
            )
            if case == "recount":
                result["load_seconds"] = result["seconds"]
                ids = [paper_id(i, papers) for i in range(papers)]
                started = time.perf_counter()
                GraphWriter(store).recount(ids)
                result["seconds"] = time.perf_counter() - started
            result["server_rss"] = peak_rss(info.pid)
        finally:
            store.close()
            server.stop()
        result["disk"] = tree_bytes(home / "arcadedb" / "databases")
    result["python_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return result


def tree_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder``: the database (or the CSV export) on disk."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def gib(value: int | None) -> str:
    return "—" if value is None else f"{value / 2**30:.2f}"


def table(results: list[dict], papers: int) -> str:
    base = next((r["seconds"] for r in results if r["case"] == "stream"), None)
    lines = [
        (
            "| case | wall s | papers/s | citations/s | Python peak RSS GiB | server peak RSS GiB "
            "| loader peak RSS GiB | on disk GiB | build disk GiB | wall ÷ stream |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        ratio = f"{r['seconds'] / base:.3f}" if base else "—"
        lines.append(
            f"| {r['case']} | {r['seconds']:.1f} | {papers / r['seconds']:,.0f} | "
            f"{r['citations'] / r['seconds']:,.0f} | {gib(r['python_rss'])} | {gib(r.get('server_rss'))} | "
            f"{gib(r.get('loader_rss'))} | {gib(r.get('disk'))} | {gib(r.get('build_disk'))} | {ratio} |"
        )
    return "\n".join(lines)


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{os.cpu_count()} cores, {memory:.0f} GiB RAM, no GPU, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=200_000)
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--heap", default="4g", help="JVM heap of the ArcadeDB server and of the bulk loader")
    parser.add_argument("--memory", default="2GB", help="DuckDB's memory_limit for the bulk build and CSV export")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "citegraph-bench")
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)  # internal: run one case, print JSON
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.corpus, args.papers, args.heap, args.home, args.memory)))
        return

    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        parser.error(f"unknown case(s): {', '.join(sorted(unknown))}")
    paths = {}
    for layout in sorted({source_of(case)[0] for case in cases}):
        path, generated = paths[layout] = corpus(args.papers, args.corpus_dir, layout)
        size = sum(f.stat().st_size for f in ([path] if path.is_file() else path.rglob("*")) if f.is_file())
        print(
            f"# ingest benchmark, {datetime.date.today()}: {args.papers:,} papers, {layout} corpus {path} "
            f"({size / 2**20:,.0f} MiB{f', generated in {generated:.1f} s' if generated else ''})"
        )
    print(f"# machine: {machine()}; ArcadeDB heap {args.heap}; DuckDB memory_limit {args.memory}")
    results = []
    for case in cases:
        load_before = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix=f"bench-{case}-") as home:
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--case",
                    case,
                    "--corpus",
                    str(paths[source_of(case)[0]][0]),
                    "--papers",
                    str(args.papers),
                    "--heap",
                    args.heap,
                    "--memory",
                    args.memory,
                    "--home",
                    home,
                ],
                stdout=subprocess.PIPE,
                text=True,
                check=True,
            )
        result = json.loads(done.stdout.splitlines()[-1])
        result["load_average"] = (load_before, os.getloadavg()[0])
        results.append(result)
        extra = f" (after a bulk load of {result['load_seconds']:.1f} s)" if "load_seconds" in result else ""
        phases = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result.get("phases", {}).items())
        print(
            f"# {case}: {result['seconds']:.1f} s{extra}{f' = {phases}' if phases else ''}; "
            "1-min load average {:.1f} → {:.1f}".format(*result["load_average"]),
            flush=True,
        )
    print(f"\ncitations in the corpus: {results[0]['citations']:,}\n")
    print(table(results, args.papers))


if __name__ == "__main__":
    main()
