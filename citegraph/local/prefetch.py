"""Prefetch: the first SymTax stage, the top candidates of a fast text scorer.

The query is the citation context (placeholders removed) with the citing paper's title
and abstract; candidates are the graph's papers with text (title and abstract; a paper
with a title only is indexed by its title). Three prefetchers:

* ``bm25`` — BM25 over title + abstract (Lucene when installed, else bm25s);
* ``dense`` — an encoder (``minilm``, ``hf:…``) with a Faiss index, cosine or L2 as the
  model was trained;
* ``fusion`` — reciprocal-rank fusion of the two.

A candidate is never the citing paper itself, nor a paper published after the citing
paper's year (it could not have been cited); the prefetcher ranks deeper until ``k``
candidates pass, or the index is exhausted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import CitegraphError
from ..retrieval.base import Document, Retriever
from .data import Context

PREFETCHERS = ("bm25", "dense", "fusion")
DEPTH = 100  # SymTax: the top 100 prefetched candidates go to the Enricher


def build_prefetcher(kind: str, docs: Sequence[Document], work: Path, *, encoder: str = "minilm",
                     bm25_backend: str | None = None) -> Retriever:
    """Index ``docs`` under ``work`` for prefetcher ``kind`` (``bm25``, ``dense``, ``fusion``)."""
    if kind not in PREFETCHERS:
        raise CitegraphError(f"prefetch must be one of {', '.join(PREFETCHERS)}, not {kind!r}")
    if not docs:
        raise CitegraphError("no candidate paper has text: nothing to prefetch from")
    work = Path(work)
    members: list[Retriever] = []
    if kind in ("bm25", "fusion"):
        from ..retrieval.bm25 import build_bm25

        members.append(build_bm25(docs, work / "bm25", backend=bm25_backend))
    if kind in ("dense", "fusion"):
        from ..retrieval import index_dir
        from ..retrieval.dense import build_dense
        from ..retrieval.encoders import get_encoder

        members.append(build_dense(docs, get_encoder(encoder), index_dir(work, encoder), work / "embeddings"))
    if len(members) == 1:
        return members[0]
    from ..retrieval.fusion import ReciprocalRankFusion

    return ReciprocalRankFusion(members)


def query_document(context: Context) -> Document:
    """The prefetch query of a context: context and citing title as the title, the abstract apart."""
    text = context.search_text
    tail = context.abstract.strip()
    if tail and text.endswith(tail):
        text = text[:-len(tail)].strip()
    return Document(context.id, text, tail)


def prefetch(retriever: Retriever, contexts: Sequence[Context], years: Mapping[str, int | None],
             k: int = DEPTH, batch: int = 256) -> list[list[str]]:
    """The top ``k`` candidate ids for each context, best first (see the module docstring).

    ``years`` holds the publication year of every indexed paper (None when unknown).
    """
    out: list[list[str]] = []
    for start in range(0, len(contexts), batch):
        part = contexts[start:start + batch]
        depth = k + 10
        todo = list(range(len(part)))
        found: dict[int, list[str]] = {}
        while todo:
            rankings = retriever.search([query_document(part[i]) for i in todo], depth)
            again = []
            for i, ranking in zip(todo, rankings):
                kept = [h.id for h in ranking if _allowed(part[i], h.id, years)]
                if len(kept) >= k or len(ranking) < depth or depth >= len(years):
                    found[i] = kept[:k]
                else:
                    again.append(i)
            todo, depth = again, depth * 4
        out.extend(found[i] for i in range(len(part)))
    return out


def _allowed(context: Context, paper: str, years: Mapping[str, int | None]) -> bool:
    if paper == context.citing:
        return False
    year = years.get(paper)
    return year is None or context.year is None or year <= context.year
