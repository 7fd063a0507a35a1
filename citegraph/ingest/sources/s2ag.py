"""Semantic Scholar Academic Graph datasets: ``papers``, ``abstracts`` and ``citations``.

The Datasets API (https://api.semanticscholar.org/api-docs/datasets) ships each dataset as
gzipped JSON-lines shards; a release downloaded as the API hands it out is a folder per
dataset (``papers/``, ``abstracts/``, ``citations/``, any shard names). The three are joined
by ``corpusid``, which is the paper id in the graph (as a string: S2's own ``CorpusId``).

- ``papers``: ``corpusid``, ``title``, ``year``, ``venue`` (else ``journal.name``),
  ``externalids`` (``DOI``, ``ArXiv``), ``authors`` [{``authorId``, ``name``}] (S2 author
  ids, ``s2:``-prefixed), ``s2fieldsofstudy`` [{``category``, ``source``}] (the MAG-style
  fields: "Computer Science" …), ``publicationtypes`` (``Conference``, else ``JournalArticle``:
  the venue's type), ``citationcount`` (selection only).
- ``abstracts``: ``corpusid``, ``abstract``; sets the abstract of the paper of that id. An
  abstract whose corpus id the release's ``papers`` dataset lacks is left out and counted
  (it would make a paper with no title): the ids of the papers are read first, 8 bytes a paper.
- ``citations``: ``citingcorpusid``, ``citedcorpusid`` (null when S2 could not resolve the
  reference: skipped), ``contexts`` (the citing sentences), ``intents`` (per context a list
  of ``background`` / ``methodology`` / ``result``, or one flat list in older releases),
  ``isinfluential``. Contexts and intents go onto the CITES edge, so local citation
  recommendation can be built from S2AG directly.

Files are read papers first, then abstracts, then citations, so every edge finds its ends
(a cited paper outside the release becomes an ``:External`` stub, as in every reader).

With a selection (``--field``, ``--since`` …) the ``papers`` shards decide which corpus ids
are in; abstracts of other papers and citations made by them are skipped, while citations
of selected papers *to* papers outside become stubs, as in the OpenAlex reader. The ids
selected are computed once per release and selection and kept as a sorted int64 array
(8 bytes a paper: 15M Computer Science papers take 120 MB).

``--include-referenced`` applies the same rule as for OpenAlex: a first read of the papers
and the ``citations`` shards finds the corpus ids the selected papers cite
(:func:`referenced`); those papers are then admitted too, with their abstracts and their
own citations, whose targets outside selected ∪ referenced stay stubs. It reads the
citations dataset, the largest of the three, once more.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any, overload

from ...errors import CitegraphError
from ...vocabulary import MAG_FIELDS
from ..records import Author, Citation, Item, Paper, Record, Reference, unique_strings
from ..selection import Selection, WorkIds
from ..source import BadField, integer, items, json_objects, objects, strings, text

DATASETS = ("papers", "abstracts", "citations")
PATTERNS = ("*.gz", "*.jsonl", "*.json")
_FIELDS = frozenset(MAG_FIELDS)


def files(path: Path) -> list[Path]:
    """The shards of a release folder in join order (papers, abstracts, citations), or one shard."""
    path = Path(path)
    if path.is_file():
        _dataset(path)
        return [path]
    if not path.is_dir():
        raise CitegraphError(f"{path}: no such file or folder")
    found = sorted(
        {p for pattern in PATTERNS for p in path.rglob(pattern) if p.is_file()},
        key=lambda p: (DATASETS.index(_dataset(p)), str(p)),
    )
    if not found:
        raise CitegraphError(f"{path}: no S2AG shards (papers/, abstracts/, citations/ with *.gz)")
    return found


def _dataset(file: Path) -> str:
    """Which dataset a shard belongs to: the nearest folder named after one."""
    for part in reversed(file.parent.parts):
        if part.lower() in DATASETS:
            return part.lower()
    raise CitegraphError(f"{file}: not under a papers/, abstracts/ or citations/ folder: which S2AG dataset is it?")


def read(file: Path, selection: Selection = Selection()) -> Iterator[Item]:
    if selection.languages:
        raise CitegraphError("S2AG papers carry no language: --language applies to openalex")
    if selection.topics:
        raise CitegraphError("S2AG papers carry no OpenAlex topics: --topic applies to openalex")
    dataset = _dataset(file)
    if dataset == "papers":
        return items(json_objects(file), lambda obj: _paper(obj, selection))
    if dataset == "abstracts":
        return _abstracts(file, _release(file), selection)
    selected = _selected(_release(file), selection) if selection.active else None
    return items(json_objects(file), lambda obj: _citation(obj, selected))


def _release(file: Path) -> Path:
    """The release folder: the parent of the shard's dataset folder."""
    folder = file.parent
    while folder.name.lower() not in DATASETS:
        folder = folder.parent
    return folder.parent


@functools.lru_cache(maxsize=2)
def _selected(release: Path, selection: Selection) -> WorkIds:
    """The corpus ids of the papers the selection admits (all with an empty selection), read
    from the papers shards."""
    shards = [f for f in files(release) if _dataset(f) == "papers"]
    if not shards:
        raise CitegraphError(
            f"{release}: reading abstracts or selecting works needs the papers dataset "
            "(papers/*.gz) beside abstracts/ and citations/"
        )
    return WorkIds(
        int(item.record.id) for shard in shards for item in read(shard, selection) if isinstance(item.record, Paper)
    )


def referenced(paths: list[Path], criteria: Selection) -> WorkIds:
    """The corpus ids the papers ``criteria`` admits cite, from the citations shards of the
    releases of ``paths`` (``--include-referenced``'s first read)."""
    found = WorkIds()
    for release in dict.fromkeys(map(_release, paths)):
        for shard in files(release):
            if _dataset(shard) == "citations":
                found.update(
                    int(item.record.reference.cited_id)
                    for item in read(shard, criteria)
                    if isinstance(item.record, Citation)
                )
    return found


def _in(selected: WorkIds | None, corpus_id: str) -> bool:
    return selected is None or int(corpus_id) in selected


@overload
def _corpus_id(obj: dict[str, Any], field: str) -> str: ...
@overload
def _corpus_id(obj: dict[str, Any], field: str, *, required: bool) -> str | None: ...
def _corpus_id(obj: dict[str, Any], field: str, *, required: bool = True) -> str | None:
    value = integer(obj, field)
    if value is None and required:
        raise BadField(field, "is missing")
    if value is not None and value < 0:
        raise BadField(field, f"expected a corpus id, got {value}")
    return None if value is None else str(value)


def _paper(obj: dict[str, Any], selection: Selection) -> list[Record]:
    corpus_id = _corpus_id(obj, "corpusid")
    year = integer(obj, "year")
    fields = []
    for i, entry in enumerate(objects(obj, "s2fieldsofstudy")):
        if not isinstance(entry, dict):
            raise BadField(f"s2fieldsofstudy[{i}]", "expected an object {category, source}")
        category = text(entry, "category")
        if category in _FIELDS:
            fields.append(category)
    fields = unique_strings(fields)
    kinds = [kind.lower() for kind in strings(obj, "publicationtypes")]
    kind = next((k for k in kinds if k in selection.types), kinds[0] if kinds else None)
    if not selection.admits(
        year=year,
        fields=fields,
        language=None,
        kind=kind,
        retracted=False,
        cited_by=integer(obj, "citationcount"),
        number=int(corpus_id),
    ):
        return []
    external = obj.get("externalids") or {}
    if not isinstance(external, dict):
        raise BadField("externalids", "expected an object {DOI, ArXiv, ...}")
    journal = obj.get("journal")
    authors = []
    for i, author in enumerate(objects(obj, "authors")):
        if not isinstance(author, dict):
            raise BadField(f"authors[{i}]", "expected an object {authorId, name}")
        name = text(author, "name")
        if name:
            given = text(author, "authorId")
            authors.append(Author(f"s2:{given}", name) if given else Author.from_name(name))
    return [
        Paper(
            id=corpus_id,
            title=text(obj, "title"),
            year=year,
            venue=text(obj, "venue") or (text(journal, "name") if isinstance(journal, dict) else None),
            doi=text(external, "DOI"),
            arxiv_id=text(external, "ArXiv"),
            fields=fields,
            authors=tuple(dict.fromkeys(authors)),
            venue_type=_venue_type(kinds),
        )
    ]


#: Why an abstract is left out when the release's papers dataset lacks its paper.
NO_PAPER = "abstracts whose corpus id is not in the papers dataset (left out, not made title-less papers)"


def _venue_type(kinds: list[str]) -> str | None:
    """The venue's type from S2's ``publicationtypes`` (lower case): a paper typed both
    ``Conference`` and ``JournalArticle`` is a conference's (S2 adds the latter to many)."""
    return "conference" if "conference" in kinds else "journal" if "journalarticle" in kinds else None


def _abstracts(file: Path, release: Path, selection: Selection) -> Iterator[Item]:
    """The abstracts of the papers the selection admits from the release's papers dataset;
    one of a corpus id that dataset lacks is left out and counted, an unselected one just left out."""
    known = _selected(release, Selection())
    selected = _selected(release, selection) if selection.active else known
    for item in items(json_objects(file), _abstract):
        paper = item.record
        if isinstance(paper, Paper) and int(paper.id) not in selected:
            yield Item(item.where, left_out=None if int(paper.id) in known else NO_PAPER)
        else:
            yield item


def _abstract(obj: dict[str, Any]) -> list[Record]:
    corpus_id = _corpus_id(obj, "corpusid")
    body = text(obj, "abstract")
    return [Paper(id=corpus_id, abstract=body)] if body else []


def _intents(obj: dict[str, Any]) -> tuple[str, ...]:
    """Intents flattened: per-context lists ([["methodology"], []]) or one flat list."""
    value = obj.get("intents")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise BadField("intents", "expected a list")
    flat = []
    for i, entry in enumerate(value):
        for label in entry if isinstance(entry, list) else [entry]:
            if not isinstance(label, str):
                raise BadField(f"intents[{i}]", "expected strings")
            flat.append(label.strip().lower())
    return unique_strings(label for label in flat if label)


def _citation(obj: dict[str, Any], selected: WorkIds | None) -> list[Record]:
    citing = _corpus_id(obj, "citingcorpusid")
    cited = _corpus_id(obj, "citedcorpusid", required=False)
    if cited is None or cited == citing or not _in(selected, citing):
        return []
    contexts = strings(obj, "contexts")
    return [
        Citation(
            citing,
            Reference(cited, contexts, (), len(contexts) or None, _intents(obj), obj.get("isinfluential") is True),
        )
    ]
