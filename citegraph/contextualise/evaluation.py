"""Evaluation on CL-SciSumm: cross-validation over topics, train / test, Table 1.

What a citance is scored by (the selection, the measures) is :mod:`.measures`.

**Cross-validation.** The topics are shuffled (seeded) into k folds (5: 8 topics each).
For each fold, every parameter setting of the model's grid and every n are scored by c-F
(the task's measure) on the other folds' citances; the best (first in grid order on
ties) ranks the fold's citances. The table reports the held-out predictions of all folds
together; the chosen settings per fold are in ``results.json``. Rankings break ties by
document order.

**Train / test** (the shared task's protocol): the setting and n with the best c-F over
the training topics' citances — what k-fold CV over them selects too, since a setting
is fitted to nothing and its held-out score is its score on each citance — rank the
test topics' citances, which are scored once.

**Collection and embeddings.** p(w|C) counts every reference paper's sentences; the word
vectors are trained on the reference papers' sentences and the citation texts of all
topics (plus any ``corpus`` files), the unlabelled text of the benchmark, as the paper
trains on in-domain text; no gold labels are used for either.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CitegraphError
from ..evaluation.harness import Log, Scores, quiet, run
from ..evaluation.report import Table
from ..retrieval.base import Retriever
from ..retrieval.bm25 import analyze
from . import lm
from .annotation import Repairs
from .clscisumm import Topic, read_topics, report_unread_gold
from .measures import (
    COLUMNS,
    N_GRID,
    SENTENCE_COLUMNS,
    Case,
    Prediction,
    char_f_by_n,
    citance_scores,
    ndcg,
    official_f1,
    rouge_scorer,
)
from .models import DEFAULT_MODELS, Model, Resources, get, query_terms, ranking, strip_citations
from .ontology import Ontology, bundled_ccs, from_acronyms, read_ontology, write_thesaurus
from .training_text import corpus_sample
from .word_vectors import WordVectors, retrofit, train_word2vec

FOLDS = 5


# -- cases and folds ---------------------------------------------------------------------
def make_cases(topics: Sequence[Topic]) -> tuple[list[Case], dict[str, list[list[str]]]]:
    """The citances ready to score, and each topic's analysed sentences."""
    cases, analysed = [], {}
    for topic in topics:
        reference = topic.reference
        terms = [analyze(s.text) for s in reference.sentences]
        analysed[topic.id] = terms
        sentence_set = lm.SentenceSet(terms)
        lengths = np.array([s.end - s.start for s in reference.sentences], dtype=float)
        for citance in topic.citances:
            gold = np.zeros(len(reference.sentences), dtype=bool)
            gold[[reference.position[sid] for sid in citance.gold]] = True
            cases.append(Case(citance, reference, sentence_set, query_terms(citance.text), gold, lengths))
    return cases, analysed


def folds_of(topics: Sequence[str], k: int, seed: int = 0) -> dict[str, int]:
    """Topic → fold: the sorted topics shuffled with ``seed`` and dealt round-robin."""
    ordered = sorted(topics)
    rng = np.random.default_rng(seed)
    return {ordered[j]: position % k for position, j in enumerate(rng.permutation(len(ordered)))}


def cross_validate(
    model: Model,
    cases: Sequence[Case],
    resources: Resources,
    fold: Sequence[int],
    ns: Sequence[int] = N_GRID,
    predict: Sequence[int] | None = None,
) -> tuple[list[Prediction | None], list[dict]]:
    """Held-out predictions for the cases of the ``predict`` folds (default: all), each fold
    ranked with the setting best on the other folds, and the setting chosen per fold."""
    features = [model.prepare(c.query, c.sentences, resources) for c in cases]
    settings = model.grid()
    table = np.zeros((len(settings), len(ns), len(cases)))  # c-F per setting, n, case
    for s, params in enumerate(settings):
        for c, (case, x) in enumerate(zip(cases, features)):
            table[s, :, c] = char_f_by_n(ranking(model.score(x, params)), case, ns)
    fold = np.asarray(fold)
    predictions: list[Prediction | None] = [None] * len(cases)
    chosen = []
    for k in sorted(set(fold.tolist()) if predict is None else predict):
        train = fold != k
        if not train.any():
            raise CitegraphError(f"fold {k}: the other folds hold no citances to tune on")
        means = table[:, :, train].mean(axis=2)
        s, j = map(int, np.unravel_index(int(np.argmax(means)), means.shape))  # first maximum: grid order
        params = settings[s]
        chosen.append({"fold": int(k), **params, "n": int(ns[j]), "train c-F": float(means[s, j])})
        for c in np.flatnonzero(fold == k).tolist():
            predictions[c] = Prediction(ranking(model.score(features[c], params)), int(ns[j]), params)
    return predictions, chosen


# -- the whole evaluation ----------------------------------------------------------------
def build_resources(
    topics: Sequence[Topic],
    analysed: dict[str, list[list[str]]],
    models: Sequence[Model],
    out: Path,
    ontologies: Sequence[Path],
    acronyms: bool,
    corpus: Sequence[Path],
    vectors_dir: Path | None,
    log: Callable[[str], None],
    seed: int = 0,
    corpus_share: float = 1.0,
) -> tuple[Resources, dict]:
    needs = {need for m in models for need in m.needs}
    texts = [s.text for t in topics for s in t.reference.sentences] + [c.text for t in topics for c in t.citances]
    background = lm.Background.from_terms(t for terms in analysed.values() for t in terms)
    info: dict = {"collection": {"terms": len(background.counts), "tokens": background.total}}
    resources = Resources(background)
    if "vectors" in needs:
        if vectors_dir:
            resources.vectors = WordVectors.load(vectors_dir)
            info["vectors"] = {"from": str(vectors_dir)}
        else:
            started = time.perf_counter()
            sentences = [analyze(strip_citations(text)) for text in texts]
            documents = corpus_sample(corpus, corpus_share, seed) if corpus else []
            sentences += [terms for document in documents for terms in document]
            log(f"training word vectors on {len(sentences):,} texts ({len(documents):,} corpus documents)")
            resources.vectors = train_word2vec(sentences, seed=seed)
            resources.vectors.save(out / "vectors")
            log(
                f"{len(resources.vectors):,} terms have a vector (seen ≥ {resources.vectors.meta.get('min_count')} "
                f"times); τ = {resources.vectors.tau:.3f}"
            )
            info["vectors"] = {
                "trained_on": "reference sentences + citation texts"
                + (f" + {', '.join(map(str, corpus))}" if corpus else ""),
                "corpus_documents": len(documents),
                "corpus_share": corpus_share,
                "seconds": round(time.perf_counter() - started, 1),
            }
        info["vectors"].update(
            terms=len(resources.vectors),
            tau=resources.vectors.tau,
            **{k: v for k, v in resources.vectors.meta.items() if k != "tau"},
        )
    if "ontology" in needs:
        parts = [read_ontology(p) for p in ontologies]
        if acronyms:
            mined, sets = from_acronyms(texts)
            write_thesaurus(
                out / "acronyms.tsv",
                sets,
                "acronym definitions found in the CL-SciSumm texts "
                "(Schwartz & Hearst); thesaurus format: phrase<TAB>synonym",
            )
            parts.append(mined)
        resources.ontology = Ontology().merge(*parts)
        vocabulary = set(background.counts)
        info["ontology"] = {
            "sources": resources.ontology.sources,
            "pairs": resources.ontology.pairs,
            "terms": len(resources.ontology.neighbours),
            "terms_in_collection": sum(t in vocabulary for t in resources.ontology.neighbours),
        }
        if resources.vectors is not None and "retrofitted" in needs:
            resources.retrofitted = retrofit(resources.vectors, resources.ontology)
            info["retrofitted"] = {"tau": resources.retrofitted.tau, **resources.retrofitted.meta["retrofitted"]}
    return resources, info


@dataclass(frozen=True)
class CLSciSumm:
    """Table 1 of Cohan & Goharian (2017) on a CL-SciSumm folder: k-fold CV over its topics,
    or, given ``test_dir``, tuned on ``data_dir`` (the training topics) and scored once on the
    test topics (the shared task's protocol).

    ``gold``: a folder of gold files for topics that do not carry their own (see
    :mod:`~citegraph.contextualise.clscisumm`); ``repairs`` collects the input's repaired
    defects (strict: refuses them). ``ontologies``: files for the domain-knowledge models
    (default: the bundled ACM CCS 2012); ``acronyms`` adds the acronym definitions mined
    from the texts. ``corpus``: extra text for the word vectors (see :mod:`.training_text`), of
    which ``corpus_share`` of the documents are used; ``vectors``: a folder of trained
    vectors to use instead of training. ``seed`` shuffles the topics into folds and seeds
    Word2Vec. The models rank sentences themselves: no retrievers.
    """

    data_dir: Path
    models: tuple[str, ...] = DEFAULT_MODELS
    folds: int = FOLDS
    seed: int = 0
    ontologies: tuple[Path, ...] | None = None
    acronyms: bool = True
    corpus: tuple[Path, ...] = ()
    vectors: Path | None = None
    corpus_share: float = 1.0
    test_dir: Path | None = None
    gold: Path | None = None
    repairs: Repairs = field(default_factory=Repairs, compare=False)
    name: str = "contextualise"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        if retrievers:
            raise CitegraphError("CL-SciSumm contextualisation ranks sentences with its own models, not retrievers")
        data_dir, test_dir, gold, repairs, seed = self.data_dir, self.test_dir, self.gold, self.repairs, self.seed
        folds = self.folds
        started = time.perf_counter()
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        chosen_models = [get(m) for m in self.models]
        topics = read_topics(data_dir, gold, repairs)
        test_topics = read_topics(test_dir, gold, repairs) if test_dir is not None else []
        if gold is not None:
            report_unread_gold(gold, {t.id for t in [*topics, *test_topics]}, repairs)
        if repairs.made:
            log(f"{len(repairs.made)} defects of the input repaired (all in results.json):")
            for kind, n in repairs.counts().items():
                log(f"  {n} × {kind}, first at {next(r.where for r in repairs.made if r.kind == kind)}")
        both = sorted({t.id for t in topics} & {t.id for t in test_topics})
        if both:
            raise CitegraphError(f"topics both in {data_dir} and {test_dir}: {', '.join(both)}")
        if test_dir is None and (len(topics) < 2 or folds < 2):
            raise CitegraphError(
                f"{data_dir}: cross-validation over topics needs at least 2 topics and 2 folds "
                f"(found {len(topics)} topics, asked for {folds} folds)"
            )
        folds = min(folds, len(topics))
        cases, analysed = make_cases([*topics, *test_topics])
        ontologies = [bundled_ccs()] if self.ontologies is None else list(self.ontologies)
        resources, info = build_resources(
            [*topics, *test_topics],
            analysed,
            chosen_models,
            out,
            ontologies,
            self.acronyms,
            self.corpus,
            self.vectors,
            log,
            seed,
            self.corpus_share,
        )
        if test_dir is None:
            fold_of = folds_of([t.id for t in topics], folds, seed)
            fold, predict = [fold_of[c.citance.topic] for c in cases], None
            scored = cases
            title = f"CL-SciSumm ({len(topics)} topics, {len(cases)} citances, {folds}-fold CV over topics)"
            protocol = {"data": str(data_dir), "folds": folds, "seed": seed}
        else:
            test_ids = {t.id for t in test_topics}
            fold, predict = [0 if c.citance.topic in test_ids else 1 for c in cases], [0]
            scored = [c for c in cases if c.citance.topic in test_ids]
            title = (
                f"CL-SciSumm test ({len(test_topics)} topics, {len(scored)} citances; tuned on "
                f"{len(topics)} training topics, {len(cases) - len(scored)} citances)"
            )
            protocol = {
                "train": str(data_dir),
                "test": str(test_dir),
                "train_topics": len(topics),
                "train_citances": len(cases) - len(scored),
                "seed": seed,
            }
        log(f"{title}")
        rouge = rouge_scorer()
        table = Table(f"Citation contextualisation, {title}", COLUMNS, name="contextualise")
        sentence_table = Table(
            "Sentence-level P / R / F1 of the selected sentences; F1 micro / macro over gold sets "
            "as the official script (same runs)",
            SENTENCE_COLUMNS,
            name="contextualise_sentences",
        )
        per_query: dict[str, dict[str, dict[str, float]]] = {}
        config = {
            **protocol,
            "gold": str(gold) if gold else None,
            "topics": len(topics) + len(test_topics),
            "citances": len(scored),
            "n_grid": list(N_GRID),
            "selection": "top n sentences, n tuned with the parameters",
            "tuned_for": "c-F",
            "repairs": repairs.summary(),
            **info,
            "chosen": {},
            "seconds": {},
        }
        for model in chosen_models:
            model_started = time.perf_counter()
            log(f"{model.label}: {len(model.grid())} settings × {len(N_GRID)} n")
            predictions, chosen = cross_validate(model, cases, resources, fold, predict=predict)
            predictions = [p for p in predictions if p is not None]  # the scored cases', in order
            values: dict[str, dict[str, float]] = {}
            for case, prediction in zip(scored, predictions):
                for measure, value in citance_scores(case, prediction.order, prediction.n, rouge).items():
                    values.setdefault(measure, {})[case.citance.id] = value
            values["nDCG"] = ndcg(scored, [p.order for p in predictions])
            per_query[model.label] = values
            for column in COLUMNS:
                table.set(model.label, column, float(np.mean(list(values[column].values()))))
            for column, value in official_f1(scored, predictions).items():
                sentence_table.set(model.label, column, value)
            for column in SENTENCE_COLUMNS[:3]:
                sentence_table.set(model.label, column, float(np.mean(list(values[column].values()))))
            config["chosen"][model.label] = chosen
            config["seconds"][model.label] = round(time.perf_counter() - model_started, 1)
        config["significance"] = significance(per_query, [m.label for m in chosen_models])
        config["seconds"]["total"] = round(time.perf_counter() - started, 1)
        return Scores([table, sentence_table], config, per_query)


def evaluate_clscisumm(
    data_dir: Path,
    out: Path,
    models: Sequence[str] = DEFAULT_MODELS,
    folds: int = FOLDS,
    seed: int = 0,
    ontologies: Sequence[Path] | None = None,
    acronyms: bool = True,
    corpus: Sequence[Path] = (),
    vectors: Path | None = None,
    log: Log = quiet,
    corpus_share: float = 1.0,
    *,
    test_dir: Path | None = None,
    gold: Path | None = None,
    repairs: Repairs | None = None,
) -> tuple[list[Table], dict]:
    """:class:`CLSciSumm` through the harness (one run of a series): the tables and per-citance values."""
    benchmark = CLSciSumm(
        Path(data_dir),
        tuple(models),
        folds,
        seed,
        None if ontologies is None else tuple(ontologies),
        acronyms,
        tuple(corpus),
        vectors,
        corpus_share,
        test_dir,
        gold,
        repairs if repairs is not None else Repairs(),
    )
    results = run(benchmark, [], out, log=log)
    return results.tables, results.per_query


BASELINES = ("BM25", "LMD")


def significance(per_query: dict, labels: Sequence[str], measure: str = "c-F") -> dict:
    """Paired t-test and randomisation test of each model against the best baseline, on c-F."""
    from ..evaluation.metrics import Evaluation, compare

    baselines = [b for b in BASELINES if b in per_query]
    if not baselines:
        return {}
    evaluations = {
        label: Evaluation({measure: per_query[label][measure]}, sorted(per_query[label][measure])) for label in labels
    }
    best = max(baselines, key=lambda b: evaluations[b].mean[measure])
    out: dict[str, Any] = {"measure": measure, "baseline": best}
    for label in labels:
        if label != best:
            c = compare(evaluations[label], evaluations[best], measure, permutations=2000)
            out[label] = {
                "mean": c.mean_a,
                "baseline": c.mean_b,
                "t_test_p": c.t_test_p,
                "randomisation_p": c.randomisation_p,
            }
    return out
