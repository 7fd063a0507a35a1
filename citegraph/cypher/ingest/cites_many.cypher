// Merges the citation edges of one paper with many references (ingest/cites for the
// rest): the pattern starts from each cited paper, not from the citing one. ArcadeDB
// checks a MERGE against the edges of the node the pattern starts from, so from a paper
// citing thousands every edge was checked against all its edges so far (5,000 references:
// 45 s; from the cited ends: 2.3 s). Properties as in ingest/cites.
// $citing: string — the citing paper's id
// $refs: list — of {cited: string, props: map of the CITES properties of the graph model the source gave}; both ends must exist (see ingest/stubs)
// Returns: nothing.
// Mode: write
MATCH (a:Paper {id: $citing})
UNWIND $refs AS ref
MATCH (b:Paper {id: ref.cited})
MERGE (b)<-[c:CITES]-(a)
SET c += ref.props
