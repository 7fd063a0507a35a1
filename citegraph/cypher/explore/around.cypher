// The papers around a seed set that the explorer draws with it: for each seed, its most
// cited references ('reference') and its most cited citing papers ('citing'), at most
// $limit of each per seed. Stubs (no year to place them by) are left out; as of a year,
// no citation made later counts.
// $seeds: list — the seed papers' ids
// $limit: int — at most this many references and this many citing papers per seed
// $as_of: int — only citations made in this year or before, or null
// Mode: read
// Returns: role ('reference' or 'citing'), id — one row per paper and role.
UNWIND $seeds AS sid
MATCH (s:Paper {id: sid})-[:CITES]->(r:Paper)
WHERE NOT r:External AND ($as_of IS NULL OR s.year <= $as_of)
WITH s, r ORDER BY r.citation_count DESC, r.id
WITH s, collect(r.id)[..$limit] AS ids
UNWIND ids AS id
RETURN DISTINCT 'reference' AS role, id
UNION
UNWIND $seeds AS sid
MATCH (s:Paper {id: sid})<-[:CITES]-(c:Paper)
WHERE NOT c:External AND ($as_of IS NULL OR c.year <= $as_of)
WITH s, c ORDER BY c.citation_count DESC, c.id
WITH s, collect(c.id)[..$limit] AS ids
UNWIND ids AS id
RETURN DISTINCT 'citing' AS role, id
