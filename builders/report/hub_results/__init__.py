"""What a report gives the Hub (after ``views/``, before ``render/``): each leaderboard's value (``values.py``), the
notes beside it (``notes.py``), ``.eval_results/oneruler.yaml`` (``eval_results.py``), the per-row
``details.parquet`` (``details.py``), and the files and lines ``oneruler score`` adds (``report_files.py``)."""
