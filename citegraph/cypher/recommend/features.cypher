// What the recommender knows of each candidate: metadata for filters and display, and the
// graph features against the seed — co-citation with the references, coupling with the
// seed, citations from papers other than the seed, and the MDCR overlap
// O = |refs ∩ (cited by c ∪ citing c)| / |refs|.
// $ids: list — candidate ids
// $refs: list — the seed's reference ids
// $seed: string — the seed paper id ('' for a paper not in the graph)
// Returns: id, title, year, external, fields, categories, citations, cocitation, coupling, overlap — one row per candidate found.
UNWIND $ids AS id
MATCH (c:Paper {id: id})
RETURN c.id AS id, c.title AS title, c.year AS year, c:External AS external,
       [(c)-[:IN_FIELD]->(f:Field) | f.name] AS fields,
       [(c)-[:IN_CATEGORY]->(a:ArxivCategory) | a.code] AS categories,
       COUNT { (c)<-[:CITES]-(x:Paper) WHERE x.id <> $seed } AS citations,
       COUNT { (c)<-[:CITES]-(x:Paper)-[:CITES]->(r:Paper) WHERE x.id <> $seed AND r.id IN $refs } AS cocitation,
       COUNT { (c)-[:CITES]->(r:Paper) WHERE r.id IN $refs } AS coupling,
       CASE size($refs) WHEN 0 THEN 0.0
            ELSE toFloat(COUNT { (c)-[:CITES]-(r:Paper) WHERE r.id IN $refs }) / size($refs) END AS overlap
