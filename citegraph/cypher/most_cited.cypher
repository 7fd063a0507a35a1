// The corpus papers cited most often within the corpus.
// $limit: int — how many papers
// Mode: read
// Returns: id, title, year, citation_count — most cited first, ties by id.
MATCH (p:Paper)
WHERE NOT p:External
RETURN p.id AS id, p.title AS title, p.year AS year, p.citation_count AS citation_count
ORDER BY citation_count DESC, id
LIMIT $limit
