// A graph scorer: how strongly each candidate is co-cited with the references of the
// query that are known (not held out) — the number of papers, other than the query,
// that cite the candidate and at least one known reference.
// $rows: list — of {query, known: list of reference ids, candidates: list of ids}
// Mode: read
// Returns: query, candidate, score — one row per candidate found in the graph.
UNWIND $rows AS row
UNWIND row.candidates AS id
MATCH (c:Paper {id: id})
RETURN row.query AS query, id AS candidate,
       COUNT { (c)<-[:CITES]-(x:Paper)-[:CITES]->(r:Paper)
               WHERE x.id <> row.query AND r.id IN row.known } AS score
