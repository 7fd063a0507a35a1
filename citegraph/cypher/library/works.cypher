// Prior and derivative works of a set of papers (Connected Papers' two lists): take the
// set's neighbourhood — the papers themselves, what each cites and what cites each (at
// most $fanout of each per paper, in storage order) — then 'prior' are the papers most
// cited by the neighbourhood, 'derivative' the papers citing most of it. As of a year,
// no citation made later counts and no later paper is listed.
// $ids: list — the set's paper ids
// $fanout: int — at most this many cited and this many citing papers of each paper join the neighbourhood
// $as_of: int — only citations made in this year or before, only papers of then, or null
// $limit: int — papers per list
// Mode: read
// Returns: kind ('prior' or 'derivative'), papers — a list of [id, title, year, links] (links: neighbourhood papers cited by / citing it), most linked first, then by id.
UNWIND $ids AS sid
MATCH (s:Paper {id: sid})
UNWIND [s] + [(s)-[:CITES]->(r:Paper) WHERE NOT r:External AND ($as_of IS NULL OR s.year <= $as_of) | r][..$fanout]
           + [(s)<-[:CITES]-(c:Paper) WHERE NOT c:External AND ($as_of IS NULL OR c.year <= $as_of) | c][..$fanout] AS n
WITH DISTINCT n
MATCH (n)-[:CITES]->(p:Paper)
WHERE NOT p:External AND NOT p.id IN $ids AND ($as_of IS NULL OR n.year <= $as_of)
WITH p, count(DISTINCT n) AS links
ORDER BY links DESC, p.id
LIMIT $limit
RETURN 'prior' AS kind, collect([p.id, p.title, p.year, links]) AS papers
UNION ALL
UNWIND $ids AS sid
MATCH (s:Paper {id: sid})
UNWIND [s] + [(s)-[:CITES]->(r:Paper) WHERE NOT r:External AND ($as_of IS NULL OR s.year <= $as_of) | r][..$fanout]
           + [(s)<-[:CITES]-(c:Paper) WHERE NOT c:External AND ($as_of IS NULL OR c.year <= $as_of) | c][..$fanout] AS n
WITH DISTINCT n
MATCH (d:Paper)-[:CITES]->(n)
WHERE NOT d:External AND NOT d.id IN $ids AND ($as_of IS NULL OR d.year <= $as_of)
WITH d, count(DISTINCT n) AS links
ORDER BY links DESC, d.id
LIMIT $limit
RETURN 'derivative' AS kind, collect([d.id, d.title, d.year, links]) AS papers
