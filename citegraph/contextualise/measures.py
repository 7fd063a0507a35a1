"""What a CL-SciSumm citance is scored by (:mod:`.evaluation` runs the protocols).

**Selection.** A model ranks every sentence of the reference paper. The text-based
measures score the *selected* context: the top n sentences, n ∈ {1, 2, 3} (the shared
task allows at most 3; 64 % of the gold contexts are one sentence, 88 % at most two)
tuned with the model's parameters. c-P@1 and c-P@5 score the top 1 and 5 whatever n.

**Measures**, per citance, then averaged over citances (each citance counts once):

* sentence-level P, R, F1 of the selected sentences against the gold sentence ids;
* c-P, c-R, c-F: characters of the selected sentences that are gold, over the characters
  selected / gold (a reference paper's text is its sentences joined by newlines, so each
  sentence is a span of character offsets; the TAC 2014 measures);
* c-P@K: c-P of the top K sentences;
* nDCG of the whole ranking, a sentence relevant when it is gold (binary, as the paper:
  "any partial overlap is correct" — with sentence units, overlap is membership);
  computed with ir_measures through :func:`citegraph.evaluation.metrics.evaluate`;
* ROUGE-1/2/3 F1 (Google's ``rouge-score``, Porter stemming) of the selected text,
  sentences in document order, against the gold sentences' text from the reference XML
  (the annotation's own copy of it is truncated or garbled in 167 of 753 citances).

The sentence table adds the shared task's own Task 1A figures, computed as its official
script (``2018-evaluation-script/program/task1_eval.py``, WING-NUS/scisumm-corpus) does:
each gold set (a topic's file for one annotator) is scored on its own — true positives,
false positives, false negatives of the selected sentence ids — and **F1 micro** sums
those counts over all gold sets, **F1 macro** averages each set's P and R and takes the
F1 of the averages. With several annotators every measure pools the annotators' gold
sets: a citance counts once per annotator.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import CitegraphError
from . import lm
from .clscisumm import Citance, Reference

N_GRID = (1, 2, 3)
COLUMNS = ["c-P", "c-R", "c-F", "nDCG", "Rg-1", "Rg-2", "Rg-3", "c-P@1", "c-P@5"]
SENTENCE_COLUMNS = ["P", "R", "F1", "F1 micro", "F1 macro"]


@dataclass
class Case:
    """One citance, ready to score."""

    citance: Citance
    reference: Reference
    sentences: lm.SentenceSet
    query: list[str]
    gold: np.ndarray  # (n,) bool: is sentence i gold
    lengths: np.ndarray  # (n,) characters per sentence


def _f(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


@dataclass
class Prediction:
    """A model's held-out answer for one citance: its ranking, the selection size n, the setting."""

    order: np.ndarray
    n: int
    params: dict


# -- measures --------------------------------------------------------------------------
def overlap(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> int:
    """Characters covered by both span sets (each set's spans merged first)."""

    def merged(spans: Iterable[tuple[int, int]]) -> list[list[int]]:
        out: list[list[int]] = []
        for start, end in sorted(s for s in spans if s[1] > s[0]):
            if out and start <= out[-1][1]:
                out[-1][1] = max(out[-1][1], end)
            else:
                out.append([start, end])
        return out

    x, y = merged(a), merged(b)
    total, i, j = 0, 0, 0
    while i < len(x) and j < len(y):
        total += max(0, min(x[i][1], y[j][1]) - max(x[i][0], y[j][0]))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return total


def covered(spans: Iterable[tuple[int, int]]) -> int:
    spans = list(spans)
    return overlap(spans, spans)


def char_scores(selected: Sequence[tuple[int, int]], gold: Sequence[tuple[int, int]]) -> dict[str, float]:
    """c-P, c-R, c-F of selected character spans against gold spans."""
    common, chosen, wanted = overlap(selected, gold), covered(selected), covered(gold)
    p = common / chosen if chosen else 0.0
    r = common / wanted if wanted else 0.0
    return {"c-P": p, "c-R": r, "c-F": _f(p, r)}


def sentence_scores(selected: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    hits = len(set(selected) & set(gold))
    p = hits / len(set(selected)) if selected else 0.0
    r = hits / len(set(gold)) if gold else 0.0
    return {"P": p, "R": r, "F1": _f(p, r)}


def char_f_by_n(order: np.ndarray, case: Case, ns: Sequence[int] = N_GRID) -> np.ndarray:
    """c-F of the top n sentences for each n (fast path: sentences are disjoint spans)."""
    lengths = case.lengths[order]
    common = np.cumsum(lengths * case.gold[order])
    chosen = np.cumsum(lengths)
    wanted = case.lengths[case.gold].sum()
    out = np.zeros(len(ns))
    for k, n in enumerate(ns):
        n = min(n, len(order))
        if n == 0 or chosen[n - 1] == 0 or common[n - 1] == 0:
            continue
        p, r = common[n - 1] / chosen[n - 1], common[n - 1] / wanted
        out[k] = 2 * p * r / (p + r)
    return out


def rouge_scorer():
    try:
        from rouge_score import rouge_scorer
    except ImportError:
        raise CitegraphError("ROUGE needs rouge-score: pip install 'citegraph[contextualise]'") from None

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rouge3"], use_stemmer=True)


def citance_scores(case: Case, order: np.ndarray, n: int, rouge=None) -> dict[str, float]:
    """Every measure but nDCG for one citance, given the ranking and the selection size."""
    sentences = case.reference.sentences
    chosen = sorted(int(i) for i in order[:n])
    gold = [i for i in range(len(sentences)) if case.gold[i]]
    span = lambda idx: [(sentences[i].start, sentences[i].end) for i in idx]  # noqa: E731
    values = char_scores(span(chosen), span(gold))
    for k in (1, 5):
        values[f"c-P@{k}"] = char_scores(span(order[:k]), span(gold))["c-P"]
    values.update(sentence_scores([sentences[i].sid for i in chosen], list(case.citance.gold)))
    rouge = rouge or rouge_scorer()
    found = rouge.score(" ".join(sentences[i].text for i in gold), " ".join(sentences[i].text for i in chosen))
    for name, column in (("rouge1", "Rg-1"), ("rouge2", "Rg-2"), ("rouge3", "Rg-3")):
        values[column] = found[name].fmeasure
    return values


def official_f1(cases: Sequence[Case], predictions: Sequence[Prediction]) -> dict[str, float]:
    """Task 1A F1 of the selected sentence ids as task1_eval.py computes it: counts per gold
    set (topic, annotator), then micro (counts summed) and macro (P and R averaged)."""
    counts: dict[tuple[str, str], np.ndarray] = {}
    for case, prediction in zip(cases, predictions):
        chosen = {case.reference.sentences[int(i)].sid for i in prediction.order[: prediction.n]}
        gold = set(case.citance.gold)
        hits = len(chosen & gold)
        key = (case.citance.topic, case.citance.annotator)
        counts[key] = counts.get(key, np.zeros(3)) + (hits, len(chosen) - hits, len(gold) - hits)

    def pr(tp: float, fp: float, fn: float) -> tuple[float, float]:
        return (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)

    micro = pr(*np.sum(list(counts.values()), axis=0))
    per_set = np.array([pr(*c) for c in counts.values()])
    return {"F1 micro": _f(*micro), "F1 macro": _f(*per_set.mean(axis=0))}


def ndcg(cases: Sequence[Case], orders: Sequence[np.ndarray]) -> dict[str, float]:
    """nDCG of each citance's full ranking, binary gold relevance, via ir_measures."""
    from ..evaluation.metrics import evaluate
    from ..retrieval.base import Hit

    qrels = {c.citance.id: {c.reference.sentences[i].sid: 1 for i in np.flatnonzero(c.gold)} for c in cases}
    run = {
        c.citance.id: [Hit(c.reference.sentences[i].sid, float(len(o) - r)) for r, i in enumerate(o)]
        for c, o in zip(cases, orders)
    }
    depth = max((len(o) for o in orders), default=1)
    return evaluate(qrels, run, ["nDCG"], depth=depth).per_query["nDCG"]
