"""``cite`` on whole drafts, registered as the benchmark ``cite`` (``citegraph evaluate cite``).

``cite tune`` and ``evaluate local`` score one sentence at a time; a writer's draft is
paragraphs dense with citations, where slots can get each other's papers. The benchmark builds
**pseudo-drafts** from the graph's citing sentences (``CITES.contexts``; in the documented graph,
ACL-200 ∪ ScisummNet, ScisummNet's, docs/cite.md):

* **a draft** is one citing paper: its citing sentences, each ``[CIT]`` a slot whose answer is
  the edge's cited paper. A sentence the citing paper wrote citing two (or more) papers of the
  graph is stored once per cited paper, each copy with its own citation marked; the copies are
  recognised (the same text once the markers and author–year citations are taken out) and merged
  back into one sentence with a slot per cited paper (:func:`merge`). A context whose citation
  could not be located (no ``[CIT]``), or longer than a draft's sentence may be, is left out.
  The sentences are laid out in paragraphs of ``paragraph`` sentences, in an order drawn once
  per citing paper (the same under every seed), and the draft is read as ``cite`` reads a draft's
  text (:func:`citegraph.library.draft.read_sent_draft`, ``window`` neighbours);
* **the draft's title and abstract** are the citing paper's (the graph's, often a title only);
  **its bibliography** the citing paper's other references in the graph: every reference but the
  draft's answers (all of them: they are the slots it asks about), given to ``cite`` by paper id;
* **as of** the year before the citing paper's: its own sentences, and everything later, are
  out of the view (:class:`~citegraph.recommend.seed.View`).

**Disjoint by construction.** The citing papers are split by time: the latest whole years
holding at least ``test_share`` of them are the test side, the older ones the **training side**
(:func:`split_drafts`; what weights are tuned on). No citing paper is on both sides, and every
training draft is older than every test draft. Each seed samples ``drafts`` test drafts with at
least ``min_slots`` slots (:func:`citegraph.evaluation.sampling.sample`, its own generator; two
seeds may draw the same draft).

**What is measured**, for each way of answering a draft (:data:`VARIANTS`, ``--variants``):
per slot R@1, R@5, R@10 and MRR (at :data:`DEPTH`) with (a) each sentence **alone** (a draft of
that sentence: its slots, the same title, abstract, bibliography and as-of date) and (b) the
sentence **inside its draft**; and (c) per draft, the share of its slot pairs with different
answers whose top-5 lists are identical (the same papers in the same order; two empty lists
suggest nothing, the same or not), alone and inside.
Seeds are summarised as mean ± sd of their means; the paired randomisation tests
(:func:`citegraph.evaluation.metrics.compare`) compare each slot's (each draft's) mean over the
seeds that drew it (:func:`~citegraph.evaluation.metrics.over_seeds`): alone against inside for
each variant, each variant against the first, and each against the one before it (``cite`` against
``cite-sentence``), inside and alone.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CitegraphError, UsageError
from ..evaluation.entry import Registered, RetrieverOption
from ..evaluation.harness import Log, Scores, quiet
from ..evaluation.report import Table
from ..ingest.sources.scisummnet import AUTHOR_YEAR, NUMERIC
from ..library.draft import MAX_SENTENCE_CHARS, OTHER_MARKER, SLOT_MARKER
from ..options import Option
from ..retrieval.base import Retriever

if TYPE_CHECKING:
    from ..evaluation.metrics import Evaluation, OverSeeds
    from ..graph import GraphStore
    from ..library.draft import Draft
    from .recommender import Recommender

DEPTH = 50  # suggestions per slot: MRR@50, as `cite tune` measures
TOP = 5  # the lists compared between slots
MEASURES = ("R@1", "R@5", "R@10", "MRR")
SAME = f"same top-{TOP}"  # (c): slot pairs with different answers and identical top-5 lists
ALONE, INSIDE = "sentence alone", "in its draft"
_ENDS = re.compile(r"[.!?][\"')\]]*$")
_MARKERS = re.compile(re.escape(SLOT_MARKER) + "|" + re.escape(OTHER_MARKER))

# ways of answering a draft: each slot's ranked paper ids, best first
Answer = Callable[["Recommender", "Draft", "int | None", int], list[list[str]]]


@dataclass(frozen=True)
class Sentence:
    """A citing sentence: its text with each slot ``[CIT]``, and each slot's answer in order."""

    text: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class PseudoDraft:
    """A citing paper as a draft being written: its sentences, title, abstract, bibliography."""

    citing: str
    year: int
    sentences: tuple[Sentence, ...]
    title: str = ""
    abstract: str = ""
    bibliography: tuple[str, ...] = ()  # graph paper ids: the citing paper's references but the answers

    @property
    def answers(self) -> tuple[str, ...]:
        """Every slot's answer, in reading order."""
        return tuple(a for s in self.sentences for a in s.answers)

    @property
    def as_of(self) -> int:
        return self.year - 1

    def slot_ids(self) -> list[str]:
        return [f"{self.citing}:{n}" for n in range(1, len(self.answers) + 1)]

    def inside(self, paragraph: int, window: int) -> Draft:
        """The whole draft, its sentences ``paragraph`` to a paragraph."""
        groups = [self.sentences[i : i + paragraph] for i in range(0, len(self.sentences), paragraph)]
        return self._read("\n\n".join(" ".join(_ended(s.text) for s in group) for group in groups), window)

    def alone(self, window: int) -> list[Draft]:
        """Each sentence as a draft of its own, with the draft's title, abstract and bibliography."""
        return [self._read(_ended(s.text), window) for s in self.sentences]

    def _read(self, text: str, window: int) -> Draft:
        from ..library.draft import read_sent_draft
        from ..library.entries import LibraryEntry

        read = read_sent_draft(text, format="text", window=window)
        wanted = text.count(SLOT_MARKER)
        if len(read.slots) != wanted:
            raise CitegraphError(f"{self.citing}: {len(read.slots)} slots read from a text marking {wanted}")
        references = {paper: LibraryEntry(f"bibliography of {self.citing}", id=paper) for paper in self.bibliography}
        return replace(read, title=self.title, abstract=self.abstract, references=references)


def merge(contexts: Sequence[tuple[str, str]]) -> str | None:
    """One sentence with a ``[CIT]`` per cited paper, from its copies (cited paper, text with that
    paper's citation marked), or None when they are not one sentence.

    Each copy is the sentence ``S`` with one span, its citation, replaced by ``[CIT]``: copy i is
    ``S[:s_i] [CIT] S[e_i:]``. In the order of the spans, the text between two of them is the
    longest text that ends the later copy's part before ``[CIT]`` and starts the earlier copy's
    part after it, leaving each citation non-empty."""
    parts = sorted((text.split(SLOT_MARKER) for _, text in contexts), key=lambda p: len(p[0]))
    if any(len(p) != 2 for p in parts):
        return None
    out = [parts[0][0]]
    for (before_i, after_i), (before_j, after_j) in zip(parts, parts[1:]):
        if not (before_j.startswith(before_i) and after_i.endswith(after_j) and len(before_j) > len(before_i)):
            return None
        room = min(len(before_j) - len(before_i), len(after_i) - len(after_j)) - 1
        between = next((m for m in range(room, -1, -1) if before_j.endswith(after_i[:m])), None)
        if between is None:
            return None
        out += [SLOT_MARKER, after_i[:between]]
    return "".join([*out, SLOT_MARKER, parts[-1][1]])


def sentences_of(contexts: Iterable[tuple[str, str]]) -> list[Sentence]:
    """A citing paper's sentences from its (cited paper, marked context) pairs: copies of one
    sentence merged (:func:`merge`); a context without ``[CIT]``, or too long for a draft's
    sentence, left out; a context repeating its citation has a slot at each (same answer)."""
    copies: dict[str, dict[str, str]] = defaultdict(dict)  # the text without citations → cited → context
    for cited, text in contexts:
        if SLOT_MARKER not in text or len(text) > MAX_SENTENCE_CHARS:
            continue
        copies[_unmarked(text)].setdefault(cited, text)
    found = []
    for by_cited in copies.values():
        merged = merge(list(by_cited.items())) if len(by_cited) > 1 else None
        if merged is not None:
            order = sorted(by_cited, key=lambda c: len(by_cited[c].split(SLOT_MARKER)[0]))
            found.append(Sentence(merged, tuple(order)))
        else:
            found += [Sentence(t, (c,) * t.count(SLOT_MARKER)) for c, t in by_cited.items()]
    return found


def _unmarked(text: str) -> str:
    """A context's text without its marker and author–year or numeric citations: the same for
    every copy of one sentence."""
    return " ".join(AUTHOR_YEAR.sub(" ", NUMERIC.sub(" ", text.replace(SLOT_MARKER, " "))).split())


def _ended(text: str) -> str:
    """A sentence ending as one ('.' added to a run-on), so that the draft's reader splits there."""
    return text if _ENDS.search(text) else text + "."


# -- the drafts of the graph ---------------------------------------------------------------
@dataclass(frozen=True)
class Split:
    """The citing papers by time: the training side older than ``test_from``, the test side from it."""

    training: list[PseudoDraft]
    test: list[PseudoDraft]
    test_from: int


def split_drafts(store: GraphStore, test_share: float = 0.2) -> Split:
    """Every citing paper of the graph with a located citing sentence as a draft (sentences only:
    :func:`described` adds the rest), split by time into the latest whole years holding at least
    ``test_share`` of them (the test side) and the older ones (the training side)."""
    from ..evaluation.sampling import generator

    if not 0 < test_share < 1:
        raise UsageError(f"--test-share: {test_share} is not between 0 and 1")
    contexts: dict[str, list[tuple[str, str]]] = defaultdict(list)
    years: dict[str, int] = {}
    for row in store.plain("recommend/contexts"):
        if row["year"] is None:
            continue
        years[row["citing"]] = row["year"]
        contexts[row["citing"]] += [(row["cited"], text) for text in row["contexts"]]
    drafts = []
    for citing in sorted(contexts):
        found = sorted(sentences_of(contexts[citing]), key=lambda s: (s.answers, s.text))
        if found:  # an order drawn once per citing paper: the same draft under every seed
            order = generator(0, "draft order", citing).permutation(len(found))
            drafts.append(PseudoDraft(citing, years[citing], tuple(found[i] for i in order)))
    if not drafts:
        raise CitegraphError("the graph holds no citing sentences with a located citation ([CIT]): nothing to draft")
    newest_first = sorted({d.year for d in drafts}, reverse=True)
    test_from, held = newest_first[0], 0
    for year in newest_first:
        test_from, held = year, held + sum(d.year == year for d in drafts)
        if held >= test_share * len(drafts):
            break
    return Split([d for d in drafts if d.year < test_from], [d for d in drafts if d.year >= test_from], test_from)


def described(store: GraphStore, draft: PseudoDraft) -> PseudoDraft:
    """The draft with the citing paper's title, abstract and bibliography (its references in the
    graph but the draft's answers)."""
    [row] = store.plain("recommend/seed", id=draft.citing)
    answers = set(draft.answers)
    references = tuple(dict.fromkeys(r for r in row["references"] if r not in answers))
    return replace(draft, title=row["title"] or "", abstract=row["abstract"] or "", bibliography=references)


# -- ways of answering a draft ------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """A named way of answering a draft (``--variants``): each slot's ranked paper ids."""

    name: str
    help: str
    answer: Answer


def _bm25(recommender: Recommender, draft: Draft, as_of: int | None, k: int) -> list[list[str]]:
    """The recommender's retrievers alone on each slot's sentence and neighbours (its markers
    dropped): the first stage's text scores, as of the date, nothing else; papers they do not
    find are not ranked."""
    from .seed import View
    from .weights import Weights

    text_only = Weights({"text": 1.0})
    ranked = []
    for slot in draft.slots:
        text = " ".join(_MARKERS.sub(" ", slot.text).split())
        seed = recommender.ask(abstract=text, view=View(as_of=as_of)).seed
        candidates = recommender.candidates(seed)
        ranked.append([hit.id for hit in text_only.rank(candidates, k) if hit.score > 0])
    return ranked


def _cite(recommender: Recommender, draft: Draft, as_of: int | None, k: int) -> list[list[str]]:
    """``citegraph cite`` without a model: :func:`citegraph.recommend.cite.cite`, its defaults."""
    from .cite import cite

    return [[s.id for s in slot.suggestions] for slot in cite(recommender, draft, k=k, as_of=as_of).slots]


def _cite_sentence(recommender: Recommender, draft: Draft, as_of: int | None, k: int) -> list[list[str]]:
    """``cite`` as it was before a slot had a query of its own: the sentence and its neighbours
    once each, the graph's evidence the same at every slot of the draft."""
    from .cite import SlotQuery, cite

    query = SlotQuery(clause=0, sentence=1, neighbours=1, graph_floor=1.0)
    return [[s.id for s in slot.suggestions] for slot in cite(recommender, draft, k=k, as_of=as_of, query=query).slots]


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("bm25", "the first stage's text retrievers alone on the slot's text", _bm25),
        Variant(
            "cite-sentence", "cite with the sentence as the slot's query and draft-wide graph evidence", _cite_sentence
        ),
        Variant("cite", "citegraph cite, no model", _cite),
    )
}


# -- the benchmark ------------------------------------------------------------------------
@dataclass(frozen=True)
class DraftCitations:
    store: GraphStore
    drafts: int = 80  # test drafts per seed
    seeds: tuple[int, ...] = (0, 1, 2)
    variants: tuple[str, ...] = ("bm25", "cite-sentence", "cite")
    test_share: float = 0.2
    min_slots: int = 2
    paragraph: int = 4  # sentences to a paragraph of the draft
    window: int = 1  # neighbouring sentences read with a slot's (cite's --window)
    name: str = "cite"

    def score(self, retrievers: Sequence[Retriever], out: Path, log: Log = quiet) -> Scores:
        from ..evaluation.sampling import generator, sample
        from .recommender import Recommender

        split = split_drafts(self.store, self.test_share)
        eligible = [d for d in split.test if len(d.answers) >= self.min_slots]
        if not eligible:
            raise CitegraphError(f"no test draft (citing papers from {split.test_from}) has {self.min_slots} slots")
        drawn = {s: sample(eligible, self.drafts, generator(s, "cite drafts")) for s in self.seeds}
        described_by = {d.citing: described(self.store, d) for ds in drawn.values() for d in ds}
        recommender = Recommender(self.store, retrievers)
        seconds: dict[str, float] = defaultdict(float)
        runs: dict[int, dict[str, Evaluation]] = {}
        try:
            for seed, chosen in drawn.items():
                runs[seed] = {}
                for variant in (VARIANTS[v] for v in self.variants):
                    for mode in (ALONE, INSIDE):
                        started = time.monotonic()
                        lists = {
                            d.citing: self._answer(variant, recommender, described_by[d.citing], mode) for d in chosen
                        }
                        seconds[f"{variant.name}, {mode}"] += time.monotonic() - started
                        runs[seed] |= scored(f"{variant.name}, {mode}", [described_by[d.citing] for d in chosen], lists)
                    log(f"seed {seed}: {variant.name} done")
        finally:
            recommender.close()
        slots = {s: sum(len(d.answers) for d in ds) for s, ds in drawn.items()}
        about = (
            f"{self.drafts} drafts a seed of the citing papers from {split.test_from} "
            f"({', '.join(f'seed {s}: {n} slots' for s, n in slots.items())}), "
            f"text: {', '.join(r.name for r in retrievers) or 'none'}"
        )
        config = {
            "drafts": self.drafts,
            "seeds": list(self.seeds),
            "variants": list(self.variants),
            "test_share": self.test_share,
            "test_from": split.test_from,
            "training_drafts": len(split.training),
            "test_drafts": len(split.test),
            "eligible_test_drafts": len(eligible),
            "min_slots": self.min_slots,
            "paragraph": self.paragraph,
            "window": self.window,
            "depth": DEPTH,
            "retrievers": [r.name for r in retrievers],
            "drawn": {str(s): [d.citing for d in ds] for s, ds in drawn.items()},
            "slots": {str(s): n for s, n in slots.items()},
            "sentences_with_several_slots": {
                str(s): sum(len(x.answers) > 1 for d in ds for x in d.sentences) for s, ds in drawn.items()
            },
            "seconds": {row: round(t, 1) for row, t in seconds.items()},
        }
        per_query = {f"seed {s}": {row: e.per_query for row, e in rows.items()} for s, rows in runs.items()}
        return Scores(_tables(runs, list(self.variants), about), config, per_query)

    def _answer(self, variant: Variant, recommender: Recommender, draft: PseudoDraft, mode: str) -> list[list[str]]:
        """Each slot's ranked ids for ``draft``, asked whole or a sentence at a time."""
        if mode == INSIDE:
            return variant.answer(recommender, draft.inside(self.paragraph, self.window), draft.as_of, DEPTH)
        return [ids for one in draft.alone(self.window) for ids in variant.answer(recommender, one, draft.as_of, DEPTH)]


def scored(row: str, drafts: Sequence[PseudoDraft], lists: dict[str, list[list[str]]]) -> dict[str, Evaluation]:
    """A row's per-slot measures (keyed ``row``) and per-draft identical top-5 share (``row`` +
    the measure's name)."""
    from ..evaluation.metrics import Evaluation, evaluate
    from ..retrieval.base import Hit

    qrels, run, same = {}, {}, {}
    for draft in drafts:
        ranked = lists[draft.citing]
        for qid, answer, ids in zip(draft.slot_ids(), draft.answers, ranked, strict=True):
            qrels[qid] = {answer: 1}
            run[qid] = [Hit(pid, float(len(ids) - i)) for i, pid in enumerate(ids)]
        pairs = [(i, j) for i, j in combinations(range(len(ranked)), 2) if draft.answers[i] != draft.answers[j]]
        if pairs:
            identical = [bool(ranked[i]) and ranked[i][:TOP] == ranked[j][:TOP] for i, j in pairs]
            same[draft.citing] = sum(identical) / len(pairs)
    return {
        row: evaluate(qrels, run, MEASURES, DEPTH),
        f"{row} {SAME}": Evaluation({SAME: same}, sorted(same)),
    }


def _tables(runs: dict[int, dict[str, Evaluation]], variants: list[str], about: str) -> list[Table]:
    """The rows as mean ± sd over the seeds, then the paired randomisation tests on each slot's
    (each draft's) mean over the seeds that drew it."""
    from ..evaluation.metrics import compare, over_seeds

    seeds = list(runs)
    several = len(seeds) > 1
    over = f"mean ± sd over seeds {', '.join(map(str, seeds))}" if several else f"seed {seeds[0]}"
    rows = [f"{v}, {mode}" for v in variants for mode in (ALONE, INSIDE)]
    summary: dict[str, OverSeeds] = {name: over_seeds(seeds, [runs[s][name] for s in seeds]) for name in runs[seeds[0]]}
    columns = [*MEASURES, SAME]
    table = Table(f"citation slots of drafts ({about}; {over})", columns, name="cite_drafts")
    for row in rows:
        for measure in MEASURES:
            table.set(row, measure, summary[row].mean[measure], summary[row].sd[measure] if several else None)
        table.set(
            row, SAME, summary[f"{row} {SAME}"].mean[SAME], summary[f"{row} {SAME}"].sd[SAME] if several else None
        )
    pairs = [(f"{v}, {INSIDE}", f"{v}, {ALONE}") for v in variants]
    pairs += [(f"{v}, {mode}", f"{variants[0]}, {mode}") for v in variants[1:] for mode in (INSIDE, ALONE)]
    pairs += [(f"{v}, {mode}", f"{u}, {mode}") for u, v in zip(variants[1:], variants[2:]) for mode in (INSIDE, ALONE)]
    tests = Table(
        f"paired randomisation tests p, per slot ({SAME}: per draft; each one's mean over the seeds that drew it)",
        columns,
        scale=1.0,
        name="cite_drafts_p",
        digits=4,
    )
    for a, b in pairs:
        for measure in MEASURES:
            tests.set(f"{a} vs {b}", measure, compare(summary[a].pooled, summary[b].pooled, measure).randomisation_p)
        same_a, same_b = summary[f"{a} {SAME}"].pooled, summary[f"{b} {SAME}"].pooled
        tests.set(f"{a} vs {b}", SAME, compare(same_a, same_b, SAME).randomisation_p)
    return [table, tests]


def build(
    store: GraphStore,
    drafts: int,
    seeds: Sequence[str],
    variants: Sequence[str],
    test_share: float,
    min_slots: int,
    paragraph: int,
    window: int,
) -> DraftCitations:
    chosen_seeds, chosen = check(
        seeds=seeds, variants=variants, drafts=drafts, min_slots=min_slots, paragraph=paragraph, window=window
    )
    return DraftCitations(store, drafts, chosen_seeds, chosen, test_share, min_slots, paragraph, window)


def check(
    *,
    seeds: Sequence[str],
    variants: Sequence[str],
    drafts: int,
    min_slots: int,
    paragraph: int,
    window: int,
    **_: object,
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The options checked before the graph opens (:attr:`Registered.check`)."""
    from .benchmark import parse_seeds

    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or not variants:
        raise UsageError(f"--variants: {', '.join(unknown) or 'none given'}; choose from {', '.join(VARIANTS)}")
    if len(set(variants)) != len(variants):
        raise UsageError(f"--variants: each once, got {','.join(variants)}")
    for flag, value, least in (("--drafts", drafts, 1), ("--min-slots", min_slots, 1), ("--paragraph", paragraph, 1)):
        if value < least:
            raise UsageError(f"{flag}: {value} is below {least}")
    if window < 0:
        raise UsageError(f"--window: {window} is negative")
    return parse_seeds(seeds, 0), tuple(variants)


CITE = Registered(
    "cite",
    "citegraph cite on whole drafts: the graph's citing papers of the latest years as drafts, each citation "
    "a slot; per-slot R@k and MRR with each sentence alone and inside its draft, and the share of slot pairs "
    "with identical top-5 lists.",
    build,
    (
        Option("drafts", "--drafts", "Test drafts (citing papers) per seed.", int, 80),
        Option(
            "seeds", "--seeds", "Seeds, each its own sample of test drafts (comma-separated).", list, ["0", "1", "2"]
        ),
        Option(
            "variants",
            "--variants",
            f"Ways of answering a draft (comma-separated): {'; '.join(f'{v.name}: {v.help}' for v in VARIANTS.values())}.",
            list,
            list(VARIANTS),
        ),
        Option(
            "test_share",
            "--test-share",
            "Least share of citing papers, the latest years, on the test side.",
            float,
            0.2,
        ),
        Option("min_slots", "--min-slots", "Slots a test draft has at least.", int, 2),
        Option("paragraph", "--paragraph", "Sentences to a paragraph of a draft.", int, 4),
        Option("window", "--window", "Neighbouring sentences read with a slot's (cite --window).", int, 1),
    ),
    RetrieverOption("indexes", help="Text retrievers with built indexes (citegraph index …).", run_files=False),
    graph=True,
    check=check,
)
