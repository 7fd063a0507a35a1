"""citegraph index, search: text indexes over the corpus and searching them."""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from ..config import Config
from ..errors import CitegraphError
from ..formats.trec import TOPIC_DUPLICATE_POLICIES, TOPIC_ON_DUPLICATE_HELP
from ..options import from_options, options_of
from ..retrieval.base import Document
from ..retrieval.dense.ann_build import AnnConfig
from ..retrieval.dense.encoder_specs import encoder_choices
from ..retrieval.spec import BACKENDS
from .app import corpus_documents, indexes_dir, main, open_graph
from .flags import click_option, ids_file, ids_option, on_duplicate_option, retrievers_option
from .output import RichProgress, print_table


@main.group()
def index():
    """Build text indexes over the corpus in the graph (under <data dir>/indexes)."""


@index.command("bm25")
@click.option(
    "--multifield",
    is_flag=True,
    help="Index title and abstract as separate fields (searched with weights) instead of one contents field.",
)
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    help="Default: Lucene when pyserini is installed. "
    "--with bm25 opens the index whatever built it; bm25:<backend> checks the backend.",
)
@click.option("--k1", default=0.9, show_default=True)
@click.option("--b", default=0.4, show_default=True)
@click.option("--threads", type=int, help="Indexing threads (default: all cores).")
@click.option("--eligible-only", is_flag=True, help="Only papers the prefilter marked eligible.")
@click.pass_obj
def index_bm25(config: Config, multifield, backend, k1, b, threads, eligible_only):
    """BM25 over title + abstract of every corpus paper."""
    from ..retrieval.bm25 import build_bm25
    from ..retrieval.corpus import documents
    from ..retrieval.docstore import DocStore
    from ..retrieval.spec import BM25

    spec = BM25(multifield)
    folder = indexes_dir(config) / spec.folder
    with open_graph(config) as store:
        docs = DocStore(indexes_dir(config)).recording(documents(store, eligible_only))
        retriever = build_bm25(docs, folder, backend=backend, multifield=multifield, k1=k1, b=b, threads=threads)
    click.echo(f"{spec}: {retriever.documents:,} documents indexed in {folder}")


@index.command("rankings")
@click.option("--multifield", is_flag=True, help="The rankings of the multifield index.")
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="Hits kept a paper. A recommendation reads a row when it asks for at most this many "
    "(its text depth, 100, plus the seed's references); deeper asks are searched.",
)
@ids_option("those requested most")
@click.option(
    "--eligible-only", is_flag=True, help="The index was built with --eligible-only (its corpus, whatever --ids ranks)."
)
@click.option("--threads", type=int, help="Search threads (default: all cores).")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.pass_obj
def index_rankings(config: Config, multifield, depth, ids_path, eligible_only, threads, progress):
    """Precompute each corpus paper's BM25 ranking, which recommendations for the paper then
    read instead of searching (resumable: rows done for the same text are kept)."""
    from ..retrieval.bm25 import read_manifest
    from ..retrieval.corpus import documents
    from ..retrieval.precomputed import compute_rankings
    from ..retrieval.spec import BM25

    spec = BM25(multifield)
    retriever = spec.searcher(indexes_dir(config), threads or os.cpu_count() or 1)
    folder = indexes_dir(config) / spec.folder
    index = read_manifest(folder)
    bar = RichProgress(sys.stderr.isatty() if progress is None else progress)
    with open_graph(config) as store:
        papers = papers_of(store, ids_path) if ids_path else None
        bar.start("ranking", len(papers) if papers is not None else index["documents"])
        try:
            rankings = compute_rankings(
                retriever, folder, index, lambda: documents(store, eligible_only), papers, depth, done=bar.advance
            )
        finally:
            bar.finish()
    click.echo(
        f"{spec}: {rankings.computed():,} of {len(rankings.ids):,} papers have their top {depth} "
        f"precomputed in {rankings.folder}"
    )


@index.command("dense")
@click.option(
    "--encoder",
    "encoder_name",
    default="minilm",
    show_default=True,
    help="One of: " + ", ".join(encoder_choices()) + ".",
)
@click.option(
    "--dtype",
    type=click.Choice(["auto", "float32", "bfloat16", "float16", "int8"]),
    default="auto",
    show_default=True,
    help="Encoder precision (bfloat16: about 2x faster on CPU, near-identical vectors).",
)
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--eligible-only", is_flag=True, help="Only papers the prefilter marked eligible.")
@ids_option("the candidates a run will re-rank")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a terminal).")
@click.option(
    "--from-s2ag",
    "s2ag_dir",
    type=click.Path(exists=True, path_type=Path),
    help="Instead of encoding: load S2AG's embeddings-specter_v2 shards (a folder or one shard) for the "
    "graph's papers, as the specter2 encoder's index (queries need that encoder).",
)
@click.pass_obj
def index_dense(
    config: Config, encoder_name, dtype, batch_size, eligible_only, ids_path, progress, s2ag_dir, **options
):
    """Encode every corpus paper, or those of --ids (resumable, cached), and build its Faiss index."""
    from ..retrieval.corpus import documents
    from ..retrieval.dense import build_dense
    from ..retrieval.dense.encoders import get_encoder
    from ..retrieval.docstore import DocStore
    from ..retrieval.spec import Dense

    if ids_path and eligible_only:
        raise click.UsageError("--ids names the papers; --eligible-only would filter them again: give one")
    ann = from_options(AnnConfig, options)
    if s2ag_dir:
        source = click.get_current_context().get_parameter_source("encoder_name")
        if source is not click.core.ParameterSource.DEFAULT and encoder_name != S2AG_ENCODER:
            raise click.UsageError(f"--from-s2ag loads {S2AG_ENCODER} vectors; --encoder {encoder_name} does not fit")
        with open_graph(config) as store:
            wanted = set(ids_file(ids_path)) if ids_path else {d.id for d in documents(store, eligible_only)}
        _index_s2ag(config, s2ag_dir, wanted, ann)
        return
    folder = indexes_dir(config) / Dense(encoder_name).folder
    encoder = get_encoder(encoder_name, dtype=dtype, batch_size=batch_size, threads=ann.threads)
    with open_graph(config) as store:
        docs = papers_of(store, ids_path) if ids_path else list(documents(store, eligible_only))
    docs = list(DocStore(indexes_dir(config)).recording(docs))
    bar = RichProgress(sys.stderr.isatty() if progress is None else progress)
    bar.start("encoding", len(docs))
    done = 0

    def advance(complete: int, _total: int) -> None:
        nonlocal done
        bar.advance(complete - done)
        done = complete

    try:
        build_dense(
            docs,
            encoder,
            folder,
            config.data_folder("embeddings"),
            ann=ann,
            progress=advance,
            log=lambda line: click.echo(line, err=True),
        )
    finally:
        bar.finish()
    click.echo(f"{encoder_name}: {len(docs):,} documents in {folder}")


index_dense.params[1:1] = [click_option(o) for o in options_of(AnnConfig)]  # declared on AnnConfig's fields


def papers_of(store, ids_path: Path) -> list[Document]:
    """The corpus papers named in an --ids file, in its order; ids that are not are reported and left out."""
    from ..retrieval.corpus import documents_by_id

    wanted = ids_file(ids_path)
    found = documents_by_id(store, wanted)
    if missing := [i for i in wanted if i not in found]:
        click.echo(
            f"{len(missing):,} of the {len(wanted):,} ids are not corpus papers with a title "
            f"(e.g. {missing[0]}); left out",
            err=True,
        )
    return [found[i] for i in dict.fromkeys(wanted) if i in found]


S2AG_ENCODER = "specter2"
S2AG_BLOCK = 4_096  # vectors written to the embedding store at a time


def _index_s2ag(config: Config, directory: Path, wanted: set[str], ann: AnnConfig) -> None:
    """S2AG's SPECTER2 vectors of the ``wanted`` papers as the specter2 index. The shards are
    read twice: once to check every line and list the papers, once to write the vectors to
    the embedding store a block at a time (never all in memory)."""
    import numpy as np

    from ..ingest.sources.s2ag_embeddings import paper_vectors, shards
    from ..retrieval.dense import build_precomputed
    from ..retrieval.spec import Dense

    paths = shards(directory)
    ids, dim = [], 0
    for row in paper_vectors(paths, wanted.__contains__):
        ids.append(row.paper_id)
        dim = len(row.vector)
    if not ids:
        raise CitegraphError(f"{directory}: no vector of a paper in the graph ({len(wanted):,} papers)")
    if len(ids) < len(wanted):
        click.echo(f"{len(wanted) - len(ids):,} of the {len(wanted):,} papers have no S2AG vector; left out", err=True)

    def blocks(start: int) -> Iterator[np.ndarray]:
        rows = itertools.islice(paper_vectors(paths, wanted.__contains__), start, None)
        while block := [row.vector for row in itertools.islice(rows, S2AG_BLOCK)]:
            yield np.stack(block)

    folder = indexes_dir(config) / Dense(S2AG_ENCODER).folder
    source = {"source": "s2ag embeddings-specter_v2", "shards": [str(p.resolve()) for p in paths]}
    build_precomputed(S2AG_ENCODER, ids, dim, blocks, folder, config.data_folder("embeddings"), source=source, ann=ann)
    click.echo(f"{S2AG_ENCODER}: {len(ids):,} S2AG vectors ({dim}-d) in {folder}")


@main.command()
@click.argument("text", required=False)
@retrievers_option("Retrievers with built indexes (citegraph index …), one table (or run file) each.")
@click.option("-k", default=10, show_default=True)
@click.option(
    "--pool",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file of paper ids (one a line): rank only these.",
)
@click.option(
    "--topics",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead of TEXT: a topic file (TREC <top>/<topic>, qid<TAB>text, or JSONL), all searched in "
    "this one process.",
)
@click.option(
    "--field",
    help="With --topics: the topic text, title (default), desc, narr, or several joined "
    "with + (title+desc); for JSONL, the key.",
)
@click.option(
    "--run",
    "run_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --topics: write a TREC run file (qid Q0 doc rank score tag); with several retrievers, "
    "one per retriever, its name added to the file name.",
)
@on_duplicate_option(
    TOPIC_DUPLICATE_POLICIES,
    "last",
    "With --topics: " + TOPIC_ON_DUPLICATE_HELP[0].lower() + TOPIC_ON_DUPLICATE_HELP[1:],
)
@click.option("--strict", is_flag=True, help="With --topics: refuse a repeated topic id (file:line:field).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def search(config: Config, text, retrievers, k, pool, topics, field, run_path, on_duplicate, strict, as_json):
    """Rank the corpus (or a pool) for a free TEXT, or for every topic of --topics.

    Titles come from the corpus text `citegraph index` records beside the indexes: a
    search starts no graph server (one built before that record existed is asked instead)."""
    if bool(text) == bool(topics):
        raise click.UsageError("give a TEXT or --topics FILE")
    if (run_path or field or strict) and not topics:
        raise click.UsageError("--run, --field and --strict go with --topics")
    pools = [set(pool.read_text(encoding="utf-8").split())] if pool else None
    if topics:
        _search_topics(
            config, retrievers, topics, field, "error" if strict else on_duplicate, k, pools, run_path, as_json
        )
        return
    rankings = {}
    for spec in retrievers:
        [rankings[str(spec)]] = spec.open(indexes_dir(config)).search([text], k, pools)
    docs = corpus_documents(config, [h.id for ranking in rankings.values() for h in ranking])
    for name, ranking in rankings.items():
        rows = [
            {"rank": i, "id": h.id, "score": round(h.score, 4), "title": docs[h.id].title if h.id in docs else None}
            for i, h in enumerate(ranking, start=1)
        ]
        if as_json:
            for row in rows:
                click.echo(json.dumps(row if len(rankings) == 1 else {"with": name, **row}, ensure_ascii=False))
        else:
            print_table(f"{name}: {text}", rows)


def _search_topics(
    config: Config, retrievers, topics: Path, field, on_duplicate, k: int, pools, run_path, as_json
) -> None:
    from ..evaluation.trec.collection import rank_topics
    from ..formats.trec import read_topics, write_run

    found = read_topics(topics, field, on_duplicate, lambda warning: click.echo(warning, err=True))
    for spec in retrievers:
        rankings = rank_topics(spec.open(indexes_dir(config)), found, k, pools and pools * len(found))
        if run_path:
            out = (
                run_path
                if len(retrievers) == 1
                else run_path.with_name(
                    f"{run_path.stem}.{re.sub(r'[^A-Za-z0-9._-]+', '_', str(spec))}{run_path.suffix}"
                )
            )
            write_run(out, rankings, str(spec))
            click.echo(f"{spec}: {len(found):,} topics, top {k} each → {out}")
            continue
        for topic, ranking in rankings.items():
            for i, hit in enumerate(ranking, start=1):
                click.echo(
                    json.dumps(
                        {"topic": topic, "with": str(spec), "rank": i, "id": hit.id, "score": round(hit.score, 4)}
                    )
                    if as_json
                    else f"{topic} Q0 {hit.id} {i} {hit.score!r} {spec}"
                )
