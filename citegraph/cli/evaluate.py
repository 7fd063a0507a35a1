"""citegraph evaluate, tune-bm25, report: scoring retrievers on benchmarks."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import Config
from ..contextualise.models import MODELS as CONTEXT_MODELS
from ..retrieval.encoders import HUB_PREFIX, encoder_choices
from ..local.ablations import ABLATIONS, DEFAULT_ABLATIONS, LM_MODES
from .app import corpus_documents, indexes_dir, main, open_graph
from .options import CommaList, learned_weights, retrievers_option, run_files, run_option, with_retrievers
from .output import print_table, print_tables


@main.group()
def evaluate():
    """Score retrievers on benchmarks: large-scale pools, MDCR, CSFCube, CL-SciSumm contextualisation,
    local citation recommendation (SymTax)."""


@evaluate.command("large-scale")
@click.option("--pools", "pools_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A folder written by `citegraph pools dataset-level|field-level`.")
@retrievers_option("Retrievers with built indexes (citegraph index …).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@run_option
@click.pass_obj
def evaluate_large_scale(config: Config, pools_dir, retrievers, out, runs):
    """Tables 1 and 2 of Medić & Šnajder: MAP / nDCG / R@30 per pool size or per field."""
    from ..evaluation.large_scale import evaluate_pools

    opened = [spec.open(indexes_dir(config)) for spec in retrievers] + run_files(runs)
    print_tables(evaluate_pools(pools_dir, opened, out))
    click.echo(f"results and figures in {out}")


@evaluate.command("mdcr")
@click.option("--benchmark", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A folder with mdcr_<split>.json and mdcr_<split>_data.jsonl (ours or the official release).")
@retrievers_option("Retrievers, indexed over the benchmark's documents (under OUT/indexes).")
@click.option("--split", default="test", show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@run_option
@click.pass_obj
def evaluate_mdcr(config: Config, benchmark, retrievers, split, out, runs):
    """Tables 3 and 4 of Medić & Šnajder: per field MAP / nDCG / R@5, and per candidate type."""
    from ..evaluation.mdcr_eval import evaluate_mdcr as evaluate_mdcr_
    from ..evaluation.mdcr_eval import read_benchmark

    _, docs = read_benchmark(benchmark, split)
    built = [spec.build(list(docs.values()), Path(out) / "indexes") for spec in retrievers] + run_files(runs)
    print_tables(evaluate_mdcr_(benchmark, built, out, split))
    click.echo(f"results and figures in {out}")


@evaluate.command("recommend")
@click.option("--papers", default=300, show_default=True, help="Held-out citations to test on.")
@click.option("--seed", default=0, show_default=True, help="Same seed as recommend-train: its papers are skipped.")
@click.option("--skip", default=300, show_default=True, help="Papers of the draw used for training (skipped).")
@learned_weights
@with_retrievers
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.pass_obj
def evaluate_recommend(config: Config, papers, seed, skip, model, retrievers, out):
    """The recommender on held-out citations: text alone, plain fusion, learned weights."""
    from ..evaluation.report import Table, write_results
    from ..recommend import (
        DEFAULT_WEIGHTS,
        Recommender,
        evaluate_held_out,
        held_out_citations,
        load_weights,
    )

    variants = {"text only": {"text": 1.0}, "fusion (default weights)": DEFAULT_WEIGHTS}
    if model:
        variants["learned"] = load_weights(model)
    with Recommender.open(config, retrievers) as rec:
        results = evaluate_held_out(rec, held_out_citations(rec.store, papers, seed, skip=skip), variants)
    measures = list(next(iter(results.values())).mean)
    names = [str(spec) for spec in retrievers]
    table = Table(f"held-out citations ({papers} papers, text: {', '.join(names) or 'none'})", measures)
    for name, result in results.items():
        for measure, value in result.mean.items():
            table.set(name, measure, value)
    write_results(out, {"papers": papers, "seed": seed, "skip": skip, "retrievers": names,
                        "variants": variants}, [table], {n: r.per_query for n, r in results.items()})
    print_tables([table])


@evaluate.command("csfcube")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="The official CSFCube release folder.")
@retrievers_option("Retrievers over the release's candidates: BM25, fusions and <encoder>:maxsim read the "
                   "facet sentences, an <encoder> the whole query paper.")
@retrievers_option("Encoders that also read the facet sentences as one text (rows <encoder>:facet).", default="",
                   name="facet_text", flag="--facet-text")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--run", "run_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Also score a TREC run file (qid pid_facet, or pid with --run-facet).")
@click.option("--run-facet", type=click.Choice(["background", "method", "result"]))
@click.option("--work", type=click.Path(file_okay=False, path_type=Path),
              help="Where indexes and embeddings are kept (default: OUT/indexes).")
def evaluate_csfcube(data_dir, retrievers, facet_text, out, run_file, run_facet, work):
    """Faceted query-by-example on CSFCube, scored as its authors' script scores it."""
    from ..evaluation.csfcube import run_csfcube

    systems = [*map(str, retrievers), *(f"{spec}:facet" for spec in facet_text)]
    result = run_csfcube(data_dir, systems, out, run_file=run_file, run_facet=run_facet,
                         work=work or Path(out) / "indexes")
    print_tables(result["tables"])
    click.echo(f"results in {out}")


@evaluate.command("trec")
@click.option("--topics", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True,
              help="Topic file: TREC <top>/<topic>, qid<TAB>text, or JSONL.")
@click.option("--qrels", type=click.Path(exists=True, dir_okay=False, path_type=Path), required=True,
              help="TREC qrels (qid 0 doc grade); DOIs match whatever their case.")
@click.option("--field", help="The topic text: title (default), desc, narr, or several joined with + (title+desc).")
@retrievers_option("Retrievers to score; the first is the baseline of the paired tests and, with --rerank-depth, "
                   "the first stage.")
@click.option("-k", default=10, show_default=True, help="The cut-off of R@k and nDCG@k.")
@click.option("--depth", default=100, show_default=True, help="Papers each retriever ranks per topic (MAP, MRR).")
@click.option("--rerank-depth", type=click.IntRange(1),
              help="The first retriever's top N per topic, re-ranked by each of the others; a dense encoder "
                   "encodes only those candidates (cached: a second run encodes only the topics).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@run_option
@click.pass_obj
def evaluate_trec(config: Config, topics, qrels, field, retrievers, k, depth, rerank_depth, out, runs):
    """Any TREC-style collection in the graph: R@k, nDCG@k, MAP, MRR, paired tests against the first retriever."""
    from ..evaluation.pools import read_qrels
    from ..evaluation.trec import evaluate_collection, read_topics
    from ..retrieval.rerank import open_for_rerank

    found, judged = read_topics(topics, field), read_qrels(qrels)
    indexes = indexes_dir(config)
    opened = [retrievers[0].open(indexes)]
    for spec in retrievers[1:]:
        opened.append(open_for_rerank(spec, indexes, Path(config.data_dir) / "embeddings",
                                      lambda ids: corpus_documents(config, ids)) if rerank_depth else spec.open(indexes))
    scores = evaluate_collection(found, judged, [*opened, *run_files(runs)], out, k, depth, rerank_depth,
                                 log=lambda message: click.echo(message, err=True))
    print_tables(scores.tables)
    if scores.unjudged:
        click.echo(f"{len(scores.unjudged)} topic(s) without a relevant judgement, not scored: "
                   f"{', '.join(scores.unjudged[:10])}", err=True)
    click.echo(f"results and runs in {out}")


@evaluate.command("contextualise")
@click.option("--data", "data_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A CL-SciSumm folder (one folder per topic with Reference_XML/ and its gold), scored by "
                   "cross-validation over its topics.")
@click.option("--train", "train_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Instead of --data: the training topics, on which the parameters are tuned …")
@click.option("--test", "test_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="… and the test topics, scored once with them (the shared task's protocol).")
@click.option("--gold", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A folder of gold files (Task1/<paper>_<annotator>.csv, <paper>.annv3.txt, …) for topics that "
                   "do not carry their own gold.")
@click.option("--strict", is_flag=True, help="Refuse defective input (file:line:field) instead of repairing it.")
@click.option("--models", type=CommaList(), default=",".join(CONTEXT_MODELS), show_default=True,
              help=f"Comma-separated, of: {', '.join(CONTEXT_MODELS)}.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--folds", default=5, show_default=True, help="Cross-validation folds over topics (parameter tuning).")
@click.option("--seed", default=0, show_default=True, help="Shuffles the topics into folds, seeds Word2Vec.")
@click.option("--seeds", type=CommaList(int), help="Several seeds (e.g. 0,1,2): Table 1 as mean ± sd over them, "
              "the learning curve over --corpus-shares, and a test on c-F averaged over the seeds.")
@click.option("--corpus-shares", type=CommaList(float), default="1", show_default=True,
              help="Shares of the --corpus documents to train the word vectors on (e.g. 0.1,0.25,0.5,1): "
                   "with --seeds, a learning curve.")
@click.option("--ontology", "ontologies", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Synonyms: SKOS XML or a TAB-separated thesaurus (repeatable; default: the bundled ACM CCS 2012).")
@click.option("--acronyms/--no-acronyms", default=True, show_default=True,
              help="Add the acronym definitions the benchmark's texts state to the synonyms.")
@click.option("--corpus", multiple=True, type=click.Path(exists=True, path_type=Path),
              help="More text for the word vectors (repeatable): a ScisummNet folder (full texts and citing "
                   "sentences), JSONL (title, abstract, contexts) or plain lines.")
@click.option("--vectors", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Word vectors saved by an earlier run (OUT/vectors) instead of training.")
def evaluate_contextualise(data_dir, train_dir, test_dir, gold, strict, models, out, folds, seed, seeds, corpus_shares,
                           ontologies, acronyms, corpus, vectors):
    """Table 1 of Cohan & Goharian (2017): which reference sentences a citance refers to."""
    from ..contextualise.annotation import Repairs
    from ..contextualise.evaluation import evaluate_clscisumm
    from ..contextualise.repeats import evaluate_repeats

    if bool(data_dir) == bool(train_dir or test_dir) or bool(train_dir) != bool(test_dir):
        raise click.UsageError("give either --data DIR (cross-validation) or both --train DIR and --test DIR")
    if any(not 0 <= share <= 1 for share in corpus_shares):
        raise click.BadParameter("shares are between 0 and 1", param_hint="--corpus-shares")
    log = lambda message: click.echo(message, err=True)  # noqa: E731
    options = {"ontologies": list(ontologies) or None, "acronyms": acronyms, "corpus": corpus, "vectors": vectors}
    repairs = Repairs(strict)
    if seeds or len(corpus_shares) > 1:
        if train_dir:
            raise click.UsageError("--seeds and --corpus-shares repeat the cross-validation of --data")
        tables = evaluate_repeats(data_dir, out, models, folds, seeds or [seed], corpus_shares, log, **options)
    else:
        tables, _ = evaluate_clscisumm(data_dir or train_dir, out, models, folds, seed, log=log,
                                       corpus_share=corpus_shares[0], test_dir=test_dir, gold=gold, repairs=repairs,
                                       **options)
    if repairs.made:
        print_table("defects of the input, repaired (all in results.json)",
                    [{"defect": kind, "count": n,
                      "first at": str(next(r.where for r in repairs.made if r.kind == kind))}
                     for kind, n in repairs.counts().items()])
    print_tables(tables)
    click.echo(f"results in {out}")


def _lm(value: str) -> str:
    """An LM given as a model folder is read as hf:<folder>; names and hub ids stay as they are."""
    value = value.strip()
    return f"{HUB_PREFIX}{value}" if not value.startswith(HUB_PREFIX) and Path(value).expanduser().is_dir() else value


@evaluate.command("local")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--data", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A query set (JSONL, see README; `citegraph contexts export` writes one). "
                   "Default: every context in the graph, exported to OUT/contexts.jsonl.")
@click.option("--encoder", type=CommaList(), default="minilm", show_default=True,
              help="The reranker's LM, or several comma-separated (they fill the LM × fusion table): "
                   f"{', '.join(encoder_choices())} or a model folder.")
@retrievers_option("First stage, indexed over the graph's papers, e.g. 'rrf(bm25,minilm)'.", single=True,
                   name="prefetch", flag="--prefetch")
@click.option("--ablations", type=CommaList(), default=",".join(DEFAULT_ABLATIONS), show_default=True,
              help=f"Comma-separated, of: {', '.join(ABLATIONS)} ('' for the full model only).")
@click.option("--enrich/--no-enrich", default=True, show_default=True,
              help="SymTax's Enricher; --no-enrich sends no enrichment query: models rank the prefetched lists.")
@click.option("--lm-mode", type=click.Choice(LM_MODES),
              help="finetune: every variant fine-tunes its LM (SymTax); shared: the full model fine-tunes it, "
                   "the ablations reuse it frozen; frozen: the pretrained LM as a cached feature extractor "
                   "[default: finetune on a GPU, shared on CPU].")
@click.option("--max-steps", default=200, show_default=True, type=click.IntRange(0),
              help="Training steps per reranker (the CPU bound).")
@click.option("--max-train", default=2000, show_default=True, type=click.IntRange(1),
              help="Training contexts: a random sample of the older citing papers' contexts.")
@click.option("--max-test", default=500, show_default=True, type=click.IntRange(1),
              help="Test contexts: a random sample of the newer citing papers' contexts.")
@click.option("--test-share", default=0.2, show_default=True, type=click.FloatRange(0, 1, min_open=True, max_open=True),
              help="Share of the contexts, newest citing papers first, held out for testing.")
@click.option("--whole-years", is_flag=True, help="Cut the time-ordered split between years only.")
@click.option("--textless", type=click.Choice(["skip", "keep"]), default="skip", show_default=True,
              help="Contexts citing a paper without title and abstract: skip them, or keep them (such papers "
                   "are reachable only through enrichment).")
@click.option("--depth", default=100, show_default=True, help="Prefetched candidates per context.")
@click.option("--size", default=300, show_default=True, help="Candidates after enrichment.")
@click.option("--max-length", default=256, show_default=True, help="Tokens of a (query, candidate) pair.")
@click.option("--proj-dim", default=64, show_default=True, help="Dimension of the taxonomy manifold.")
@click.option("--negatives", default=4, show_default=True, help="Negatives per positive, from the candidate list.")
@click.option("--device", help="torch device [default: cuda when available, else cpu].")
@click.option("--seed", default=12, show_default=True)
@click.pass_obj
def evaluate_local(config: Config, out, data, encoder, prefetch, ablations, enrich, lm_mode,
                   max_steps, max_train, max_test, test_share, whole_years, textless, depth, size, max_length,
                   proj_dim, negatives, device, seed):
    """SymTax's Tables 3 and 4: prefetch → enrichment → taxonomy-aware reranker, and its ablations,
    trained on older citing papers and tested on newer ones, the test citations hidden from the graph."""
    from ..local.evaluate import evaluate_local as evaluate_local_
    from ..local.rerank import RerankerConfig, default_device

    lm_mode = lm_mode or ("finetune" if (device or default_device()).startswith("cuda") else "shared")
    reranker = RerankerConfig(max_length=max_length, proj_dim=proj_dim, negatives=negatives, device=device)

    def log(message: str) -> None:
        click.echo(message, err=True)

    log(f"reranker LM mode: {lm_mode}, at most {max_steps} training steps per reranker")
    lms = [_lm(e) for e in encoder]
    with open_graph(config) as store:
        tables = evaluate_local_(store, out, data=data, prefetch=prefetch, encoder=lms, max_steps=max_steps,
                                 ablations=ablations, enrich=enrich,
                                 lm_mode=lm_mode, textless=textless, test_share=test_share,
                                 whole_years=whole_years, max_train=max_train, max_test=max_test, depth=depth,
                                 size=size, reranker=reranker, seed=seed, log=log)
    print_tables(tables)
    click.echo(f"results in {out}")


@main.command("tune-bm25")
@click.option("--pools", "pools_dir", type=click.Path(exists=True, file_okay=False, path_type=Path), required=True,
              help="A validation pool folder (citegraph pools …), built like the test pools.")
@retrievers_option("The BM25 index to tune (bm25 or bm25:multifield).", single=True, name="spec")
@click.pass_obj
def tune_bm25(config: Config, pools_dir, spec):
    """Grid-search BM25's k1 and b for MAP on validation pools, as the MDCR paper did."""
    from ..evaluation.large_scale import tune_bm25 as tune
    from ..retrieval.spec import BM25

    if not isinstance(spec, BM25):
        raise click.BadParameter(f"{spec} is not BM25", param_hint="--with")
    name = str(spec)
    tuning = tune(pools_dir, indexes_dir(config) / BM25(spec.multifield).folder)
    bs = sorted({b for _, b in tuning.table})
    print_table(f"MAP of {name} on {pools_dir} (k1 × b)",
           [{"k1": k1, **{f"b={b:g}": round(tuning.table[(k1, b)] * 100, 2) for b in bs}}
            for k1 in sorted({k1 for k1, _ in tuning.table})])
    click.echo(f"best: k1={tuning.k1:g} b={tuning.b:g} (MAP {tuning.map * 100:.2f}); rebuild with "
               f"`citegraph index bm25{' --multifield' if spec.multifield else ''} --k1 {tuning.k1:g} --b {tuning.b:g}`")


@main.command()
@click.argument("results", type=click.Path(exists=True, file_okay=False, path_type=Path))
def report(results):
    """Print the tables of an evaluation's results.json again and redraw its figures."""
    from ..evaluation.report import draw, load_tables

    tables = load_tables(results)
    print_tables(tables)
    for path in draw(tables, results):
        click.echo(f"figure: {path}")
