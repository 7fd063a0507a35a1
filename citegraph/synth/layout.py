"""Who each paper of a synthetic corpus is before anything is written: its topic (with MAG
fields, arXiv categories and venues), year and arXiv number; and the random streams every
stage draws from."""

from __future__ import annotations

import numpy as np

from ..vocabulary import MAG_FIELDS
from .lexicon import Lexicon, capitalise
from .recipe import Plan, SynthSpec, Topic

# Real arXiv category codes a topic of each field may carry, most typical first. arXiv has
# no arts or humanities archives, so those fields borrow the nearest existing codes.
FIELD_CATEGORIES: dict[str, tuple[str, ...]] = {
    "Art": ("cs.MM", "cs.GR", "cs.SD"),
    "Biology": ("q-bio.GN", "q-bio.MN", "q-bio.PE", "q-bio.BM", "q-bio.CB"),
    "Business": ("q-fin.GN", "q-fin.PM", "q-fin.RM"),
    "Chemistry": ("physics.chem-ph", "cond-mat.soft", "q-bio.BM"),
    "Computer Science": (
        "cs.LG",
        "cs.CL",
        "cs.CV",
        "cs.AI",
        "cs.IR",
        "cs.DS",
        "cs.DB",
        "cs.NI",
        "cs.CR",
        "cs.SE",
        "cs.DC",
        "cs.RO",
        "cs.HC",
    ),
    "Economics": ("econ.GN", "econ.EM", "econ.TH", "q-fin.EC"),
    "Engineering": ("eess.SP", "eess.SY", "eess.IV", "physics.app-ph"),
    "Environmental Science": ("physics.ao-ph", "q-bio.PE"),
    "Geography": ("physics.soc-ph", "physics.geo-ph"),
    "Geology": ("physics.geo-ph", "astro-ph.EP"),
    "History": ("physics.hist-ph", "math.HO"),
    "Materials Science": ("cond-mat.mtrl-sci", "cond-mat.mes-hall", "cond-mat.supr-con"),
    "Mathematics": ("math.PR", "math.CO", "math.AG", "math.NT", "math.OC", "math.AP", "math.ST"),
    "Medicine": ("q-bio.TO", "q-bio.QM", "physics.med-ph"),
    "Philosophy": ("physics.hist-ph", "math.LO", "cs.LO"),
    "Physics": (
        "hep-th",
        "hep-ph",
        "quant-ph",
        "gr-qc",
        "astro-ph.CO",
        "astro-ph.GA",
        "cond-mat.stat-mech",
        "physics.optics",
        "nucl-th",
    ),
    "Political Science": ("cs.CY", "physics.soc-ph", "econ.GN"),
    "Psychology": ("q-bio.NC", "cs.HC"),
    "Sociology": ("cs.SI", "physics.soc-ph", "cs.CY"),
}

# Relative number of topics per field, roughly MAG's shares of papers: after every field
# has one topic, further topics go mostly to the big sciences.
_FIELD_WEIGHTS = {
    "Art": 1,
    "Biology": 12,
    "Business": 3,
    "Chemistry": 8,
    "Computer Science": 12,
    "Economics": 3,
    "Engineering": 8,
    "Environmental Science": 3,
    "Geography": 2,
    "Geology": 2,
    "History": 1,
    "Materials Science": 6,
    "Mathematics": 6,
    "Medicine": 18,
    "Philosophy": 1,
    "Physics": 9,
    "Political Science": 2,
    "Psychology": 5,
    "Sociology": 2,
}

# The fields a topic's papers may also be filed under, by home field.
_NEIGHBOURS = {
    "Art": ("History", "Philosophy"),
    "Biology": ("Medicine", "Chemistry"),
    "Business": ("Economics", "Sociology"),
    "Chemistry": ("Materials Science", "Biology"),
    "Computer Science": ("Mathematics", "Engineering"),
    "Economics": ("Business", "Mathematics"),
    "Engineering": ("Computer Science", "Materials Science"),
    "Environmental Science": ("Biology", "Geography"),
    "Geography": ("Environmental Science", "Sociology"),
    "Geology": ("Environmental Science", "Geography"),
    "History": ("Political Science", "Art"),
    "Materials Science": ("Chemistry", "Physics"),
    "Mathematics": ("Computer Science", "Physics"),
    "Medicine": ("Biology", "Psychology"),
    "Philosophy": ("History", "Psychology"),
    "Physics": ("Mathematics", "Materials Science"),
    "Political Science": ("Economics", "Sociology"),
    "Psychology": ("Medicine", "Sociology"),
    "Sociology": ("Psychology", "Political Science"),
}


_ARXIV_FROM = 2007  # arXiv ids use the YYMM.NNNNN scheme, which began in April 2007


def plan(spec: SynthSpec) -> Plan:
    """Draw topics, years and arXiv numbers; the same for both output formats."""
    streams = random_streams(spec.seed)
    return draw_plan(spec, Lexicon(streams["world"], spec.topics), streams["layout"])


def random_streams(seed: int) -> dict[str, np.random.Generator]:
    """Independent random streams, so that the graph and the abstracts do not depend on
    the output format, nor the topics on anything drawn after them."""
    names = ("world", "layout", "cite", "text", "people", "contexts")
    return {name: np.random.default_rng(s) for name, s in zip(names, np.random.SeedSequence(seed).spawn(len(names)))}


def draw_plan(spec: SynthSpec, lexicon: Lexicon, rng: np.random.Generator) -> Plan:
    topics = _topics(rng, spec.topics, lexicon)

    years = np.arange(spec.start_year, spec.end_year + 1)
    volume = spec.growth ** (years - spec.start_year)
    per_year = rng.multinomial(spec.papers, volume / volume.sum())
    popularity = rng.dirichlet(np.full(spec.topics, 2.0))
    drift = rng.normal(0.0, 0.05, spec.topics)  # topics rise and fall over the years
    middle = (spec.start_year + spec.end_year) / 2
    topic = np.empty(spec.papers, np.int32)
    at = 0
    for year, count in zip(years, per_year):
        weights = popularity * np.exp(drift * (year - middle))
        topic[at : at + count] = rng.choice(spec.topics, count, p=weights / weights.sum())
        at += count
    year = np.repeat(years, per_year).astype(np.int16)

    # Months advance through each year's papers; arXiv numbers count within a month.
    rank_in_year = np.arange(spec.papers) - np.repeat(np.cumsum(per_year) - per_year, per_year)
    month = 1 + rank_in_year * 12 // np.repeat(np.maximum(per_year, 1), per_year)
    on_arxiv = (year >= _ARXIV_FROM) & (rng.random(spec.papers) < spec.arxiv_share)
    yymm = (year.astype(np.int64) % 100) * 100 + month
    keys = yymm[on_arxiv]
    firsts = np.r_[0, np.flatnonzero(np.diff(keys)) + 1]
    number = np.arange(keys.size) - np.repeat(firsts, np.diff(np.r_[firsts, keys.size]))
    arxiv = np.zeros(spec.papers, np.int64)
    arxiv[on_arxiv] = keys * 100000 + number + 1
    return Plan(topics, year, topic, arxiv)


def _topics(rng: np.random.Generator, count: int, lexicon: Lexicon) -> tuple[Topic, ...]:
    """Home fields: each field once (while topics last), the rest by field size."""
    weights = np.array([_FIELD_WEIGHTS[f] for f in MAG_FIELDS], float)
    homes = [MAG_FIELDS[i] for i in rng.permutation(len(MAG_FIELDS))[:count]]
    homes += [MAG_FIELDS[i] for i in rng.choice(len(MAG_FIELDS), max(0, count - len(homes)), p=weights / weights.sum())]
    topics = []
    for t, field in enumerate(homes):
        codes = FIELD_CATEGORIES[field]
        picks = rng.choice(len(codes), min(len(codes), 1 + int(rng.random() < 0.5)), replace=False)
        a, b, c = lexicon.topic_words(t, 3)
        venues = (
            f"Journal of {capitalise(a)} {capitalise(b)}",
            f"Proceedings of the Conference on {capitalise(b)} {capitalise(c)}",
            f"{capitalise(a)} {capitalise(c)} Letters",
        )
        topics.append(Topic(field, _NEIGHBOURS[field][int(rng.integers(2))], tuple(codes[i] for i in picks), venues))
    return tuple(topics)


def arxiv_id_of(code: int) -> str | None:
    """'YYMM.NNNN' before 2015, 'YYMM.NNNNN' since, as arXiv numbers them."""
    if not code:
        return None
    yymm, number = divmod(code, 100000)
    return f"{yymm:04d}.{number:0{5 if yymm >= 1501 else 4}d}"
