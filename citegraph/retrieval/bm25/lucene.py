"""BM25 on a Lucene index built and searched with Anserini's classes (pyserini's jar): the
``lucene`` backend of :mod:`citegraph.retrieval.bm25` (the score, the analysis and the index layout are
described there).

**Pools.** A query's pool restricts its ranking to the pool's ids exactly. Lucene has two
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

**Long queries.** Lucene refuses a query of more than ``IndexSearcher.maxClauseCount``
(1,024) term clauses — one per distinct term and field — and a library's joined titles and
abstracts, or a long pasted text, has more. Such a query keeps its terms of the highest
weight (count in the query × IDF in ``contents``), as many as fit, and is built by
Anserini's own bag-of-words generator from those terms. Raising the limit instead would
only move it: a library has no bound on its distinct terms. Queries within the limit are
searched unchanged.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import shutil
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ...errors import CitegraphError
from ...heavy import lazy
from ..base import Document, Hit, Query, Ranking, query_text
from .shared import FIELDS, K1, NAME, B, field_weights, fingerprinted, pool_sets

pyclass = lazy("pyserini.pyclass")  # pyserini starts a JVM on import: only after lucene.prepare()
DEEP_SHARE = 0.1  # a pooled Lucene query ranks deep while the depth is at most this share of the pool


@cache
def _java() -> SimpleNamespace:
    """Anserini's and Lucene's classes; the first call starts the JVM."""
    from .jvm import prepare

    prepare()
    autoclass = pyclass.autoclass  # puts pyserini's Anserini jar on the classpath and starts the JVM

    classes = {
        "SimpleSearcher": "io.anserini.search.SimpleSearcher",
        "IndexCollection": "io.anserini.index.IndexCollection",
        "BagOfWords": "io.anserini.search.query.BagOfWordsQueryGenerator",
        "BooleanQueryBuilder": "org.apache.lucene.search.BooleanQuery$Builder",
        "Occur": "org.apache.lucene.search.BooleanClause$Occur",
        "TermInSetQuery": "org.apache.lucene.search.TermInSetQuery",
        "BytesRef": "org.apache.lucene.util.BytesRef",
        "Term": "org.apache.lucene.index.Term",
        "IndexSearcher": "org.apache.lucene.search.IndexSearcher",
        "AnalyzerUtils": "io.anserini.analysis.AnalyzerUtils",
        "WhitespaceAnalyzer": "org.apache.lucene.analysis.core.WhitespaceAnalyzer",
        "ArrayList": "java.util.ArrayList",
        "HashMap": "java.util.HashMap",
        "Float": "java.lang.Float",
    }
    return SimpleNamespace(**{name: autoclass(java) for name, java in classes.items()})


def build_lucene(docs: Iterable[Document], target: Path, multifield: bool, threads: int) -> tuple[str, int]:
    java = _java()
    source = target.parent / "lucene-export"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir()
    try:
        with contextlib.ExitStack() as stack:
            files = [
                stack.enter_context(open(source / f"part-{i:03d}.jsonl", "w", encoding="utf-8")) for i in range(threads)
            ]
            turns = itertools.cycle(files)

            def write(doc: Document) -> None:
                record = {"id": doc.id, "contents": doc.text}
                if multifield:
                    record |= {"title": doc.title, "abstract": doc.abstract}
                next(turns).write(json.dumps(record, ensure_ascii=False) + "\n")

            exported = fingerprinted(docs, write)
        args = [
            "-collection",
            "JsonCollection",
            "-input",
            str(source),
            "-index",
            str(target),
            "-generator",
            "DefaultLuceneDocumentGenerator",
            "-threads",
            str(threads),
            "-optimize",
            "-quiet",
        ]
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

    def __init__(
        self,
        index_dir: str | os.PathLike,
        k1: float = K1,
        b: float = B,
        fields: Mapping[str, float] | None = None,
        threads: int = 1,
    ):
        self.index_dir = Path(index_dir)
        self.k1, self.b, self.threads = k1, b, threads
        self.fields = field_weights(fields)
        self.name = NAME if fields is None else f"{NAME}:multifield"
        java = _java()
        self._searcher = java.SimpleSearcher(str(self.index_dir / "lucene"))
        self._searcher.set_bm25(float(k1), float(b))
        self.documents: int = self._searcher.get_total_num_docs()
        self._generator = java.BagOfWords()
        self._analyzer = self._searcher.get_analyzer()
        self._analysed = java.WhitespaceAnalyzer()  # for queries given as terms already analysed
        self._boosts = None
        if self.fields is not None:
            self._boosts = java.HashMap()
            for field, weight in self.fields.items():
                self._boosts.put(field, java.Float(float(weight)))
        self.max_terms = java.IndexSearcher.getMaxClauseCount() // len(self.fields or ("contents",))

    def search(self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None) -> list[Ranking]:
        asked = [query_text(q) for q in queries]
        if k <= 0 or not asked:
            return [[] for _ in asked]
        if pools is None:
            return self._batch(asked, k)
        # One query at a time: a pyjnius method object remembers the Java object it was last
        # looked up on (a FIXME in jnius_export_class.pxi) and releases the GIL in the call,
        # so Python threads swap objects (seen: one query's ranking returned for another).
        # Unpooled batches use Java threads instead.
        sets = pool_sets(pools, asked)
        filters = _Filters()
        return [self._pooled(text, sets[id(pool)], k, filters) for text, pool in zip(asked, pools)]

    def _batch(self, queries: Sequence[str], k: int) -> list[Ranking]:
        """Queries within Lucene's clause limit in one batch on Java threads, longer ones cut
        to their heaviest terms and searched one at a time."""
        java = _java()
        cut = {i: terms for i, text in enumerate(queries) if (terms := self._heaviest_terms(text)) is not None}
        texts, qids = java.ArrayList(len(queries)), java.ArrayList(len(queries))
        for i, text in enumerate(queries):
            if i not in cut:
                texts.add(text)
                qids.add(str(i))
        found = java.HashMap()
        if texts.size() and self._boosts is None:
            found = self._searcher.batch_search(texts, qids, k, self.threads)
        elif texts.size():
            found = self._searcher.batch_search_fields(texts, qids, k, self.threads, self._boosts)
        return [
            _hits(self._searcher.search(self._build(*cut[i]), k)) if i in cut else _hits(found.get(str(i)))
            for i in range(len(queries))
        ]

    def _query(self, text: str) -> Any:
        """Anserini's bag-of-words query for ``text``, within Lucene's clause limit."""
        terms = self._heaviest_terms(text)
        return self._build(text, self._analyzer) if terms is None else self._build(*terms)

    def _build(self, text: str, analyzer: Any) -> Any:
        return (
            self._generator.buildQuery("contents", analyzer, text)
            if self._boosts is None
            else self._generator.buildQuery(self._boosts, analyzer, text)
        )

    def _heaviest_terms(self, text: str) -> tuple[str, Any] | None:
        """None for a text within :attr:`max_terms` distinct terms; else its :attr:`max_terms`
        terms of the highest count × IDF (ties by term), as a text of analysed terms (each as
        often as in ``text``) and the analyser that keeps them as they are."""
        java = _java()
        counts = Counter(java.AnalyzerUtils.analyze(self._analyzer, text).toArray())
        if len(counts) <= self.max_terms:
            return None
        reader = self._searcher.reader
        weights = {}
        for term, count in counts.items():
            if found := reader.docFreq(java.Term("contents", term)):
                weights[term] = count * math.log(1 + (self.documents - found + 0.5) / (found + 0.5))
        kept = sorted(weights, key=lambda t: (-weights[t], t))[: self.max_terms]
        return " ".join(" ".join([term] * counts[term]) for term in kept), self._analysed

    def _pooled(self, text: str, pool: Collection[str], k: int, filters: _Filters) -> Ranking:
        if not pool:
            return []
        query = self._query(text)
        depth = math.ceil((1.25 * k + 10) * self.documents / len(pool))
        if depth <= DEEP_SHARE * len(pool):
            ranked = _hits(self._searcher.search(query, depth))
            kept = [hit for hit in ranked if hit.id in pool]
            if len(kept) >= k or len(ranked) < depth:  # k found, or every match seen
                return kept[:k]
        java = _java()
        restricted = (
            java.BooleanQueryBuilder().add(query, java.Occur.MUST).add(filters.get(pool), java.Occur.FILTER).build()
        )
        return _hits(self._searcher.search(restricted, k))


def _hits(found: Iterable[Any] | None) -> Ranking:
    """Anserini's ScoredDocs as hits; already ranked by score, then id."""
    return [Hit(h.docid, float(h.score)) for h in found or ()]
