// The most cited eligible papers of a MAG field, or of the whole corpus when $field is
// null (MDCR's "most cited" candidates).
// $field: string — a MAG field name, or null for all papers
// $limit: int — how many (the paper: 200)
// Mode: read
// Returns: id, year, citation_count — most cited first, ties by id.
MATCH (p:Paper)
WHERE p.eligible = true AND ($field IS NULL OR EXISTS { (p)-[:IN_FIELD]->(:Field {name: $field}) })
RETURN p.id AS id, p.year AS year, p.citation_count AS citation_count
ORDER BY citation_count DESC, id
LIMIT $limit
