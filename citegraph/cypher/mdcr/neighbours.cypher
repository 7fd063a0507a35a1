// The eligible graph neighbours (OC_c ∪ IC_c: papers c cites or that cite c) of each
// given paper.
// $ids: list — paper ids
// Mode: read
// Returns: paper, neighbour — one row per pair, by paper then neighbour.
UNWIND $ids AS id
MATCH (c:Paper {id: id})-[:CITES]-(n:Paper)
WHERE n.eligible = true
RETURN DISTINCT c.id AS paper, n.id AS neighbour
ORDER BY paper, neighbour
