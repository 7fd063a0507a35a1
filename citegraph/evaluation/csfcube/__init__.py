"""CSFCube (Mysore et al. 2021): faceted query by example, scored as the authors score it.

:mod:`.release` reads the official release, :mod:`.measures` holds the official measures
(and their trec_eval counterparts), :mod:`.run` builds the systems and writes the results.
"""

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
