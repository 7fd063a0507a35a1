// Candidates co-cited with the seed's references: papers cited together with a reference
// by some paper other than the seed, with how many such papers there are and which
// references they were co-cited with.
// $refs: list — the seed's reference ids
// $exclude: list — ids never returned (the seed and its references)
// $seed: string — the seed paper id ('' for a paper not in the graph)
// $limit: int — how many candidates
// Returns: id, count, via (up to 5 reference ids) — by count (high first), id.
UNWIND $refs AS rid
MATCH (r:Paper {id: rid})<-[:CITES]-(x:Paper)-[:CITES]->(c:Paper)
WHERE x.id <> $seed AND NOT c:External AND NOT c.id IN $exclude
WITH c, count(DISTINCT x) AS count, collect(DISTINCT r.id) AS via
RETURN c.id AS id, count, via[..5] AS via
ORDER BY count DESC, id
LIMIT $limit
