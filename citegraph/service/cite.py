"""``POST /cite``: suggestions for each citation slot of a context or a draft's text, the
route beside its request and response models (included by :mod:`.http`). The same code path
as ``citegraph cite`` and the MCP tool ``cite``: :func:`citegraph.recommend.cite.cite`."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..library.draft import MAX_CONTEXT_CHARS, MAX_SENT_SLOTS, MAX_SENT_TEXT
from ..recommend import Recommender
from ..recommend.cite import CiteModel, cite, sent_draft
from ..vocabulary import year_of
from .explorer import AsOf, MatchOut, RecommendationOut
from .limits import WINDOW, K


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
    window: int = Field(
        1, ge=WINDOW.low, le=WINDOW.high, description="Sentences before and after the slot's that join the query"
    )
    k: int = Field(10, ge=K.low, le=K.high, description="Suggestions per slot")
    as_of: AsOf | None = Field(
        None,
        description="Nothing published later, no later citation as "
        "evidence (YYYY-MM-DD; the graph dates papers by year)",
    )

    @model_validator(mode="after")
    def _one_input(self) -> CiteRequest:
        if (self.context is None) == (self.draft is None):
            raise ValueError("give a context or a draft, not both")
        return self


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


class CiteResponse(BaseModel):
    source: str
    format: str
    ranking: str = Field(description="How the suggestions were ranked (with or without the model)")
    model: str | None
    slots: list[SlotOut]
    references: list[MatchOut] = Field(description="The bibliography's entries matched to the graph, or not")
    missing: list[str] = Field(description="Bibliography entries the graph lacks")
    warnings: list[str]


def cite_routes(recommender: Recommender, model: CiteModel | None, responses: dict) -> APIRouter:
    router = APIRouter()

    @router.post(
        "/cite",
        response_model=CiteResponse,
        responses=responses,
        summary="Which paper to cite at each citation slot of a context or a draft, with reasons",
    )
    def cite_route(request: CiteRequest) -> dict[str, Any]:
        draft = sent_draft(
            context=request.context, draft=request.draft, format=request.format, bib=request.bib, window=request.window
        )
        return cite(recommender, draft, k=request.k, as_of=year_of(request.as_of), model=model).as_dict()

    return router
