// Papers to open in the explorer: the paper whose id is $id, then corpus papers whose title
// holds every one of $words (lower-cased), most cited first. A scan of the titles — fine
// for an explorer's lookups; text relevance is the retrievers' job.
// $id: string — an exact paper id ('' for none)
// $words: list — lower-case words the title must all contain (empty: id lookup only)
// $limit: int — how many papers
// Mode: read
// Returns: id, title, year, citations — the id match first, then by citations (high first), id.
MATCH (p:Paper {id: $id})
RETURN p.id AS id, p.title AS title, p.year AS year, p.citation_count AS citations
UNION
MATCH (p:Paper)
WHERE size($words) > 0 AND NOT p:External AND p.title IS NOT NULL
  AND all(w IN $words WHERE toLower(p.title) CONTAINS w)
WITH p ORDER BY p.citation_count DESC, p.id LIMIT $limit
RETURN p.id AS id, p.title AS title, p.year AS year, p.citation_count AS citations
