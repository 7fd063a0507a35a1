// Merges citation edges. Contexts and sections replace earlier ones only when the source
// has them, so a metadata-only re-ingest keeps the contexts of a full-text one. Rows are
// grouped by citing paper, so that each citing paper is looked up once, and the pattern
// starts from it (its few references), not from the cited paper (a hub's many citers).
// citation_count is not touched here: rewriting the cited paper's record for every new
// edge was most of the streaming ingest's time; the ingest recounts the cited papers once
// at the end (ingest/citation_counts).
// $rows: list — of {citing: string, refs: list of {cited: string, props: map of the CITES properties of the graph model the source gave}}; both ends must exist (see ingest/stubs)
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (a:Paper {id: row.citing})
UNWIND row.refs AS ref
MATCH (b:Paper {id: ref.cited})
MERGE (a)-[c:CITES]->(b)
SET c += ref.props
