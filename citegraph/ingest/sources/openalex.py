"""OpenAlex works snapshot: gzipped JSON Lines, one work per line, partitioned by date.

The layout (https://docs.openalex.org/download-all-data/snapshot-data-format):
``data/works/updated_date=YYYY-MM-DD/part_NNN.gz`` plus ``data/works/manifest`` (Redshift
manifest JSON: ``{"entries": [{"url": "s3://openalex/data/works/…/part_000.gz", "meta":
{"record_count": …}}]}``). A path may be the snapshot's ``works`` folder (or any folder
above the partitions), a manifest, or single files. A manifest's URLs name files under its
own folder only (``../`` is refused), and a part it lists must hold the ``record_count``
works it gives: one that holds fewer or more (cut short, empty) is bad input at the line
after its last, which stops the ingest or, with ``--skip-bad``, is listed with the rejects. Partitions are read oldest first, so a
work updated later overwrites its earlier state.

Fields used (the Work object, https://docs.openalex.org/api-entities/works/work-object):
``id`` (``https://openalex.org/W…``: the short ``W…`` is the paper id), ``doi`` (the
``https://doi.org/`` prefix dropped), ``title`` (else ``display_name``),
``publication_year``, ``abstract_inverted_index`` (the abstract is rebuilt from word
positions: OpenAlex ships no plain text), ``referenced_works`` (→ CITES),
``authorships[].author`` (→ Author with the OpenAlex ``A…`` id, WROTE in list order),
``primary_location.source.display_name`` (venue; its ``type`` ``journal`` or
``conference`` as the venue's type), arXiv ids from ``locations`` (arxiv.org
landing pages or ``10.48550/arXiv.*`` DOIs), and level-0 ``concepts`` (the 19 MAG fields,
named in OpenAlex's casing: "Computer science" → "Computer Science").
``topics`` and ``primary_topic`` (the Topic object,
https://docs.openalex.org/api-entities/topics/topic-object: ``id``, ``display_name``,
``score``, and its ``subfield``, ``field`` and ``domain`` as ``{id, display_name}``) become
:class:`~citegraph.ingest.records.TopicLink` s, the tree OpenAlex's own (domain → field →
subfield → topic, :mod:`citegraph.ingest.topics`): not the MAG fields, though several
topic fields share a MAG field's name (``Computer Science``, ``Medicine``…). The ids of
the levels above a topic are numbers in the Topic object (``"field": {"id": 17}``) and URLs
in works (``https://openalex.org/fields/17``); both read as ``fields/17``.
``is_retracted`` is kept as ``retracted``; ``type``, ``language`` and ``cited_by_count``
serve the selection (:class:`citegraph.ingest.selection.Selection`) only. With
``--include-referenced`` the works the selected works reference are found by a first read
of all the files (:func:`referenced`; ids held as integers, 8 bytes each).

**Updates.** Each partition holds the works that changed on its date, whole; a work is read
as a :class:`~citegraph.ingest.records.SnapshotPaper`, so reading a newer partition into a
graph replaces the older state of its works (references added *and removed*). Merged ids
(``data/merged_ids/works/<date>.csv.gz``: ``merge_date,id,merge_into_id``) are read after the
works when the path holds them (give the snapshot's ``data`` folder): citations of a merged
work move to the work it was merged into. Which partitions a graph holds is in its ingest
checkpoints (``citegraph stats`` prints the newest ``updated_date``).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...errors import CitegraphError, Location, Problem
from ...vocabulary import MAG_FIELDS, VENUE_TYPES
from ..records import Author, Item, MergedId, Reference, SnapshotPaper, Topic, TopicLevel, TopicLink, unique_strings
from ..selection import Selection, WorkIds, topic_key
from ..source import BadField, integer, items, json_failure, json_objects, nfc, objects, strings, table, text

PATTERNS = ("*.gz", "*.jsonl", "*.jsonl.gz")
_ENTITY = re.compile(r"^(?:https?://openalex\.org/)?([WASICTP]\d+)$", re.IGNORECASE)
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.IGNORECASE)
_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/([^?#\s]+?)(?:v\d+)?(?:\.pdf)?$|^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_MAG_BY_CASEFOLD = {name.casefold(): name for name in MAG_FIELDS}
_TREE_ID = re.compile(r"^(?:https?://openalex\.org/)?(?:(domains|fields|subfields)/)?(\d+)$", re.IGNORECASE)
_ABOVE_TOPIC: tuple[TopicLevel, ...] = ("domain", "field", "subfield")  # top first


def files(path: Path) -> list[Path]:
    """The data files of a folder, a manifest, or a single file: works partitions oldest
    first, then merged ids by date."""
    path = Path(path)
    if path.is_file() and _is_manifest(path):
        return _manifest_files(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CitegraphError(f"{path}: no such file or folder")
    found = sorted(
        {p for pattern in PATTERNS for p in path.rglob(pattern) if p.is_file()},
        key=lambda p: (_is_merges(p), _partition(p), str(p)),
    )
    if not found:
        raise CitegraphError(f"{path}: no OpenAlex works files (updated_date=*/part_*.gz)")
    return found


def read(file: Path, selection: Selection = Selection()) -> Iterator[Item]:
    if _is_merges(file):
        return items(table(file, MERGED_COLUMNS, {}), _merged)
    return items(_counted(file, json_objects(file)), lambda work: parse(work, selection))


def referenced(files: list[Path], criteria: Selection) -> WorkIds:
    """The works the works ``criteria`` admits reference (``--include-referenced``'s first
    read). A bad line adds nothing: the ingest's own read reports it."""
    found = WorkIds()
    for file in files:
        if not _is_merges(file):
            for item in read(file, criteria):
                if isinstance(item.record, SnapshotPaper):
                    found.update(n for ref in item.record.references if (n := _number(ref.cited_id)) is not None)
    return found


def _number(work_id: str) -> int | None:
    """A work's id as WorkIds holds it (``W123`` → 123; an id of another entity: None)."""
    return int(work_id[1:]) if work_id.startswith("W") else None


MERGED_COLUMNS = ["merge_date", "id", "merge_into_id"]


def _is_merges(path: Path) -> bool:
    return "merged_ids" in path.parts


def _merged(row: dict[str, str]) -> list[MergedId]:
    return [MergedId(short_id(row["id"], "id"), short_id(row["merge_into_id"], "merge_into_id"))]


def _partition(path: Path) -> str:
    """The ``updated_date`` of a partition file ('' outside one), for reading in date order."""
    for part in path.parts:
        if part.startswith("updated_date="):
            return part.partition("=")[2]
    return ""


def _is_manifest(path: Path) -> bool:
    return path.name == "manifest" or path.name.endswith("manifest.json")


def _manifest_files(manifest: Path) -> list[Path]:
    """The files a manifest lists, found under the manifest's folder (its URLs name the bucket)."""
    listed = _manifest(manifest)
    for local, (url, _) in listed.items():
        if not local.is_file():
            raise CitegraphError(f"{manifest}: lists {url[:200]}, but {local} is missing (download incomplete?)")
    return sorted(listed, key=lambda p: (_partition(p), str(p)))


def _manifest(manifest: Path) -> dict[Path, tuple[str, int | None]]:
    """Each file a manifest lists, with its URL and the works the manifest says it holds: the
    URL's path after ``/works/`` (else its file name) under the manifest's folder, never outside it."""
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))["entries"]
        listed = [(entry["url"], (entry.get("meta") or {}).get("record_count")) for entry in entries]
    except (ValueError, RecursionError) as exc:
        raise CitegraphError(f"{manifest}: not an OpenAlex manifest ({json_failure(exc)})") from None
    except (OSError, KeyError, TypeError, AttributeError) as exc:
        raise CitegraphError(f"{manifest}: not an OpenAlex manifest ({type(exc).__name__}: {exc})"[:300]) from None
    folder = _normal(manifest.parent)
    found = {}
    for url, count in listed:
        if (
            not isinstance(url, str)
            or count is not None
            and (isinstance(count, bool) or not isinstance(count, int) or count < 0)
        ):
            raise CitegraphError(
                f"{manifest}: not an OpenAlex manifest (an entry {url!r:.80} with record_count {count!r:.40})"
            )
        tail = url.split("/works/", 1)[-1] if "/works/" in url else url.rsplit("/", 1)[-1]
        local = _normal(folder / tail)
        if not local.is_relative_to(folder) or local == folder:
            raise CitegraphError(f"{manifest}: lists {url[:200]}, which is outside the snapshot folder {folder}")
        found[local] = (url, count)
    return found


def _normal(path: Path) -> Path:
    """``path`` absolute, without ``.`` and ``..`` (symbolic links are the user's to place)."""
    return Path(os.path.normpath(path.absolute()))


def _listed_count(file: Path) -> tuple[Path, int] | None:
    """The snapshot manifest (``works/manifest``) listing ``file`` and the works it says the
    file holds; None when there is none, it does not list the file or gives no count."""
    file = _normal(file)
    for manifest in (file.parent.parent / "manifest", file.parent / "manifest"):
        if manifest.is_file():
            _, count = _manifest(manifest).get(file, (None, None))
            return None if count is None else (manifest, count)
    return None


def _counted(file: Path, located: Iterator[tuple[Location, Any]]) -> Iterator[tuple[Location, Any]]:
    """``located`` values, then a Problem if the part holds another number of works than its
    manifest lists (a part cut short, or empty): an ingest stops, or with ``--skip-bad`` lists it."""
    listed = _listed_count(file)
    read = last = 0
    for where, value in located:
        read += 1
        last = where.line
        yield where, value
    if listed and read != listed[1]:
        where = Location(file, last + 1)
        yield (
            where,
            Problem(
                where, None, f"{read:,} works in the file, but {listed[0]} lists {listed[1]:,} (download incomplete?)"
            ),
        )


def short_id(value: str, field: str) -> str:
    """``https://openalex.org/W123`` → ``W123`` (the ids a user sees in OpenAlex's own URLs)."""
    match = _ENTITY.match(value.strip())
    if not match:
        raise BadField(field, f"expected an OpenAlex id like https://openalex.org/W123, got {value[:80]!r}")
    return match.group(1).upper()


def abstract(index: Any) -> str | None:
    """The abstract rebuilt from ``{word: [positions]}``; a word at several positions recurs."""
    if index is None:
        return None
    if not isinstance(index, dict):
        raise BadField("abstract_inverted_index", "expected an object {word: [positions]}")
    placed: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(positions, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in positions
        ):
            raise BadField(f"abstract_inverted_index.{word[:40]}", "expected a list of non-negative positions")
        for position in positions:
            placed[position] = word
    words = [placed[p] for p in sorted(placed)]
    return nfc(" ".join(words)) if words else None


def _doi(value: str | None) -> str | None:
    return _DOI.sub("", value).strip() or None if value else None


def _arxiv_id(work: dict[str, Any], doi: str | None) -> str | None:
    candidates = [doi or ""]
    for location in objects(work, "locations"):
        if isinstance(location, dict):
            candidates += [location.get(key) or "" for key in ("landing_page_url", "pdf_url")]
    for candidate in candidates:
        match = _ARXIV.search(candidate) if isinstance(candidate, str) else None
        if match:
            return match.group(1) or match.group(2)
    return None


def _authors(work: dict[str, Any]) -> tuple[Author, ...]:
    authors = []
    for i, authorship in enumerate(objects(work, "authorships")):
        author = authorship.get("author") if isinstance(authorship, dict) else None
        if not isinstance(author, dict):
            raise BadField(f"authorships[{i}].author", "expected an object {id, display_name}")
        name = text(author, "display_name") or text(authorship, "raw_author_name")
        if not name:
            continue
        given = text(author, "id")
        authors.append(
            Author(short_id(given, f"authorships[{i}].author.id"), name) if given else Author.from_name(name)
        )
    return tuple(dict.fromkeys(authors))


def _fields(work: dict[str, Any]) -> tuple[str, ...]:
    names = []
    for i, concept in enumerate(objects(work, "concepts")):
        if not isinstance(concept, dict):
            raise BadField(f"concepts[{i}]", "expected an object {display_name, level}")
        if concept.get("level") == 0:
            name = _MAG_BY_CASEFOLD.get((text(concept, "display_name") or "").casefold())
            if name:
                names.append(name)
    return unique_strings(names)


def _tree_id(value: Any, level: str, field: str) -> str:
    """A domain's, field's or subfield's id: ``17``, ``"17"``, ``https://openalex.org/fields/17`` → ``fields/17``."""
    given = isinstance(value, (str, int)) and not isinstance(value, bool)
    match = _TREE_ID.match(str(value).strip()) if given else None
    if not match or match.group(1) and match.group(1).lower() != f"{level}s":
        raise BadField(field, f"expected a {level} id like https://openalex.org/{level}s/17, got {value!r}"[:200])
    return f"{level}s/{int(match.group(2))}"


def _name(node: dict[str, Any], field: str) -> str | None:
    try:
        return text(node, "display_name")
    except BadField as bad:
        raise BadField(f"{field}.display_name", bad.reason) from None


def _score(topic: dict[str, Any], field: str) -> float | None:
    value = topic.get("score")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BadField(f"{field}.score", f"expected a number, got {value!r}"[:200])
    return float(value)


def _topic(topic: Any, field: str) -> TopicLink:
    """One Topic object of a work (primary or not; ``primary`` is set by the caller)."""
    if not isinstance(topic, dict):
        raise BadField(field, "expected an object {id, display_name, score, subfield, field, domain}")
    lineage: list[Topic] = []
    for level in _ABOVE_TOPIC:
        node = topic.get(level)
        if node is None:  # a level left out: the one below hangs from the one above
            continue
        if not isinstance(node, dict):
            raise BadField(f"{field}.{level}", "expected an object {id, display_name}")
        where = f"{field}.{level}"
        lineage.append(
            Topic(
                _tree_id(node.get("id"), level, f"{where}.id"),
                _name(node, where),
                level,
                lineage[-1].id if lineage else None,
            )
        )
    given = topic.get("id")
    topic_id = short_id(given, f"{field}.id") if isinstance(given, str) else None
    if topic_id is None or not topic_id.startswith("T"):
        raise BadField(f"{field}.id", f"expected a topic id like https://openalex.org/T10181, got {given!r}"[:200])
    lineage.append(Topic(topic_id, _name(topic, field), "topic", lineage[-1].id if lineage else None))
    return TopicLink(tuple(lineage), _score(topic, field), False)


def _topics(work: dict[str, Any]) -> tuple[TopicLink, ...]:
    """``topics`` (a topic listed twice counts once), with ``primary_topic`` marked; a primary
    topic missing from ``topics`` is linked too."""
    links: dict[str, TopicLink] = {}
    for i, topic in enumerate(objects(work, "topics")):
        link = _topic(topic, f"topics[{i}]")
        links.setdefault(link.topic_id, link)
    if work.get("primary_topic") is not None:
        primary = _topic(work["primary_topic"], "primary_topic")
        links[primary.topic_id] = replace(links.get(primary.topic_id, primary), primary=True)
    return tuple(links.values())


def _topic_keys(links: tuple[TopicLink, ...]) -> set[str]:
    """What ``--topic`` matches a work by: the ids and names of every node on its topics' paths."""
    return {topic_key(value) for link in links for node in link.lineage for value in (node.id, node.name) if value}


def _source(work: dict[str, Any]) -> dict[str, Any]:
    location = work.get("primary_location")
    source = location.get("source") if isinstance(location, dict) else None
    return source if isinstance(source, dict) else {}


def _venue_type(work: dict[str, Any]) -> str | None:
    """The source's type where it is one of :data:`VENUE_TYPES` (not a repository, a book series …)."""
    kind = text(_source(work), "type")
    return kind if kind in VENUE_TYPES else None


def parse(work: dict[str, Any], selection: Selection = Selection()) -> list[SnapshotPaper]:
    """One work as a Paper, or nothing when the selection leaves it out (a work it
    references counts as selected, whatever its own properties)."""
    paper_id = short_id(text(work, "id", required=True), "id")
    year = integer(work, "publication_year")
    fields = _fields(work)
    topics = _topics(work)
    if not selection.admits(
        year=year,
        fields=fields,
        language=text(work, "language"),
        kind=text(work, "type"),
        retracted=work.get("is_retracted") is True,
        cited_by=integer(work, "cited_by_count"),
        topics=_topic_keys(topics) if selection.topics else (),
        number=_number(paper_id),
    ):
        return []
    doi = _doi(text(work, "doi"))
    references = unique_strings(
        short_id(w, f"referenced_works[{i}]") for i, w in enumerate(strings(work, "referenced_works"))
    )
    return [
        SnapshotPaper(
            id=paper_id,
            title=text(work, "title") or text(work, "display_name"),
            abstract=abstract(work.get("abstract_inverted_index")),
            year=year,
            venue=text(_source(work), "display_name"),
            venue_type=_venue_type(work),
            doi=doi,
            arxiv_id=_arxiv_id(work, doi),
            fields=fields,
            topics=topics,
            authors=_authors(work),
            references=tuple(Reference(cited) for cited in references if cited != paper_id),
            retracted=True if work.get("is_retracted") is True else None,
        )
    ]
