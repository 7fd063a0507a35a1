// Graph features of (query, candidate) pairs: co-citation (papers citing both) and
// bibliographic coupling (papers both cite), the classic relatedness signals (Small
// 1973; Kessler 1963).
// $pairs: list — of {query, candidate} paper ids
// Mode: read
// Returns: query, candidate, cocitation, coupling — one row per pair whose papers exist.
UNWIND $pairs AS pair
MATCH (q:Paper {id: pair.query})
MATCH (c:Paper {id: pair.candidate})
RETURN pair.query AS query, pair.candidate AS candidate,
       COUNT { (q)<-[:CITES]-(:Paper)-[:CITES]->(c) } AS cocitation,
       COUNT { (q)-[:CITES]->(:Paper)<-[:CITES]-(c) } AS coupling
