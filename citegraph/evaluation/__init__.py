"""Benchmarks and the harness that scores retrievers on them: one subpackage per benchmark built
or read here (``large_scale/``, ``mdcr/``, ``csfcube/``), the harness kernel (:mod:`.harness`),
the registry of every benchmark by name (:mod:`.registry`) and what an entry declares
(:mod:`.options`), measures, qrels, reports."""
