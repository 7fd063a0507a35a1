"""What the facade (:mod:`citegraph.retrieval.bm25`) and both backends share: the backends'
names, the default parameters, the fields, and the helpers both use to export and to search.
They live here so that no backend imports the facade that imports it."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Literal, get_args

from ...errors import CitegraphError
from ..base import Document
from ..corpus import fingerprint

Backend = Literal["lucene", "bm25s"]
BACKENDS: tuple[Backend, ...] = get_args(Backend)
NAME = "bm25"
K1, B = 0.9, 0.4  # Anserini's defaults, until tuned
K1_GRID = (0.6, 0.9, 1.2, 1.5, 1.8)
B_GRID = (0.2, 0.4, 0.6, 0.75, 0.9)
FIELDS = ("title", "abstract")
DEFAULT_WEIGHTS: dict[str, float] = {"title": 1.0, "abstract": 1.0}


def fingerprinted(docs: Iterable[Document], write: Callable[[Document], None]) -> tuple[str, int]:
    """Hand every document to ``write`` once, fingerprinting them on the way: (fingerprint, count)."""
    count = 0

    def passing() -> Iterator[Document]:
        nonlocal count
        for doc in docs:
            write(doc)
            count += 1
            yield doc

    corpus = fingerprint(passing())
    if not count:
        raise CitegraphError("no documents to index")
    return corpus, count


def pool_sets(pools: Sequence[Collection[str]], queries: Sequence[str]) -> dict[int, Collection[str]]:
    """Each distinct pool object once, as a set (queries sharing a pool share the work)."""
    if len(pools) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(pools)} pools")
    return {id(p): p if isinstance(p, (set, frozenset)) else frozenset(p) for p in pools}


def field_weights(fields: Mapping[str, float] | None) -> dict[str, float] | None:
    if fields is None:
        return None
    unknown = set(fields) - set(FIELDS)
    if unknown or not fields:
        raise ValueError(f"field weights must be for {FIELDS}, got {sorted(fields)}")
    return {f: float(w) for f, w in fields.items()}
