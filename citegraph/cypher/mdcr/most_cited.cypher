// The most cited eligible papers of the whole corpus (MDCR's "most cited" candidates for
// corpora without fields; a field's: mdcr/most_cited_in_field).
// $limit: int — how many (the paper: 200)
// Mode: read
// Returns: id, year, citation_count — most cited first, ties by id.
MATCH (p:Paper)
WHERE p.eligible = true
RETURN p.id AS id, p.year AS year, p.citation_count AS citation_count
ORDER BY citation_count DESC, id
LIMIT $limit
