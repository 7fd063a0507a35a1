// Field-level citation flows: how often papers of one MAG field cite papers of another.
// A paper in several fields counts in each (so flows add up to more than the citations).
// The whole CITES set is read: seconds on a few million citations.
// $limit: int — how many field pairs, e.g. 50
// Mode: read
// Returns: citing_field, cited_field, citations — the largest flows first, ties by field names.
MATCH (a:Paper)-[:CITES]->(b:Paper)
MATCH (a)-[:IN_FIELD]->(fa:Field)
MATCH (b)-[:IN_FIELD]->(fb:Field)
RETURN fa.name AS citing_field, fb.name AS cited_field, count(*) AS citations
ORDER BY citations DESC, citing_field, cited_field
LIMIT $limit
