"""RULER's inputs, pinned, fetched, verified and parsed (issue 35): ``pins.py`` (the manifests), ``tasks.py``
(templates, task settings, metric rules), ``essays.py`` (the essay haystack), ``words.py`` (word sources),
``qa.py`` (SQuAD, HotpotQA, XQuAD), ``punkt.py`` (NLTK's Punkt parameters), ``store.py`` (``RulerSources``:
each parsed on first use). Pure parsed values; no generation logic."""
