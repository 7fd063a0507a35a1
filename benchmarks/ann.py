"""ANN benchmark: exact, IVF, HNSW and compressed (IVF-PQ, OPQ) indexes, and the two
pool-restricted search paths.

    .venv/bin/python benchmarks/ann.py                                    # 200k × 768
    .venv/bin/python benchmarks/ann.py --n 20000 --dim 128 --queries 200  # a quick run
    .venv/bin/python benchmarks/ann.py --n 2000000 --kinds flat,ivf       # paper scale
    nice -n 10 .venv/bin/python benchmarks/ann.py --vectors minilm --workdir /var/tmp/ann \
        --n 1000000 --kinds flat,ivf,ivfpq,opq --pq-m 24,48,96 --rerank 0,400 --no-pools

``--vectors synthetic`` (the default): clustered vectors written in chunks to a float32
memmap that the indexes are built from (as from the embedding cache): ``--topics``
centres, each document its centre plus a 64-dimensional latent offset (``z @ B``) and a
little isotropic noise, so that neighbourhoods have a low intrinsic dimension like real
embeddings; queries are further points of the same topics. Recall is then of this data,
not of a real encoder's. ``--vectors minilm``: the project's own encoder (the offline
MiniLM, 384-d, bfloat16 as ``index dense --dtype bfloat16``) over the titles
of the synthetic corpus (``citegraph.synth``, seed 0): papers ``0..n-1`` are the documents,
the next ``--queries`` papers the queries. They are encoded once into ``--workdir``
(10k papers a file; a larger ``--n`` encodes only what is missing).

For each index kind (``citegraph.retrieval.dense.ann.AnnIndex``, cosine): build seconds,
unrestricted queries per second (``--queries`` queries in one call, as the evaluation
harness sends them), recall@k against exact search and the index's bytes per vector
(Faiss' serialised index ÷ n; ids are kept beside it). ``ivfpq``/``opq`` are built once per
``--pq-m`` × ``--rerank`` value (``--rerank``: candidates re-scored from the float
vectors). Then, unless ``--no-pools``, per kind, restricted
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
import itertools
import os
import platform
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import faiss
import numpy as np

from citegraph.retrieval.dense.ann import AnnIndex, recall_against_exact
from citegraph.retrieval.dense.ann_build import PQ_KINDS, AnnConfig, Kind

KINDS: tuple[Kind, ...] = ("flat", "ivf", "hnsw")  # the default; ivfpq and opq on request
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


def minilm_vectors(cache: Path, count: int, dtype: str, threads: int, chunk: int = 5_000) -> np.ndarray:
    """The titles of the first ``count`` papers of the synthetic corpus (seed 0;
    ``citegraph.synth``) as the offline MiniLM encodes them for ``index dense``: 384-d,
    normalised. Titles only: title and abstract cost about ten times the encoder time.

    Encoded once, ``chunk`` papers a file (``cache/chunk-00000.npy`` …), so a run that stops
    keeps what it encoded and a larger run encodes only the chunks it lacks.
    """
    from citegraph.retrieval.base import Document
    from citegraph.retrieval.dense.encoders import get_encoder
    from citegraph.synth.generator import records
    from citegraph.synth.recipe import SynthSpec

    cache.mkdir(parents=True, exist_ok=True)
    files = [cache / f"chunk-{start // chunk:05d}.npy" for start in range(0, count, chunk)]
    if not all(f.exists() for f in files):
        encoder = get_encoder("minilm", dtype=dtype, batch_size=64, threads=threads)  # type: ignore[arg-type]
        papers = records(SynthSpec(papers=max(count, 1_001_000)))  # one corpus whatever the count
        for f in files:
            docs = [Document(r["paper_id"], r["title"]) for r in itertools.islice(papers, chunk)]
            if f.exists():
                continue
            started = time.perf_counter()
            np.save(f.with_suffix(".part.npy"), encoder.encode(docs))
            f.with_suffix(".part.npy").rename(f)
            print(f"# encoded {f.name}: {rate(len(docs), time.perf_counter() - started):,.1f} papers/s", flush=True)
    return np.concatenate([np.load(f, mmap_mode="r") for f in files])[:count]


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
    lines = [f"| index | params | build s | q/s | recall@{k} | bytes/vector |", "|---|---|---:|---:|---:|---:|"]
    for r in rows:
        params = ", ".join(f"{key}={value}" for key, value in r["params"].items()) or "—"
        lines.append(
            f"| {r['kind']} | {params} | {r['build']:.1f} | {r['qps']:,.1f} | {r['recall']:.3f} | {r['bytes']:,.1f} |"
        )
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
    parser.add_argument("--threads", type=int, default=1, help="OpenMP threads (of Faiss, and of the encoder)")
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="comma-separated, of flat, ivf, hnsw, ivfpq, opq (flat is always built)",
    )
    parser.add_argument("--vectors", choices=("synthetic", "minilm"), default="synthetic")
    parser.add_argument("--pq-m", default="48", help="ivfpq/opq: sub-quantisers, comma-separated values")
    parser.add_argument("--pq-bits", type=int, default=8)
    parser.add_argument("--rerank", default="0", help="ivfpq/opq: candidates re-ranked, comma-separated values")
    parser.add_argument("--no-pools", action="store_true", help="skip the pool-restricted searches")
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

    base = AnnConfig(
        nlist=nlist,
        nprobe=args.nprobe,
        m=args.m,
        ef_search=args.ef_search,
        pq_bits=args.pq_bits,
        threads=args.threads,
        seed=args.seed,
    )
    configs = [
        replace(base, kind=kind, pq_m=int(pq_m), rerank=int(rerank))
        for kind in kinds
        for pq_m in (args.pq_m.split(",") if kind in PQ_KINDS else [base.pq_m])
        for rerank in (args.rerank.split(",") if kind in PQ_KINDS else [0])
    ]
    with tempfile.TemporaryDirectory(dir=args.workdir) as folder:
        if args.vectors == "minilm":
            cache = (args.workdir or Path(folder)) / "minilm-synth-titles-bf16"
            vectors = minilm_vectors(cache, args.n + args.queries, "bfloat16", args.threads)
            description = f"MiniLM (bfloat16) vectors of synthetic papers, dim={vectors.shape[1]}"
        else:
            vectors = synthetic(Path(folder) / "vectors.f32", args.n + args.queries, args.dim, args.topics, args.seed)
            description = f"synthetic vectors, dim={args.dim}, {args.topics:,} topics"
        documents, queries = vectors[: args.n], np.array(vectors[args.n :])
        ids = [f"doc{i}" for i in range(args.n)]
        print(
            f"# ANN benchmark, {datetime.date.today()}: n={args.n:,}, {description}, "
            f"{args.queries:,} queries, k={args.k}, threads={args.threads}; "
            f"1-min load average {os.getloadavg()[0]:.1f}"
        )
        print(f"# machine: {machine()}", flush=True)

        built: list[dict] = []
        pools: list[dict] = []
        flat: AnnIndex | None = None
        flat_qps = 0.0
        for config in configs:
            index, build = timed(AnnIndex.build, documents, ids, config)
            _, seconds = timed(index.search, queries, args.k)
            qps = rate(len(queries), seconds)
            if config.kind == "flat":
                flat, flat_qps = index, qps
            recall = 1.0 if index is flat else recall_against_exact(index, flat, queries, args.k)
            size = faiss.serialize_index(index.index).nbytes / args.n
            built.append(
                {
                    "kind": config.kind,
                    "params": index.params,
                    "build": build,
                    "qps": qps,
                    "recall": recall,
                    "bytes": size,
                }
            )
            print(
                f"# {config.kind} {index.params}: build {build:.1f} s, {qps:,.1f} q/s, recall@{args.k} {recall:.3f}, "
                f"{size:,.1f} bytes/vector; 1-min load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            if not args.no_pools:
                pools += pool_rows(index, queries, ids, args.k, flat_qps, args.seed)
            del index  # frees an approximate index before the next is built
        print()
        print(index_table(built, args.k))
        if pools:
            print()
            print(pool_table(pools, args.k))


if __name__ == "__main__":
    main()
