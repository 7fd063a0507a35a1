"""Sentences of a text by punctuation: the units a multi-vector encoder gives vectors
(:mod:`citegraph.retrieval.dense.encoders`, :mod:`.dense`), and the sentences contextualisation and a draft's reader
cut citing text into."""

from __future__ import annotations

import re

from .base import Document

_ABBREVIATIONS = {
    "e.g.",
    "i.e.",
    "al.",
    "fig.",
    "figs.",
    "eq.",
    "eqs.",
    "vs.",
    "cf.",
    "etc.",
    "approx.",
    "ref.",
    "refs.",
    "sec.",
    "no.",
    "resp.",
    "dr.",
    "mr.",
    "ms.",
    "prof.",
    "st.",
}
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract by punctuation, keeping abbreviations and initials joined.

    Aspire's training data was split by a full parser; abstracts are regular enough that
    punctuation followed by a capital does nearly as well without a parser dependency.
    """
    sentences: list[list[str]] = []  # each sentence's pieces, joined once at the end (linear time)
    for piece in _BOUNDARY.split(text.strip()):
        last = sentences[-1][-1].rsplit(None, 1)[-1] if sentences else ""
        if sentences and (last.lower() in _ABBREVIATIONS or re.fullmatch(r"[A-Z]\.", last)):
            sentences[-1].append(piece)
        elif piece.strip():
            sentences.append([piece.strip()])
    return [" ".join(pieces) for pieces in sentences]


def sentence_units(doc: Document) -> list[str]:
    """The sentences that get vectors: the abstract's, or the title when there is no abstract."""
    return split_sentences(doc.abstract) or ([doc.title] if doc.title.strip() else [])
