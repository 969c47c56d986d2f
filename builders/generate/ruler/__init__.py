"""RULER's task families' row generators and what they share (``common.py``: the prompt frame, RULER's fixed-seed
shuffle as order keys, the tight fit, a missing source named for its config, number costs)."""
