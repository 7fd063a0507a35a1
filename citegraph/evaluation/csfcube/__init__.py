"""CSFCube (Mysore et al. 2021): faceted query by example, scored as the authors score it.

:mod:`.release` reads the official release, :mod:`.measures` holds the official measures
(and their trec_eval counterparts), :mod:`.run` builds the systems and writes the results.
Registered as the benchmark ``csfcube`` (:data:`CSFCUBE`).
"""

from collections.abc import Sequence
from pathlib import Path

from ...options import Option
from ..entry import Registered
from .measures import (
    FOLDS,
    MEASURES,
    OFFICIAL,
    TREC,
    TREC_MEASURES,
    fold_mean,
    official,
)
from .release import PAPERS, Release, read_release
from .run import CSFCube, parse_system, run_csfcube

__all__ = [
    "CSFCUBE",
    "CSFCube",
    "FOLDS",
    "MEASURES",
    "OFFICIAL",
    "PAPERS",
    "TREC",
    "TREC_MEASURES",
    "Release",
    "fold_mean",
    "official",
    "parse_system",
    "read_release",
    "run_csfcube",
]


def _build(
    data_dir: Path,
    models: Sequence,
    facet_text: Sequence,
    run_file: Path | None,
    run_facet: str | None,
    work: Path | None,
    unranked: str,
) -> CSFCube:
    systems = (*map(str, models), *(f"{spec}:facet" for spec in facet_text))
    return CSFCube(Path(data_dir), systems, run_file, run_facet, work, unranked)


CSFCUBE = Registered(
    "csfcube",
    "Faceted query-by-example on CSFCube, scored as its authors' script scores it.",
    _build,
    (
        Option("data_dir", "--data", "The official CSFCube release folder.", Path, required=True, path="dir"),
        Option(
            "models",
            "--with",
            "Retrievers over the release's candidates: BM25, fusions and <encoder>:maxsim read "
            "the facet sentences, an <encoder> the whole query paper.",
            "specs",
            "bm25",
        ),
        Option(
            "facet_text",
            "--facet-text",
            "Encoders that also read the facet sentences as one text (rows <encoder>:facet).",
            "specs",
            "",
        ),
        Option(
            "run_file",
            "--run",
            "Also score a TREC run file (qid pid_facet, or pid with --run-facet).",
            Path,
            path="file",
        ),
        Option("run_facet", "--run-facet", "The facet of a run file of bare pids.", ("background", "method", "result")),
        Option("work", "--work", "Where indexes and embeddings are kept (default: OUT/indexes).", Path, path="out"),
        Option(
            "unranked",
            "--unranked",
            "Pool members a ranking leaves out: not scored, as the official script "
            "(official), or appended in id order (append: citegraph's policy).",
            ("official", "append"),
            "official",
        ),
    ),
)
