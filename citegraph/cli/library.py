"""citegraph library match / measure-matcher, citegraph paper: a researcher's library
against the graph, and one paper as a reference-manager record."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..errors import NotFoundError
from ..vocabulary import canonical_id, counted
from .app import main, open_graph
from .flags import AS_OF, record_format
from .output import print_matches, print_records, print_table


@main.group()
def library():
    """A reference-manager library (.bib, .ris, CSL-JSON, a list of ids) against the graph."""


@library.command("match")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def match(config: Config, path):
    """Which entries of a library are which graph papers, how they matched, and which did not."""
    from ..library.entries import read_library
    from ..library.match import PaperIndex, match_library

    entries = read_library(path)
    with open_graph(config) as store:
        print_matches(str(path), match_library(PaperIndex.load(store), entries))


@library.command("measure-matcher")
@click.option(
    "--papers",
    default=300,
    show_default=True,
    help="Mangled titles of papers in the index (and as many of papers taken out of it).",
)
@click.option("--seed", default=0, show_default=True)
@click.pass_obj
def measure_matcher_(config: Config, papers, seed):
    """Precision and recall of title matching on deliberately mangled titles of the graph's papers."""
    from ..library.match import TITLE_THRESHOLD, PaperIndex, measure_matcher

    with open_graph(config) as store:
        quality = measure_matcher(PaperIndex.load(store), papers, seed)
    best = max(quality, key=lambda q: (q.f1, q.threshold))
    print_table(
        f"title matcher on {papers} present + {papers} absent mangled titles (seed {seed}); "
        f"in use: {TITLE_THRESHOLD:g}",
        [
            {
                "threshold": q.threshold,
                "precision": round(q.precision, 3),
                "recall": round(q.recall, 3),
                "F1": round(q.f1, 3),
                "best F1": "◀" if q is best else "",
            }
            for q in quality
        ],
    )


@main.command()
@click.argument("paper_id")
@record_format
@click.pass_obj
def paper(config: Config, paper_id, format_):
    """One paper of the graph as HTTP's /paper answers it (title, authors in their order, year,
    venue, DOI, abstract, citation counts) with the URL its ids imply; or as a record for a
    reference manager (--format bibtex …)."""
    from ..library.export import WRITERS, exported

    with open_graph(config) as store:
        rows = store.run("paper", id=canonical_id(paper_id))
        if not rows:
            raise NotFoundError(f"no paper with id {paper_id!r} in the graph")
        found = exported(store, [paper_id])
    record = {**rows[0], "url": found[0].urls[0] if found[0].urls else None}
    print_records(format_, lambda: _print_paper(record), lambda: record, lambda f: WRITERS[f](found))


def _print_paper(p: dict) -> None:
    """The record as a table of its fields, those the graph lacks left out."""
    external = "yes: cited, but not itself in the corpus" if p["external"] else None
    shown = {
        "title": p["title"],
        "authors": "; ".join(p["authors"]),
        "year": str(p["year"] or ""),
        "venue": (p["venue"] or "") + (f" ({p['venue_type']})" if p["venue_type"] else ""),
        "DOI": p["doi"],
        "arXiv": p["arxiv_id"],
        "URL": p["url"],
        "cited by": counted(p["citation_count"], "paper") if p["citation_count"] is not None else None,
        "references": counted(p["references"], "paper"),
        "fields": ", ".join(p["fields"]),
        "categories": ", ".join(p["categories"]),
        "external": external,
        "abstract": p["abstract"],
    }
    print_table(p["id"], [{"field": k, "value": v} for k, v in shown.items() if v])


@main.command()
@click.option(
    "--library",
    "sources",
    multiple=True,
    required=True,
    help="A library file (.bib, .ris, CSL-JSON, id list) or a paper id / DOI / arXiv id (repeatable).",
)
@AS_OF
@click.option("-k", "--k", default=20, show_default=True, help="Papers per list.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def works(config: Config, sources, as_of, k, as_json):
    """Prior works (most cited by the set's neighbourhood) and derivative works (citing most of it)."""
    import json
    from dataclasses import asdict

    from ..library.entries import entries_of
    from ..library.match import PaperIndex, match_library, matched_ids
    from ..library.works import prior_and_derivative

    entries = [e for source in sources for e in entries_of(source)]
    with open_graph(config) as store:
        matches = match_library(PaperIndex.load(store), entries)
        print_matches("library", matches)
        if not matched_ids(matches):
            raise NotFoundError("no paper of the library is in the graph")
        found = prior_and_derivative(store, matched_ids(matches), as_of=as_of, k=k)
    if as_json:
        click.echo(
            json.dumps({kind: [asdict(w) for w in ws] for kind, ws in found.items()}, ensure_ascii=False, indent=1)
        )
        return
    for kind, label in (
        ("prior", "prior works: most cited by the library's neighbourhood"),
        ("derivative", "derivative works: citing most of the library's neighbourhood"),
    ):
        print_table(label + (f" (as of {as_of})" if as_of else ""), [asdict(w) for w in found[kind]])
