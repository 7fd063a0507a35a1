"""Precomputed rankings: each corpus paper's own ranking, read instead of searched.

A recommendation for a paper of the graph searches the paper's title and abstract, and that
search grows with the corpus (BM25's posting lists: 19 → 92 ms from 200k to 2M papers,
docs/scale.md) while the graph side of the request stays flat. A paper's ranking depends
only on its text and the index, so it is computed once per index, offline and in parallel
like the index itself, and a request reads it: a lookup in a memory-mapped row.

A row answers a search only when it gives what the search would:

* the query is a paper (a :class:`Document`) whose id has a row, and the row was computed
  from the same text (a 64-bit hash of it: a paper edited since searches again);
* the index is the one the rows were computed on: the index's manifest (its corpus
  fingerprint, backend, k1, b, fields) is stored with the rows and compared at open;
* the row is deep enough for the ``k`` asked: the first ``k`` hits of a deeper ranking are
  the ``k``-ranking, since ties are ranked by id;
* the row is intact: its hits point at rows of the folder and its checksum (written with
  the row, over the paper's id, the text's hash, the hits' ids and their scores) matches;
* the search has no pools (a pooled search is another ranking).

Anything else is searched, so results equal a search's, score for score. A folder that is
not what its manifest says (a file missing, truncated or of another shape or type, a manifest
that is not one) is not used at all: one warning, and every query is searched. Rows are
filled for every paper or for chosen ones (the papers requested most), resumably, by one
fill at a time (a lock beside the folder).

Layout of the folder (numpy arrays, opened memory-mapped: a server reads only the rows
it serves):

* ``manifest.json``: the retriever's name, the index's manifest, the depth, the row count;
* ``ids.npy``: every indexed paper's id, sorted (fixed-width bytes), one row each;
* ``queries.npy``: each row's query-text hash (uint64; 0 while not computed);
* ``hits.npy``, ``scores.npy``: ``[rows, depth]`` int32 rows of the hits (-1 past a
  ranking's end) and their float32 scores (what the retrievers return, exactly);
* ``checks.npy``: each row's checksum (uint64).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CitegraphError
from .base import Document, Hit, Query, Ranking, Retriever, query_text

log = logging.getLogger(__name__)

FOLDER = "rankings"  # beside the index it was computed on
MANIFEST = "manifest.json"
LOCK = f"{FOLDER}.lock"  # beside the folder, which a fill may remove and make afresh
RECOMPUTE = "compute them again with `citegraph index rankings`"


class Damaged(CitegraphError):
    """A rankings folder that does not hold what its manifest says: searched instead."""


def paper_query(doc: Document) -> Document:
    """A corpus paper as a recommendation for it asks: its title and abstract (a seed's
    ``document``), keywords left out."""
    return Document(doc.id, doc.title, doc.abstract)


def text_hash(text: str) -> int:
    """A query text's 64-bit hash, never 0 (0 marks a row not computed)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little") or 1


def row_check(paper: bytes, query: int, hits: Sequence[bytes], scores: np.ndarray) -> int:
    """A row's checksum: the paper, its text's hash, the ids of its hits and all its scores."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(paper + b"\n" + query.to_bytes(8, "little") + len(hits).to_bytes(4, "little"))
    digest.update(b"\n".join(hits) + b"\n")
    digest.update(np.asarray(scores, dtype="<f4").tobytes())
    return int.from_bytes(digest.digest(), "little")


def _count(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


@dataclass(frozen=True)
class RankingsManifest:
    """``manifest.json``: what the rows were computed with, and their shape."""

    retriever: str
    index: dict[str, Any]
    depth: int
    rows: int

    @classmethod
    def read(cls, path: Path) -> RankingsManifest:
        """The manifest at ``path``, or :class:`Damaged` saying which field is wrong."""
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise Damaged(f"{path.parent}: no {MANIFEST}") from None
        except (OSError, ValueError, RecursionError) as exc:
            raise Damaged(f"{path}: not a JSON manifest ({exc})") from None
        if not isinstance(found, dict):
            raise Damaged(f"{path}: not a JSON object")
        checks = {
            "retriever": isinstance(found.get("retriever"), str),
            "index": isinstance(found.get("index"), dict),
            "depth": _count(found.get("depth"), 1),
            "rows": _count(found.get("rows"), 0),
        }
        if wrong := [name for name, holds in checks.items() if not holds]:
            raise Damaged(f"{path}: field {wrong[0]!r} is missing or not what a manifest holds")
        return cls(found["retriever"], found["index"], found["depth"], found["rows"])

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")


def _array(folder: Path, name: str, dtype: type[np.generic] | str, shape: tuple[int, ...], writable: bool) -> np.memmap:
    """``name``.npy memory-mapped, checked to be of ``dtype`` (``"S"``: ids of any width) and ``shape``."""
    path = folder / f"{name}.npy"
    try:
        array: np.memmap = np.load(path, mmap_mode="r+" if writable else "r", allow_pickle=False)
    except FileNotFoundError:
        raise Damaged(f"{folder}: no {path.name}") from None
    except (OSError, ValueError, EOFError) as exc:
        raise Damaged(f"{path}: not a readable array ({exc})") from None
    kind_holds = array.dtype.kind == "S" if dtype == "S" else array.dtype == np.dtype(dtype)
    if not kind_holds or array.shape != shape:
        raise Damaged(f"{path}: {array.dtype} of shape {array.shape}, where the manifest says {dtype} of {shape}")
    return array


def _remove(folder: Path) -> None:
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)
    else:
        folder.unlink(missing_ok=True)


class PrecomputedRankings:
    """The rows of one folder (see the module doc), read-only or being filled."""

    def __init__(self, folder: Path, manifest: RankingsManifest, writable: bool = False):
        """The folder's arrays, checked against ``manifest`` (:class:`Damaged` if they differ)."""
        self.folder, self.manifest = folder, manifest
        self.depth = manifest.depth
        rows, table = (manifest.rows,), (manifest.rows, manifest.depth)
        self.ids = _array(folder, "ids", "S", rows, writable)
        if not (self.ids[1:] > self.ids[:-1]).all():  # a binary search needs them (20 ms at 2M ids)
            raise Damaged(f"{folder / 'ids.npy'}: the ids are not sorted and unique")
        self.queries = _array(folder, "queries", np.uint64, rows, writable)
        self.hits = _array(folder, "hits", np.int32, table, writable)
        self.scores = _array(folder, "scores", np.float32, table, writable)
        self.checks = _array(folder, "checks", np.uint64, rows, writable)
        self.warned = False  # of a damaged row: once

    @classmethod
    def open(cls, folder: Path, writable: bool = False) -> PrecomputedRankings | None:
        """The rankings in ``folder``; None when there is none; :class:`Damaged` when it is
        not what its manifest says."""
        if not folder.exists() and not folder.is_symlink():
            return None
        if not folder.is_dir():
            raise Damaged(f"{folder}: not a folder")
        return cls(folder, RankingsManifest.read(folder / MANIFEST), writable)

    @classmethod
    def create(
        cls, folder: Path, retriever: str, index: dict[str, Any], ids: Iterable[str], depth: int
    ) -> PrecomputedRankings:
        """Rows for ``ids`` (the index's papers) at ``depth``, writable: those of an earlier
        run on the same index and depth are kept (a resumed build); rows of another depth on
        the same index are not replaced (refused, saying how); damaged rows or rows of
        another index, which could answer nothing, are made afresh."""
        try:
            earlier = cls.open(folder)
        except Damaged as exc:
            log.warning("%s; computing the rankings afresh", exc)
            earlier = None
        if earlier is not None and (earlier.manifest.retriever, earlier.manifest.index) == (retriever, index):
            if earlier.depth == depth:
                return cls(folder, earlier.manifest, writable=True)
            if done := earlier.computed():
                raise CitegraphError(
                    f"{folder} holds {done:,} rankings of depth {earlier.depth} on this index: give "
                    f"--depth {earlier.depth} to add to them, or delete the folder to compute them at depth {depth}"
                )
        _remove(folder)
        folder.mkdir(parents=True)
        encoded = np.sort(np.array([i.encode("utf-8") for i in ids], dtype=np.bytes_))  # ids are unique in the graph
        rows = len(encoded)
        np.save(folder / "ids.npy", encoded)
        for name, dtype, shape in (
            ("queries", np.uint64, (rows,)),
            ("hits", np.int32, (rows, depth)),
            ("scores", np.float32, (rows, depth)),
            ("checks", np.uint64, (rows,)),
        ):
            np.lib.format.open_memmap(folder / f"{name}.npy", mode="w+", dtype=dtype, shape=shape).flush()
        manifest = RankingsManifest(retriever, index, depth, rows)
        manifest.write(folder / MANIFEST)  # last: no manifest, no rows
        return cls(folder, manifest, writable=True)

    def row(self, paper: str) -> int | None:
        key = paper.encode("utf-8")
        at = int(np.searchsorted(self.ids, key))
        return at if at < len(self.ids) and self.ids[at] == key else None

    def intact(self, at: int) -> bool:
        """Whether row ``at`` holds what was written with it: hits that point at rows, and
        the checksum of its paper, text hash, hits' ids and scores."""
        hits, scores = self.hits[at], self.scores[at]
        if not ((hits >= -1) & (hits < len(self.ids))).all():
            return False
        kept = hits[hits >= 0]
        return int(self.checks[at]) == row_check(
            bytes(self.ids[at]), int(self.queries[at]), self.ids[kept].tolist(), scores
        )

    def ranking(self, query: Query, k: int) -> Ranking | None:
        """The search's top ``k`` for ``query``, or None when no row may answer it."""
        if not isinstance(query, Document) or k > self.depth or (at := self.row(query.id)) is None:
            return None
        if int(self.queries[at]) != text_hash(query_text(query)):
            return None
        if not self.intact(at):
            if not self.warned:
                self.warned = True
                log.warning(
                    "%s: the row of %s is damaged (it fails its checksum); searching instead for every such row (%s)",
                    self.folder,
                    query.id,
                    RECOMPUTE,
                )
            return None
        hits, scores = self.hits[at, :k], self.scores[at, :k]
        kept = hits >= 0
        return [Hit(self.ids[h].decode("utf-8"), float(s)) for h, s in zip(hits[kept], scores[kept])]

    def fill(
        self,
        retriever: Retriever,
        papers: Iterable[Document],
        batch: int = 1_000,
        done: Callable[[int], None] = lambda n: None,
    ) -> None:
        """Search each paper's query (:func:`paper_query`) at the rows' depth and store its
        ranking; rows already computed for the same text and intact are skipped. Each batch
        is written, with its checksums, before its query hashes, so an interrupted fill
        resumes where it stopped."""
        stream = iter(papers)
        while chunk := list(islice(stream, batch)):
            queries = [paper_query(d) for d in chunk]
            found = [self.row(q.id) for q in queries]
            if unknown := [q.id for q, r in zip(queries, found) if r is None]:
                raise CitegraphError(f"{unknown[0]} is not a paper of the index's corpus; rebuild the index")
            rows = [r for r in found if r is not None]  # every one
            hashes = [text_hash(query_text(q)) for q in queries]
            todo = [i for i, (r, h) in enumerate(zip(rows, hashes)) if int(self.queries[r]) != h or not self.intact(r)]
            for i, ranking in zip(todo, retriever.search([queries[i] for i in todo], self.depth)):
                hit_ids = [h.id.encode("utf-8") for h in ranking]
                hits = np.full(self.depth, -1, dtype=np.int32)
                scores = np.zeros(self.depth, dtype=np.float32)
                hits[: len(ranking)] = np.searchsorted(self.ids, hit_ids)
                scores[: len(ranking)] = [h.score for h in ranking]
                self.hits[rows[i]], self.scores[rows[i]] = hits, scores
                self.checks[rows[i]] = row_check(queries[i].id.encode("utf-8"), hashes[i], hit_ids, scores)
            for written in (self.hits, self.scores, self.checks):
                written.flush()
            for i in todo:
                self.queries[rows[i]] = hashes[i]
            self.queries.flush()
            done(len(chunk))

    def computed(self) -> int:
        return int(np.count_nonzero(self.queries))


@dataclass(frozen=True)
class Precomputed:
    """A retriever whose unpooled paper queries are read from precomputed rankings when a row
    answers them exactly (:meth:`PrecomputedRankings.ranking`), and searched otherwise."""

    retriever: Retriever
    rankings: PrecomputedRankings

    @property
    def name(self) -> str:
        return self.retriever.name

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        if pools is not None:
            return self.retriever.search(queries, k, pools)
        found = [self.rankings.ranking(q, k) for q in queries]
        if missing := [i for i, ranking in enumerate(found) if ranking is None]:
            for i, ranking in zip(missing, self.retriever.search([queries[i] for i in missing], k)):
                found[i] = ranking
        return found  # type: ignore[return-value]  # every None was searched

    @classmethod
    def around(cls, retriever: Retriever, index_folder: Path, index: dict[str, Any]) -> Retriever:
        """``retriever`` with the rankings computed on its index, if there are any and they
        are whole (else one warning, and ``retriever`` alone)."""
        try:
            rankings = PrecomputedRankings.open(index_folder / FOLDER)
        except Damaged as exc:
            log.warning("%s; searching instead (%s)", exc, RECOMPUTE)
            return retriever
        if rankings is None:
            return retriever
        if rankings.manifest.index != index or rankings.manifest.retriever != retriever.name:
            log.warning(
                "the precomputed rankings in %s were computed on another index; searching instead (%s)",
                rankings.folder,
                RECOMPUTE,
            )
            return retriever
        return cls(retriever, rankings)


def compute_rankings(
    retriever: Retriever,
    index_folder: Path,
    index: dict[str, Any],
    corpus: Callable[[], Iterable[Document]],
    papers: Iterable[Document] | None,
    depth: int,
    batch: int = 1_000,
    done: Callable[[int], None] = lambda n: None,
) -> PrecomputedRankings:
    """Rankings of ``papers`` (None: every paper of ``corpus``) on the index in
    ``index_folder``, whose manifest is ``index``. ``corpus`` streams the documents the index
    was built from: their fingerprint must be the index's. One fill at a time: a second is
    refused while the first runs."""
    from filelock import FileLock, Timeout

    from .corpus import fingerprint

    try:
        held = FileLock(index_folder / LOCK).acquire(timeout=0)  # one attempt
    except Timeout:
        raise CitegraphError(
            f"another `citegraph index rankings` is filling {index_folder / FOLDER}: run this one when it has "
            "finished (it keeps the rows the other computed)"
        ) from None
    with held:
        ids: list[str] = []

        def recorded() -> Iterator[Document]:
            for doc in corpus():
                ids.append(doc.id)
                yield doc

        corpus_print = fingerprint(recorded())
        if corpus_print != index["fingerprint"]:
            raise CitegraphError(
                f"the index in {index_folder} was built from another corpus (fingerprint {index['fingerprint']}, "
                f"the graph's now {corpus_print}): rebuild it, or give the --eligible-only it was built with"
            )
        rankings = PrecomputedRankings.create(index_folder / FOLDER, retriever.name, index, ids, depth)
        rankings.fill(retriever, corpus() if papers is None else papers, batch, done)
    return rankings
