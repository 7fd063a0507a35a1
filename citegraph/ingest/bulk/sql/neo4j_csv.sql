-- The neo4j-admin CSV parts of a built graph (citegraph/ingest/sql/build.sql's tables).
-- Reads: vertex, edge. Writes: one folder of CSV parts per label set or relationship group
--   (`data_N.csv`), a new part begun once one holds FILE_SIZE_BYTES: the rows stream through
--   (PARTITION_BY buffers every partition and ran out of a 2 GB limit at 2M papers).
-- Parameters (positional, in order): the property names (JSON keys, in column order), the
--   group, the folder, the bytes of a part. The column list is the graph model's:
--   {cells} stands for one `, cell(x[i])` per property, filled in by
--   citegraph.ingest.bulk.neo4j_admin (indexes only).
-- A row's JSON is parsed once, by one json_extract of all the names: a json_extract per
-- column parsed a paper's row (its abstract) once a column, and DuckDB's JSON functions keep
-- each parse until the vector is done — 1.6 GB at 200k papers, beyond any memory_limit below it.
-- A cell: a scalar's JSON text (strings unquoted, booleans true/false), an array's elements
-- joined by U+001F (an element holding it is refused), absent values and empty texts empty.

-- name: cell
CREATE OR REPLACE TEMP MACRO cell(v) AS CASE
    WHEN json_type(v) = 'ARRAY' THEN nullif(array_to_string(list_transform(
        from_json(v, '["VARCHAR"]'),
        lambda e: CASE WHEN contains(e, chr(31))
                  THEN error('cannot export ' || to_json(left(e, 80)) || ' for neo4j-admin: it holds U+001F, the array delimiter')
                  ELSE e END), chr(31)), '')
    ELSE nullif(v ->> '$', '') END;

-- A node's import ID is its vertex.idx (neo4j-admin's --id-type=integer; not stored), so a
-- relationship row is its edge row: joining 20M edges to their ends' keys ran the 2M papers'
-- export out of a 250MB limit.

-- name: nodes
COPY (SELECT idx, key{cells} FROM (SELECT v.idx, v.key, json_extract(v.row, ?::VARCHAR[]) AS x FROM vertex v WHERE v.grp = ?))
TO ? (FORMAT csv, HEADER false, FILE_SIZE_BYTES ?);

-- name: relationships
COPY (SELECT src, dst{cells} FROM (SELECT e.src, e.dst, json_extract(e.props, ?::VARCHAR[]) AS x FROM edge e WHERE e.grp = ?))
TO ? (FORMAT csv, HEADER false, FILE_SIZE_BYTES ?);
