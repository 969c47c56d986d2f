"""The rows an evaluation task reads, for lm-eval and Inspect alike: where they come from (``source.py``:
an export or the generator) and what a process has loaded to give them (``loaded.py``)."""
