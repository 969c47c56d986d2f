"""Report layer: ``oneruler score`` and ``oneruler compare``, below the CLI.

Rooms, each importing only the ones before it: ``score/`` (predictions and dataset rows scored into
``Record``s, ``ScoringOptions``), ``stats/`` (closed-form statistics, the cluster bootstrap, records
as numpy columns pooled into ``Cell``s), ``report_data.py`` (``Report``: the report as data),
``documents/`` (scores.json and examples.jsonl: one writer, one reader each), ``views/`` (functions
of a Report: summaries, heatmap, depth, effective lengths, sample size, the scores document),
``render/`` (printed tables and notes, figures, the report folder), ``compare/`` (report folders read
back, paired tests, the comparison folder); ``pipeline.py`` is the whole of ``oneruler score``.
"""
