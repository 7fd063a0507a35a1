"""One reader per source format (as ir_datasets keeps one module per dataset): each turns its
files into located typed records (:mod:`citegraph.ingest.records`); :mod:`citegraph.ingest.formats`
lists them by name."""
