// How many citations a view as of a year holds — those made by papers of that year or before
// (undated citing papers do not count, as in recommend/neighbourhood) — counted up to $enough
// only: whether the view is thin is all the caller asks (operations/recommending.py's
// THIN_VIEW), so a large graph stops after $enough edges (the year index finds the papers).
// $as_of: int — the view's year
// $enough: int — stop counting here
// Mode: read
// Returns: citations — one row: the view's citations, or $enough when it holds as many or more.
MATCH (x:Paper)-[:CITES]->(:Paper)
WHERE x.year <= $as_of
WITH x LIMIT $enough
RETURN count(x) AS citations
