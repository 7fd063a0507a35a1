"""`citegraph cite`'s two fusion weights tuned for a saved model: the draft's field (its title
and abstract) and the model's cosine, each beside the first stage's score.

    citegraph index bm25      # the first stage's index, once
    .venv/bin/python benchmarks/cite_weights.py --model models/citegraph-minilm-acl --write

On the graph the model was trained on (``CITEGRAPH_DATA_DIR``), the model's own split is
rebuilt from its card (``citegraph.json``: seed, training contexts used) with
:func:`citegraph.local.experiment.split`, so the **validation slice** is drawn from the
*training side* of the time-ordered split — citing papers older than every test paper — and
only from the contexts the model was *not* trained on (``--max-train`` below the training
side's size leaves them); a test context is never read. Each validation context is asked as
a user would ask ``cite``: its sentence (``[CIT]`` the slot), the citing paper's title and
abstract as the draft's, the citing paper's other references as its bibliography, as of the
year before the citing paper's (its own citations are in the graph: no evidence then). The
candidates and the model's cosines are computed once per context; every grid point re-ranks
them (:func:`citegraph.recommend.cite.suggest`, the code path of ``cite``).

Printed: the grid (MRR@50 and R@10 of the cited paper per draft weight × model weight) and
the choice (best MRR, then R@10, then the weights nearest the defaults). ``--write`` stores the
choice, the grid and the slice in the card's ``cite`` entry, which ``cite --model`` reads.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from citegraph.config import Config
from citegraph.library.draft import context_slot
from citegraph.local.config import SplitConfig
from citegraph.local.data import contexts_from_graph
from citegraph.local.saved import CARD, record_card
from citegraph.local.stages import load_corpus, split
from citegraph.recommend import Recommender
from citegraph.recommend.cite import (
    DRAFT_WEIGHT,
    MODEL_WEIGHT,
    CiteModel,
    Fusion,
    draft_matches,
    query_text,
    slot_candidates,
    suggest,
)
from citegraph.recommend.model_folder import FUSION_KEY

DEPTH = 50  # suggestions per context: MRR@50


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def validation_slice(store, card: dict, size: int) -> tuple[list, dict]:
    """Contexts of the model's training side it was not trained on: a random ``size`` of them."""
    seed, used, recorded = card["training"]["seed"], card["split"]["train_used"], card["split"]
    # the run's own split settings (a card from before they were recorded: the defaults it ran with)
    settings = {k: recorded[k] for k in ("test_share", "whole_years", "textless") if k in recorded}
    corpus = load_corpus(store, recorded.get("candidates", "all"))
    contexts = list(contexts_from_graph(store))
    whole = split(store, corpus, contexts, SplitConfig(max_train=None, max_test=1, **settings), seed)
    trained = split(store, corpus, contexts, SplitConfig(max_train=used, max_test=1, **settings), seed)
    if whole.info["train_until"] != card["split"]["train_until"]:
        raise SystemExit(
            f"the graph's split ends its training side at {whole.info['train_until']}, the card's at "
            f"{card['split']['train_until']}: not the graph the model was trained on"
        )
    seen = {c.id for c in trained.train}
    unseen = sorted((c for c in whole.train if c.id not in seen), key=lambda c: c.id)
    if not unseen:
        raise SystemExit(
            f"the model was trained on all {len(whole.train)} training contexts: none is left to validate on "
            "(train with --max-train below that)"
        )
    chosen = random.Random(seed).sample(unseen, min(size, len(unseen)))
    return chosen, {
        "contexts": len(chosen),
        "drawn_from": len(unseen),
        "training_side": len(whole.train),
        "trained_on": len(seen),
        "train_until": whole.info["train_until"],
        "seed": seed,
    }


def reciprocal_rank(ids: list[str], cited: tuple[str, ...]) -> float:
    return next((1 / rank for rank, cid in enumerate(ids, start=1) if cid in cited), 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="A model folder evaluate local --save wrote")
    parser.add_argument("--contexts", type=int, default=100, help="Validation contexts")
    parser.add_argument("--draft", type=floats, default=[0.0, 0.25, 0.5, 1.0], help="Draft weights to try")
    parser.add_argument("--weights", type=floats, default=[0.0, 0.5, 1.0, 2.0, 4.0], help="Model weights to try")
    parser.add_argument("--write", action="store_true", help="Store the choice in the model's card")
    args = parser.parse_args()
    card = json.loads((args.model / CARD).read_text(encoding="utf-8"))
    config = Config.load()
    grid = [Fusion(d, m) for d in args.draft for m in args.weights]
    reciprocal: dict[Fusion, list[float]] = {f: [] for f in grid}
    started = time.monotonic()
    with Recommender.open(config, "bm25") as rec:
        contexts, drawn = validation_slice(rec.store, card, args.contexts)
        print(
            f"validation: {drawn['contexts']} of the {drawn['drawn_from']} training-side contexts the model was not "
            f"trained on (training side {drawn['training_side']}, up to {drawn['train_until']}; trained on "
            f"{drawn['trained_on']}; seed {drawn['seed']})",
            flush=True,
        )
        model = CiteModel(args.model, rec, config.data_folder("embeddings"))
        for n, context in enumerate(contexts, start=1):
            references = tuple(r for r in rec.seed(context.citing).references if r not in context.cited)
            draft = replace(context_slot(context.text), title=context.title, abstract=context.abstract)
            about = draft_matches(rec, draft, references)
            text = query_text(draft.slots[0])
            as_of = context.year - 1 if context.year else None
            candidates = slot_candidates(rec, text, references, set(), about, as_of)
            for fusion in grid:
                ids = [s.id for s in suggest(candidates, rec.weights, text, fusion, model, DEPTH)]
                reciprocal[fusion].append(reciprocal_rank(ids, context.cited))
            if n % 20 == 0:
                print(f"  {n} contexts, {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    scores = {f: (statistics.mean(rr), statistics.mean(r >= 0.1 for r in rr)) for f, rr in reciprocal.items()}
    print(
        f"\nMRR@{DEPTH} / R@10 of the cited paper ({len(contexts)} validation contexts, {time.monotonic() - started:.0f} s)"
    )
    print("| draft \\ model | " + " | ".join(f"{m:g}" for m in args.weights) + " |")
    print("|---|" + "---:|" * len(args.weights))
    for d in args.draft:
        cells = [f"{100 * scores[Fusion(d, m)][0]:.2f} / {100 * scores[Fusion(d, m)][1]:.1f}" for m in args.weights]
        print(f"| {d:g} | " + " | ".join(cells) + " |")
    best = max(
        grid,
        key=lambda f: (*scores[f], -abs(f.draft - DRAFT_WEIGHT) - abs(f.model - MODEL_WEIGHT)),
    )
    default = scores.get(Fusion())
    print(
        f"chosen: draft {best.draft:g}, model {best.model:g} (MRR {100 * scores[best][0]:.2f}, "
        f"R@10 {100 * scores[best][1]:.1f})"
        + (
            f"; the defaults (draft {DRAFT_WEIGHT:g}, model {MODEL_WEIGHT:g}): MRR {100 * default[0]:.2f}"
            if default
            else ""
        )
    )
    if args.write:
        record_card(
            args.model,
            FUSION_KEY,
            {
                "fusion": {"draft": best.draft, "model": best.model},
                "measure": f"MRR@{DEPTH}, then R@10",
                "validation": drawn,
                "grid": [
                    {"draft": f.draft, "model": f.model, "mrr": round(scores[f][0], 6), "r@10": round(scores[f][1], 6)}
                    for f in grid
                ],
                "tuned_by": "benchmarks/cite_weights.py",
            },
        )
        print(f"written to {args.model / CARD} ({FUSION_KEY}.fusion)")


if __name__ == "__main__":
    main()
