"""Large-scale candidate pools built from the graph (Medić & Šnajder 2022, §3).

**Dataset level**: ``n_queries`` eligible papers published in ``year`` (default: the
latest year with enough of them) are the queries; a pool of each size is every paper the
queries cite plus random eligible papers published in or before ``year``, drawn anew for
each of ``repeats`` repeats; the queries of a ``val`` folder (for tuning) and a ``test`` folder
of the same seed are disjoint slices of one draw. **Field level**: per MAG field, ``n_queries`` queries of the
field, and a pool of ``size`` = the papers they cite plus random papers of the field's
*field-cited set* (every eligible paper, up to ``year``, cited by a paper of the field),
repeated where that set exceeds the pool.

A query's relevant documents are the corpus papers with a title it cites (``:External``
stubs have no text to rank). Random fill never draws a query, an excluded id (e.g. the
training set of an encoder under test) or a cited paper (those are in every pool anyway).
A pool larger than what is available is capped, and the manifest says so.

Everything is written to one folder with a ``manifest.json`` holding the seed, the
parameters, the graph's counts and the citegraph version, so that the same graph and
manifest rebuild the same files:

    queries.jsonl                      id, title, abstract, year, fields (and field)
    qrels.txt                          TREC qrels: query 0 paper 1
    pools/<size>/repeat-<r>.txt        dataset level: one paper id a line, sorted
    pools/<field>/repeat-<r>.txt       field level
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ... import __version__
from ...errors import CitegraphError
from ...formats.trec import write_qrels
from ...graph import GraphStore
from ...retrieval.corpus import documents_by_id
from ...vocabulary import MAG_FIELDS
from ..sampling import generator, sample, split_part
from .config import PoolsConfig


@dataclass(frozen=True, slots=True)
class Queries:
    """Queries of one setup and their relevant documents."""

    year: int
    ids: list[str]
    cited: dict[str, list[str]]  # query → the corpus papers it cites, sorted


@dataclass(frozen=True, slots=True)
class Pool:
    name: str  # the size, or the field
    repeat: int
    ids: list[str]
    requested: int
    available: int  # how many distinct papers the pool could draw from, cited ones included

    @property
    def capped(self) -> bool:
        return len(self.ids) < self.requested


@dataclass
class Manifest:
    kind: str
    seed: int
    parameters: dict
    year: int
    queries: int
    pools: list[dict] = field(default_factory=list)
    graph: dict = field(default_factory=dict)
    citegraph: str = __version__
    created: str = field(default_factory=lambda: datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))


ALL_FIELDS = "All"  # a pseudo-field: no field restriction (for corpora without MAG fields)


def field_filter(name: str | None) -> str | None:
    """The field a Cypher query restricts to: none for :data:`ALL_FIELDS`."""
    return None if name == ALL_FIELDS else name


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def query_year(store: GraphStore, n_queries: int, min_cited: int = 1) -> int:
    """The latest year with at least ``n_queries`` possible queries (else the year with most)."""
    best_count, best_year = 0, None
    for row in reversed(store.run("pools/eligible_years")):
        if row["papers"] <= best_count:  # cannot beat the best year found
            continue
        found = len(store.run("pools/query_candidates", year=row["year"], field=None, min_cited=min_cited))
        if found >= n_queries:
            return row["year"]
        if found > best_count:
            best_count, best_year = found, row["year"]
    if best_year is None:
        raise CitegraphError(
            "no eligible paper cites a corpus paper: ingest a corpus with citations and "
            "run the prefilter first (citegraph prefilter)"
        )
    return best_year


def choose_queries(
    store: GraphStore,
    n_queries: int,
    year: int,
    seed: int,
    *,
    field_name: str | None = None,
    min_cited: int = 1,
    exclude: Iterable[str] = (),
    split: str = "test",
) -> Queries:
    """``n_queries`` random possible queries of ``year`` (and field), with what they cite;
    those of another ``split`` (same seed) are other queries."""
    excluded = set(exclude)
    candidates = [
        row["id"]
        for row in store.rows("pools/query_candidates", year=year, field=field_filter(field_name), min_cited=min_cited)
        if row["id"] not in excluded
    ]
    ids = sorted(split_part(split, n_queries, candidates, seed, "queries", field_name or ""))
    cited: dict[str, list[str]] = {q: [] for q in ids}
    for row in store.rows("pools/cited", ids=ids):
        cited[row["query"]].append(row["cited"])
    return Queries(year, ids, cited)


def fill_pool(
    name: str, repeat: int, size: int, queries: Queries, candidates: Sequence[str], exclude: Set[str], seed: int
) -> Pool:
    """Every cited paper plus random ``candidates`` up to ``size`` (see the module docstring)."""
    cited = {c for ids in queries.cited.values() for c in ids}
    blocked = cited | set(queries.ids) | exclude
    drawable = [c for c in candidates if c not in blocked]
    extra = sample(drawable, max(0, size - len(cited)), generator(seed, "pool", name, repeat))
    return Pool(name, repeat, sorted(cited | set(extra)), size, len(cited) + len(drawable))


def dataset_level(
    store: GraphStore,
    out: Path,
    drawn: PoolsConfig = PoolsConfig(),
    *,
    n_queries: int = 1000,
    sizes: Sequence[int] = (200_000, 500_000, 1_000_000, 2_000_000),
) -> Manifest:
    """Dataset-level queries and pools, written to ``out``."""
    year = drawn.year if drawn.year is not None else query_year(store, n_queries)
    queries = choose_queries(store, n_queries, year, drawn.seed, exclude=drawn.exclude, split=drawn.split)
    eligible = [row["id"] for row in store.rows("pools/eligible", year=year)]
    pools = [
        fill_pool(str(size), r, size, queries, eligible, drawn.exclude, drawn.seed + r)
        for size in sizes
        for r in range(drawn.repeats)
    ]
    manifest = Manifest(
        "dataset-level",
        drawn.seed,
        {"n_queries": n_queries, "sizes": list(sizes), **_parameters(drawn)},
        year,
        len(queries.ids),
    )
    _write(store, out, manifest, [queries], pools, {})
    return manifest


def _parameters(drawn: PoolsConfig) -> dict:
    """The manifest's record of how the pools were drawn (the seed aside, a field of its own)."""
    return {"repeats": drawn.repeats, "excluded": len(drawn.exclude), "split": drawn.split}


def field_pools(
    store: GraphStore, field_name: str, queries: Queries, size: int, repeats: int, seed: int, exclude: Set[str]
) -> list[Pool]:
    """A field's pools: cited papers plus the field-cited set, repeated only where it exceeds ``size``."""
    field_cited = [
        row["id"] for row in store.rows("pools/field_cited", field=field_filter(field_name), year=queries.year)
    ]
    first = fill_pool(field_name, 0, size, queries, field_cited, exclude, seed)
    if first.available <= size:
        return [first]
    return [
        first,
        *(fill_pool(field_name, r, size, queries, field_cited, exclude, seed + r) for r in range(1, repeats)),
    ]


def field_level(
    store: GraphStore,
    out: Path,
    drawn: PoolsConfig = PoolsConfig(),
    *,
    fields: Sequence[str] = MAG_FIELDS,
    n_queries: int = 200,
    size: int = 100_000,
) -> Manifest:
    """Field-level queries and pools, written to ``out``."""
    year = drawn.year if drawn.year is not None else query_year(store, n_queries)
    all_queries, pools, fields_of = [], [], {}
    for name in fields:
        queries = choose_queries(
            store, n_queries, year, drawn.seed, field_name=name, exclude=drawn.exclude, split=drawn.split
        )
        all_queries.append(queries)
        fields_of.update(dict.fromkeys(queries.ids, name))
        pools += field_pools(store, name, queries, size, drawn.repeats, drawn.seed, drawn.exclude)
    manifest = Manifest(
        "field-level",
        drawn.seed,
        {"fields": list(fields), "n_queries": n_queries, "size": size, **_parameters(drawn)},
        year,
        sum(len(q.ids) for q in all_queries),
    )
    _write(store, out, manifest, all_queries, pools, fields_of)
    return manifest


def _write(
    store: GraphStore,
    out: Path,
    manifest: Manifest,
    query_sets: list[Queries],
    pools: list[Pool],
    field_of: dict[str, str],
) -> None:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ids = [q for queries in query_sets for q in queries.ids]
    docs = documents_by_id(store, ids)
    meta = {row["id"]: row for row in store.rows("pools/papers", ids=ids)}
    with open(out / "queries.jsonl", "w", encoding="utf-8") as f:
        for q in ids:
            record = {
                "id": q,
                "title": docs[q].title,
                "abstract": docs[q].abstract,
                "year": meta[q]["year"],
                "fields": meta[q]["fields"],
            }
            if q in field_of:
                record["field"] = field_of[q]
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    write_qrels(out / "qrels.txt", {q: cited for queries in query_sets for q, cited in queries.cited.items()})
    for pool in pools:
        path = out / "pools" / slug(pool.name) / f"repeat-{pool.repeat}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{i}\n" for i in pool.ids), encoding="utf-8")
        manifest.pools.append(
            {
                "name": pool.name,
                "repeat": pool.repeat,
                "file": str(path.relative_to(out)),
                "papers": len(pool.ids),
                "requested": pool.requested,
                "available": pool.available,
                "capped": pool.capped,
            }
        )
    manifest.graph = {"labels": store.run("stats/labels"), "relationships": store.run("stats/relationships")}
    (out / "manifest.json").write_text(json.dumps(asdict(manifest), indent=2) + "\n", encoding="utf-8")


def read_queries(path: Path) -> list[dict]:
    """The records of ``queries.jsonl``."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
