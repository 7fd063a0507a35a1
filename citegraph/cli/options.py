"""Options and parameter types shared by several commands."""

from __future__ import annotations

import functools
from pathlib import Path

import click


class CommaList(click.ParamType):
    """A comma-separated list on the command line; empty items are dropped, each item converted."""

    name = "list"

    def __init__(self, item=str):
        self.item = item

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        try:
            return [self.item(part.strip()) for part in value.split(",") if part.strip()]
        except ValueError:
            self.fail(f"expected comma-separated {self.item.__name__} values, got {value!r}", param, ctx)


def ids_file(path: Path | None) -> list[str]:
    return path.read_text(encoding="utf-8").split() if path else []


POOL_OPTIONS = [
    click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Output folder."),
    click.option("--seed", default=0, show_default=True),
    click.option("--year", type=int, help="Query year (default: the latest year with enough queries)."),
    click.option("--exclude", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                 help="Paper ids (one a line) never used, e.g. an encoder's training set."),
    click.option("--repeats", default=3, show_default=True, help="Pools drawn anew per size (or field)."),
]


def with_pool_options(command):
    for option in reversed(POOL_OPTIONS):
        command = option(command)
    return command


with_retrievers = click.option(
    "--with", "retrievers", type=CommaList(), default="bm25", show_default=True,
    help="Comma-separated text retrievers with built indexes (citegraph index …); '' for graph only.")
learned_weights = click.option("--model", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                                help="Learned weights (citegraph recommend-train).")


def run_files(paths: tuple[Path, ...]):
    from ..evaluation.scorers import RunFile

    return [RunFile(p) for p in paths]


run_option = click.option("--run", "runs", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
                           help="Also score a TREC run file of another tool (qid Q0 doc rank score tag).")


def prefilter_options(command):
    """--min-abstract and --min-citations, given to the command as one ``prefilter`` argument."""

    @functools.wraps(command)
    def with_prefilter(*args, min_abstract: int, min_citations: int, **kwargs):
        from ..ingest import Prefilter

        return command(*args, prefilter=Prefilter(min_abstract=min_abstract, min_citations=min_citations), **kwargs)

    with_prefilter = click.option("--min-citations", default=3, show_default=True,
                                  help="Prefilter: minimum in-corpus citation count.")(with_prefilter)
    return click.option("--min-abstract", default=30, show_default=True,
                        help="Prefilter: minimum abstract length in characters.")(with_prefilter)
