"""Scoring retrievers on MDCR (Medić & Šnajder 2022, Tables 3 and 4).

Reads ``mdcr_<split>.json`` and ``mdcr_<split>_data.jsonl`` — citegraph's own output or
the official release, which share the format — indexes the benchmark's documents for
each model under a work folder, and ranks each query's candidates (its positives and all
negatives). **Table 3**: MAP, nDCG and R@5 per field and their average over fields.
**Table 4**: each candidate type alone with the positives, MAP averaged over all queries:
which kind of negative each model finds hard. With ``official_release`` (``--official-release``:
said, never guessed from what the folder lacks), the published SciNCL test averages are
printed beside ours and the split's files are fingerprinted (:func:`fingerprint`) in the
results, so that a reader can check which files the claim was made of.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from ...errors import CitegraphError
from ...retrieval.base import Document, Retriever
from ..harness import Log, Scores, Topics, quiet, score_topics
from ..report import Table
from .build import TRUE

MEASURES = ("MAP", "nDCG", "R@5")
PUBLISHED_SCINCL_TEST = {"MAP": 0.3257, "nDCG": 0.5893, "R@5": 0.2727}  # Medić & Šnajder 2022, Table 3


def split_files(directory: Path, split: str) -> list[Path]:
    """The two files of one split: its candidate sets and its documents."""
    return [Path(directory) / f"mdcr_{split}.json", Path(directory) / f"mdcr_{split}_data.jsonl"]


def fingerprint(directory: Path, split: str) -> dict[str, dict[str, int | str]]:
    """Each file of the split by name: its size in bytes and SHA-256 (as pyserini's 2CR pins its inputs)."""
    prints: dict[str, dict[str, int | str]] = {}
    for path in split_files(directory, split):
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        prints[path.name] = {"bytes": path.stat().st_size, "sha256": digest.hexdigest()}
    return prints


def read_benchmark(directory: Path, split: str) -> tuple[dict, dict[str, Document]]:
    """The candidate sets and the documents of one split."""
    files = split_files(directory, split)
    for path in files:
        if not path.is_file():
            raise CitegraphError(
                f"{path} is missing (an MDCR folder holds mdcr_<split>.json and mdcr_<split>_data.jsonl)"
            )
    benchmark = json.loads(files[0].read_text(encoding="utf-8"))
    docs = {}
    with open(files[1], encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if line.strip():
                try:
                    row = json.loads(line)
                    docs[str(row["id"])] = Document(str(row["id"]), row.get("title") or "", row.get("abstract") or "")
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise CitegraphError(f"{files[1]}:{number}: expected {{id, title, abstract}} ({exc})") from None
    missing = {
        p
        for f in benchmark.values()
        for q, types in f.items()
        for p in [q, *(c for ids in types.values() for c in ids)]
        if p not in docs
    }
    if missing:
        raise CitegraphError(f"{files[1]} lacks the text of {len(missing)} paper(s), e.g. {sorted(missing)[:3]}")
    return benchmark, docs


@dataclass(frozen=True)
class MDCR:
    """One split of an MDCR folder as a benchmark: Tables 3 and 4."""

    directory: Path
    split: str = "test"
    official_release: bool = False  # the caller says the folder is the published release
    name: str = "mdcr"

    @cached_property
    def release(self) -> tuple[dict, dict[str, Document]]:
        """The split's queries and documents, read once (indexing and scoring both need them)."""
        return read_benchmark(self.directory, self.split)

    def documents(self) -> list[Document]:
        """The documents retrievers are indexed over."""
        return list(self.release[1].values())

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        directory, split = Path(self.directory), self.split
        benchmark, docs = self.release
        fields = [name for name, queries in benchmark.items() if queries]
        types = sorted({t for f in benchmark.values() for ts in f.values() for t in ts if t != TRUE})
        per_field = {
            m: Table(
                f"{m}: MDCR {split} per field (Table 3)",
                [*fields, "AVG"],
                figure="bar",
                name=f"mdcr-{split}-{m.replace('@', '_at_')}-per-field",
            )
            for m in MEASURES
        }
        per_type = Table(
            f"MAP: MDCR {split}, positives with one candidate type (Table 4)",
            types,
            figure="heatmap",
            name=f"mdcr-{split}-map-per-type",
        )
        per_query: dict = {}
        for retriever in retrievers:
            per_query[retriever.name] = {}
            for name in fields:
                queries = benchmark[name]
                qrels = {q: {c: int(t == TRUE) for t, ids in ts.items() for c in ids} for q, ts in queries.items()}
                result = _score(retriever, docs, queries, qrels, lambda ts: {c for ids in ts.values() for c in ids})
                per_query[retriever.name][name] = result.per_query
                for measure in MEASURES:
                    per_field[measure].set(retriever.name, name, result.mean[measure])
            for table in per_field.values():
                table.set(retriever.name, "AVG", sum(table.rows[retriever.name][f][0] for f in fields) / len(fields))
            for kind in types:
                values = []
                for queries in (benchmark[name] for name in fields):
                    qrels = {
                        q: {c: int(t == TRUE) for t in (TRUE, kind) for c in ts.get(t, [])} for q, ts in queries.items()
                    }
                    result = _score(
                        retriever, docs, queries, qrels, lambda ts, kind=kind: {*ts[TRUE], *ts.get(kind, [])}
                    )
                    values += [result.per_query["MAP"][q] for q in result.queries]
                per_type.set(retriever.name, kind, sum(values) / len(values) if values else 0.0)
        if self.official_release and split == "test":
            for measure, value in PUBLISHED_SCINCL_TEST.items():
                per_field[measure].set("SciNCL (published)", "AVG", value)
        config = {
            "benchmark": str(directory),
            "split": split,
            "official_release": self.official_release,
            "models": [r.name for r in retrievers],
            "measures": list(MEASURES),
        }
        if self.official_release:
            config["release_files"] = fingerprint(directory, split)
        return Scores([*per_field.values(), per_type], config, per_query)


def _score(retriever: Retriever, docs: dict[str, Document], queries: dict, qrels: dict, pool_of):
    """The queries of one field, each ranking its candidates (the largest candidate set asked for)."""
    pools = [pool_of(ts) for ts in queries.values()]
    topics = Topics({q: docs[q] for q in queries}, qrels, pools)
    return score_topics(retriever, topics, MEASURES, max(len(p) for p in pools))
