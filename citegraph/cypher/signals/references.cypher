// Every paper the given papers cite (stubs included): a query's reference list.
// $ids: list — paper ids
// Mode: read
// Returns: paper, reference — one row per citation, by paper then reference.
UNWIND $ids AS id
MATCH (p:Paper {id: id})-[:CITES]->(r:Paper)
RETURN p.id AS paper, r.id AS reference
ORDER BY paper, reference
