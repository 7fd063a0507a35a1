// Which of the ids are papers in the graph already (not :External stubs): the records an
// earlier ingest wrote, which --on-duplicate first keeps and --on-duplicate error refuses.
// $ids: list — of paper ids (strings)
// Returns: id: string, one row per id present.
// Mode: read
UNWIND $ids AS id
MATCH (p:Paper {id: id})
WHERE NOT p:External
RETURN p.id AS id
