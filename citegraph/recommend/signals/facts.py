"""What the graph says of every candidate (``recommend/features``): metadata for filters and
display, citations by papers other than the seed (as of the view's year), and the view's
field and category; with the references' links it sets the graph features."""

from __future__ import annotations

import math
from collections.abc import Iterable

from ...graph import GraphStore
from ...vocabulary import counted
from ..candidates import Candidates, Facts, Signal
from ..seed import Seed
from .neighbourhood import KINDS, Links

FactRows = dict[str, list]  # candidate id → [id, title, year, external, citations, ingested]


def fetch_facts(store: GraphStore, ids: Iterable[str], seed: Seed) -> FactRows:
    """The ``recommend/features`` rows of ``ids`` (none for those outside the view's field
    or category). Each id's row depends on it alone, so a request can fetch its graph
    candidates' rows while its text search still runs, and the rest after."""
    view = seed.view
    rows = store.plain(
        "recommend/features",
        ids=list(ids),
        seed=seed.id,
        as_of=view.as_of,
        field=view.field or None,
        category=view.category or None,
    )
    return {row[0]: row for row in rows[0]["candidates"]} if rows else {}


def describe(found: Candidates, seed: Seed, links: Links, rows: FactRows) -> None:
    """Sets the facts, graph features and signals of each candidate with a row in ``rows``."""
    view = seed.view
    refs = len(seed.references)
    cited_by_counts, coupling_counts, cocitation_counts = (links.counts[kind] for kind in KINDS)
    log1p, mine = math.log1p, seed.mine
    for cid, title, year, external, citations, ingested in (rows[cid] for cid in found if cid in rows):
        cited_by, coupling = cited_by_counts.get(cid, 0), coupling_counts.get(cid, 0)
        cocitation = cocitation_counts.get(cid, 0)
        facts = Facts(
            title,
            year,
            external,
            citations,
            ingested,
            cocitation,
            coupling,
            (cited_by + coupling) / refs if refs else 0.0,
        )
        candidate = found[cid]
        candidate.facts = facts
        features = candidate.features
        features["cited_by_references"] = log1p(cited_by)
        features["cocitation"] = log1p(cocitation)
        features["coupling"] = log1p(coupling)
        features["citations"] = log1p(citations)
        features["overlap"] = facts.overlap
        if cocitation:
            candidate.add(Signal("cocitation", cocitation, f"co-cited with {mine} {counted(cocitation, 'time')}"))
        if citations:
            candidate.add(Signal("citations", citations, f"cited by {counted(citations, 'paper')} in the corpus"))
        if view.since is not None:
            for text in why_new(seed, facts):
                candidate.add(Signal("new", 1.0, text))


def allowed(seed: Seed, facts: Facts) -> bool:
    """Not a stub, not newer than the seed, dated when seen as of a year, new for an alert
    (the field and category are checked by the statement)."""
    return blocked_by(seed, facts) is None


def blocked_by(seed: Seed, facts: Facts) -> str | None:
    """Why a described paper may not be recommended for ``seed`` (None: it may): the filter
    of :func:`allowed`, in words for ``--why``."""
    if facts.external:
        return "a stub (:External): the graph knows it only as cited, without its own record"
    if seed.year is not None and facts.year is not None and facts.year > seed.year:
        limit = "the as-of date" if seed.view.as_of == seed.year else "the seed"
        return f"newer ({facts.year}) than {limit} ({seed.year})"
    if seed.view.as_of is not None and facts.year is None:  # undated: cannot tell
        return f"undated, in a view as of {seed.view.as_of}"
    if seed.view.since is not None and not why_new(seed, facts):
        return f"not new since {seed.view.since} (published in {facts.year})"
    return None


def why_new(seed: Seed, facts: Facts) -> list[str]:
    """Why a candidate is new for an alert (a view with ``since``): published in or after
    that year, and/or ingested on or after ``ingested_since`` (papers ingested before the
    graph recorded dates have none). Empty without ``since``, or when it is not new."""
    view = seed.view
    if view.since is None:
        return []
    reasons = []
    if facts.year is not None and facts.year >= view.since:
        reasons.append(f"published in {facts.year} (since {view.since})")
    if view.ingested_since and facts.ingested and facts.ingested >= view.ingested_since:
        reasons.append(f"ingested on {facts.ingested} (since {view.ingested_since})")
    return reasons
