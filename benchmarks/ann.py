"""ANN benchmark: exact, IVF and HNSW indexes, and the two pool-restricted search paths.

    .venv/bin/python benchmarks/ann.py                                    # 200k × 768
    .venv/bin/python benchmarks/ann.py --n 20000 --dim 128 --queries 200  # a quick run
    .venv/bin/python benchmarks/ann.py --n 2000000 --kinds flat,ivf       # paper scale

The vectors are synthetic and clustered, written in chunks to a float32 memmap that
the indexes are built from (as from the embedding cache): ``--topics`` centres, each
document its centre plus a 64-dimensional latent offset (``z @ B``) and a little
isotropic noise, so that neighbourhoods have a low intrinsic dimension like real
embeddings; queries are further points of the same topics. Recall is therefore of this
data, not of a real encoder's.

For each index kind (``citegraph.retrieval.ann.AnnIndex``, cosine): build seconds,
unrestricted queries per second (``--queries`` queries in one call, as the evaluation
harness sends them) and recall@k against exact search. Then, per kind, restricted
searches at pool sizes 65 (MDCR's candidates), 1k and 100k (capped at n), once with a
random pool per query and once with one pool shared by all (as dataset-level pools
are): queries per second through the exact path (pool vectors scored in place, or one
matrix product for a shared pool) and through the Faiss selector path, their ratio to
unrestricted flat search, the path the automatic rule picks, and how much of the exact
path's top k the selector path returns. The flat index is kept for recall, so the peak memory
is about two indexes (≈ 2 × n × dim × 4 bytes) plus the memmap's page cache.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import faiss
import numpy as np

from citegraph.retrieval.ann import AnnIndex, recall_against_exact
from citegraph.retrieval.ann_build import AnnConfig, Kind

KINDS: tuple[Kind, ...] = ("flat", "ivf", "hnsw")
POOL_SIZES = (65, 1_000, 100_000)
T = TypeVar("T")
LATENT = 64


def synthetic(path: Path, n: int, dim: int, topics: int, seed: int, chunk: int = 50_000) -> np.memmap:
    """Clustered vectors with a low-dimensional spread, written chunk by chunk."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((topics, dim)).astype(np.float32)
    basis = (rng.standard_normal((LATENT, dim)) / np.sqrt(LATENT)).astype(np.float32)
    out = np.memmap(path, dtype=np.float32, mode="w+", shape=(n, dim))
    for start in range(0, n, chunk):
        rows = min(chunk, n - start)
        block = centres[rng.integers(0, topics, rows)]
        block += 0.5 * rng.standard_normal((rows, LATENT), dtype=np.float32) @ basis
        block += 0.05 * rng.standard_normal((rows, dim), dtype=np.float32)
        out[start : start + rows] = block
    out.flush()
    return out


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def timed(call: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, float]:
    start = time.perf_counter()
    result = call(*args, **kwargs)
    return result, time.perf_counter() - start


def pool_rows(
    index: AnnIndex, queries: np.ndarray, ids: Sequence[str], k: int, flat_qps: float, seed: int
) -> list[dict]:
    """Both restricted paths per pool size, with a pool per query and one shared pool.

    Big pools get fewer queries; a shared pool gets at least 64, so that the exact path
    takes its matrix-product route (``SHARED_POOL_QUERIES``).
    """
    rng = np.random.default_rng(seed)
    rows = []
    for size in POOL_SIZES:
        size = min(size, len(ids))
        for shared in (False, True):
            count = min(len(queries), max(64 if shared else 10, 2_000_000 // size))
            pools = [{ids[i] for i in rng.choice(len(ids), size, replace=False)} for _ in range(1 if shared else count)]
            pools = pools * count if shared else pools
            row = {
                "kind": index.kind,
                "pool": size,
                "pools": "shared" if shared else "own",
                "queries": count,
                "auto": "exact" if index.exact_for(size, k) else "selector",
            }
            rankings = {}
            for path, limit in (("exact", len(ids)), ("selector", 0)):
                index.exact_pool_max = limit
                rankings[path], seconds = timed(index.search, queries[:count], k, pools)
                row[path] = rate(count, seconds)
            index.exact_pool_max = None
            row["overlap"] = float(
                np.mean(
                    [
                        len({h.id for h in s} & {h.id for h in e}) / max(1, len(e))
                        for s, e in zip(rankings["selector"], rankings["exact"])
                    ]
                )
            )
            row["ratio"] = {path: row[path] / flat_qps for path in ("exact", "selector")}
            rows.append(row)
            print(
                f"# {index.kind} pool {size:,} ({row['pools']}): exact {row['exact']:,.1f} q/s, "
                f"selector {row['selector']:,.1f} q/s",
                flush=True,
            )
    return rows


def index_table(rows: list[dict], k: int) -> str:
    lines = [f"| index | params | build s | q/s | recall@{k} |", "|---|---|---:|---:|---:|"]
    for r in rows:
        params = ", ".join(f"{key}={value}" for key, value in r["params"].items()) or "—"
        lines.append(f"| {r['kind']} | {params} | {r['build']:.1f} | {r['qps']:,.1f} | {r['recall']:.3f} |")
    return "\n".join(lines)


def pool_table(rows: list[dict], k: int) -> str:
    lines = [
        (
            "| index | pool | pools | queries | exact q/s | selector q/s | exact ÷ flat | "
            f"selector ÷ flat | auto path | selector ∩ exact top {k} |"
        ),
        "|---|---:|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['kind']} | {r['pool']:,} | {r['pools']} | {r['queries']:,} | "
            f"{r['exact']:,.1f} | "
            f"{r['selector']:,.1f} | {r['ratio']['exact']:.2f} | "
            f"{r['ratio']['selector']:.2f} | {r['auto']} | {r['overlap']:.3f} |"
        )
    return "\n".join(lines)


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{os.cpu_count()} cores, {memory:.0f} GiB RAM, {faiss.get_num_gpus()} GPUs, "
        f"faiss {faiss.__version__}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="documents")
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1, help="OpenMP threads")
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated, of flat, ivf, hnsw (flat is always built)"
    )
    parser.add_argument(
        "--nlist",
        type=int,
        default=None,
        help="IVF lists (default 1024, or n/64 below 65,536 documents so that k-means has 64 points per list)",
    )
    parser.add_argument("--nprobe", type=int, default=32)
    parser.add_argument("--m", type=int, default=32, help="HNSW neighbours per node")
    parser.add_argument("--ef-search", type=int, default=256)
    parser.add_argument("--topics", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workdir", type=Path, default=None, help="where the vector memmap is written (default: a temporary folder)"
    )
    args = parser.parse_args()
    nlist = args.nlist or min(1024, max(1, args.n // 64))
    kinds = [kind for kind in args.kinds.split(",") if kind]
    if "flat" not in kinds:
        kinds.insert(0, "flat")  # the reference for recall and for the ratios

    with tempfile.TemporaryDirectory(dir=args.workdir) as folder:
        vectors = synthetic(Path(folder) / "vectors.f32", args.n + args.queries, args.dim, args.topics, args.seed)
        documents, queries = vectors[: args.n], np.array(vectors[args.n :])
        ids = [f"doc{i}" for i in range(args.n)]
        print(
            f"# ANN benchmark, {datetime.date.today()}: n={args.n:,}, dim={args.dim}, "
            f"{args.queries:,} queries, k={args.k}, threads={args.threads}, "
            f"{args.topics:,} topics"
        )
        print(f"# machine: {machine()}", flush=True)

        built: list[dict] = []
        pools: list[dict] = []
        flat: AnnIndex | None = None
        flat_qps = 0.0
        for kind in kinds:
            index, build = timed(
                AnnIndex.build,
                documents,
                ids,
                AnnConfig(
                    kind=kind,
                    nlist=nlist,
                    nprobe=args.nprobe,
                    m=args.m,
                    ef_search=args.ef_search,
                    threads=args.threads,
                    seed=args.seed,
                ),
            )
            _, seconds = timed(index.search, queries, args.k)
            qps = rate(len(queries), seconds)
            if kind == "flat":
                flat, flat_qps = index, qps
            recall = 1.0 if index is flat else recall_against_exact(index, flat, queries, args.k)
            built.append({"kind": kind, "params": index.params, "build": build, "qps": qps, "recall": recall})
            print(f"# {kind}: build {build:.1f} s, {qps:,.1f} q/s, recall@{args.k} {recall:.3f}", flush=True)
            pools += pool_rows(index, queries, ids, args.k, flat_qps, args.seed)
            del index  # frees an IVF or HNSW index before the next is built
        print()
        print(index_table(built, args.k))
        print()
        print(pool_table(pools, args.k))


if __name__ == "__main__":
    main()
