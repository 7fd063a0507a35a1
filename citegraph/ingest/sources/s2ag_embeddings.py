"""S2AG's ``embeddings-specter_v2`` dataset: one SPECTER2 vector per paper, for
``citegraph index dense --from-s2ag DIR``.

The Datasets API ships it as gzipped JSON-lines shards, one object a line::

    {"corpusid": 102072882, "model": "specter_v2", "vector": "[0.0284, 0.3662, …]"}

``vector`` is a JSON array *inside a string* (768 numbers for SPECTER2). ``corpusid`` is the
paper id in the graph as :mod:`.s2ag` writes it (the decimal string). The vectors are
those of the SPECTER2 base model with its proximity adapter (``allenai/specter2_base`` +
``allenai/specter2``): queries against them must be encoded by the same model.

Apart from :mod:`.s2ag` (the graph's datasets) because these vectors go to a Faiss index,
not to the graph. Reading stops at the first bad line with its file, line and field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import CitegraphError, InputError, Problem
from ..source import BadField, integer, json_objects, text

MODEL = "specter_v2"
PATTERNS = ("*.gz", "*.jsonl", "*.json")


@dataclass(frozen=True, slots=True)
class PaperVector:
    paper_id: str
    vector: np.ndarray  # float32, one row


def shards(path: Path) -> list[Path]:
    """A shard, or every shard under a folder (sorted by path: the order rows are indexed in)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CitegraphError(f"{path}: no such file or folder")
    found = sorted({p for pattern in PATTERNS for p in path.rglob(pattern) if p.is_file()})
    if not found:
        raise CitegraphError(f"{path}: no embeddings-specter_v2 shards (*.gz, *.jsonl)")
    return found


def paper_vectors(paths: list[Path], wanted: Callable[[str], bool] = lambda _: True) -> Iterator[PaperVector]:
    """The vectors of the papers ``wanted`` admits, in shard order, each paper once; every
    line is checked (all vectors one length, one model, no paper kept twice), and the first
    bad one raises :class:`InputError` naming file, line and field."""
    dim: int | None = None
    seen: set[str] = set()
    for path in paths:
        for where, obj in json_objects(path):
            if isinstance(obj, Problem):
                raise InputError(obj)
            try:
                row = _paper_vector(obj, dim)
                kept = wanted(row.paper_id)
                if kept and row.paper_id in seen:
                    raise BadField("corpusid", f"{row.paper_id} occurs twice")
            except BadField as bad:
                raise InputError(Problem(where, bad.field, bad.reason)) from None
            dim = len(row.vector)
            if kept:
                seen.add(row.paper_id)
                yield row


def _paper_vector(obj: dict[str, Any], dim: int | None) -> PaperVector:
    corpus_id = integer(obj, "corpusid")
    if corpus_id is None or corpus_id < 0:
        raise BadField("corpusid", "is missing" if corpus_id is None else f"expected a corpus id, got {corpus_id}")
    model = text(obj, "model", required=True)
    if model != MODEL:
        raise BadField("model", f"expected {MODEL!r} (the embeddings-specter_v2 dataset), got {model!r}")
    raw = obj.get("vector")
    if raw is None:
        raise BadField("vector", "is missing")
    try:
        values = json.loads(raw) if isinstance(raw, str) else raw
        vector = np.asarray(values, dtype=np.float32)
    except (ValueError, TypeError):
        raise BadField("vector", "expected a list of numbers, as a JSON string or array") from None
    if vector.ndim != 1 or len(vector) == 0 or not np.isfinite(vector).all():
        raise BadField("vector", "expected a non-empty list of finite numbers")
    if dim is not None and len(vector) != dim:
        raise BadField("vector", f"{len(vector)} numbers, but the vectors before had {dim}")
    return PaperVector(str(corpus_id), vector)
