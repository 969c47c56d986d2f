"""The oneruler package: the ONERULER benchmark built, exported, run and scored.

Layers (subpackages), each importing only from layers listed before it (which ones exactly:
docs/architecture.md; tests/test_architecture.py enforces it):

- ``scoring``  the paper's metric; standard library only (copied byte for byte to metrics/oneruler/)
- ``base``     errors, atomic files and hashing, folder locks, progress output, package versions
- ``spec``     languages, tasks, config names and grids, row schema, row ids, the predictions line, defaults
- ``sources``  pinned upstream files: manifests, fetching, parsing, per-language fixes
- ``generate`` tokenizers, segmentation, randomness, budget fitting, NIAH and CWE rows
- ``export``   build requests, Parquet shards, export manifest, builds, card, verify, Hub upload
- ``dataset``  reading rows: an export folder or a Hub dataset pinned to one commit
- ``report``   predictions, scoring of a dataset, aggregation, tables and figures; comparisons
- ``run``      ``oneruler run``: servers, preflight, sending, resumable predictions, Batch API files
- ``lmeval``   ONERULER as lm-evaluation-harness tasks
- ``cli``      the command line (the only place that imports click)
"""
