"""Growing a graph from seed works: their references, the works citing them, hop after hop,
and the sentences that cite them — fetched, then written by the ingest that reads snapshots.

**Choosing** (:func:`gather`). Each hop starts from the works the last one added (the seeds
first): every work they reference that the graph-to-be lacks is fetched (50 ids a request),
and with ``cited_by`` up to the hop's budget of the works citing each of them, most cited
first (OpenAlex sorts); of all these, the most cited (then the newest, then by id) are
added, as many as ``max_works`` leaves room for. Works referenced but not added stay
citation ends (``:External`` stubs), as in a snapshot.

**Contexts** (``contexts``): for every work whose citing works were asked for, Semantic
Scholar's citations of it (by DOI, else arXiv id) with their ``contexts`` and ``intents``;
a citing paper is found among the added works by its DOI or arXiv id, and its contexts are
kept only for a citation OpenAlex lists too (a later restatement of the citing work would
remove any other). Each sentence has the cited paper's author-year citation (or its lone
numeric marker) replaced by ``[CIT]`` exactly as ScisummNet's are
(:func:`citegraph.ingest.sources.scisummnet.mark`), so the contexts signal reads them alike.

**Writing** (:func:`stage`, :func:`write`). The works are written to a JSON Lines file of
Work objects — what a snapshot partition holds — and the contexts to one in citegraph's
generic format (a citing paper's references with their contexts), both named by their
content's digest under ``grow/`` in the data folder; then the ingest pipeline reads them
with the ``openalex`` and ``jsonl`` readers: batched transactions, a checkpoint per batch.
Run again, the same answers (from the cache) make the same files, which their checkpoints
mark done: nothing is asked, nothing written. Killed while writing, the run resumes after
the last committed batch.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..batches import batched
from ..ingest.source import BadField
from ..ingest.sources.openalex import parse, short_id
from ..ingest.sources.scisummnet import cited_surname, mark
from .openalex_api import OR_VALUES, OpenAlex
from .remote import RemoteError
from .s2_api import SemanticScholar

if TYPE_CHECKING:  # the driver loads with the first store
    from ..graph import GraphStore
    from ..ingest.pipeline import IngestSummary, Progress


@dataclass(frozen=True, slots=True)
class GrowOptions:
    hops: int = 1
    cited_by: bool = False
    contexts: bool = False
    max_works: int = 500  # works added, seeds included
    concurrency: int = 4  # requests in flight at once (each API's rate still holds)


@dataclass(frozen=True, slots=True)
class Context:
    """What Semantic Scholar says of one citation: its sentences (marked), intents, weight."""

    contexts: tuple[str, ...]
    intents: tuple[str, ...]
    influential: bool


@dataclass
class Gathered:
    works: dict[str, dict[str, Any]] = field(default_factory=dict)  # W id → Work object
    seeds: list[str] = field(default_factory=list)
    references: int = 0  # works added as references
    citing: int = 0  # works added as citing works
    contexts: dict[tuple[str, str], Context] = field(default_factory=dict)  # (citing, cited) → what S2 says
    #: S2 citations with sentences left out, by why
    contexts_left: Counter = field(default_factory=Counter)


def work_id(work: dict[str, Any]) -> str:
    try:
        return short_id(str(work.get("id", "")), "id")
    except BadField as bad:
        raise RemoteError(f"OpenAlex answered a work whose id is not one: {bad.reason}") from None


def gather(seeds: list[dict[str, Any]], openalex: OpenAlex, s2: SemanticScholar, options: GrowOptions) -> Gathered:
    """The works to add from ``seeds`` (OpenAlex Work objects) and, with ``contexts``, their citing sentences."""
    found = Gathered()
    for work in seeds:
        found.works.setdefault(work_id(work), work)
    found.seeds = list(found.works)
    frontier, asked_citing = list(found.works), []
    with ThreadPoolExecutor(options.concurrency) as pool:
        for _ in range(options.hops):
            budget = options.max_works - len(found.works)
            if budget <= 0 or not frontier:
                break
            candidates: dict[str, tuple[dict[str, Any], str]] = {}
            for page in pool.map(openalex.works, batched(_referenced(found.works, frontier), OR_VALUES)):
                for work in page:
                    candidates.setdefault(work_id(work), (work, "reference"))
            if options.cited_by:
                for page in pool.map(partial(_citing, openalex, budget), frontier):
                    for work in page:
                        if work_id(work) not in found.works:
                            candidates.setdefault(work_id(work), (work, "citing"))
                asked_citing += frontier
            chosen = sorted(candidates.items(), key=lambda kv: _precedence(kv[0], kv[1][0]))[:budget]
            for wid, (work, kind) in chosen:
                found.works[wid] = work
                found.references += kind == "reference"
                found.citing += kind == "citing"
            frontier = [wid for wid, _ in chosen]
        if options.contexts:
            _contexts(found, asked_citing, s2, pool)
    return found


def _citing(openalex: OpenAlex, limit: int, cited: str) -> list[dict[str, Any]]:
    return openalex.citing(cited, limit)


def _referenced(works: dict[str, dict[str, Any]], frontier: list[str]) -> list[str]:
    """The works the frontier references that ``works`` lacks, the most referenced first, then by id."""
    counts: Counter = Counter()
    for wid in frontier:
        refs = works[wid].get("referenced_works") or []
        for ref in dict.fromkeys(r for r in refs if isinstance(r, str)):
            try:
                counts[short_id(ref, "referenced_works")] += 1
            except BadField:
                continue  # the reader reports it, with the line, when it writes the citing work
    return sorted((w for w in counts if w not in works), key=lambda w: (-counts[w], _number(w)))


def _precedence(wid: str, work: dict[str, Any]) -> tuple[int, int, int]:
    """Most cited first, then the newest, then by id."""
    cited, year = work.get("cited_by_count"), work.get("publication_year")
    return (-cited if isinstance(cited, int) else 0, -year if isinstance(year, int) else 0, _number(wid))


def _number(wid: str) -> int:
    return int(wid[1:]) if wid[1:].isdigit() else 0


def _contexts(found: Gathered, cited_ids: list[str], s2: SemanticScholar, pool: ThreadPoolExecutor) -> None:
    papers = {}
    for wid, work in found.works.items():
        try:
            papers[wid] = parse(work)[0]
        except BadField:
            continue  # the reader reports it, with the line, when it writes the work
    by_doi = {p.doi.lower(): wid for wid, p in papers.items() if p.doi}
    by_arxiv = {p.arxiv_id.lower(): wid for wid, p in papers.items() if p.arxiv_id}
    keyed = [(wid, _s2_key(papers[wid])) for wid in dict.fromkeys(cited_ids) if wid in papers]
    found.contexts_left["cited work with no DOI or arXiv id"] += sum(key is None for _, key in keyed)
    asked = [(wid, key) for wid, key in keyed if key]
    for (cited, _), citations in zip(asked, pool.map(lambda k: s2.citations(k[1]), asked)):
        kept: dict[str, tuple[list[str], list[str], bool]] = {}
        for citation in citations:
            sentences = [s for s in citation.get("contexts") or [] if isinstance(s, str) and s.strip()]
            if not sentences:
                continue
            citing = _citing_work(citation.get("citingPaper"), by_doi, by_arxiv)
            if citing is None:
                found.contexts_left["citing paper not among the works"] += 1
            elif not any(ref.cited_id == cited for ref in papers[citing].references):
                found.contexts_left["citation OpenAlex does not list"] += 1
            else:
                kept[citing] = (sentences, _intents(citation.get("intents")), citation.get("isInfluential") is True)
        year = papers[cited].year
        surname = cited_surname((s for sentences, _, _ in kept.values() for s in sentences), year) if year else None
        for citing, (sentences, intents, influential) in kept.items():
            marked = tuple(" ".join((mark(s, surname, year) or s if year else s).split()) for s in sentences)
            found.contexts[(citing, cited)] = Context(marked, tuple(intents), influential)


def _s2_key(paper) -> str | None:
    return f"DOI:{paper.doi}" if paper.doi else f"ARXIV:{paper.arxiv_id}" if paper.arxiv_id else None


def _citing_work(paper: Any, by_doi: dict[str, str], by_arxiv: dict[str, str]) -> str | None:
    ids = paper.get("externalIds") if isinstance(paper, dict) else None
    if not isinstance(ids, dict):
        return None
    doi, arxiv = ids.get("DOI"), ids.get("ArXiv")
    return (by_doi.get(doi.lower()) if isinstance(doi, str) else None) or (
        by_arxiv.get(arxiv.lower()) if isinstance(arxiv, str) else None
    )


def _intents(value: Any) -> list[str]:
    """S2's intents, a list of labels (or of lists of labels, one per context), flattened."""
    flat = [label for entry in value or [] for label in (entry if isinstance(entry, list) else [entry])]
    return list(dict.fromkeys(label.strip().lower() for label in flat if isinstance(label, str) and label.strip()))


def stage(found: Gathered, folder: Path) -> list[tuple[str, Path]]:
    """The files the ingest reads, with their format: the works (OpenAlex Work objects), then the contexts."""
    files = [
        ("openalex", _kept(folder, "works", (json.dumps(found.works[w], sort_keys=True) for w in sorted(found.works))))
    ]
    by_citing: dict[str, list[dict[str, Any]]] = {}
    for (citing, cited), said in sorted(found.contexts.items()):
        by_citing.setdefault(citing, []).append(
            {
                "id": cited,
                "contexts": list(said.contexts),
                "intents": list(said.intents),
                "influential": said.influential,
            }
        )
    if by_citing:
        rows = (json.dumps({"id": citing, "references": refs}, sort_keys=True) for citing, refs in by_citing.items())
        files.append(("jsonl", _kept(folder, "contexts", rows)))
    return files


def _kept(folder: Path, kind: str, lines: Iterable[str]) -> Path:
    """``lines`` in ``folder/<kind>-<digest>.jsonl``, written once (whole, then renamed): the
    same content is the same file, whose ingest checkpoints then still hold."""
    text = "".join(f"{line}\n" for line in lines).encode("utf-8")
    path = folder / f"{kind}-{hashlib.sha256(text).hexdigest()[:20]}.jsonl"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    return path


def write(store: GraphStore, files: list[tuple[str, Path]], progress: Progress) -> list[IngestSummary]:
    """Each staged file through the ingest pipeline (its reader, batches, checkpoints)."""
    from ..ingest import IngestOptions, get, ingest

    return [ingest(store, get(fmt), [path], IngestOptions(), progress) for fmt, path in files]
