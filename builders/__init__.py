"""The oneruler package: the ONERULER benchmark built, exported, run and scored.

Layers (subpackages), each importing only from the layers listed before it
(see docs/architecture.md; tests/test_architecture.py enforces it):

- ``scoring``  the paper's metric; standard library only (copied byte for byte to metrics/oneruler/)
- ``base``     errors, atomic files and hashing, progress output
- ``spec``     languages, tasks, config names, row schema, defaults
- ``sources``  pinned upstream files: manifests, fetching, parsing, per-language fixes
- ``generate`` tokenizers, segmentation, randomness, budget fitting, NIAH and CWE rows
- ``export``   Parquet shards, export manifest, builds, card, verify, Hub upload
- ``report``   predictions, scoring of a dataset, aggregation, tables and figures
- ``cli``      the command line (the only place that imports click)
"""
