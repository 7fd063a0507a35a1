"""The editor's use cases (``citegraph lsp``): the ranked papers for the one citation slot
being typed, each with the key it inserts and, for a paper the bibliography lacks, the BibTeX
entry to add; and how well one cited key's paper fits its sentence.

Both rank through :func:`.citing.cite` — the answer ``citegraph cite`` gives for that slot —
on the draft the editor holds (read by :func:`citegraph.library.draft.read_draft` from its
unsaved text), cut to the one slot at the cursor: the draft's other slots cost nothing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CitegraphError
from .answers import WhyOut
from .citing import CiteRequest, SlotOut, SuggestionOut, cite
from .fields import K, integer
from .papers import Paper, PaperRequest, paper

if TYPE_CHECKING:
    from ..library.draft import Draft, Slot
    from ..library.export import Exported
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel

_BIBTEX_KEY = re.compile(r"@\w+\{([^,\s]+),")  # the key of an entry the BibTeX exporter wrote


class EditorSettings(BaseModel):
    """The editor's settings of the language server (``initializationOptions``, or ``citegraph``
    in the client's settings); ``k`` has ``cite``'s bounds."""

    model_config = ConfigDict(extra="ignore")

    diagnostics: bool = Field(False, description="Publish a key the bibliography lacks and an empty \\cite{}")
    k: Annotated[int, *integer(K)] = Field(10, description="Suggestions per completion")


class KeyedSuggestion(BaseModel):
    """A suggestion for the slot as an editor inserts it."""

    key: str = Field(description="The citation key it inserts: the bibliography's own, else the exported entry's")
    authors: list[str] = Field(description="In their source's order")
    bibtex: str | None = Field(description="The entry to append to the bibliography (null: the key is already there)")
    suggestion: SuggestionOut


class SlotAnswer(BaseModel):
    slot: SlotOut
    suggestions: list[KeyedSuggestion]
    bibliography: str | None = Field(description="The bibliography file new entries go to (the draft's first)")
    ranking: str
    warnings: list[str]


class KeyFit(BaseModel):
    """A cited key's paper and what became of it at its citation, asked as a slot."""

    key: str
    entry: str = Field(description="Where the key's entry is: 'refs.bib:12 (key)'")
    paper: Paper | None = Field(description="The graph paper the entry matched (null: none)")
    how: str = Field(description="How the entry matched, or why it did not")
    fate: WhyOut | None = Field(description="Its rank at the slot and its reasons, or the stage that dropped it")
    sentence: str


def slot_at(draft: Draft, line: int, column: int) -> Slot:
    """The slot of ``draft`` at or before (``line``, ``column``), both 1-based, on that line of
    the draft's own file: the citation the cursor is in."""
    here = [
        s
        for s in draft.slots
        if s.line == line and s.column is not None and s.column <= column and str(s.file) == draft.source
    ]
    if not here:
        raise CitegraphError(f"{draft.source}:{line}:{column}: no citation slot here")
    return max(here, key=lambda s: s.column or 0)


def suggest_at(
    recommender: Recommender, draft: Draft, slot: Slot, *, k: int = 10, model: CiteModel | None = None
) -> SlotAnswer:
    """The top ``k`` papers for ``slot`` (``cite``'s for that slot alone), each keyed: a paper the
    bibliography holds by its own key, another by the key of its exported BibTeX entry."""
    answer = cite(recommender, CiteRequest.model_validate({"k": k}), model, replace(draft, slots=(slot,)))
    [found] = answer.slots
    key_of = {m.paper: key for key, m in zip(draft.references, answer.references, strict=True) if m.paper}
    papers = _exported(recommender, [s.id for s in found.suggestions])
    keyed = []
    for suggestion in found.suggestions:
        record = papers.get(suggestion.id)
        bibtex = None if suggestion.id in key_of or record is None else _to_bibtex(record)
        key = key_of.get(suggestion.id) or (_exported_key(bibtex) if bibtex else suggestion.id)
        authors = list(record.authors) if record else []
        keyed.append(KeyedSuggestion(key=key, authors=authors, bibtex=bibtex, suggestion=suggestion))
    return SlotAnswer(
        slot=found,
        suggestions=keyed,
        bibliography=str(draft.bibliographies[0]) if draft.bibliographies else None,
        ranking=answer.ranking,
        warnings=answer.warnings,
    )


def fit_of(
    recommender: Recommender, draft: Draft, slot: Slot, key: str, *, k: int = 10, model: CiteModel | None = None
) -> KeyFit:
    """The paper of the bibliography's ``key`` and its fate at ``slot`` (the key's citation,
    asked as a slot): its rank and reasons, or why the recommender would not suggest it."""
    entry = draft.references.get(key)
    if entry is None:
        raise CitegraphError(f"{slot.where}: key {key!r} is not in the bibliography")
    [match] = recommender.match([entry])
    if match.paper is None:
        return KeyFit(key=key, entry=entry.where, paper=None, how=match.how, fate=None, sentence=slot.sentence)
    answer = cite(
        recommender, CiteRequest.model_validate({"k": k, "why": [match.paper]}), model, replace(draft, slots=(slot,))
    )
    [found] = answer.slots
    return KeyFit(
        key=key,
        entry=entry.where,
        paper=paper(recommender.store, PaperRequest(id=match.paper)),
        how=match.how,
        fate=found.why[0] if found.why else None,
        sentence=found.sentence,
    )


def _exported(recommender: Recommender, ids: list[str]) -> dict[str, Exported]:
    """The papers as the exporter sees them (authors, venue, ids), one query for all."""
    from ..library.export import exported

    return {p.id: p for p in exported(recommender.store, ids)} if ids else {}


def _to_bibtex(record: Exported) -> str:
    """The paper's BibTeX entry as ``--format bibtex`` writes it."""
    from ..library.export import to_bibtex

    return to_bibtex([record])


def _exported_key(bibtex: str) -> str:
    found = _BIBTEX_KEY.search(bibtex)
    assert found is not None  # the exporter writes one entry with its key
    return found.group(1)
