// Every corpus paper with what a reference-manager entry is matched by: DOI, arXiv id,
// title and year. One row of parallel lists (far cheaper to ship than a row per paper).
// Mode: read
// Returns: ids, titles, years, dois, arxiv — parallel lists, one item per paper not :External.
MATCH (p:Paper)
WHERE NOT p:External
RETURN collect(p.id) AS ids, collect(coalesce(p.title, '')) AS titles, collect(coalesce(p.year, -1)) AS years,
       collect(coalesce(p.doi, '')) AS dois, collect(coalesce(p.arxiv_id, '')) AS arxiv
