// Merges citation edges and keeps citation_count (inbound CITES) exact: a newly created
// edge adds one to its cited paper, a merged existing one adds nothing. Contexts and
// sections replace earlier ones only when the source has them, so a metadata-only
// re-ingest keeps the contexts of a full-text one.
// $rows: list — of {citing, cited, props: map of the CITES properties of the graph model the source gave}; both ends must exist (see ingest/stubs)
// Returns: nothing.
UNWIND $rows AS row
MATCH (a:Paper {id: row.citing})
MATCH (b:Paper {id: row.cited})
MERGE (a)-[c:CITES]->(b)
ON CREATE SET b.citation_count = coalesce(b.citation_count, 0) + 1
SET c += row.props
