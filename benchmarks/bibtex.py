"""BibTeX benchmark: ``citegraph ingest bibtex`` on a synthetic collection, against the reader
of an earlier commit on a sample of it.

    .venv/bin/python benchmarks/bibtex.py                           # 100k entries, every case
    .venv/bin/python benchmarks/bibtex.py --entries 20000 --cases parse,stream

The collection is written from ``citegraph.synth``'s papers (seed 0): ``--files`` .bib files,
each with its ``@string`` venue macros; titles, abstracts, authors, keywords, years, DOIs
as exports have them, and LaTeX where real collections have it — case-protecting braces in
40 % of titles, math in 5 %, accented author names in 15 % of entries, LaTeX in 10 % of
abstracts (math, ``\\emph``, ``~\\cite``, ``\\%``), ``month`` macros, ``#`` concatenations.
Cases, each in a fresh process, the graph ones against their own embedded ArcadeDB server in a temporary folder (its start not timed):

* ``parse``    — the survey alone (:func:`citegraph.ingest.sources.bibtex.survey`): parse and decode;
* ``stream``   — what ``citegraph ingest bibtex DIR`` does: the survey, then the streaming
  ingest (validation, batched MERGEs, checkpoints, prefilter);
* ``bulk``     — the same with ``--bulk`` (ArcadeDB's loader);
* ``baseline`` — ``stream`` with the reader of ``--baseline`` (a commit; the package is
  exported from git), on the first ``--sample`` entries; ``sample`` is ``stream`` of this
  checkout on the same sample, for the ratio.

Each case line ends with the machine's 1-minute load average before and after it: with 2
cores, anything else running shows there and slows the case down.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from ingest import Phases, machine  # benchmarks/ingest.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
CASES = ("parse", "stream", "bulk", "baseline", "sample")
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
ACCENTS = (r"{\"u}", r"{\'e}", r"{\`a}", r"\c{c}", r"{\v{s}}", r"{\o}", r"{\ss}", r"{\~n}")
MATH = (r"$O(n \log n)$", r"$k$-nearest", r"$\ell_1$", r"$\alpha$-divergence", r"$n^2$")


def collection(entries: int, files: int, folder: Path) -> Path:
    """The synthetic collection of ``entries`` entries in ``files`` files, written unless there."""
    path = folder / f"synth-bibtex-{entries}-{files}"
    if path.exists():
        return path
    from citegraph.synth import SynthSpec
    from citegraph.synth.generator import records

    part = path.with_suffix(".part")
    part.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    per_file = -(-entries // files)
    papers = records(SynthSpec(papers=entries, seed=0))
    for number in range(files):
        chunk = [next(papers) for _ in range(min(per_file, entries - number * per_file))]
        venues = {p["venue"]: f"venue{i}" for i, p in enumerate(chunk) if p["venue"]}
        text = [f'@string{{{macro} = "{venue}"}}' for venue, macro in venues.items()]
        for paper in chunk:
            text.append(_entry(paper, venues, rng))
        (part / f"part-{number:03d}.bib").write_text("\n\n".join(text) + "\n", encoding="utf-8")
    part.rename(path)
    return path


def _entry(paper: dict, venues: dict[str, str], rng: random.Random) -> str:
    key = paper["paper_id"]
    words = paper["title"].split()
    if rng.random() < 0.4:  # a protected acronym or proper noun
        at = rng.randrange(len(words))
        words[at] = "{" + words[at].upper() + "}"
    if rng.random() < 0.05:
        words.insert(rng.randrange(len(words) + 1), rng.choice(MATH))
    authors = [f"{a['last']}, {a['first']}" + "".join(f" {m}." for m in a["middle"]) for a in paper["authors"]]
    if authors and rng.random() < 0.15:
        last, rest = authors[0].split(",", 1)
        at = rng.randrange(1, len(last))
        authors[0] = last[:at] + rng.choice(ACCENTS) + last[at + 1 :] + "," + rest
    abstract = paper["abstract"]
    if rng.random() < 0.1:
        sentences = abstract.split(". ")
        at = rng.randrange(len(sentences))
        sentences[at] += (
            f" with {rng.choice(MATH)}, as \\emph{{{words[-1].strip('{}')}}} shows~\\cite{{x}}, "
            f"by {rng.randrange(2, 40)}\\%"
        )
        abstract = ". ".join(sentences)
    venue_field = "journal" if rng.random() < 0.6 else "booktitle"
    venue = venues.get(paper["venue"])
    if venue and rng.random() < 0.05:
        venue_value = f'{venue} # " (" # {rng.choice(MONTHS)} # ")"'
    else:
        venue_value = venue or "{}"
    fields = [
        f"  author = {{{' and '.join(authors)}}}",
        f"  title = {{{' '.join(words)}}}",
        f"  {venue_field} = {venue_value}",
        f"  year = {{{paper['year']}}}",
    ]
    if rng.random() < 0.3:
        fields.append(f"  month = {rng.choice(MONTHS)}")
    roll = rng.random()
    if roll < 0.8:
        fields.append(f"  doi = {{10.5555/synth.{key}}}")
    elif roll < 0.9:
        fields.append(f"  url = {{https://doi.org/10.5555/synth.{key}}}")
    fields.append(f"  keywords = {{{'; '.join(rng.sample(paper['title'].lower().split(), 3))}}}")
    fields.append(f"  abstract = {{{abstract}}}")
    kind = "article" if venue_field == "journal" else "inproceedings"
    return f"@{kind}{{{key},\n" + ",\n".join(fields) + "\n}"


def sample(path: Path, entries: int, folder: Path) -> Path:
    """The first ``entries`` entries of the collection's first file, as a collection of one file."""
    out = folder / f"{path.name}-sample-{entries}"
    if out.exists():
        return out
    first = sorted(path.glob("*.bib"))[0].read_text(encoding="utf-8").split("\n\n")
    macros = [block for block in first if block.startswith("@string")]
    kept = [block for block in first if not block.startswith("@string")][:entries]
    out.mkdir(parents=True)
    (out / "sample.bib").write_text("\n\n".join(macros + kept) + "\n", encoding="utf-8")
    return out


def cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) of this process and its children, or of process ``pid`` (Linux /proc)."""
    if pid is None:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_case(case: str, path: Path, home: Path) -> dict:
    """One case in this process (the citegraph on sys.path: this checkout's, or the baseline's)."""
    from citegraph.ingest import formats

    fmt = formats.get("bibtex")
    files = fmt.files(path)
    if case == "parse":
        started, cpu = time.perf_counter(), cpu_seconds()
        _, survey = fmt.surveyed(files)
        return {
            "seconds": time.perf_counter() - started,
            "entries": sum(survey.entries.values()),
            "cpu": cpu_seconds() - cpu,
            "phases": {"survey": time.perf_counter() - started},
        }
    from neo4j import GraphDatabase

    from citegraph.graph import ArcadeDBBackend, ArcadeServer, GraphStore
    from citegraph.graph.arcadedb import DATABASE, USER
    from citegraph.ingest import ingest
    from citegraph.ingest.bulk import bulk_ingest

    server = ArcadeServer(home / "arcadedb")
    info = server.start()
    store = GraphStore(GraphDatabase.driver(info.uri, auth=(USER, server.password())), DATABASE)
    try:
        started, cpu, server_cpu = time.perf_counter(), cpu_seconds(), cpu_seconds(info.pid)
        surveyed, survey = fmt.surveyed(files)
        phases = Phases()
        phases.seconds["survey"] = time.perf_counter() - started
        if case == "bulk":
            bulk_ingest(ArcadeDBBackend(server), store, surveyed, [path], progress=phases)
        else:
            ingest(store, surveyed, [path], progress=phases)
        seconds = time.perf_counter() - started
        cpu, server_cpu = cpu_seconds() - cpu, cpu_seconds(info.pid) - server_cpu
        papers = {r["label"]: r["count"] for r in store.run("stats/labels")}.get("Paper", 0)
    finally:
        store.close()
        server.stop()
    return {
        "seconds": seconds,
        "entries": sum(survey.entries.values()),
        "papers": papers,
        "cpu": cpu,
        "server_cpu": server_cpu,
        "phases": {name: phases.seconds[name] for name in phases.seconds},
    }


def baseline_tree(commit: str, folder: Path) -> Path:
    """The ``citegraph`` package of ``commit``, exported from git (no checkout touched)."""
    out = folder / f"citegraph-{commit}"
    if not out.exists():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", commit, "citegraph"], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(out, filter="data")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--sample", type=int, default=2_000, help="entries of the baseline's sample")
    parser.add_argument("--baseline", default="1b432bb", help="the commit whose reader is the baseline")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()) / "citegraph-bench")
    parser.add_argument("--run", nargs=3, metavar=("CASE", "CORPUS", "HOME"), help=argparse.SUPPRESS)  # one case
    args = parser.parse_args()
    if args.run:
        case, corpus, home = args.run
        print(json.dumps(run_case(case, Path(corpus), Path(home))))
        return

    cases = [c for c in args.cases.split(",") if c]
    if set(cases) - set(CASES):
        parser.error(f"unknown case(s): {', '.join(sorted(set(cases) - set(CASES)))}")
    started = time.perf_counter()
    path = collection(args.entries, args.files, args.corpus_dir)
    size = sum(f.stat().st_size for f in path.glob("*.bib"))
    print(
        f"# bibtex benchmark, {datetime.date.today()}: {args.entries:,} entries in {args.files} files, {path} "
        f"({size / 2**20:,.0f} MiB, ready in {time.perf_counter() - started:.1f} s)"
    )
    print(f"# machine: {machine()}")
    small = sample(path, args.sample, args.corpus_dir)
    results = {}
    for case in cases:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        if case == "baseline":
            env["PYTHONPATH"] = str(baseline_tree(args.baseline, args.corpus_dir))
        load_before = os.getloadavg()[0]
        with tempfile.TemporaryDirectory(prefix=f"bench-bibtex-{case}-") as home:
            on_sample = case in ("baseline", "sample")
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--run",
                    "stream" if on_sample else case,
                    str(small if on_sample else path),
                    home,
                ],
                stdout=subprocess.PIPE,
                text=True,
                check=True,
                env=env,
            )
        result = results[case] = json.loads(done.stdout.splitlines()[-1])
        phases = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in result["phases"].items())
        cpu = result["cpu"] + result.get("server_cpu", 0)
        server = f" + ArcadeDB {result['server_cpu']:.1f} s" if "server_cpu" in result else ""
        print(
            f"# {case}: {result['entries']:,} entries in {result['seconds']:.1f} s = "
            f"{result['entries'] / result['seconds']:,.0f} entries/s ({phases}); CPU: Python "
            f"{result['cpu']:.1f} s{server} = {result['entries'] / cpu:,.0f} entries per CPU-second; "
            f"{result.get('papers', '—')} papers in the graph; "
            f"1-min load average {load_before:.1f} → {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    if "baseline" in results and "sample" in results:
        print(
            f"# on the {args.sample:,}-entry sample: {results['baseline']['seconds'] / results['sample']['seconds']:.1f}"
            f" times faster than {args.baseline}"
        )


if __name__ == "__main__":
    main()
