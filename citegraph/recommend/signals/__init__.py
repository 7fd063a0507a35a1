"""The recommender's signals, one module each behind one small interface: a signal's
evidence is gathered for a seed (from the retrievers, the citing sentences or a Cypher
statement) and then added to the seed's candidates (:class:`Evidence`), setting their
features and the signals their explanations show.

- :mod:`.text` — each retriever's top matches, and the ego-network enrichment around them;
- :mod:`.contexts` — papers cited in sentences most like the seed's text;
- :mod:`.neighbourhood` — the references' neighbourhood: cited by them, coupling, co-citation, and
  the push-down of candidates linked to the papers the user does not want;
- :mod:`.facts` — what the graph says of every candidate (metadata, citations, the view's
  filters), which turns the link counts into features.
"""

from __future__ import annotations

from typing import Protocol

from ..candidates import Candidates
from ..seed import Seed


class Evidence(Protocol):
    def add_to(self, found: Candidates, seed: Seed) -> None:
        """Set this signal's features and signals on ``found`` (adding candidates it brings)."""
