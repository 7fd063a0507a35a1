// What the explorer's map needs of the papers it draws: year, first author, citations in
// the graph (by papers of then, as of a year), the citations among the drawn papers, and
// the similarity to the seed set — the cosine of the paper's citation neighbourhood (what
// it cites and what cites it) with the seeds' (the seeds and their neighbours), which
// counts direct links, shared references and shared citing papers alike.
// $ids: list — the drawn papers
// $seeds: list — the seed papers (similarity is to them)
// $as_of: int — only citations made in this year or before, or null
// Mode: read
// Returns: id, title, year, author, citations, cites (drawn papers it cites), similarity (0–1) — one row per paper found.
OPTIONAL MATCH (s:Paper)-[:CITES]-(n:Paper)
WHERE s.id IN $seeds AND ($as_of IS NULL OR (s)-[:CITES]->(n) AND s.year <= $as_of
                          OR (n)-[:CITES]->(s) AND n.year <= $as_of)
WITH $seeds + collect(DISTINCT n.id) AS around
UNWIND $ids AS id
MATCH (p:Paper {id: id})
WITH p, around,
     [(p)-[:CITES]->(q:Paper) WHERE $as_of IS NULL OR p.year <= $as_of | q.id]
     + [(p)<-[:CITES]-(q:Paper) WHERE $as_of IS NULL OR q.year <= $as_of | q.id] AS links
RETURN p.id AS id, p.title AS title, p.year AS year,
       reduce(first = null, w IN [(p)<-[r:WROTE]-(a:Author) | [r.position, a.name]] |
              CASE WHEN first IS NULL OR w[0] < first[0] THEN w ELSE first END)[1] AS author,
       size([(p)<-[:CITES]-(c:Paper) WHERE $as_of IS NULL OR c.year <= $as_of | c]) AS citations,
       [(p)-[:CITES]->(q:Paper) WHERE q.id IN $ids AND ($as_of IS NULL OR p.year <= $as_of) | q.id] AS cites,
       CASE WHEN size(links) = 0 THEN 0.0
            ELSE toFloat(size([x IN links WHERE x IN around])) / sqrt(toFloat(size(links) * size(around))) END
         AS similarity
