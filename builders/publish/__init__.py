"""ONERULER's results on the Hub (``oneruler publish``, ``oneruler leaderboard``): ``hub.py`` (every Hub call for
them: model repos, details datasets, a dataset's leaderboard), ``details_dataset.py`` (a report's per-row
details as a dataset), ``publish.py`` (a report's results into a model repo), ``leaderboard.py`` (the Hub's
published results merged with local reports) and ``leaderboard_files.py`` (its table, CSV, Markdown, figure)."""
