"""Every string of a synthetic corpus, coined once per seed from syllables: pseudo-words
drawn Zipf-wise (a shared background vocabulary and one per topic), a few real function
words, and authors' names."""

from __future__ import annotations

from itertools import accumulate

import numpy as np

_MARKER = "[CIT]"

_FUNCTION_WORDS = (
    "the",
    "of",
    "and",
    "in",
    "to",
    "a",
    "for",
    "is",
    "we",
    "that",
    "with",
    "on",
    "by",
    "this",
    "are",
    "as",
    "an",
    "from",
    "be",
    "which",
    "our",
    "these",
    "it",
    "can",
    "at",
    "between",
    "using",
    "both",
    "its",
    "than",
)
_BACKGROUND_SIZE, _TOPIC_VOCABULARY_SIZE = 6000, 300
_FIRST_NAMES, _LAST_NAMES = 1500, 20000
_ONSETS = (
    "",
    "b",
    "c",
    "d",
    "f",
    "g",
    "h",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "cl",
    "dr",
    "gr",
    "pl",
    "pr",
    "st",
    "tr",
    "ch",
    "sh",
    "th",
)
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "io", "ou", "y")
_CODAS = ("", "n", "r", "s", "l", "m", "t", "x", "nd", "st", "rt", "ng")
_SYLLABLES = tuple(dict.fromkeys(o + v + c for o in _ONSETS for v in _VOWELS for c in _CODAS))
_INITIALS = "ABCDEFGHJKLMNPRSTW"


class Lexicon:
    """Every string a corpus is made of, coined once per seed from syllables.

    Words are kept as one token table with three forms per word — plain, capitalised
    (sentence start), with a full stop (sentence end) — so a text is a gather and a join.
    """

    def __init__(self, rng: np.random.Generator, topics: int):
        taken = set(_FUNCTION_WORDS)
        frequent = coin(rng, 300, (1, 2), taken)  # frequent words are short
        background = [
            *_FUNCTION_WORDS,
            *frequent,
            *coin(rng, _BACKGROUND_SIZE - len(_FUNCTION_WORDS) - len(frequent), (1, 3), taken),
        ]
        topical = coin(rng, topics * _TOPIC_VOCABULARY_SIZE, (2, 3), taken)
        words = [*background, *topical, _MARKER]
        self.topic_base = len(background)
        self.marker = len(words) - 1
        self.capital, self.stop = len(words), 2 * len(words)
        self.table = np.array([*words, *map(capitalise, words), *(w + "." for w in words)], dtype=object)
        self.background = Zipf(len(background), 1.0, 2.7)
        self.topical = Zipf(_TOPIC_VOCABULARY_SIZE, 0.9, 1.0)
        self.first_names = np.array([capitalise(w) for w in coin(rng, _FIRST_NAMES, (2, 2), taken)], dtype=object)
        self.last_names = np.array([capitalise(w) for w in coin(rng, _LAST_NAMES, (2, 3), taken)], dtype=object)

    def topic_words(self, topic: int, count: int) -> list[str]:
        """The ``count`` most frequent terms of a topic."""
        start = self.topic_base + topic * _TOPIC_VOCABULARY_SIZE
        return list(self.table[start : start + count])

    def texts(
        self,
        rng: np.random.Generator,
        topic: np.ndarray,
        sentences: np.ndarray,
        words: tuple[int, int],
        topic_share: float,
        *,
        stop: bool,
        marker: bool,
    ) -> list[str]:
        """One text per unit: ``sentences[i]`` sentences of ``words`` (low, high) words on ``topic[i]``.

        ``stop`` ends sentences with a full stop; ``marker`` puts the citation marker in
        each sentence, anywhere but first.
        """
        lengths = rng.integers(words[0], words[1] + 1, int(sentences.sum()))
        sentence_unit = np.repeat(np.arange(topic.size), sentences)
        unit_topic = np.repeat(topic[sentence_unit], lengths)
        n = int(lengths.sum())
        on_topic = rng.random(n) < topic_share
        ids = np.empty(n, np.int64)
        ids[~on_topic] = self.background.draw(rng, n - int(on_topic.sum()))
        ranks = self.topical.draw(rng, int(on_topic.sum()))
        ids[on_topic] = self.topic_base + unit_topic[on_topic] * _TOPIC_VOCABULARY_SIZE + ranks
        ends = np.cumsum(lengths)
        starts = ends - lengths
        if marker:
            ids[starts + 1 + (rng.random(lengths.size) * (lengths - 1)).astype(np.int64)] = self.marker
        ids[starts] += self.capital
        if stop:
            ids[ends - 1] += self.stop
        tokens = self.table[ids].tolist()
        per_unit = np.bincount(sentence_unit, weights=lengths, minlength=topic.size).astype(np.int64)
        bounds = [0, *accumulate(per_unit.tolist())]
        return [" ".join(tokens[a:b]) for a, b in zip(bounds, bounds[1:])]

    def authors(self, ids: np.ndarray) -> tuple[list[str], list[str], list[str]]:
        """First name, middle initial ('' if none) and last name of each author id.

        Names are hashed from ids, so distinct authors occasionally share a name, as
        they do in real corpora where names are the only identity.
        """
        h = (ids.astype(np.uint64) * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)
        g = (ids.astype(np.uint64) * np.uint64(2246822519) + np.uint64(374761393)) & np.uint64(0xFFFFFFFF)
        initials = np.array(["", *_INITIALS], dtype=object)
        middle = np.where(h % np.uint64(4) == 0, 1 + (g >> np.uint64(20)) % np.uint64(len(_INITIALS)), 0)
        return (
            self.first_names[h % np.uint64(_FIRST_NAMES)].tolist(),
            initials[middle].tolist(),
            self.last_names[g % np.uint64(_LAST_NAMES)].tolist(),
        )


def coin(rng: np.random.Generator, count: int, syllables: tuple[int, int], taken: set[str]) -> list[str]:
    """``count`` new pseudo-words of ``syllables`` (low, high) syllables each, none in ``taken``."""
    words: list[str] = []
    while len(words) < count:
        lengths = rng.integers(syllables[0], syllables[1] + 1, count - len(words))
        picks = rng.integers(0, len(_SYLLABLES), int(lengths.sum())).tolist()
        at = 0
        for n in lengths.tolist():
            word = "".join(_SYLLABLES[s] for s in picks[at : at + n])
            at += n
            if word not in taken:
                taken.add(word)
                words.append(word)
    return words


class Zipf:
    """Zipf–Mandelbrot ranks 0..size-1 (P(rank) ∝ 1 / (rank + shift)^exponent), drawn in
    O(1) each by Walker's alias method: bisecting a cumulative table costs several times more
    and was most of the generator's time."""

    def __init__(self, size: int, exponent: float, shift: float):
        weights = 1.0 / (np.arange(size) + shift) ** exponent
        scaled = (weights * size / weights.sum()).tolist()
        keep, alias = [1.0] * size, list(range(size))
        small = [i for i, w in enumerate(scaled) if w < 1.0]
        large = [i for i, w in enumerate(scaled) if w >= 1.0]
        while small and large:
            s, g = small.pop(), large[-1]
            keep[s], alias[s] = scaled[s], g
            scaled[g] -= 1.0 - scaled[s]
            if scaled[g] < 1.0:
                small.append(large.pop())
        self.keep, self.alias, self.size = np.array(keep), np.array(alias), size

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        # One uniform gives both the column (integer part) and the coin (fractional part).
        u = rng.random(n) * self.size
        column = u.astype(np.int64)
        return np.where(u - column < self.keep[column], column, self.alias[column])


def capitalise(word: str) -> str:
    return word[:1].upper() + word[1:]
