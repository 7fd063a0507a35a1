"""Deterministic synthetic citation corpora, for benchmarks at sizes no real dump can ship.

A corpus is a pure function of its :class:`SynthSpec`: the same spec gives the same bytes
(with the same numpy version, whose generators back every draw), a different seed a
different corpus. It is written as S2ORC metadata JSONL, or, with ``contexts``, as
citegraph's generic JSONL whose references carry citing sentences, or (:func:`generate_openalex`)
as an OpenAlex works snapshot; all are read by citegraph's own readers, so benchmarks
exercise the real ingest path.

What makes it realistic enough to benchmark on:

* **Topics** each have a MAG home field (sometimes a second one) and one or two arXiv
  categories, and a vocabulary of their own. Titles, abstracts and citation contexts mix
  topic terms with a shared background vocabulary, both Zipf-distributed, so term
  statistics (and BM25 scores) behave like those of real text. Words are pseudo-words
  coined from syllables; only a few English function words are real, so that stop-word
  handling has something to remove.
* **Time**: papers are spread over the years with a volume that grows every year, topic
  popularity drifts, and papers are emitted in publication order.
* **Citations** mix recency with preferential attachment, after the dual mechanism of
  Peterson, Pressé & Dill (PNAS 2010, arXiv:1009.0574): some references are found directly,
  whatever their citation count (here: recent work), others through other papers' reference
  lists, which favours the much-cited (here: attachment). A paper cites about
  ``citations_per_paper`` earlier papers (negative-binomial counts), a share
  ``p_same_topic`` of them from its own topic and the rest from the others. Each reference
  is, with probability ``p_recent``, drawn uniformly from the papers published at most
  ``recent_years`` years before the citing one (of its topic, or of the other topics), and
  otherwise from all earlier papers with probability proportional to (in-degree + 1).
  Attachment alone has no notion of time, so old papers kept gathering citations: at 200k
  papers the median reference age was 19 years and the top 1% of papers took 63% of
  citations, where real corpora show about 5–8 years and 15–25%. With the defaults (0.3 of
  references recent, within 3 years), seed 0 gives a median reference age of 7 years (mean
  10) at 20k and 200k papers, the top 1% take 16% and 24% of citations, and the in-degree
  keeps a heavy tail (maximum 44× and 170× the mean); about 9% of papers are never cited,
  most of them from the last years. A weight (in-degree + 1)·exp(−age/τ) would be the
  smoother alternative, but it changes for every paper every year, so it cannot be drawn in
  O(1) from an urn; the mixture can, since recent papers are a contiguous range of the
  papers, or of a topic's papers, in publication order. Only earlier papers are cited (so
  never a later year), never itself, never one paper twice.

Scale: records are produced in batches with numpy, so text costs no per-word Python work
and memory holds O(papers × citations_per_paper) ints, never a per-paper Python object.
Within a batch the attachment weights are those at the batch's start (a batch is at most
an eighth of the papers before it), which is the price of vectorising the draws; recent
draws see every earlier paper.

The stages, one module each: :mod:`.recipe` (the spec and the plan's records),
:mod:`.lexicon` (words and names), :mod:`.layout` (topics, years, arXiv numbers, random
streams), :mod:`.citations` (attachment urns and recent draws), :mod:`.generator` (the
batches, written as JSONL) and :mod:`.openalex_writer` (the OpenAlex snapshot writer).
"""

from __future__ import annotations

from ..vocabulary import MAG_FIELDS
from .generator import generate, records
from .layout import FIELD_CATEGORIES, plan
from .openalex_writer import generate_openalex, openalex_topic, openalex_work
from .recipe import Plan, SynthSpec, SynthStats, Topic, paper_id

__all__ = [
    "FIELD_CATEGORIES",
    "MAG_FIELDS",
    "Plan",
    "SynthSpec",
    "SynthStats",
    "Topic",
    "generate",
    "generate_openalex",
    "openalex_topic",
    "openalex_work",
    "paper_id",
    "plan",
    "records",
]
