"""citegraph library match / measure-matcher, paper, works: a researcher's library against the
graph, one paper as a reference-manager record, a set's prior and derivative works."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..operations import exploring, papers
from ..operations.answers import MatchOut
from ..vocabulary import counted
from .app import main, open_graph
from .flags import RequestOptions, record_format
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
        print_matches(str(path), [MatchOut.of(m) for m in match_library(PaperIndex.load(store), entries)])


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


PAPER = RequestOptions(papers.PaperRequest, arguments=("id",))
#: The request's fields, but the set: --library, each a library file or an id (repeatable)
WORKS = RequestOptions(exploring.WorksRequest, flags={"k": ("-k", "--k")}, leave=("papers",))


@main.command()
@PAPER
@record_format
@click.pass_obj
def paper(config: Config, format_, **fields):
    """One paper of the graph as HTTP's /paper answers it (title, authors in their order, year,
    venue, DOI, abstract, citation counts, the URL its ids imply); or as a record for a
    reference manager (--format bibtex …)."""
    from ..library.export import export

    request = PAPER.request(fields)
    with open_graph(config) as store:
        answer = papers.paper(store, request)
        print_records(format_, lambda: _print_paper(answer), answer, lambda f: export(store, f, [answer.id]))


def _print_paper(p: papers.Paper) -> None:
    """The record as a table of its fields, those the graph lacks left out."""
    external = "yes: cited, but not itself in the corpus" if p.external else None
    shown = {
        "title": p.title,
        "authors": "; ".join(p.authors),
        "year": str(p.year or ""),
        "venue": (p.venue or "") + (f" ({p.venue_type})" if p.venue_type else ""),
        "DOI": p.doi,
        "arXiv": p.arxiv_id,
        "URL": p.url,
        "cited by": counted(p.citation_count, "paper") if p.citation_count is not None else None,
        "references": counted(p.references, "paper"),
        "fields": ", ".join(p.fields),
        "categories": ", ".join(p.categories),
        "external": external,
        "abstract": p.abstract,
    }
    print_table(p.id, [{"field": k, "value": v} for k, v in shown.items() if v])


@main.command()
@click.option(
    "--library",
    "sources",
    multiple=True,
    required=True,
    help="A library file (.bib, .ris, CSL-JSON, id list) or a paper id / DOI / arXiv id (repeatable).",
)
@WORKS
@record_format
@click.pass_obj
def works(config: Config, sources, format_, **fields):
    """Prior works (most cited by the set's neighbourhood) and derivative works (citing most of it)."""
    from ..library.entries import entries_of
    from ..library.export import export
    from ..recommend import Recommender

    request = WORKS.request(fields)
    entries = [e for source in sources for e in entries_of(source)]
    with open_graph(config) as store:
        answer = exploring.works(Recommender(store), request, entries)
        print_matches("library", answer.matches)
        notes: dict[str, str] = {}
        for w in answer.prior:
            notes.setdefault(w.id, f"prior work: cited by {w.links} papers around the library")
        for w in answer.derivative:
            notes.setdefault(w.id, f"derivative work: cites {w.links} papers around the library")
        print_records(
            format_,
            lambda: _print_works(answer, request.as_of),
            answer,
            lambda f: export(store, f, list(notes), notes),
        )


def _print_works(answer: exploring.WorksResponse, as_of: str | None) -> None:
    for label, found in (
        ("prior works: most cited by the library's neighbourhood", answer.prior),
        ("derivative works: citing most of the library's neighbourhood", answer.derivative),
    ):
        print_table(label + (f" (as of {as_of})" if as_of else ""), [w.model_dump() for w in found])
