"""Seeded sampling: the same seed and label always draw the same sample.

Cypher's ``rand()`` cannot be seeded, so Cypher returns candidates in a fixed order (by
id) and Python draws from them with a generator derived from the user's seed and a label
naming the draw (e.g. ``"pool", "Physics", "repeat 2"``): every draw is reproducible on
its own, whatever else was drawn before it.

Samples that must not overlap (training and test papers, validation and test queries) are
consecutive slices of one permutation (:func:`split`), never two draws: numpy's
``choice(replace=False)`` of ``n`` is not the start of its draw of ``n + m``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ..errors import CitegraphError

T = TypeVar("T")


def generator(seed: int, *labels: object) -> np.random.Generator:
    """A generator for one named draw."""
    digest = hashlib.sha256("\0".join(map(str, labels)).encode("utf-8")).digest()
    return np.random.default_rng([seed, int.from_bytes(digest[:8], "little")])


def sample(values: Sequence[T], n: int, rng: np.random.Generator) -> list[T]:
    """``n`` distinct values (all when fewer), in the order drawn."""
    if n >= len(values):
        return [values[i] for i in rng.permutation(len(values))]
    return [values[i] for i in rng.choice(len(values), size=n, replace=False)]


def split(values: Sequence[T], sizes: Sequence[int], seed: int, *purpose: object) -> list[list[T]]:
    """Disjoint parts of ``values`` of the given ``sizes``: consecutive slices of the one
    permutation drawn for ``(seed, purpose)`` (parts past the end are short or empty).

    A part depends only on the sizes before it, so a training set drawn alone is the first
    part of any later (training, test) split of the same seed and purpose.
    """
    if any(size < 0 for size in sizes):
        raise ValueError(f"part sizes must be >= 0, got {list(sizes)}")
    order = generator(seed, *purpose).permutation(len(values))
    bounds = np.cumsum([0, *sizes])
    return [[values[i] for i in order[start:end]] for start, end in zip(bounds, bounds[1:])]


SPLITS = ("test", "val")  # named query sets: parts 0, 1 of one split, so never sharing a query


def split_part(name: str, n: int, values: Sequence[T], seed: int, *purpose: object) -> list[T]:
    """The ``n`` values of the split named ``name`` (one of :data:`SPLITS`), disjoint from
    the other names' values of the same seed and purpose."""
    if name not in SPLITS:
        raise CitegraphError(f"unknown split {name!r}: one of {', '.join(SPLITS)} (their samples are disjoint)")
    return split(values, [n] * (SPLITS.index(name) + 1), seed, *purpose)[-1]


def sample_where(
    values: Sequence[T], n: int, rng: np.random.Generator, keep: Callable[[T], bool], tries: int = 20
) -> list[T]:
    """``n`` distinct values that ``keep`` accepts, drawn uniformly from ``values``.

    Rejection sampling for a large ``values`` of which most are acceptable (a random
    candidate from the whole prefiltered set); falls back to filtering everything when
    too many draws are rejected, so a strict filter still gets every acceptable value.
    """
    chosen: list[T] = []
    seen: set[int] = set()
    for _ in range(tries):
        if len(chosen) >= n or len(seen) >= len(values):
            return chosen[:n]
        for i in rng.integers(0, len(values), size=2 * (n - len(chosen)) + 8):
            if int(i) in seen:
                continue
            seen.add(int(i))
            if keep(values[i]):
                chosen.append(values[i])
                if len(chosen) == n:
                    return chosen
    rest = [i for i in range(len(values)) if i not in seen and keep(values[i])]
    return chosen + [values[i] for i in rng.permutation(rest)[: n - len(chosen)]] if rest else chosen
