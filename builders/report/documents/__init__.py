"""The files of a report folder that are read back, as typed records with one writer and one reader each:
scores.json (``scores_json.py``) and examples.jsonl (``examples_jsonl.py``)."""
