"""The MDCR benchmark (Medić & Šnajder 2022, §4) built from the graph.

Per MAG field (or ``"All"``: the whole corpus, for corpora without fields), ``n_queries`` queries (eligible, published in ``year``, citing at least
``positives`` corpus papers); per query ``positives`` random cited papers and
``per_type`` negatives of each type, chosen in this order:

* **model-based** — for each of the three retrievers whose top negatives overlap least
  (lowest average Jaccard index with the others, over all queries, as the paper chose
  BM25, SPECTER and SciNCL), ``per_type`` drawn from the retriever's top ``model_depth``
  non-cited candidates over the field-level pool; the type is named after the retriever;
* **graph** — walking the cited papers c from the highest overlap
  O(q,c) = |OC_q ∩ (OC_c ∪ IC_c)| / |OC_q| (``cypher/mdcr/overlap``) down, adding c's
  graph neighbours (OC_c ∪ IC_c, in a seeded random order) until ``per_type``;
* **most_cited** — drawn from the ``most_cited`` most cited papers of the query's field;
* **random** — drawn from the prefiltered (eligible) set.

Exclusion policy, for every negative: never the query itself, nothing the query cites
(its full reference list, stubs included), nothing another type of the same query already
chose, nothing published after the query, and only eligible papers (they have the title
and abstract the models read). A type that cannot find ``per_type`` such papers takes
what there is; the manifest counts the shortfall.

Output, in the official release format so that other tools' results can be scored on our
pools and ours on theirs: ``mdcr_<split>.json`` = ``{field: {query: {"true": [...],
"<model>": [...], "graph": [...], "most_cited": [...], "random": [...]}}}``,
``mdcr_<split>_data.jsonl`` (id, title, abstract of every query and candidate), TREC
``qrels_<split>.txt`` (grade 1 for positives, 0 for negatives) and ``manifest.json``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import asdict
from itertools import combinations
from pathlib import Path

from ...batches import batched
from ...formats.trec import write_qrels
from ...graph import GraphStore
from ...retrieval.base import Retriever
from ...retrieval.corpus import documents_by_id
from ..large_scale.pools import Manifest, Queries, choose_queries, field_filter, field_pools, query_year
from ..sampling import generator, sample, sample_where
from .config import MDCRConfig

GRAPH, MOST_CITED, RANDOM, TRUE = "graph", "most_cited", "random", "true"
GRAPH_BATCH = 1000  # query or cited papers per overlap / neighbours statement


class _Exclusions:
    """What a query's negatives may not be; see the module docstring."""

    def __init__(self, query: str, references: Iterable[str], eligible: Collection[str]):
        self.taken = {query, *references}
        self.eligible = eligible  # eligible papers of the query year or before (pools/eligible)

    def allows(self, paper: str) -> bool:
        return paper not in self.taken and paper in self.eligible

    def take(self, papers: Iterable[str]) -> list[str]:
        papers = list(papers)
        self.taken.update(papers)
        return papers


def jaccard_selection(top_negatives: dict[str, dict[str, list[str]]], keep: int) -> tuple[list[str], dict]:
    """The ``keep`` retrievers whose top negatives overlap least with the others'.

    ``top_negatives``: retriever → query → its top non-cited candidates. Returns the
    chosen names and, per retriever pair, the mean Jaccard index over queries.
    """
    names = list(top_negatives)
    pairs = {}
    for a, b in combinations(names, 2):
        values = [
            len(set(top_negatives[a][q]) & set(top_negatives[b][q]))
            / len(set(top_negatives[a][q]) | set(top_negatives[b][q]))
            for q in top_negatives[a]
            if set(top_negatives[a][q]) | set(top_negatives[b][q])
        ]
        pairs[f"{a}|{b}"] = sum(values) / len(values) if values else 0.0
    mean = {n: sum(v for k, v in pairs.items() if n in k.split("|")) / max(1, len(names) - 1) for n in names}
    return sorted(names, key=lambda n: (mean[n], n))[:keep], {"pairs": pairs, "mean": mean}


def build(
    store: GraphStore,
    out: Path,
    config: MDCRConfig = MDCRConfig(),
    *,
    retrievers: Sequence[Retriever] = (),
    exclude: Iterable[str] = (),
) -> Manifest:
    """Build MDCR from the graph and write it to ``out``; see the module docstring. ``retrievers``
    draw the model-based negatives; ``exclude``: papers never used as queries or candidates."""
    fields, n_queries, positives, per_type, seed, split = (
        config.fields,
        config.n_queries,
        config.positives,
        config.per_type,
        config.seed,
        config.split,
    )
    excluded = set(exclude)
    year = config.year if config.year is not None else query_year(store, n_queries, min_cited=positives)
    eligible = {row["id"]: row["year"] for row in store.rows("pools/eligible", year=year)}
    eligible_ids = sorted(eligible)
    per_field: dict[str, Queries] = {}
    for name in fields:
        per_field[name] = choose_queries(
            store, n_queries, year, seed, field_name=name, min_cited=positives, exclude=excluded, split=split
        )
    query_ids = [q for queries in per_field.values() for q in queries.ids]
    overlap = defaultdict(list)  # query → [(cited, O(q, c))], highest first
    # In batches: one statement over every query of 19 fields sorts more rows than
    # ArcadeDB's query heap budget allows. Batches of sorted ids keep the rows' order.
    for batch in batched(sorted(set(query_ids)), GRAPH_BATCH):  # a query may serve two fields
        for row in store.rows("mdcr/overlap", ids=batch):
            overlap[row["query"]].append(row["cited"])
    neighbours = defaultdict(list)
    for batch in batched(sorted({c for cs in overlap.values() for c in cs}), GRAPH_BATCH):
        for row in store.rows("mdcr/neighbours", ids=batch):
            neighbours[row["paper"]].append(row["neighbour"])

    model_negatives, model_report = _model_negatives(
        store,
        per_field,
        retrievers,
        config.keep_models,
        config.model_depth,
        config.pool_size,
        seed,
        excluded,
        overlap,
        eligible,
    )
    benchmark: dict[str, dict[str, dict[str, list[str]]]] = {}
    shortfall: dict[str, int] = defaultdict(int)
    for name, queries in per_field.items():
        if not queries.ids:  # counted in the manifest, left out of the benchmark
            continue
        field = field_filter(name)
        top = (
            store.run("mdcr/most_cited_in_field", field=field, limit=config.most_cited)
            if field
            else store.run("mdcr/most_cited", limit=config.most_cited)
        )
        top_ids = [row["id"] for row in top]
        benchmark[name] = {}
        for q in queries.ids:
            rule = _Exclusions(q, overlap[q], eligible)
            types = {TRUE: rule.take(sample(queries.cited[q], positives, generator(seed, TRUE, q)))}
            for model, negatives in model_negatives.items():
                pool = [c for c in negatives[q] if rule.allows(c)]
                types[model] = rule.take(sample(pool, per_type, generator(seed, model, q)))
            types[GRAPH] = rule.take(_graph_negatives(q, overlap[q], neighbours, rule, per_type, seed))
            types[MOST_CITED] = rule.take(
                sample([c for c in top_ids if rule.allows(c)], per_type, generator(seed, MOST_CITED, q))
            )
            types[RANDOM] = rule.take(sample_where(eligible_ids, per_type, generator(seed, RANDOM, q), rule.allows))
            for kind, chosen in types.items():
                shortfall[kind] += (positives if kind == TRUE else per_type) - len(chosen)
            benchmark[name][q] = types

    manifest = Manifest(
        "mdcr",
        seed,
        {
            "fields": list(fields),
            "n_queries": n_queries,
            "positives": positives,
            "per_type": per_type,
            "retrievers": [r.name for r in retrievers],
            "keep_models": config.keep_models,
            "model_depth": config.model_depth,
            "pool_size": config.pool_size,
            "most_cited": config.most_cited,
            "excluded": len(excluded),
            "split": split,
        },
        year,
        len(query_ids),
    )
    manifest.graph = {
        "labels": store.run("stats/labels"),
        "model_selection": model_report,
        "shortfall": dict(shortfall),
        "queries_per_field": {name: len(q.ids) for name, q in per_field.items()},
    }
    _write(store, Path(out), split, benchmark, manifest)
    return manifest


def _graph_negatives(
    query: str,
    cited_by_overlap: list[str],
    neighbours: dict[str, list[str]],
    rule: _Exclusions,
    per_type: int,
    seed: int,
) -> list[str]:
    chosen: list[str] = []
    for cited in cited_by_overlap:
        for n in sample(
            neighbours.get(cited, []), len(neighbours.get(cited, [])), generator(seed, GRAPH, query, cited)
        ):
            if n not in chosen and rule.allows(n):
                chosen.append(n)
                if len(chosen) == per_type:
                    return chosen
    return chosen


def _model_negatives(
    store: GraphStore,
    per_field: dict[str, Queries],
    retrievers: Sequence[Retriever],
    keep: int,
    depth: int,
    pool_size: int,
    seed: int,
    excluded: set[str],
    references: dict[str, list[str]],
    eligible: dict[str, int],
) -> tuple[dict, dict]:
    """Each chosen retriever's top ``depth`` non-cited candidates per query, over the field-level pool."""
    if not retrievers:
        return {}, {}
    top: dict[str, dict[str, list[str]]] = {r.name: {} for r in retrievers}
    for name, queries in per_field.items():
        if not queries.ids:
            continue
        pool = set(field_pools(store, name, queries, pool_size, 1, seed, excluded)[0].ids)
        docs = documents_by_id(store, queries.ids)
        for retriever in retrievers:
            rankings = retriever.search(
                [docs[q] for q in queries.ids],
                depth + len(max(references.values(), key=len)),
                [pool] * len(queries.ids),
            )
            for q, ranking in zip(queries.ids, rankings):
                barred = {q, *references[q]}
                top[retriever.name][q] = [h.id for h in ranking if h.id not in barred and h.id in eligible][:depth]
    chosen, report = jaccard_selection(top, keep)
    return {name: top[name] for name in chosen}, {**report, "chosen": chosen}


def _write(store: GraphStore, out: Path, split: str, benchmark: dict, manifest: Manifest) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"mdcr_{split}.json").write_text(json.dumps(benchmark, indent=1) + "\n", encoding="utf-8")
    papers = sorted(
        {q for f in benchmark.values() for q in f}
        | {c for f in benchmark.values() for types in f.values() for ids in types.values() for c in ids}
    )
    docs = documents_by_id(store, papers)
    with open(out / f"mdcr_{split}_data.jsonl", "w", encoding="utf-8") as f:
        for paper in papers:
            f.write(
                json.dumps(
                    {"id": paper, "title": docs[paper].title, "abstract": docs[paper].abstract}, ensure_ascii=False
                )
                + "\n"
            )
    candidates = {q: [c for ids in types.values() for c in ids] for f in benchmark.values() for q, types in f.items()}
    grades = {
        q: {c: int(kind == TRUE) for kind, ids in types.items() for c in ids}
        for f in benchmark.values()
        for q, types in f.items()
    }
    write_qrels(out / f"qrels_{split}.txt", candidates, grades)
    (out / "manifest.json").write_text(json.dumps(asdict(manifest), indent=2) + "\n", encoding="utf-8")
