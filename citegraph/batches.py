"""Splitting a stream into lists of a given size, for any layer (graph writes, MDCR queries).

``itertools.batched`` arrives with Python 3.12 and yields tuples; citegraph supports 3.11
and passes batches as Cypher list parameters, which are checked to be lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def batched(values: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for value in values:
        batch.append(value)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
