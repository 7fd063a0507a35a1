"""The one interface every scorer implements, and the records it exchanges.

The evaluation harness and the recommender hand a scorer queries and, optionally,
the candidate pool each query may be answered from (pools come from Cypher: dataset- or
field-level pools, MDCR's 65 candidates, a recommender's enriched candidates). A scorer
answers with ranked hits. BM25, dense encoders with Faiss, fusions of them and graph
scorers are interchangeable behind :class:`Retriever`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Document:
    """A paper as text scorers see it: the title and abstract, as in the MDCR paper, and the
    source's own keywords where it has them (BibTeX exports do)."""

    id: str
    title: str
    abstract: str = ""
    keywords: str = ""  # "; "-joined

    @property
    def text(self) -> str:
        """Title, abstract and keywords as one text (for flat BM25 and for queries)."""
        return " ".join(part for part in (self.title, self.abstract, self.keywords) if part).strip()


Query = str | Document  # a free text, or a paper (title and abstract kept apart for encoders)


def query_text(query: Query) -> str:
    return query.text if isinstance(query, Document) else query


def query_document(query: Query) -> Document:
    """A query as a document: a free text becomes a title-only paper."""
    return query if isinstance(query, Document) else Document("query", query)


class Hit(NamedTuple):
    id: str
    score: float


Ranking = list[Hit]  # best first; ties broken by id so that runs are deterministic


@runtime_checkable
class Retriever(Protocol):
    """Ranks documents of an index for queries (free texts or papers).

    ``pools``, when given, holds one collection of allowed document ids per query (the
    same object may be shared by all queries); a ranking then contains only ids of its
    pool, at most ``k`` of them.
    """

    @property
    def name(self) -> str: ...  # read-only: frozen dataclasses implement it

    def search(
        self, queries: Sequence[Query], k: int, pools: Sequence[Collection[str]] | None = None
    ) -> list[Ranking]: ...


def rank(scored: dict[str, float] | Sequence[Hit], k: int) -> Ranking:
    """The top ``k`` hits by score, ties broken by id (ascending)."""
    items = scored.items() if isinstance(scored, dict) else scored
    return [Hit(i, float(s)) for i, s in sorted(items, key=lambda h: (-h[1], h[0]))[:k]]
