"""The oneruler package: the ONERULER benchmark built, exported, run and scored.

Layers (subpackages), each importing only from layers listed before it (which ones exactly:
docs/architecture.md; tests/test_architecture.py enforces it):

- ``scoring``      the paper's metric, each rule a function chosen by name; standard library only (copied
                   whole to metrics/oneruler/)
- ``base``         errors, atomic files and hashing, folder locks, progress output, package versions, shipped files
- ``spec``         languages, task families and their tasks, config names and grids, row schema, row ids, the
                   records a run writes, defaults, presets, leaderboards
- ``sources``      pinned upstream files: manifests, fetching, parsing, per-language fixes
- ``generate``     tokenizers, segmentation, randomness, budget fitting, each family's rows (NIAH, CWE)
- ``export``       build requests, Parquet shards, export manifest, builds, card, verify, Hub upload, metric folder
- ``dataset``      reading rows: an export folder or a Hub dataset pinned to one commit
- ``report``       predictions, scoring of a dataset, aggregation, tables and figures; comparisons; Hub results
- ``run``          ``oneruler run``: servers, preflight, sending, resumable predictions, Batch API files
- ``taskrows``     the rows an evaluation task reads (lm-eval, Inspect): an export or the generator
- ``lmeval``       ONERULER as lm-evaluation-harness tasks
- ``publish``      results on the Hub: ``oneruler publish`` and ``oneruler leaderboard``
- ``inspect_eval`` ONERULER as an Inspect AI task (``inspect eval oneruler/oneruler``)
- ``cli``          the command line (the only place that imports click)
"""
