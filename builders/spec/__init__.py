"""Spec layer: the benchmark as data (languages, tasks, config names, row schema, defaults)."""
