// Creates a (:Paper:External) stub for each id not yet in the graph, so that a citation
// to a paper outside the corpus has an end. A later ingest of that paper upgrades it.
// $ids: list — distinct paper ids
// Returns: nothing.
UNWIND $ids AS id
OPTIONAL MATCH (p:Paper {id: id})
WITH id WHERE p IS NULL
CREATE (:Paper:External {id: id, citation_count: 0})
