"""Retrieval benchmark: our BM25 against raw pyserini on the same index, bm25s, encoders.

    .venv/bin/python benchmarks/retrieval.py                        # 200k papers, 1,000 queries
    .venv/bin/python benchmarks/retrieval.py --papers 20000 --queries 200

A synthetic corpus (``citegraph.synth``, seed 0) gives the documents (title + abstract);
the queries are the title + abstract of the last ``--queries`` papers. Printed, per case:
build seconds, queries per second at k=100 and the ratio to the baseline measured in the
same run —

* ``lucene (ours)`` vs ``pyserini LuceneSearcher``: the same Lucene index searched through
  citegraph's :class:`~citegraph.retrieval.bm25.lucene.LuceneBM25` and through pyserini's own
  searcher, unpooled batch search with the same threads; the target is a ratio ≥ 0.9 (our
  wrapper must not cost throughput). Their top 100 must be identical.
* ``lucene (ours), pool 65 / 10k``: pool-restricted search (one pool per query).
* ``bm25s``: the embedded fallback, and its overlap@10 with Lucene.
* encoders: MiniLM (the offline default) docs/s at float32 and bfloat16 on ``--encode``
  documents, on CPU with ``--threads`` threads; with ``--bert-base N``, a BERT-base-sized
  encoder (SciBERT, SPECTER, SciNCL: 12 layers, 768 wide, 512 tokens) on N documents. Its
  weights are random (the hub is not reachable here, and speed does not depend on the
  weights); the vocabulary is MiniLM's, which is BERT-base's. Faiss has its own script
  (``ann.py``).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import tempfile
import time
from pathlib import Path

from citegraph.retrieval.base import Document
from citegraph.retrieval.bm25 import build_bm25
from citegraph.synth import SynthSpec, records


def corpus(papers: int) -> list[Document]:
    return [Document(r["paper_id"], r["title"], r["abstract"]) for r in records(SynthSpec(papers=papers, seed=0))]


def timed(call, *args, **kwargs):
    start = time.perf_counter()
    result = call(*args, **kwargs)
    return result, time.perf_counter() - start


def overlap(a, b, k: int) -> float:
    shared = [len({h.id for h in x[:k]} & {h.id for h in y[:k]}) / k for x, y in zip(a, b)]
    return sum(shared) / len(shared)


def bm25_rows(docs: list[Document], queries: list[str], k: int, threads: int, folder: Path) -> list[tuple]:
    rows = []
    lucene, build = timed(build_bm25, docs, folder / "lucene", backend="lucene", threads=threads)
    from citegraph.retrieval.bm25.jvm import prepare

    prepare()
    from pyserini.search.lucene import LuceneSearcher  # 10–30 s to import: outside the timings

    raw = LuceneSearcher(str(folder / "lucene" / "lucene"))
    raw.set_bm25(lucene.k1, lucene.b)
    qids = [str(i) for i in range(len(queries))]

    def pyserini_run(texts, ids):  # hits read out as (docid, score), as any caller must
        return {q: [(h.docid, h.score) for h in hits] for q, hits in raw.batch_search(texts, ids, k, threads).items()}

    lucene.search(queries[:20], k)  # warm both up (JIT, caches)
    pyserini_run(queries[:20], qids[:20])
    found_raw, t_raw = timed(pyserini_run, queries, qids)
    ours, t_ours = timed(lucene.search, queries, k)
    same = all([h.id for h in ours[i]] == [d for d, _ in found_raw[qids[i]]] for i in range(len(queries)))
    base = len(queries) / t_raw
    rows.append(("pyserini LuceneSearcher (baseline)", "-", base, 1.0, ""))
    rows.append(
        (
            "lucene (ours)",
            f"{build:.1f}",
            len(queries) / t_ours,
            len(queries) / t_ours / base,
            f"top-{k} identical to pyserini: {same}",
        )
    )
    rng = random.Random(0)
    ids = [d.id for d in docs]
    for size in (65, 10_000):
        pools = [set(rng.sample(ids, min(size, len(ids)))) for _ in queries]
        _, seconds = timed(lucene.search, queries, k, pools)
        rows.append((f"lucene (ours), pool {size:,}", "-", len(queries) / seconds, len(queries) / seconds / base, ""))
    fallback, build = timed(build_bm25, docs, folder / "bm25s", backend="bm25s")
    found, seconds = timed(fallback.search, queries, k)
    rows.append(
        (
            "bm25s",
            f"{build:.1f}",
            len(queries) / seconds,
            len(queries) / seconds / base,
            f"overlap@10 with Lucene {overlap(found, ours, 10):.3f}",
        )
    )
    return rows


def speed_rows(label: str, open_encoder, sample: list[Document]) -> list[tuple]:
    """docs/s of an encoder (``open_encoder(dtype)``) at float32, the baseline, and bfloat16."""
    rows, base = [], None
    for dtype in ("float32", "bfloat16"):
        encoder = open_encoder(dtype)
        encoder.encode(sample[:8])  # load and warm up
        _, seconds = timed(encoder.encode, sample)
        speed = len(sample) / seconds
        base = base or speed
        rows.append(
            (
                f"{label} {dtype} ({encoder.max_length} tokens)",
                "-",
                speed,
                speed / base,
                f"docs/s; {200_000 / speed / 3600:,.1f} h for 200k",
            )
        )
    return rows


def encoder_rows(docs: list[Document], n: int, threads: int) -> list[tuple]:
    from citegraph.retrieval.dense.encoders import get_encoder

    return speed_rows("minilm", lambda dtype: get_encoder("minilm", dtype=dtype, threads=threads), docs[:n])


def bert_base_rows(docs: list[Document], n: int, threads: int, folder: Path) -> list[tuple]:
    """A BERT-base-sized encoder: random weights (speed does not depend on them), MiniLM's vocabulary."""
    from transformers import BertConfig, BertModel

    from citegraph.retrieval.dense.encoders import get_encoder

    get_encoder("minilm").tokenizer.save_pretrained(folder)
    BertModel(BertConfig()).save_pretrained(folder)  # BertConfig's defaults are BERT-base
    return speed_rows("BERT-base", lambda dtype: get_encoder(f"hf:{folder}", dtype=dtype, threads=threads), docs[:n])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--encode", type=int, default=200, help="documents for the encoder speed (0: skip)")
    parser.add_argument("--bert-base", type=int, default=0, help="documents for a BERT-base-sized encoder's speed")
    args = parser.parse_args()

    docs, seconds = timed(corpus, args.papers)
    queries = [d.text for d in docs[-args.queries :]]
    print(
        f"# retrieval benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, "
        f"{args.papers:,} synthetic papers ({seconds:.0f} s to generate), {len(queries):,} queries, "
        f"k={args.k}, threads={args.threads}; 1-min load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory(prefix="citegraph-bench-") as tmp:
        rows = bm25_rows(docs, queries, args.k, args.threads, Path(tmp))
    if args.encode:
        rows += encoder_rows(docs, args.encode, args.threads)
    if args.bert_base:
        with tempfile.TemporaryDirectory(prefix="citegraph-bert-base-") as tmp:
            rows += bert_base_rows(docs, args.bert_base, args.threads, Path(tmp))
    print("| case | build s | per second | ratio to baseline | note |")
    print("|---|---:|---:|---:|---|")
    for name, build, speed, ratio, note in rows:
        print(f"| {name} | {build} | {speed:,.1f} | {ratio:.2f} | {note} |")


if __name__ == "__main__":
    main()
