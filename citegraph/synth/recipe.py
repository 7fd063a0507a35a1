"""What a synthetic corpus is made from (:class:`SynthSpec`), what generating it reports,
and the hidden layout of its papers (:class:`Plan`): the records every stage of the
generator shares (:mod:`citegraph.synth`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..options import option


@dataclass(frozen=True, slots=True)
class SynthSpec:
    """What to generate. Every field is part of the corpus's identity; the fields with an option
    are the flags of ``citegraph synth``, declared here once."""

    papers: int = field(metadata=option("--papers", "How many papers (1k to 2M).", minimum=1))
    seed: int = field(default=0, metadata=option("--seed", "Same seed and options, same bytes."))
    topics: int = field(default=50, metadata=option("--topics", ""))
    citations_per_paper: float = field(default=10.0, metadata=option("--citations-per-paper", ""))
    start_year: int = field(default=1990, metadata=option("--start-year", ""))
    end_year: int = field(default=2022, metadata=option("--end-year", ""))
    contexts: bool = field(
        default=False,
        metadata=option(
            "--contexts",
            "Write citegraph's generic JSONL with citation contexts "
            "(ingest format 'jsonl') instead of S2ORC metadata (format 's2orc').",
        ),
    )
    p_same_topic: float = 0.8
    growth: float = 1.08  # yearly growth of the number of papers
    arxiv_share: float = 0.3  # of papers from 2007 on, those with an arXiv id and categories
    p_recent: float = 0.3  # of references, those drawn uniformly from recent papers, not by attachment
    recent_years: int = 3  # recent papers: published at most this many years before the citing one

    def __post_init__(self) -> None:
        if self.papers < 1 or self.topics < 1:
            raise ValueError("papers and topics must be at least 1")
        if self.citations_per_paper < 0 or self.growth <= 0:
            raise ValueError("citations_per_paper must be >= 0 and growth > 0")
        if self.end_year < self.start_year:
            raise ValueError("end_year is before start_year")
        if not (0 <= self.p_same_topic <= 1 and 0 <= self.arxiv_share <= 1 and 0 <= self.p_recent <= 1):
            raise ValueError("p_same_topic, arxiv_share and p_recent are shares between 0 and 1")
        if int(self.recent_years) != self.recent_years or self.recent_years < 0:
            raise ValueError("recent_years must be a whole number of years, >= 0")


@dataclass(frozen=True, slots=True)
class SynthStats:
    """What :func:`generate` wrote, and how long it took."""

    papers: int
    citations: int
    bytes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Topic:
    """What a topic's papers share besides words: fields, arXiv categories (primary first), venues."""

    field: str
    second_field: str
    categories: tuple[str, ...]
    venues: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """Who each paper is before anything is written: its year, topic and arXiv number.

    Public so that tests and analyses can recover the hidden topic of every paper (index
    ``i`` is paper ``paper_id(i, papers)``) without it leaking into the corpus itself.
    """

    topics: tuple[Topic, ...]
    year: np.ndarray  # int16 per paper, non-decreasing
    topic: np.ndarray  # int32 per paper
    arxiv: np.ndarray  # int64 per paper: YYMM * 100000 + number within the month, 0 if none


def paper_id(index: int, papers: int) -> str:
    """The id of the ``index``-th (0-based) of ``papers`` papers: 'S' and a zero-padded number."""
    return id_format(papers)(index + 1)


def id_format(papers: int) -> Callable[[int], str]:
    """Paper number (1-based) → id; ids of one corpus have one width, so they sort as they number."""
    return f"S{{:0{max(7, len(str(papers)))}d}}".format
