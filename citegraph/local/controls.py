"""The no-learning controls: what a learned reranker must beat besides its prefetcher (issue 25).

On ACL-200 ∪ ScisummNet most candidates are titles only while almost every cited paper has
an abstract, so "prefer a paper with an abstract" already beats BM25 without reading the
context. Two re-orderings of the prefetcher's own top ``depth`` measure that prior, and
are rows of ``evaluate local``'s tables:

* **abstract-first** — the prefetched list with the candidates that have an abstract
  first, each group in the prefetcher's order (a stable sort on "has an abstract");
* **same-kind text** — the prefetched list restricted to the candidates whose text is of
  the kind the cited papers mostly have. The kind is "has an abstract" or "has none";
  the majority is read off the cited papers of every context on the training side of the
  time split (each citation counted once per context and cited paper; a tie counts as "has
  an abstract"), so no test answer decides it, and every seed gets the same kind. The list keeps the prefetcher's order and is shorter than ``depth``.

Whether a paper has an abstract is read from the graph whatever ``--candidates`` shows the
models: in the ``uniform`` setting (titles only) the controls still know it, which is
what makes them the bar a learned model must clear. The fine-tuned bi-encoder's list
re-ordered abstract-first is a row too: the prior on top of the model, which tells whether
the model adds anything to it. In the ``abstracts`` setting every candidate has an
abstract, and both controls are the prefetcher's own list.

With public profiles (:mod:`.profile`) a third control, **profile-first**, puts the
candidates that have profile sentences in the view first: ScisummNet's cited papers are the
ones with citing sentences, so a profile's mere presence is a prior of the same kind.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .data import Context


def first(lists: Sequence[Sequence[str]], having: Collection[str]) -> list[list[str]]:
    """Each list with the papers in ``having`` (e.g. those with an abstract) first, both groups
    in their own order."""
    return [sorted(ids, key=lambda p: p not in having) for ids in lists]


def cited_mostly_have_an_abstract(train: Sequence[Context], abstracts: Collection[str]) -> bool:
    """Whether most cited papers of the training contexts have an abstract (a tie: yes)."""
    cited = [p for c in train for p in c.cited]
    return 2 * sum(p in abstracts for p in cited) >= len(cited)


def same_kind(lists: Sequence[Sequence[str]], abstracts: Collection[str], with_abstract: bool) -> list[list[str]]:
    """Each list restricted to the papers that have an abstract (``with_abstract``) or that
    have none, in their own order."""
    return [[p for p in ids if (p in abstracts) == with_abstract] for ids in lists]


def kind_name(with_abstract: bool) -> str:
    return "with an abstract" if with_abstract else "without an abstract"
