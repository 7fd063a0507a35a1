// The most cited eligible papers of a MAG field (MDCR's "most cited" candidates), read
// from the field's papers: testing every paper of the corpus for the field took 8–14 s a
// field at 2M papers, this 0.4 s (the same rows).
// $field: string — a MAG field name
// $limit: int — how many (the paper: 200)
// Mode: read
// Returns: id, year, citation_count — most cited first, ties by id.
MATCH (:Field {name: $field})<-[:IN_FIELD]-(p:Paper)
WHERE p.eligible = true
RETURN p.id AS id, p.year AS year, p.citation_count AS citation_count
ORDER BY citation_count DESC, id
LIMIT $limit
