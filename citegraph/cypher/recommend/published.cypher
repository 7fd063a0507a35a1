// The papers of a list published in a year or before: whose citations count as evidence
// as of that year.
// $ids: list — paper ids
// $as_of: int — the year
// Returns: ids — those of $ids dated $as_of or earlier.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
WHERE p.year <= $as_of
RETURN collect(p.id) AS ids
