// Candidates cited by the seed's references: each paper the references cite, with how
// many references cite it and which (the "cited by your references" signal).
// $refs: list — the seed's reference ids
// $exclude: list — ids never returned (the seed and its references)
// $limit: int — how many candidates
// Returns: id, count, via (up to 5 citing reference ids) — by count (high first), id.
UNWIND $refs AS rid
MATCH (r:Paper {id: rid})-[:CITES]->(c:Paper)
WHERE NOT c:External AND NOT c.id IN $exclude
WITH c, collect(DISTINCT r.id) AS via
RETURN c.id AS id, size(via) AS count, via[..5] AS via
ORDER BY count DESC, id
LIMIT $limit
