// The constraints and indexes of the citation graph, created if missing (idempotent).
// Uniqueness constraints also index their key, so MERGE on it is an index lookup.
// Written from citegraph/graph/model.py (keys and indexed properties): tests/test_graph_model.py
// fails when the two disagree.
// Mode: write
// Returns: nothing.
CREATE CONSTRAINT paper_id IF NOT EXISTS FOR (p:Paper) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT author_id IF NOT EXISTS FOR (a:Author) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT field_name IF NOT EXISTS FOR (f:Field) REQUIRE f.name IS UNIQUE;
CREATE CONSTRAINT arxiv_category_code IF NOT EXISTS FOR (a:ArxivCategory) REQUIRE a.code IS UNIQUE;
CREATE CONSTRAINT acm_concept_code IF NOT EXISTS FOR (a:AcmConcept) REQUIRE a.code IS UNIQUE;
CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (t:Topic) REQUIRE t.id IS UNIQUE;
CREATE CONSTRAINT ingest_checkpoint_key IF NOT EXISTS FOR (i:IngestCheckpoint) REQUIRE i.key IS UNIQUE;
CREATE INDEX paper_year IF NOT EXISTS FOR (p:Paper) ON (p.year);
CREATE INDEX paper_citation_count IF NOT EXISTS FOR (p:Paper) ON (p.citation_count);
CREATE INDEX paper_eligible IF NOT EXISTS FOR (p:Paper) ON (p.eligible);
