// A snapshot restates a work whole: its IN_TOPIC links go before the newer ones are
// written, and a topic no work is linked to any more goes with them, as a fresh ingest of
// the newer state would never have created it (ingest/prune_topics then removes the nodes
// above it left without any topic below). So for a work merged away (ingest/merge_ids).
// $rows: list — of {id: string}: the works restated or merged away
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})-[link:IN_TOPIC]->(t:Topic)
DELETE link
WITH DISTINCT t
WHERE NOT EXISTS { (:Paper)-[:IN_TOPIC]->(t) }
DETACH DELETE t
