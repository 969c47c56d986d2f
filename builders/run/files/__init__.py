"""The files a run writes and reads back: ``lines.py`` (a predictions file as an index of lines, the line
records), ``store.py`` (``PredictionStore``: resumable JSONL under a lock), ``meta.py`` (the
``PREDS.meta.json`` sidecar as a ``spec.run_meta.RunMeta``: one reader, one writer; the settings a
resumed run must keep) and ``merge.py`` (``oneruler merge``: shard files joined into one).

Imports ``rows/`` of ``run/``, nothing else of it."""
