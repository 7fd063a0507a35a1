"""Pools benchmark: MDCR build, enrichment latency and a dataset-level pool, from Cypher.

    .venv/bin/python benchmarks/pools.py                      # 200k papers, ~2M citations
    .venv/bin/python benchmarks/pools.py --papers 20000       # a quick run
    .venv/bin/python benchmarks/pools.py --work /tmp/pools --cases pool,enrich   # keep the graph; reruns skip the load

A synthetic S2ORC corpus (``citegraph.synth``, seed 0) is bulk-loaded into a private
embedded ArcadeDB (``citegraph.ingest.bulk``), then, in the same run:

* **MDCR build** for all 19 fields × ``--queries`` queries, without model scoring (graph,
  most-cited and random negatives): seconds; the target is < 5 min at 200k/2M.
* **Enrichment** of 100 candidates (``retrieval.signals.enrich``, SymTax: 100 → 300): latency of
  ``--rounds`` calls, p50 and p95, against the baseline of a one-paper lookup
  (``paper``) timed the same way; the target is p50 < 5 ms. The candidates of a call are
  100 papers of one topic's neighbourhood (a query's references and the papers citing
  them), as a prefetch would return.
* **Dataset-level pool** of 200k (capped at the corpus) for 1,000 queries: seconds.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from citegraph.config import Config
from citegraph.evaluation.large_scale import pools
from citegraph.evaluation.large_scale.config import PoolsConfig
from citegraph.evaluation.mdcr import build as mdcr
from citegraph.evaluation.mdcr.config import MDCRConfig
from citegraph.graph import open_store
from citegraph.ingest import formats
from citegraph.ingest.bulk import bulk_ingest
from citegraph.retrieval.signals import enrich
from citegraph.synth import SynthSpec, generate
from citegraph.vocabulary import MAG_FIELDS


def timed(call, *args, **kwargs):
    start = time.perf_counter()
    result = call(*args, **kwargs)
    return result, time.perf_counter() - start


def latencies(call, rounds: int) -> list[float]:
    out = []
    for i in range(rounds):
        start = time.perf_counter()
        call(i)
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=200, help="MDCR queries per field")
    parser.add_argument("--rounds", type=int, default=300, help="enrichment calls")
    parser.add_argument("--heap", default="4g")
    parser.add_argument(
        "--cases",
        default="mdcr,pool,enrich",
        help="comma-separated: mdcr, pool, enrich (enrich reads the pool's queries)",
    )
    parser.add_argument(
        "--work", type=Path, help="keep the corpus, graph and pool here and reuse them (default: a temporary folder)"
    )
    args = parser.parse_args()
    cases = set(args.cases.split(","))

    with tempfile.TemporaryDirectory(prefix="citegraph-pools-") as tmp:
        tmp = args.work or Path(tmp)
        tmp.mkdir(parents=True, exist_ok=True)
        config = Config(data_dir=tmp / "data", heap=args.heap)
        with open_store(config) as store:
            from citegraph.graph import open_backend

            load = 0.0
            if not store.value("bulk/any_node"):
                generate(SynthSpec(papers=args.papers, seed=0), tmp / "corpus.jsonl")
                _, load = timed(
                    bulk_ingest,
                    open_backend(config),
                    store,
                    formats.get("s2orc"),
                    [tmp / "corpus.jsonl"],
                    heap=args.heap,
                )
            counts = {row["label"]: row["count"] for row in store.run("stats/labels")}
            print(
                f"# pools benchmark {datetime.date.today()} — {platform.machine()}, {os.cpu_count()} cores, Python "
                f"{platform.python_version()}; {counts.get('Paper', 0):,} papers (bulk load {load:.0f} s); "
                f"1-min load average {os.getloadavg()[0]:.1f}"
            )
            rows = []
            if "mdcr" in cases:
                # mdcr.build's own choice asks for n_queries in the year, across fields; a
                # synthetic 200k corpus has few per field in that year, so ask for them all
                year = pools.query_year(store, args.queries * len(MAG_FIELDS), min_cited=5)
                built, t_mdcr = timed(mdcr.build, store, tmp / "mdcr", MDCRConfig(n_queries=args.queries, year=year))
                per_field = built.graph["queries_per_field"].values()
                shortfall = {k: v for k, v in built.graph["shortfall"].items() if v}
                rows.append(
                    f"| MDCR build, 19 fields × {args.queries} queries, no models | {built.queries:,} queries "
                    f"of {built.year} ({min(per_field)}–{max(per_field)} per field), shortfall "
                    f"{shortfall or 'none'} | {t_mdcr:.1f} s | — | < 300 s |"
                )
            if "pool" in cases:
                ds, t_pool = timed(
                    pools.dataset_level, store, tmp / "pool", PoolsConfig(repeats=1), n_queries=1000, sizes=(200_000,)
                )
                rows.append(
                    f"| dataset-level pool, 1,000 queries | {ds.pools[0]['papers']:,} papers | {t_pool:.1f} s | — | — |"
                )
            if "enrich" in cases:
                rng = random.Random(0)
                queries = [q for q in (line.split()[0] for line in (tmp / "pool" / "qrels.txt").open())]
                neighbourhoods = []
                for q in rng.sample(sorted(set(queries)), min(args.rounds, len(set(queries)))):
                    refs = [row["cited"] for row in store.rows("pools/cited", ids=[q])]
                    neighbourhoods.append(enrich(store, refs, len(refs) + 100).ids[:100])
                lookup = latencies(lambda i: store.run("paper", id=queries[i % len(queries)]), len(neighbourhoods))
                enriched = latencies(lambda i: enrich(store, neighbourhoods[i], 300), len(neighbourhoods))
                base50 = p(lookup, 50)
                rows.append(
                    f"| lookup of one paper (baseline) | p50 / p95 | {base50:.2f} / {p(lookup, 95):.2f} ms | 1.00 | — |"
                )
                rows.append(
                    f"| enrichment of 100 candidates → 300 | p50 / p95 | {p(enriched, 50):.2f} / "
                    f"{p(enriched, 95):.2f} ms | {p(enriched, 50) / base50:.2f} | p50 < 5 ms, p95 < 10 ms |"
                )
            print(f"# 1-min load average after: {os.getloadavg()[0]:.1f}")

    print("| case | result | seconds or ms | ratio to baseline | target |")
    print("|---|---|---:|---:|---|")
    print("\n".join(rows))


def p(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1]


if __name__ == "__main__":
    main()
