"""Corpus embeddings on disk, written in chunks so an interrupted encoding resumes.

Encoding a large corpus on CPU takes hours to days (a BERT-base at 512 tokens does about
1.2 papers/s on two cores), so the vectors go to a numpy memmap chunk by chunk and a
small JSON manifest records how many documents are complete; the vectors are flushed and
fsynced before the manifest says so, and the manifest is replaced atomically, so a killed
run never claims rows it did not write. A rerun encodes only the missing documents.

One store is one folder::

    manifest.json   key (encoder, model version, pooling, max_length, corpus fingerprint…),
                    shape, dtype, documents complete
    vectors.npy     (rows, dim) float32 or float16, an .npy readable with np.load(mmap_mode="r")
    ids.txt         the document ids, one per line, in row order
    offsets.npy     multi-vector encoders only: document i owns rows offsets[i]:offsets[i+1]

:func:`encode_corpus` names the folder after the key, so a changed corpus or encoder
setting gets a fresh store instead of stale vectors.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from ...errors import CitegraphError
from ..base import Document
from ..corpus import fingerprint
from .encoders import Encoder, ProgressCallback, describe_seconds

StorageDtype = Literal["float32", "float16"]
MANIFEST, VECTORS, IDS, OFFSETS = "manifest.json", "vectors.npy", "ids.txt", "offsets.npy"
_FORMAT = 1


def _fsync_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically and durably."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class EmbeddingStore:
    """The vectors of one corpus under one encoder setting; see the module docstring."""

    def __init__(self, directory: Path, manifest: dict, ids: list[str], offsets: np.ndarray | None):
        self.directory = directory
        self._manifest = manifest
        self.ids = ids
        self.offsets = offsets
        self.vectors: np.memmap = np.load(directory / VECTORS, mmap_mode="r+")

    @classmethod
    def open_or_create(
        cls,
        directory: str | Path,
        key: Mapping[str, object],
        ids: Sequence[str],
        dim: int,
        *,
        rows_per_doc: Sequence[int] | None = None,
        dtype: StorageDtype = "float32",
    ) -> EmbeddingStore:
        """The store in ``directory`` if it holds exactly this key, ids and shape, else a new one.

        ``rows_per_doc`` (multi-vector encoders) gives each document's number of rows;
        without it every document has one row.
        """
        directory = Path(directory)
        key = json.loads(json.dumps(dict(key)))  # as it reads back from the manifest
        offsets = None if rows_per_doc is None else np.concatenate([[0], np.cumsum(rows_per_doc)]).astype(np.int64)
        n_rows = len(ids) if offsets is None else int(offsets[-1])
        expected = {
            "format": _FORMAT,
            "key": key,
            "n_docs": len(ids),
            "n_rows": n_rows,
            "dim": dim,
            "dtype": dtype,
            "multi_vector": offsets is not None,
        }
        existing = cls._read_manifest(directory)
        if (
            existing
            and {k: existing.get(k) for k in expected} == expected
            and cls._same_layout(directory, ids, offsets)
        ):
            return cls(directory, existing, list(ids), offsets)
        return cls._create(directory, expected, list(ids), offsets)

    @classmethod
    def open(cls, directory: str | Path) -> EmbeddingStore:
        """A complete store written earlier (what an index was built from)."""
        directory = Path(directory)
        manifest = cls._read_manifest(directory)
        if manifest is None:
            raise CitegraphError(f"no embedding store in {directory}")
        ids = (directory / IDS).read_text(encoding="utf-8").split("\n")[:-1]
        offsets = np.load(directory / OFFSETS) if manifest["multi_vector"] else None
        store = cls(directory, manifest, ids, offsets)
        if not store.complete:
            raise CitegraphError(
                f"the embedding store in {directory} is incomplete "
                f"({store.complete_docs:,} of {len(ids):,} documents); build the index again"
            )
        return store

    @staticmethod
    def _read_manifest(directory: Path) -> dict | None:
        try:
            return json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    @staticmethod
    def _same_layout(directory: Path, ids: Sequence[str], offsets: np.ndarray | None) -> bool:
        try:
            if (directory / IDS).read_text(encoding="utf-8").split("\n")[:-1] != list(ids):
                return False
            return offsets is None or np.array_equal(np.load(directory / OFFSETS), offsets)
        except (OSError, ValueError):
            return False

    @classmethod
    def _create(cls, directory: Path, manifest: dict, ids: list[str], offsets: np.ndarray | None) -> EmbeddingStore:
        bad = next((i for i in ids if "\n" in i or "\r" in i), None)
        if bad is not None:
            raise CitegraphError(f"document id {bad!r} contains a line break; ids.txt holds one id per line")
        directory.mkdir(parents=True, exist_ok=True)
        (directory / MANIFEST).unlink(missing_ok=True)  # the folder is not valid until the manifest is back
        for name in (VECTORS, IDS, OFFSETS):
            (directory / name).unlink(missing_ok=True)
        np.lib.format.open_memmap(
            directory / VECTORS, mode="w+", dtype=manifest["dtype"], shape=(manifest["n_rows"], manifest["dim"])
        ).flush()
        _fsync_write(directory / IDS, "".join(f"{i}\n" for i in ids).encode("utf-8"))
        if offsets is not None:
            with open(directory / OFFSETS, "wb") as f:
                np.save(f, offsets)
                os.fsync(f.fileno())
        manifest = {**manifest, "complete_docs": 0, "complete_rows": 0}
        _fsync_write(directory / MANIFEST, json.dumps(manifest, indent=1).encode("utf-8"))
        return cls(directory, manifest, ids, offsets)

    @property
    def key(self) -> dict:
        return self._manifest["key"]

    @property
    def dim(self) -> int:
        return self._manifest["dim"]

    @property
    def complete_docs(self) -> int:
        """Documents whose vectors are on disk (always a prefix of the corpus)."""
        return self._manifest["complete_docs"]

    @property
    def complete(self) -> bool:
        return self.complete_docs == len(self.ids)

    def missing(self) -> range:
        """Indices of the documents still to encode."""
        return range(self.complete_docs, len(self.ids))

    def _row(self, doc: int) -> int:
        return doc if self.offsets is None else int(self.offsets[doc])

    def write(self, start: int, vectors: np.ndarray | Sequence[np.ndarray]) -> None:
        """Store the vectors of documents ``start, start+1, …`` and record them as complete.

        ``start`` must be the first missing document: the complete part stays a prefix,
        which is what makes one number in the manifest enough to resume. ``vectors`` is
        (documents, dim) for one vector per document, or one (rows, dim) matrix per
        document for a multi-vector store.
        """
        if start != self.complete_docs:
            raise CitegraphError(f"{self.directory}: write at document {start}, but {self.complete_docs} are complete")
        if self.offsets is None:
            block, n = np.asarray(vectors), len(vectors)
        else:
            n = len(vectors)
            want = np.diff(self.offsets[start : start + n + 1])
            if [len(m) for m in vectors] != want.tolist():
                raise CitegraphError(f"{self.directory}: sentence counts differ from the store's layout")
            block = (
                np.concatenate([np.asarray(m).reshape(-1, self.dim) for m in vectors]) if n else np.zeros((0, self.dim))
            )
        if start + n > len(self.ids) or block.shape[1:] != (self.dim,):
            raise CitegraphError(f"{self.directory}: {block.shape} does not fit documents {start}…{start + n - 1}")
        first, stop = self._row(start), self._row(start + n)
        if len(block) != stop - first:
            raise CitegraphError(f"{self.directory}: {len(block)} rows given for {stop - first}")
        self.vectors[first:stop] = block
        self.vectors.flush()
        with open(self.directory / VECTORS, "rb+") as f:
            os.fsync(f.fileno())
        self._manifest = {**self._manifest, "complete_docs": start + n, "complete_rows": stop}
        _fsync_write(self.directory / MANIFEST, json.dumps(self._manifest, indent=1).encode("utf-8"))

    def matrix(self, doc: int) -> np.ndarray:
        """The rows of document ``doc`` (its sentence vectors in a multi-vector store)."""
        return self.vectors[self._row(doc) : self._row(doc + 1)]


def cache_key(encoder: Encoder, docs: Sequence[Document], dtype: StorageDtype = "float32") -> dict[str, object]:
    """What a store of ``docs`` under ``encoder`` depends on."""
    return {**encoder.cache_key(), "corpus": fingerprint(docs), "storage": dtype}


def store_dir(cache_dir: str | Path, key: Mapping[str, object]) -> Path:
    """``<cache_dir>/<encoder>-<corpus fingerprint>-<hash of the whole key>``."""
    digest = hashlib.sha256(json.dumps(dict(key), sort_keys=True).encode()).hexdigest()[:10]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", str(key["encoder"])).strip("_")
    return Path(cache_dir) / f"{name}-{key['corpus']}-{digest}"


def encode_corpus(
    encoder: Encoder,
    docs: Sequence[Document],
    cache_dir: str | Path,
    *,
    chunk_size: int = 1024,
    dtype: StorageDtype = "float32",
    progress: ProgressCallback | None = None,
    log: Callable[[str], None] | None = None,
) -> EmbeddingStore:
    """The store of ``docs`` under ``encoder``, encoding only what is not on disk yet.

    Chunks of ``chunk_size`` documents are encoded and written in turn; stopping at any
    point loses at most the chunk in progress. ``progress`` gets (documents complete,
    documents in the corpus) after every batch; ``log`` gets one line with the estimated
    time, from the rate of the first batch (the longest documents, so on the long side).
    """
    docs = docs if isinstance(docs, Sequence) else list(docs)
    key = cache_key(encoder, docs, dtype)
    rows = encoder.sentence_counts(docs) if encoder.multi_vector else None
    store = EmbeddingStore.open_or_create(
        store_dir(cache_dir, key), key, [d.id for d in docs], encoder.dim, rows_per_doc=rows, dtype=dtype
    )
    todo = store.missing()
    announced = False
    for start in range(todo.start, todo.stop, chunk_size):

        def step(done: int, _total: int, start: int = start) -> None:
            nonlocal announced
            if log and not announced and encoder.docs_per_second:
                announced = True
                left = describe_seconds(encoder.estimate_seconds(todo.stop - start - done) or 0)
                log(
                    f"{encoder.name}: {len(todo):,} documents to encode, about {left} left "
                    f"at {encoder.docs_per_second:.1f} docs/s"
                )
            if progress:
                progress(start + done, len(docs))

        chunk = docs[start : start + chunk_size]
        encode = encoder.encode_sentences if encoder.multi_vector else encoder.encode
        store.write(start, encode(chunk, step))
    return store
