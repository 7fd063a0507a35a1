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
* the search has no pools (a pooled search is another ranking).

Anything else is searched, so results equal a search's, score for score. Rows are filled
for every paper or for chosen ones (the papers requested most), resumably.

Layout of the folder (numpy arrays, opened memory-mapped: a server reads only the rows
it serves):

* ``manifest.json``: the retriever's name, the index's manifest, the depth, the row count;
* ``ids.npy``: every indexed paper's id, sorted (fixed-width bytes), one row each;
* ``queries.npy``: each row's query-text hash (uint64; 0 while not computed);
* ``hits.npy``, ``scores.npy``: ``[rows, depth]`` int32 rows of the hits (-1 past a
  ranking's end) and their float32 scores (what the retrievers return, exactly).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CitegraphError
from .base import Document, Hit, Query, Ranking, Retriever, query_text

log = logging.getLogger(__name__)

FOLDER = "rankings"  # beside the index it was computed on
MANIFEST = "manifest.json"
ARRAYS = ("ids", "queries", "hits", "scores")


def paper_query(doc: Document) -> Document:
    """A corpus paper as a recommendation for it asks: its title and abstract (a seed's
    ``document``), keywords left out."""
    return Document(doc.id, doc.title, doc.abstract)


def text_hash(text: str) -> int:
    """A query text's 64-bit hash, never 0 (0 marks a row not computed)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little") or 1


class PrecomputedRankings:
    """The rows of one folder (see the module doc), read-only or being filled."""

    def __init__(self, folder: Path, manifest: dict[str, Any], writable: bool = False):
        self.folder, self.manifest = folder, manifest
        self.depth: int = manifest["depth"]
        self.ids, self.queries, self.hits, self.scores = (
            np.load(folder / f"{a}.npy", mmap_mode="r+" if writable else "r") for a in ARRAYS
        )

    @classmethod
    def open(cls, folder: Path, writable: bool = False) -> PrecomputedRankings | None:
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
        except FileNotFoundError:
            return None
        return cls(folder, manifest, writable)

    @classmethod
    def create(
        cls, folder: Path, retriever: str, index: dict[str, Any], ids: Iterable[str], depth: int
    ) -> PrecomputedRankings:
        """Rows for ``ids`` (the index's papers) at ``depth``, writable: those of an earlier
        run on the same index and depth are kept (a resumed build), others made afresh."""
        manifest = {"retriever": retriever, "index": index, "depth": depth}
        if (earlier := cls.open(folder)) is not None:
            if {k: earlier.manifest[k] for k in manifest} == manifest:
                return cls(folder, earlier.manifest, writable=True)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        encoded = np.sort(np.array([i.encode("utf-8") for i in ids], dtype=np.bytes_))  # ids are unique in the graph
        rows = len(encoded)
        np.save(folder / "ids.npy", encoded)
        for name, dtype, shape in (
            ("queries", np.uint64, (rows,)),
            ("hits", np.int32, (rows, depth)),
            ("scores", np.float32, (rows, depth)),
        ):
            np.lib.format.open_memmap(folder / f"{name}.npy", mode="w+", dtype=dtype, shape=shape).flush()
        manifest["rows"] = rows
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")  # last: no manifest, no rows
        return cls(folder, manifest, writable=True)

    def row(self, paper: str) -> int | None:
        key = paper.encode("utf-8")
        at = int(np.searchsorted(self.ids, key))
        return at if at < len(self.ids) and self.ids[at] == key else None

    def ranking(self, query: Query, k: int) -> Ranking | None:
        """The search's top ``k`` for ``query``, or None when no row may answer it."""
        if not isinstance(query, Document) or k > self.depth or (at := self.row(query.id)) is None:
            return None
        if int(self.queries[at]) != text_hash(query_text(query)):
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
        ranking; rows already computed for the same text are skipped. Each batch is written
        before its query hashes, so an interrupted fill resumes where it stopped."""
        stream = iter(papers)
        while chunk := list(islice(stream, batch)):
            queries = [paper_query(d) for d in chunk]
            rows = [self.row(q.id) for q in queries]
            if unknown := [q.id for q, r in zip(queries, rows) if r is None]:
                raise CitegraphError(f"{unknown[0]} is not a paper of the index's corpus; rebuild the index")
            hashes = [text_hash(query_text(q)) for q in queries]
            todo = [i for i, (r, h) in enumerate(zip(rows, hashes)) if int(self.queries[r]) != h]
            for i, ranking in zip(todo, retriever.search([queries[i] for i in todo], self.depth)):
                hits = np.full(self.depth, -1, dtype=np.int32)
                scores = np.zeros(self.depth, dtype=np.float32)
                hits[: len(ranking)] = np.searchsorted(self.ids, [h.id.encode("utf-8") for h in ranking])
                scores[: len(ranking)] = [h.score for h in ranking]
                self.hits[rows[i]], self.scores[rows[i]] = hits, scores
            self.hits.flush()
            self.scores.flush()
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
        """``retriever`` with the rankings computed on its index, if there are any."""
        rankings = PrecomputedRankings.open(index_folder / FOLDER)
        if rankings is None:
            return retriever
        if rankings.manifest["index"] != index or rankings.manifest["retriever"] != retriever.name:
            log.warning(
                "the precomputed rankings in %s were computed on another index; searching instead "
                "(recompute them with `citegraph index rankings`)",
                rankings.folder,
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
    was built from: their fingerprint must be the index's."""
    from .corpus import fingerprint

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
