"""Large-scale evaluation on dataset- or field-level pools (Medić & Šnajder 2022, Tables 1, 2, 7, 8).

Each query (title + abstract) is ranked by each retriever within each pool, the query
itself left out (a query cited by another query can be in the pool), the top ``depth``
(500, as the paper) scored with :mod:`~citegraph.evaluation.metrics`. A field-level pool
serves the queries of its field. Values are averaged over queries, then mean ± standard
deviation over the repeats; field-level tables add the average over fields (AVG).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...formats.trec import read_qrels
from ...retrieval.base import Document, Retriever
from ..harness import Log, Scores, Topics, quiet, score_topics
from ..metrics import DEPTH, mean_std
from ..report import Table
from .pools import read_queries

MEASURES = ("MAP", "nDCG", "R@30")


@dataclass(frozen=True)
class LargeScale:
    """The pools written by ``citegraph pools`` as a benchmark (see the module docstring)."""

    pools_dir: Path
    measures: tuple[str, ...] = MEASURES
    depth: int = DEPTH
    name: str = "large-scale"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        pools_dir = Path(self.pools_dir)
        manifest = json.loads((pools_dir / "manifest.json").read_text(encoding="utf-8"))
        records = read_queries(pools_dir / "queries.jsonl")
        qrels = read_qrels(pools_dir / "qrels.txt")
        field_level = manifest["kind"] == "field-level"
        values: dict = defaultdict(
            lambda: defaultdict(lambda: defaultdict(dict))
        )  # model → pool → repeat → measure → mean
        per_query: dict = defaultdict(dict)
        for entry in manifest["pools"]:
            pool = set((pools_dir / entry["file"]).read_text(encoding="utf-8").split())
            mine = [r for r in records if not field_level or r.get("field") == entry["name"]]
            topics = Topics(
                {r["id"]: Document(r["id"], r["title"], r["abstract"] or "") for r in mine},
                {r["id"]: qrels.get(r["id"], {}) for r in mine},
                [pool] * len(mine),
                leave_out_query=True,
            )
            for retriever in retrievers:
                result = score_topics(retriever, topics, self.measures, self.depth + 1, self.depth)
                values[retriever.name][entry["name"]][entry["repeat"]] = result.mean
                per_query[retriever.name][f"{entry['name']}/{entry['repeat']}"] = result.per_query
        columns = list(dict.fromkeys(e["name"] for e in manifest["pools"]))
        tables = []
        for measure in self.measures:
            table = Table(
                f"{measure}: {manifest['kind']} pools" + ("" if field_level else " by size"),
                columns + (["AVG"] if field_level else []),
                figure="bar" if field_level else "line",
                name=f"{manifest['kind']}-{measure.replace('@', '_at_')}",
                xlabel="pool size",
            )
            for model, by_pool in values.items():
                means = {}
                for name in columns:
                    mean, std = mean_std([v[measure] for v in by_pool[name].values()])
                    table.set(model, name, mean, std)
                    means[name] = mean
                if field_level:
                    table.set(model, "AVG", sum(means.values()) / len(means))
            tables.append(table)
        config = {
            "setup": manifest["kind"],
            "pools": str(pools_dir),
            "pool_manifest": manifest,
            "models": [r.name for r in retrievers],
            "measures": list(self.measures),
            "depth": self.depth,
        }
        return Scores(tables, config, dict(per_query))


def tune_bm25(pools_dir: Path, index: Path, repeat: int = 0):
    """k1/b grid search for MAP on a pool folder used as the validation split (the paper
    tuned BM25 on validation sets built like its test sets): each query in the first pool
    that serves it."""
    from ..tuning import tune

    pools_dir = Path(pools_dir)
    manifest = json.loads((pools_dir / "manifest.json").read_text(encoding="utf-8"))
    records = read_queries(pools_dir / "queries.jsonl")
    field_level = manifest["kind"] == "field-level"
    pools = {}
    for entry in (e for e in manifest["pools"] if e["repeat"] == repeat):
        pool = set((pools_dir / entry["file"]).read_text(encoding="utf-8").split())
        for r in records:
            if r["id"] not in pools and (not field_level or r.get("field") == entry["name"]):
                pools[r["id"]] = pool - {r["id"]}
    queries = {r["id"]: f"{r['title']} {r['abstract'] or ''}".strip() for r in records if r["id"] in pools}
    return tune(index, queries, read_qrels(pools_dir / "qrels.txt"), pools)
