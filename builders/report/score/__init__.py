"""Predictions and dataset rows scored into records: predictions files, the rows they refer to, the scoring
options, each row's queried needles, and ``Record`` (``score_rows``)."""
