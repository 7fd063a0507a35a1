"""An ANN index on disk: ``index.faiss`` (Faiss' own format), ``ids.txt`` (the document id of
each row, one a line) and ``manifest.json`` (kind, metric, parameters, size and the key of
the embeddings it was built from, so a stale index is refused rather than searched).

Apart from :mod:`.ann` because the folder's layout is a format of its own that other tools
(and older builds) read; :meth:`.ann.AnnIndex.save` and :meth:`~.ann.AnnIndex.load` use it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from ...heavy import faiss
from .ann_build import Kind, Metric, omp_threads

INDEX_FILE = "index.faiss"
IDS_FILE = "ids.txt"
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class Manifest:
    """What ``manifest.json`` says of the index beside it."""

    metric: Metric
    kind: Kind
    params: dict[str, int]
    dim: int
    count: int
    key: str


def write_index(directory: Path, index: faiss.Index, ids: list[str], manifest: Manifest) -> None:
    """The three files of an index in ``directory`` (made when missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    faiss.write_index(index, str(directory / INDEX_FILE))
    (directory / IDS_FILE).write_bytes("".join(f"{i}\n" for i in ids).encode("utf-8"))
    (directory / MANIFEST_FILE).write_text(json.dumps(asdict(manifest), indent=2) + "\n", encoding="utf-8")


def read_index(directory: Path, key: str | None, threads: int) -> tuple[faiss.Index, list[str], Manifest]:
    """The index, ids and manifest :func:`write_index` wrote; with ``key`` (e.g. the embedding
    cache key) an index built from other embeddings raises ``ValueError`` instead of
    answering with the wrong vectors."""
    manifest = Manifest(**json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8")))
    if key is not None and manifest.key != key:
        raise ValueError(f"index in {directory} was built for key {manifest.key!r}, not {key!r}")
    # bytes, split on "\n" only: text mode and splitlines() would also split ids on
    # "\r", "\x85" or "\u2028", which ids may hold
    ids = (directory / IDS_FILE).read_bytes().decode("utf-8").split("\n")[:-1]
    with omp_threads(threads):
        index = faiss.read_index(str(directory / INDEX_FILE))
    if manifest.count != len(ids) or manifest.dim != index.d:
        raise ValueError(f"index in {directory} does not match its manifest")
    return index, ids, manifest
