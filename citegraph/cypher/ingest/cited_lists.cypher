// The ids of the papers each given paper cites, from its CITES edges, in no order: the ingest
// sorts them and writes them back as the paper's cited_ids (ingest/cited_ids) in the same
// transaction. Not sorted here: ArcadeDB holds each row of an ORDER BY in its query heap with
// the records it came from, the citing paper's whole record included, and refused the sort of
// a paper citing 50,000 papers once the paper held their list (about 650 KB a row).
// $ids: list — paper ids
// Mode: read
// Returns: id: string (a given paper found in the graph), cited: list of string ([] for none).
UNWIND $ids AS id
MATCH (p:Paper {id: id})
RETURN id, COLLECT { MATCH (p)-[:CITES]->(n:Paper) RETURN n.id } AS cited
