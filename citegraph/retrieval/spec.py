"""Naming a retriever: one grammar, parsed once into a typed spec that opens or builds it.

Every command and function that takes a scorer reads this grammar (as ``ir_measures``
reads ``P(rel=2)@20`` into a measure object):

=============================  ============================================================
``bm25``                       BM25 over title + abstract (Lucene when installed, else bm25s)
``bm25:multifield``            title and abstract as separate, weighted fields
``bm25:lucene``, ``bm25:bm25s``  a chosen backend (with multifield: ``bm25:multifield:bm25s``)
``minilm``, ``specter``, …     a registered encoder (:data:`~citegraph.retrieval.dense.encoder_specs.ENCODERS`), Faiss
``hf:<hub id or folder>``      any other Hugging Face encoder
``<encoder>:maxsim``           each sentence encoded alone; a paper scores by its best pair
``rrf(a,b,…)``                 reciprocal-rank fusion of specs (nestable)
``wsum(0.7*a,0.3*b,…)``        weighted fusion of min–max normalised scores
=============================  ============================================================

A list separates specs by top-level commas: ``bm25,rrf(bm25,minilm)`` is two specs.
``str(spec)`` is the canonical spelling and the retriever's name in result tables.

Two resolvers: :meth:`open` a prebuilt index under ``<data dir>/indexes`` (what ``citegraph
index`` wrote; one BM25 index per field layout, its backend in the manifest), or
:meth:`build` one over given documents in a work folder (a benchmark's documents, the
local prefetcher's candidates), where ``bm25`` and ``bm25:bm25s`` get folders of their own.
Heavy libraries are imported only by the resolvers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CitegraphError
from .bm25.shared import BACKENDS, Backend
from .dense.encoder_specs import ENCODERS, HUB_PREFIX

if TYPE_CHECKING:
    from .base import Document, Query, Retriever
    from .bm25.bm25s import Bm25sBM25
    from .bm25.lucene import LuceneBM25

Sentences = Callable[["Query"], list[str]]  # how a text is cut into sentences for :maxsim
MULTIFIELD, MAXSIM = "multifield", "maxsim"


def grammar() -> str:
    """The valid forms in one line (error messages and the CLI's help)."""
    return (
        f"bm25[:{MULTIFIELD}][:{'|:'.join(BACKENDS)}], <encoder>[:{MAXSIM}] with <encoder> one of "
        f"{', '.join(ENCODERS)} or {HUB_PREFIX}<hub id or folder>, rrf(<spec>,<spec>,…), "
        "wsum(<weight>*<spec>,…); a list separates specs by commas"
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


@dataclass(frozen=True)
class BM25:
    """BM25 over title + abstract, as one field or two (:mod:`.bm25`)."""

    multifield: bool = False
    backend: Backend | None = None  # None: Lucene when installed (build), whichever built it (open)

    def __str__(self) -> str:
        return ":".join(["bm25", *([MULTIFIELD] if self.multifield else []), *([self.backend] if self.backend else [])])

    @property
    def folder(self) -> str:
        return str(self).replace(":", "-")

    def open(self, indexes: Path, threads: int = 1) -> Retriever:
        """The index, with the rankings precomputed on it (``citegraph index rankings``) if any."""
        from .bm25 import read_manifest
        from .precomputed import Precomputed

        folder = Path(indexes) / BM25(self.multifield).folder
        return Precomputed.around(self.searcher(indexes, threads), folder, read_manifest(folder))

    def searcher(self, indexes: Path, threads: int = 1) -> LuceneBM25 | Bm25sBM25:
        """The index alone, every query searched."""
        from .bm25 import bm25, read_manifest

        folder = Path(indexes) / BM25(self.multifield).folder
        built = read_manifest(folder)["backend"] if folder.is_dir() else None
        if built is None or self.backend not in (None, built):
            raise CitegraphError(
                f"no index for '{self}' in {indexes}; build it with `citegraph index bm25"
                f"{' --multifield' if self.multifield else ''}"
                f"{f' --backend {self.backend}' if self.backend else ''}`"
            )
        return _named(bm25(folder, threads=threads), self)

    def build(self, docs: Iterable[Document], work: Path, sentences: Sentences | None = None) -> Retriever:
        """Documents are streamed (BM25 needs no list of them)."""
        from .bm25 import build_bm25

        return _named(
            build_bm25(docs, Path(work) / self.folder, backend=self.backend, multifield=self.multifield), self
        )


@dataclass(frozen=True)
class Dense:
    """An encoder's vectors (:mod:`.dense`): one a paper with Faiss, or one a sentence with ``:maxsim``."""

    encoder: str  # a registered name or hf:<hub id or folder>
    maxsim: bool = False

    def __str__(self) -> str:
        return self.encoder + (f":{MAXSIM}" if self.maxsim else "")

    @property
    def folder(self) -> str:
        return "dense-" + _slug(self.encoder)

    def open(self, indexes: Path, threads: int = 1) -> Retriever:
        from .dense import open_dense

        if self.maxsim:
            raise CitegraphError(
                f"'{self}' encodes sentences over given documents (evaluate mdcr|csfcube, "
                f"--prefetch); prebuilt indexes hold one vector a paper: use '{self.encoder}'"
            )
        folder = Path(indexes) / self.folder
        if not folder.exists():
            raise CitegraphError(
                f"no index for '{self}' in {indexes}; build it with `citegraph index dense --encoder {self.encoder}`"
            )
        return open_dense(folder, threads=threads)

    def build(self, docs: Sequence[Document], work: Path, sentences: Sentences | None = None) -> Retriever:
        """``sentences`` (``:maxsim`` only) cuts a text into sentences (default: by punctuation)."""
        from .dense import build_dense, build_maxsim
        from .dense.encoders import get_encoder

        encoder = get_encoder(self.encoder)
        if self.maxsim:
            return build_maxsim(docs, encoder, sentences)
        return build_dense(docs, encoder, Path(work) / self.folder, Path(work) / "embeddings")


@dataclass(frozen=True)
class Fusion:
    """Reciprocal-rank fusion, or weighted score fusion when ``weights`` are given (:mod:`.fusion`)."""

    members: tuple[Spec, ...]
    weights: tuple[float, ...] | None = None  # None: reciprocal-rank fusion

    def __str__(self) -> str:
        if self.weights is None:
            return "rrf(" + ",".join(map(str, self.members)) + ")"
        return "wsum(" + ",".join(f"{w:g}*{m}" for w, m in zip(self.weights, self.members)) + ")"

    def open(self, indexes: Path, threads: int = 1) -> Retriever:
        return self._fuse([m.open(indexes, threads) for m in self.members])

    def build(self, docs: Sequence[Document], work: Path, sentences: Sentences | None = None) -> Retriever:
        return self._fuse([m.build(docs, work, sentences) for m in self.members])

    def _fuse(self, members: list[Retriever]) -> Retriever:
        from .fusion import ReciprocalRankFusion, WeightedFusion

        if self.weights is None:
            return ReciprocalRankFusion(members)
        return WeightedFusion(members, self.weights)


Spec = BM25 | Dense | Fusion


def _named(retriever: LuceneBM25 | Bm25sBM25, spec: Spec) -> LuceneBM25 | Bm25sBM25:
    retriever.name = str(spec)  # BM25's name says the layout; the spec also says a chosen backend
    return retriever


class _Bad(ValueError):
    pass


def parse_spec(text: str | Spec) -> Spec:
    """The spec ``text`` spells; a bad one raises a one-line :class:`CitegraphError` listing the valid forms."""
    if not isinstance(text, str):
        return text
    try:
        return _parse(text.strip())
    except _Bad as bad:
        raise CitegraphError(f"retriever {text.strip()!r}: {bad}; valid: {grammar()}") from None


def parse_specs(text: str | Sequence[str | Spec]) -> list[Spec]:
    """Specs separated by top-level commas (or given one by one); empty items are dropped."""
    if isinstance(text, str):
        try:
            text = _split(text)
        except _Bad as bad:
            raise CitegraphError(f"retrievers {text!r}: {bad}; valid: {grammar()}") from None
    return [parse_spec(item) for item in text if not isinstance(item, str) or item.strip()]


def _split(text: str) -> list[str]:
    """``text`` cut at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            break
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise _Bad("unbalanced parentheses")
    return [*parts, text[start:]]


def _parse(text: str) -> Spec:
    fused = re.fullmatch(r"(rrf|wsum)\((.*)\)", text)
    if fused:
        parts = [p.strip() for p in _split(fused[2])]
        if len(parts) < 2 or not all(parts):
            raise _Bad(f"{fused[1]}(…) fuses two or more retrievers")
        if fused[1] == "rrf":
            return Fusion(tuple(map(_parse, parts)))
        weighted = [_weighted(p) for p in parts]
        return Fusion(tuple(m for _, m in weighted), tuple(w for w, _ in weighted))
    if re.search(r"[(),\s]", text) or not text:
        raise _Bad("not a retriever name" if text else "empty")
    head, _, rest = text.partition(":")
    modifiers = rest.split(":") if rest else []
    if head == "bm25":
        unknown = [m for m in modifiers if m not in (MULTIFIELD, *BACKENDS)]
        backends = [m for m in modifiers if m in BACKENDS]
        if unknown or len(backends) > 1 or modifiers.count(MULTIFIELD) > 1:
            raise _Bad(f"bm25 takes :{MULTIFIELD} and one of :{', :'.join(BACKENDS)}")
        return BM25(MULTIFIELD in modifiers, backends[0] if backends else None)
    maxsim = text.endswith(f":{MAXSIM}")
    encoder = text.removesuffix(f":{MAXSIM}") if maxsim else text
    if encoder.startswith(HUB_PREFIX):
        if encoder == HUB_PREFIX:
            raise _Bad(f"{HUB_PREFIX} needs a hub id or a model folder")
    elif encoder not in ENCODERS:
        raise _Bad(f"unknown retriever {encoder!r}")
    return Dense(encoder, maxsim)


def _weighted(part: str) -> tuple[float, Spec]:
    weight, star, spec = part.partition("*")
    try:
        value = float(weight)
    except ValueError:
        star = ""
    if not star:
        raise _Bad(f"wsum(…) members are <weight>*<spec>, e.g. wsum(0.7*bm25,0.3*minilm), not {part!r}")
    return value, _parse(spec.strip())
