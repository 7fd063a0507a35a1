"""The fields requests are made of, declared once: their types, bounds and descriptions.

Every door takes the same request models (:mod:`citegraph.operations`), so a number's range,
a text's length and a date's spelling are said here and nowhere else: the HTTP service's
OpenAPI schema, the MCP tools' input schemas and the command line's options (their click
types and help) are read from these declarations (``tests/test_operations.py`` compares
them). :func:`problem` is how any door says what a request got wrong: one line per field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from ..vocabulary import DATE, calendar_date, canonical_id


@dataclass(frozen=True)
class Bound:
    """An integer parameter's range, both ends included."""

    low: int
    high: int


K = Bound(1, 200)  # papers a request ranks (per slot for cite)
WINDOW = Bound(0, 20)  # sentences on each side of a citation slot that join its query
YEAR = Bound(1000, 3000)  # a seed's year
NEIGHBOURS = Bound(1, 200)  # papers of each kind in an ego network
SEARCH = Bound(1, 100)  # papers a title search returns
EVIDENCE = Bound(1, 20)  # sentences of a cited paper shown for a citing sentence
MAX_IDS = 2_000  # ids in one list (a library, references, negatives)

# A character that is not whitespace as Python's str.strip() sees it (the recommender
# strips texts), spelled so that JSON Schema's regex dialect reads it the same way.
TEXT = "[^\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"


def not_blank(text: str) -> str:
    """``text`` if it holds something other than whitespace."""
    if not re.search(TEXT, text):
        raise ValueError("blank: give some text, or leave the field out")
    return text


def _whole(value: Any) -> Any:
    """51.0 is the integer 51 to JSON Schema; strict validation still refuses "51" and true."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def integer(bound: Bound) -> tuple[Any, ...]:
    """An integer in ``bound`` (the bounds before the validator, or the schema loses them)."""
    return Field(ge=bound.low, le=bound.high), BeforeValidator(_whole)


def given(max_length: int, description: str) -> tuple[Any, ...]:
    """A text field that may be left out but, when present, holds text: the schema says so
    (pattern), the check says it clearly."""
    return (
        Field(None, max_length=max_length, description=description),
        AfterValidator(not_blank),
        WithJsonSchema({"type": "string", "pattern": TEXT, "maxLength": max_length, "description": description}),
    )


#: One id, DOI or arXiv id of a list (a library, references, negatives).
Id = Annotated[str, Field(max_length=200)]
#: A paper of the graph, by its id, in the form ids are stored.
PaperId = Annotated[
    str, Field(min_length=1, max_length=200, description="A paper id in the graph"), AfterValidator(canonical_id)
]
#: Papers a request asks about (``--why``): each is looked at after the ranking, so a few.
MAX_WHY = 20
WHY_TEXT = (
    "Papers to account for (ids in the graph): each one's rank among every candidate, or the stage "
    "that dropped it (blocked, not enriched, not retrieved), with its features"
)
#: A day, month or year of the calendar (YYYY-MM-DD, YYYY-MM or YYYY).
Date = Annotated[str, Field(json_schema_extra={"pattern": DATE}), AfterValidator(calendar_date)]
AS_OF_TEXT = (
    "As of this date (YYYY-MM-DD, YYYY-MM or YYYY): nothing published later, no later citation as "
    "evidence (the graph dates papers by year)"
)


def problem(error: Mapping[str, Any]) -> str:
    """One of pydantic's validation errors as 'field: message' (no input echoed, no URL)."""
    where = ".".join(str(part) for part in error.get("loc", ()))
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message
