"""Prefetch: the first SymTax stage, the top candidates of a fast text scorer.

The query is the citation context (placeholders removed) with the citing paper's title
and abstract; candidates are the graph's papers with text (title and abstract; a paper
with a title only is indexed by its title). The prefetcher is any retriever spec
(:mod:`citegraph.retrieval.spec`), built over those papers: ``bm25`` (the default),
an encoder (``minilm``, ``hf:…``) with a Faiss index, or a fusion such as
``rrf(bm25,minilm)``.

A candidate is never the citing paper itself, nor a paper published after the citing
paper's year (it could not have been cited); the prefetcher ranks deeper until ``k``
candidates pass, or the index is exhausted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import CitegraphError
from ..retrieval.base import Document, Retriever
from ..retrieval.spec import Spec, parse_spec
from .data import Context

DEPTH = 100  # SymTax: the top 100 prefetched candidates go to the Enricher


def build_prefetcher(spec: str | Spec, docs: Sequence[Document], work: Path) -> Retriever:
    """Index ``docs`` under ``work`` for the prefetcher ``spec`` (e.g. ``bm25``, ``rrf(bm25,minilm)``)."""
    spec = parse_spec(spec)  # a bad spec fails before anything is read
    if not docs:
        raise CitegraphError("no candidate paper has text: nothing to prefetch from")
    return spec.build(docs, Path(work))


def query_document(context: Context) -> Document:
    """The prefetch query of a context: context and citing title as the title, the abstract apart."""
    text = context.search_text
    tail = context.abstract.strip()
    if tail and text.endswith(tail):
        text = text[: -len(tail)].strip()
    return Document(context.id, text, tail)


def prefetch(
    retriever: Retriever, contexts: Sequence[Context], years: Mapping[str, int | None], k: int = DEPTH, batch: int = 256
) -> list[list[str]]:
    """The top ``k`` candidate ids for each context, best first (see the module docstring).

    ``years`` holds the publication year of every indexed paper (None when unknown).
    """
    out: list[list[str]] = []
    for start in range(0, len(contexts), batch):
        part = contexts[start : start + batch]
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
