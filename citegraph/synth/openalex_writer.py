"""A synthetic corpus written as an OpenAlex works snapshot, as ``citegraph ingest openalex``
reads a real one (ingest benchmarks of that reader at any size), each work with its topics
in OpenAlex's topic tree (domain → field → subfield → topic)."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

from ..vocabulary import MAG_FIELDS
from .generator import Generator
from .layout import FIELD_CATEGORIES
from .lexicon import Lexicon, capitalise
from .recipe import Plan, SynthSpec, SynthStats

# OpenAlex's four topic domains, and the one each MAG field's synthetic OpenAlex topic field
# (named like the MAG field, numbered 11 + its MAG position) falls under.
_DOMAINS = {1: "Life Sciences", 2: "Social Sciences", 3: "Physical Sciences", 4: "Health Sciences"}
_DOMAIN_OF = {
    "Art": 2,
    "Biology": 1,
    "Business": 2,
    "Chemistry": 3,
    "Computer Science": 3,
    "Economics": 2,
    "Engineering": 3,
    "Environmental Science": 3,
    "Geography": 2,
    "Geology": 3,
    "History": 2,
    "Materials Science": 3,
    "Mathematics": 3,
    "Medicine": 4,
    "Philosophy": 2,
    "Physics": 3,
    "Political Science": 2,
    "Psychology": 2,
    "Sociology": 2,
}
_SECOND_TOPIC_SCORE, _PRIMARY_TOPIC_SCORE = 0.4, 0.95


def openalex_topic(plan: Plan, lexicon: Lexicon, topic: int) -> dict[str, Any]:
    """A synthetic topic as an OpenAlex Topic object of a work (without its score): id
    ``T``10000+topic, named by its two most frequent terms; its subfield is its field's
    arXiv category (``subfields/1702`` is the second category of field 17, as OpenAlex
    numbers subfields within fields), its field named like its MAG home field."""
    home = plan.topics[topic]
    field = 11 + MAG_FIELDS.index(home.field)
    subfield = field * 100 + 1 + FIELD_CATEGORIES[home.field].index(home.categories[0])
    domain = _DOMAIN_OF[home.field]
    return {
        "id": f"https://openalex.org/T{10000 + topic}",
        "display_name": " ".join(map(capitalise, lexicon.topic_words(topic, 2))),
        "subfield": {"id": f"https://openalex.org/subfields/{subfield}", "display_name": home.categories[0]},
        "field": {"id": f"https://openalex.org/fields/{field}", "display_name": home.field},
        "domain": {"id": f"https://openalex.org/domains/{domain}", "display_name": _DOMAINS[domain]},
    }


def openalex_work(record: dict[str, Any], topics: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """An S2ORC-form synthetic record as an OpenAlex Work (the fields citegraph's reader uses,
    in the snapshot's shape): ids ``W…``, the abstract as an inverted index, level-0 concepts,
    and ``topics`` (Topic objects with scores, the first the primary one)."""

    def work_id(s_id: str) -> str:
        return "https://openalex.org/W" + s_id[1:]

    index: dict[str, list[int]] = {}
    for position, word in enumerate(record["abstract"].split()):
        index.setdefault(word, []).append(position)
    source: dict[str, Any] = {"id": None, "display_name": record["venue"], "type": "journal"}
    locations: list[dict[str, Any]] = [{"is_oa": False, "landing_page_url": None, "pdf_url": None, "source": source}]
    if record["arxiv_id"]:
        locations.append(
            {
                "is_oa": True,
                "landing_page_url": f"https://arxiv.org/abs/{record['arxiv_id']}",
                "pdf_url": None,
                "source": {"display_name": "arXiv (Cornell University)", "type": "repository"},
            }
        )
    names = [" ".join(filter(None, [a["first"], *a["middle"], a["last"]])) for a in record["authors"]]
    return {
        "id": work_id(record["paper_id"]),
        "doi": None,
        "title": record["title"],
        "display_name": record["title"],
        "publication_year": record["year"],
        "publication_date": f"{record['year']}-01-01",
        "type": "article",
        "language": "en",
        "is_retracted": False,
        "cited_by_count": 0,
        "authorships": [
            {
                "author_position": "first" if i == 0 else "middle",
                "author": {"id": None, "display_name": name},
                "raw_author_name": name,
            }
            for i, name in enumerate(names)
        ],
        "primary_location": locations[0],
        "locations": locations,
        "concepts": [
            {"display_name": field[0] + field[1:].lower(), "level": 0, "score": 0.5}
            for field in record["mag_field_of_study"]
        ],
        "referenced_works": [work_id(r) for r in record["outbound_citations"]],
        "abstract_inverted_index": index,
        "topics": list(topics),
        "primary_topic": topics[0] if topics else None,
    }


def generate_openalex(spec: SynthSpec, out: Path, part_size: int = 100_000) -> SynthStats:
    """Write the corpus as an OpenAlex works snapshot under ``out``: one ``updated_date``
    partition of gzipped JSON-lines parts and its manifest, as ``citegraph ingest openalex``
    reads a real one. ``spec.contexts`` must be off (OpenAlex has no citation contexts).
    Each work's primary topic is its hidden topic (:func:`openalex_topic`), scored 0.95;
    the topic numbered next is its second, scored 0.4, so every topic node has works."""
    if spec.contexts:
        raise ValueError("OpenAlex works carry no citation contexts: generate without contexts")
    started = time.perf_counter()
    partition = Path(out) / "data" / "works" / f"updated_date={spec.end_year + 1}-01-01"
    partition.mkdir(parents=True, exist_ok=True)
    encode = json.JSONEncoder(separators=(",", ":"), check_circular=False, ensure_ascii=False).encode
    papers = citations = size = 0
    entries: list[dict[str, Any]] = []
    part = None
    generator = Generator(spec)
    tree = [openalex_topic(generator.plan, generator.lexicon, t) for t in range(spec.topics)]
    try:
        for i, record in enumerate(generator.records()):
            own = int(generator.plan.topic[i])
            topics = (
                {**tree[own], "score": _PRIMARY_TOPIC_SCORE},
                *([{**tree[(own + 1) % spec.topics], "score": _SECOND_TOPIC_SCORE}] if spec.topics > 1 else []),
            )
            if papers % part_size == 0:
                if part is not None:
                    part.close()
                name = f"part_{papers // part_size:03d}.gz"
                part = gzip.open(partition / name, "wt", encoding="utf-8", compresslevel=1)
                entries.append(
                    {"url": f"s3://openalex/data/works/{partition.name}/{name}", "meta": {"record_count": 0}}
                )
            line = encode(openalex_work(record, topics)) + "\n"
            assert part is not None  # the first paper opened one
            part.write(line)
            entries[-1]["meta"]["record_count"] += 1
            size += len(line)
            papers += 1
            citations += len(record["outbound_citations"])
    finally:
        if part is not None:
            part.close()
    (partition.parent / "manifest").write_text(json.dumps({"entries": entries}, indent=1), encoding="utf-8")
    return SynthStats(papers, citations, size, time.perf_counter() - started)
