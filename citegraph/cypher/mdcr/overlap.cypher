// The MDCR graph-neighbour overlap (Medić & Šnajder §4.1) of each query q with each paper
// c it cites: O(q,c) = |OC_q ∩ (OC_c ∪ IC_c)| / |OC_q|, where OC are the papers a paper
// cites and IC the papers citing it — the share of q's references linked to c either way.
// $ids: list — query paper ids
// Mode: read
// Returns: query, cited, overlap — one row per citation, by query, overlap (high first), cited.
UNWIND $ids AS id
MATCH (q:Paper {id: id})-[:CITES]->(c:Paper)
WITH q, collect(c) AS cited
UNWIND cited AS c
RETURN q.id AS query, c.id AS cited,
       toFloat(size([x IN cited WHERE EXISTS { (x)-[:CITES]-(c) }])) / size(cited) AS overlap
ORDER BY query, overlap DESC, cited
