"""CL-SciSumm contextualisation registered as the benchmark ``contextualise``: its options.
Light to import (the CLI lists it); the benchmarks are :class:`.evaluation.CLSciSumm` and,
over several seeds or corpus shares, :class:`.repeats.Repeats`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import CitegraphError
from ..evaluation.entry import Registered
from ..evaluation.harness import Benchmark
from ..options import Option
from .models import MODELS


def build(
    data_dir: Path | None,
    train_dir: Path | None,
    test_dir: Path | None,
    gold: Path | None,
    strict: bool,
    models: Sequence[str],
    folds: int,
    seed: int,
    seeds: Sequence[int],
    corpus_shares: Sequence[float],
    ontologies: Sequence[Path],
    acronyms: bool,
    corpus: Sequence[Path],
    vectors: Path | None,
) -> Benchmark:
    """The benchmark from the command's options (no ``ontologies``: the bundled ACM CCS):
    cross-validation over ``data_dir``, or tuned on ``train_dir`` and scored on ``test_dir``."""
    from .annotation import Repairs
    from .evaluation import CLSciSumm
    from .repeats import Repeats

    data = data_dir or train_dir  # cross-validated, or trained on
    if bool(data_dir) == bool(train_dir or test_dir) or bool(train_dir) != bool(test_dir) or data is None:
        raise CitegraphError("give either --data DIR (cross-validation) or both --train DIR and --test DIR")

    shares = [float(s) for s in corpus_shares]
    if any(not 0 <= share <= 1 for share in shares):
        raise CitegraphError("--corpus-shares: shares are between 0 and 1")
    options: dict[str, Any] = {
        "ontologies": tuple(ontologies) or None,
        "acronyms": acronyms,
        "corpus": tuple(corpus),
        "vectors": vectors,
    }
    if seeds or len(shares) > 1:
        if train_dir or gold or strict:
            raise CitegraphError(
                "--seeds and --corpus-shares repeat the cross-validation of --data over topics "
                "that carry their own gold: --train/--test, --gold and --strict do not apply"
            )
        return Repeats(
            Path(data), tuple(models), folds, tuple(int(s) for s in seeds) or (seed,), tuple(shares), options
        )
    return CLSciSumm(
        Path(data),
        tuple(models),
        folds,
        seed,
        corpus_share=shares[0],
        test_dir=test_dir,
        gold=gold,
        repairs=Repairs(strict),
        **options,
    )


CONTEXTUALISE = Registered(
    "contextualise",
    "Table 1 of Cohan & Goharian (2017): which reference sentences a citance refers to.",
    build,
    (
        Option(
            "data_dir",
            "--data",
            "A CL-SciSumm folder (one folder per topic with Reference_XML/ and its gold), "
            "scored by cross-validation over its topics.",
            Path,
            path="dir",
        ),
        Option(
            "train_dir",
            "--train",
            "Instead of --data: the training topics, on which the parameters are tuned …",
            Path,
            path="dir",
        ),
        Option(
            "test_dir",
            "--test",
            "… and the test topics, scored once with them (the shared task's protocol).",
            Path,
            path="dir",
        ),
        Option(
            "gold",
            "--gold",
            "A folder of gold files (Task1/<paper>_<annotator>.csv, <paper>.annv3.txt, …) for "
            "topics that do not carry their own gold.",
            Path,
            path="dir",
        ),
        Option("strict", "--strict", "Refuse defective input (file:line:field) instead of repairing it.", bool, False),
        Option("models", "--models", f"Comma-separated, of: {', '.join(MODELS)}.", list, list(MODELS)),
        Option("folds", "--folds", "Cross-validation folds over topics (parameter tuning).", int, 5),
        Option("seed", "--seed", "Shuffles the topics into folds, seeds Word2Vec.", int, 0),
        Option(
            "seeds",
            "--seeds",
            "Several seeds (e.g. 0,1,2): Table 1 as mean ± sd over them, the learning curve "
            "over --corpus-shares, and a test on c-F averaged over the seeds.",
            list,
            [],
        ),
        Option(
            "corpus_shares",
            "--corpus-shares",
            "Shares of the --corpus documents to train the word vectors on "
            "(e.g. 0.1,0.25,0.5,1): with --seeds, a learning curve.",
            list,
            ["1"],
        ),
        Option(
            "ontologies",
            "--ontology",
            "Synonyms: SKOS XML or a TAB-separated thesaurus (repeatable; default: the bundled ACM CCS 2012).",
            Path,
            (),
            path="file",
            multiple=True,
        ),
        Option(
            "acronyms",
            "--acronyms/--no-acronyms",
            "Add the acronym definitions the benchmark's texts state to the synonyms.",
            bool,
            True,
        ),
        Option(
            "corpus",
            "--corpus",
            "More text for the word vectors (repeatable): a ScisummNet folder (full texts "
            "and citing sentences), JSONL (title, abstract, contexts) or plain lines.",
            Path,
            (),
            path="any",
            multiple=True,
        ),
        Option(
            "vectors",
            "--vectors",
            "Word vectors saved by an earlier run (OUT/vectors) instead of training.",
            Path,
            path="dir",
        ),
    ),
)
