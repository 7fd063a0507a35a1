// The most cited eligible papers of a MAG field (MDCR's "most cited" candidates).
// $field: string — a MAG field name
// $limit: int — how many (the paper: 200)
// Returns: id, year, citation_count — most cited first, ties by id.
MATCH (p:Paper)-[:IN_FIELD]->(:Field {name: $field})
WHERE p.eligible = true
RETURN p.id AS id, p.year AS year, p.citation_count AS citation_count
ORDER BY citation_count DESC, id
LIMIT $limit
