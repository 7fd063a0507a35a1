"""Which sentences of a cited paper a citing sentence refers to (the MCP tool
``contextualise_citation``), by :mod:`citegraph.contextualise.on_graph`'s default model, LMD,
whose word statistics are built from the graph on first use."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from .fields import EVIDENCE, PaperId

if TYPE_CHECKING:  # the driver loads with the first store, not with --help
    from ..graph import GraphStore


class ContextualiseRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cited: PaperId
    citing_text: str = Field(min_length=1, max_length=5_000, description="The citing sentence")
    k: Annotated[int, Field(ge=EVIDENCE.low, le=EVIDENCE.high)] = Field(3, description="Sentences to return")


class EvidenceOut(BaseModel):
    rank: int
    sentence: str = Field(description="The sentence's id in the cited paper: 'title', or its number")
    score: float
    text: str


def contextualise(store: GraphStore, request: ContextualiseRequest, indexes: Path) -> list[EvidenceOut]:
    """The cited paper's top ``k`` sentences (title, abstract, or stored full text) for the
    citing text; the model's statistics are kept in ``indexes``/contextualise."""
    from ..contextualise import on_graph
    from ..contextualise.models import MODELS

    model = MODELS["lmd"]
    resources = on_graph.graph_resources(store, model, Path(indexes) / "contextualise")
    [found] = on_graph.contextualise(
        on_graph.cited_reference(store, request.cited),
        [on_graph.CitingText(request.citing_text)],
        model,
        resources,
        request.k,
    )
    return [EvidenceOut(rank=e.rank, sentence=e.sid, score=e.score, text=e.text) for e in found.evidence]
