"""The domain's vocabulary, below every layer: fields of study, how ids and dates are spelled.

Readers, benchmark builders, the synthetic corpus and the evaluation all name the same
fields and normalise ids and names the same way; they import them from here, not from
each other.
"""

from __future__ import annotations

import calendar
import re
import unicodedata

#: The 19 top-level fields of study of the Microsoft Academic Graph, as S2ORC and MDCR use them.
MAG_FIELDS = (
    "Art",
    "Biology",
    "Business",
    "Chemistry",
    "Computer Science",
    "Economics",
    "Engineering",
    "Environmental Science",
    "Geography",
    "Geology",
    "History",
    "Materials Science",
    "Mathematics",
    "Medicine",
    "Philosophy",
    "Physics",
    "Political Science",
    "Psychology",
    "Sociology",
)


def nfc(value: str) -> str:
    """Unicode NFC, so that 'ĭ' typed as i + combining breve equals the precomposed one."""
    return value if unicodedata.is_normalized("NFC", value) else unicodedata.normalize("NFC", value)


# JSON may escape a character outside the BMP as a UTF-16 pair; `json` joins a pair and
# leaves a lone half as a str that no UTF-8 encoder (the graph driver's, DuckDB's, a
# response's) takes.
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: object) -> tuple[str | None, str] | None:
    """Where decoded JSON holds a lone UTF-16 surrogate: (the top-level key of a map, None
    when a key holds it or ``value`` is no map; the surrogate), or None. Walked with a
    stack: `json` decodes nestings deeper than Python recurses."""
    for key, inner in value.items() if isinstance(value, dict) else [(None, value)]:
        if key is not None and (found := _SURROGATE.search(key)):
            return None, found.group()
        stack = [inner]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                if found := _SURROGATE.search(item):
                    return key, found.group()
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return None


def not_unicode(surrogate: str) -> str:
    """Why a text holding ``surrogate`` (found by :func:`lone_surrogate`) is refused."""
    return f"a lone UTF-16 surrogate (\\u{ord(surrogate):04x}) is not a Unicode character"


def canonical_id(value: str) -> str:
    """The one form of an id, as stored at ingest and looked up by every caller: stripped
    and NFC, so that 'é' given as e + combining accent finds the paper stored as 'é'."""
    return nfc(value.strip())


def author_name_id(name: str) -> str:
    """The id of an author known only by name: 'name:' and the case-folded name.

    Sources without author ids give no way to tell two people of one name apart, so they
    share a node; sources with ids keep theirs. ``name`` is whitespace-normalised already.
    """
    return "name:" + name.casefold()


#: How a source types a paper's venue (``Paper.venue_type``): a journal's article or a
#: conference's paper; unset when the source does not say.
#: How a context marks the citation it is the context of (other citations may read [REF]).
CONTEXT_MARKER = "[CIT]"

VENUE_TYPES = ("journal", "conference")

#: ACL Anthology ids (the Anthology's ``utils/ids.py``): before 2020 a collection letter and
#: the year's two digits, then volume and paper (``P14-2043``); since, the year, the venue
#: and the volume, then the paper (``2020.acl-main.1``).
ACL_OLD_ID = re.compile(r"[A-Z]\d{2}-\d{4}")
ACL_NEW_ID = re.compile(r"(\d{4})\.([a-z0-9]+)[a-z0-9-]*\.\d+")
#: An Anthology DOI names the paper's id: ``10.18653/v1/<id>`` (``10.3115/v1/<id>`` for 2014–15).
ACL_DOI = re.compile(r"10\.(?:18653|3115)/v1/(.+)", re.IGNORECASE)
#: The Anthology's journals (its ``is_journal``): old-style collections J (Computational
#: Linguistics) and Q (TACL), new-style venues ``cl`` and ``tacl``; everything else is proceedings.
ACL_JOURNALS = {
    "J": "Computational Linguistics",
    "Q": "Transactions of the Association for Computational Linguistics",
    "cl": "Computational Linguistics",
    "tacl": "Transactions of the Association for Computational Linguistics",
}


def acl_anthology_id(paper_id: str, doi: str = "") -> str | None:
    """The ACL Anthology id a paper id is, or that its DOI names (DOIs ignore case: the
    id's own case is restored); None when neither."""
    if ACL_OLD_ID.fullmatch(paper_id) or ACL_NEW_ID.fullmatch(paper_id):
        return paper_id
    named = ACL_DOI.fullmatch(doi.strip())
    if named is None:
        return None
    old, new = named.group(1).upper(), named.group(1).lower()
    return old if ACL_OLD_ID.fullmatch(old) else new if ACL_NEW_ID.fullmatch(new) else None


def acl_journal(anthology_id: str) -> str | None:
    """The journal an Anthology id is in (:data:`ACL_JOURNALS`), None for proceedings."""
    new = ACL_NEW_ID.fullmatch(anthology_id)
    return ACL_JOURNALS.get(new.group(2) if new else anthology_id[:1])


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and the noun agreeing with it: '1 paper', '3 papers', '1,204 papers'."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


#: A date as users give one (--as-of, as_of): YYYY-MM-DD, YYYY-MM or YYYY (the graph dates papers
#: by year). The HTTP schemas carry this pattern, which admits exactly the days of the calendar
#: (leap years too), so that a client knows what is refused; :func:`calendar_date` says why.
_YEAR = "([1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"
_LEAP_YEAR = "([0-9]{2}(0[48]|[2468][048]|[13579][26])|([2468][048]|[13579][26]|0[48])00)"
_MONTH_DAY = "((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))"
DATE = f"^({_YEAR}(-(0[1-9]|1[0-2]))?|{_YEAR}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)$"
_SPELLED = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")


def calendar_date(text: str) -> str:
    """``text`` if it is a day, month or year of the calendar (:data:`DATE`), else a ValueError
    saying what is wrong: 2013-02-30, 2013-13-01 and 0000-00-00 are spelled like dates but are none."""
    spelled = _SPELLED.fullmatch(text)
    if not spelled:
        raise ValueError(f"expected a date as YYYY-MM-DD, YYYY-MM or YYYY, got {text!r}")
    year, month, day = (int(part or 1) for part in spelled.groups())
    if year < 1:
        raise ValueError(f"{text!r} is not a date: there is no year 0")
    if not 1 <= month <= 12:
        raise ValueError(f"{text!r} is not a date: there is no month {month:02d}")
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        raise ValueError(f"{text!r} is not a date: {calendar.month_name[month]} {year} has no day {day:02d}")
    return text


def year_of(day: str | None) -> int | None:
    """The year of an as-of date (:func:`calendar_date`), the one conversion every view uses; None for none."""
    return int(calendar_date(day)[:4]) if day else None
