"""ONERULER as an Inspect AI task: ``inspect eval oneruler/oneruler -T configs=GLOB -T dataset=DIR_OR_REPO``.

``task.py`` (the task and its solver), ``samples.py`` (rows as samples), ``scorer.py`` (the paper's
metric through the scoring core, its metrics), ``options.py`` (the ``-T`` options), ``_registry.py``
(Inspect's entry point). Needs the ``inspect`` extra (``pip install 'oneruler[inspect]'``); see
docs/inspect.md.
"""
