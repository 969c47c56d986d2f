"""Run layer: send a dataset's prompts to OpenAI-compatible servers and record the answers (``oneruler run``,
``merge``, ``ingest``).

Rooms, each importing only those above it in this list: ``request_settings.py`` (sampling, presets, retries)
and ``progress.py``; ``rows/`` (which rows: the selection, shards); ``settings.py`` (what the run is
asked, typed, every default once) and ``settings_build.py`` (from CLI options); ``server/`` (client,
balancer, probe, dialects, window, counting, preflight, guard); ``files/`` (predictions lines and store,
the meta sidecar, merge); ``session.py`` (what a run shares: the opening, the meta records, the
result) and ``plan.py`` (the dry run's table); ``send.py`` (the workers); ``batch/`` (request files,
ingest, the Batch API); ``runner.py`` (``run``: the whole command below the CLI).
"""
