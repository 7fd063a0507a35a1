// Links papers to their authors (:Author)-[:WROTE {position}]->(:Paper).
// An author's properties (its name) are those of the first record that names it. The
// pattern starts from the paper (its few authors), not from the author (a prolific one's
// hundreds of papers): ArcadeDB checks a MERGE from its first node, twice as fast here.
// $rows: list — of {id: paper id, authors: list of {id, props: map of the Author properties, position}}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
UNWIND row.authors AS author
MERGE (a:Author {id: author.id})
ON CREATE SET a += author.props
MERGE (p)<-[w:WROTE]-(a)
SET w.position = author.position
