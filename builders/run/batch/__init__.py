"""Batch requests instead of live ones: ``requests.py`` (the request lines, split into files by the
limits), ``write.py`` (``run --batch-requests``: the requests of a run and their meta), ``results.py``
(a batch output line → the ``Completion`` a live answer would have been), ``ingest.py`` (``oneruler
ingest``: output files → the predictions file ``run`` would have written) and ``api.py`` (submit the
files to a Batch API and fetch the results).

Imports ``session.py``, ``settings.py``, ``request_settings.py``, ``rows/``, ``server/`` and ``files/`` of
``run/``; only ``runner.py`` (and the CLI) import it."""
