"""The rows a run covers: ``selection.py`` (``Selection``: the configs the globs pick, ids and sizes only,
prompts read config by config) and ``shard.py`` (``--shard I/N``, balanced by tokens). Imports nothing
else of ``run/``."""
