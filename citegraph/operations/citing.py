"""Which paper to cite at each citation slot of a context or a draft: the request, the answer
and the one function, for every door (``citegraph cite``, ``POST /cite``, the MCP tool
``cite``). The ranking itself is :func:`citegraph.recommend.cite.cite`'s.

A request carries its texts: the context, or a draft's text with its bibliography's BibTeX,
read from memory (:func:`citegraph.recommend.cite.sent_draft`: a draft sent may name no file).
A door that reads files (the command line's ``--draft`` and ``--bib``) reads the draft itself —
LaTeX's ``\\input`` followed, the files named in its messages — and hands it over: it stands for
the request's texts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import CitegraphError
from ..library.draft import MAX_CONTEXT_CHARS, MAX_SENT_SLOTS, MAX_SENT_TEXT
from ..vocabulary import year_of
from .answers import MatchOut, RecommendationOut, WhyOut
from .fields import AS_OF_TEXT, MAX_WHY, WHY_TEXT, WINDOW, Date, K, PaperId, integer
from .recommending import as_of_warnings, known_papers

if TYPE_CHECKING:  # the driver loads with the first recommender, not with --help
    from ..library.draft import Draft
    from ..recommend import Recommender
    from ..recommend.cite import CiteModel


class CiteRequest(BaseModel):
    """A context (the sentence being written, its slot marked ``[CIT]``) or a draft's text."""

    model_config = ConfigDict(
        extra="forbid", strict=True, json_schema_extra={"oneOf": [{"required": ["context"]}, {"required": ["draft"]}]}
    )

    context: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_CONTEXT_CHARS,
        description="The sentence being written, the slot marked [CIT] (no marker: a citation belongs somewhere in it)",
    )
    draft: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_SENT_TEXT,
        description="A draft's text: LaTeX (empty, '?' or unresolved \\cite keys), Markdown "
        "([@?]) or text with [CIT]; it may not name files (\\input, \\bibliography, the front "
        f"matter's bibliography): send the bibliography as bib. At most {MAX_SENT_SLOTS} citation slots",
    )
    format: Literal["latex", "markdown", "text"] = Field("latex", description="The draft's format")
    bib: str | None = Field(
        None,
        max_length=MAX_SENT_TEXT,
        description="The bibliography's BibTeX text: its "
        "entries are matched to the graph and seed the graph side; never suggested",
    )
    window: Annotated[int, *integer(WINDOW)] = Field(
        1, description="Sentences before and after the slot's (in its paragraph) that join the query"
    )
    k: Annotated[int, *integer(K)] = Field(10, description="Suggestions per slot")
    as_of: Date | None = Field(None, description=AS_OF_TEXT)
    explain: bool = Field(
        True, description="Give each suggestion's reasons and signals (first-stage rank, model score, graph paths)"
    )
    why: list[PaperId] = Field([], max_length=MAX_WHY, description=f"{WHY_TEXT}, at each slot")


class SuggestionOut(RecommendationOut):
    first_stage: int = Field(description="Rank before the model (the recommender's order)")
    model: float | None = Field(description="The model's cosine of the slot's text and the paper (no model: null)")


class SlotOut(BaseModel):
    slot: int
    where: str = Field(description="file:line:column in the draft ('context' for a context without [CIT])")
    file: str | None
    line: int | None
    column: int | None
    command: str
    sentence: str = Field(description="The slot's sentence, the slot [CIT], other citations [REF]")
    unresolved: list[str] = Field(description="Keys at the slot the bibliography lacks")
    suggestions: list[SuggestionOut]
    why: list[WhyOut] = Field([], description="What became of each paper asked about (why) at this slot")


class CiteResponse(BaseModel):
    source: str
    format: str
    ranking: str = Field(description="How the suggestions were ranked (with or without the model)")
    model: str | None
    slots: list[SlotOut]
    references: list[MatchOut] = Field(description="The bibliography's entries matched to the graph, or not")
    missing: list[str] = Field(description="Bibliography entries the graph lacks")
    warnings: list[str]


def cite(
    recommender: Recommender, request: CiteRequest, model: CiteModel | None = None, draft: Draft | None = None
) -> CiteResponse:
    """Each slot's top ``k`` papers with their reasons; ``model`` re-ranks them; ``draft`` is
    the draft a door read itself (else the request's texts are read, from memory)."""
    from ..recommend.cite import cite as cite_draft
    from ..recommend.cite import sent_draft

    if draft is None:
        if (request.context is None) == (request.draft is None):
            raise CitegraphError("give a context or a draft, not both")
        draft = sent_draft(
            context=request.context, draft=request.draft, format=request.format, bib=request.bib, window=request.window
        )
    known_papers(recommender.store, request.why, "why")
    as_of = year_of(request.as_of)
    found = cite_draft(recommender, draft, k=request.k, as_of=as_of, model=model, why=request.why)
    answer = CiteResponse.model_validate(found.as_dict())
    for slot, cited in zip(answer.slots, found.slots, strict=True):
        slot.why = [WhyOut.of_fate(fate) for fate in cited.why]
    answer.warnings += as_of_warnings(recommender.store, as_of)
    if not request.explain:
        for slot in answer.slots:
            for suggestion in slot.suggestions:
                suggestion.explanation = suggestion.signals = None
    return answer
