"""Extra text for the contextualisation's word vectors, as documents that can be subsampled.

A corpus path is one of

* a **ScisummNet folder** (one folder per ACL paper, read with the ``scisummnet`` ingest
  reader): each paper's full-text sentences, then its citing sentences, are one document;
* **JSONL** (citegraph's generic format or S2ORC-like): per object its title, abstract and
  ``references[].contexts``;
* **plain text**: one document a line.

The learning curve over corpus size draws a share of the *documents* (whole papers, so
that a 10 % corpus is 10 % of the papers, not a scatter of their sentences).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

import numpy as np

from ..errors import InputError, Problem
from ..ingest.source import json_objects, lines

Document = list[str]


def _scisummnet(folder: Path) -> Iterator[Document]:
    from ..ingest.formats import get
    from ..ingest.records import Citation, Paper

    fmt = get("scisummnet")
    document: Document = []
    for file in fmt.files(folder):
        for item in fmt.read(file):
            if item.problem is not None:  # the corpus is unlabelled text: a bad citance is left out
                continue
            record = item.record
            if isinstance(record, Paper) and record.full_text:
                if document:
                    yield document
                document = [line for line in record.full_text.split("\n") if line.strip()]
            elif isinstance(record, Citation):
                document.extend(record.reference.contexts)
    if document:
        yield document


def _jsonl(path: Path) -> Iterator[Document]:
    for _, obj in json_objects(path):
        if isinstance(obj, Problem):
            raise InputError(obj)
        document = [obj[key] for key in ("title", "abstract") if isinstance(obj.get(key), str)]
        for ref in obj.get("references") or []:
            if isinstance(ref, dict):
                document += [c for c in ref.get("contexts") or [] if isinstance(c, str)]
        if document:
            yield document


def _plain(path: Path) -> Iterator[Document]:
    for _, line in lines(path):
        if isinstance(line, Problem):
            raise InputError(line)
        if line.strip():
            yield [line]


def corpus_documents(paths: Sequence[Path]) -> Iterator[Document]:
    for path in map(Path, paths):
        if path.is_dir():
            yield from _scisummnet(path)
        elif ".jsonl" in path.suffixes:
            yield from _jsonl(path)
        else:
            yield from _plain(path)


@cache
def _analysed(paths: tuple[Path, ...]) -> tuple[list[list[str]], ...]:
    from ..retrieval.bm25 import analyze
    from .models import strip_citations

    return tuple([analyze(strip_citations(text)) for text in document] for document in corpus_documents(paths))


def corpus_sample(paths: Sequence[Path], share: float = 1.0, seed: int = 0) -> list[list[list[str]]]:
    """The analysed documents of ``paths`` (each a list of term lists, citation markers
    removed), or a seeded random ``share`` of them, in corpus order. Read once per process:
    the seeds × shares of a learning curve reuse the analysis."""
    documents = _analysed(tuple(Path(p).resolve() for p in paths))
    if share >= 1.0:
        return list(documents)
    keep = np.random.default_rng(seed).permutation(len(documents))[: round(share * len(documents))]
    return [documents[i] for i in sorted(keep)]
