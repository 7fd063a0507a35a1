-- What the ArcadeDB loader (citegraph/ingest/bulk/arcadedb_loader.py) reads of a built graph and
-- the record ids (RIDs) it keeps there, so that no id map is held in Python. The loader
-- reads each result as Arrow record batches and joins a batch's texts there: no row
-- becomes a Python object.
-- Reads: vertex, edge (citegraph/ingest/sql/build.sql). Writes: rid(idx, rid).
-- Parameters: $grp (a vertex or edge group). add_rids reads `chunk` (idx, rid: a batch's
-- vertices and the RIDs GraphBatch gave them, registered by the loader).

-- name: create
CREATE OR REPLACE TABLE rid (idx BIGINT, rid VARCHAR);

-- name: vertex_rows
SELECT idx, row::VARCHAR FROM vertex WHERE grp = $grp;

-- name: add_rids
INSERT INTO rid SELECT idx, rid FROM chunk;

-- name: edge_ends
SELECT s.rid, t.rid FROM edge e JOIN rid s ON s.idx = e.src JOIN rid t ON t.idx = e.dst WHERE e.grp = $grp;

-- name: edge_rows
SELECT json_merge_patch(json_object('_src', s.rid, '_dst', t.rid), coalesce(e.props, '{}'))::VARCHAR
FROM edge e JOIN rid s ON s.idx = e.src JOIN rid t ON t.idx = e.dst WHERE e.grp = $grp;
