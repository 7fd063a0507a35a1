// The most cited corpus papers of every MAG field (in-corpus citations).
// $per_field: int — how many papers per field, e.g. 5
// Mode: read
// Returns: field, id, title, year, citations — by field, then most cited first, ties by id.
MATCH (f:Field)<-[:IN_FIELD]-(p:Paper)
WHERE NOT p:External
WITH f, p ORDER BY p.citation_count DESC, p.id
WITH f, collect(p)[..$per_field] AS top
UNWIND top AS p
RETURN f.name AS field, p.id AS id, p.title AS title, p.year AS year, p.citation_count AS citations
ORDER BY field, citations DESC, id
