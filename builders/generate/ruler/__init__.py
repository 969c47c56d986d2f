"""RULER's task families' row generators (``niah.py``, ``vt.py``, ``cwe.py``, ``fwe.py``, ``qa.py``) and what they
share: the prompt frame (``frame.py``), the fit to a budget (``fit.py``), RULER's fixed-seed shuffle, samples,
templates and a missing source named for its config (``common.py``), needle keys and values (``keys.py``), line
haystacks (``lines.py``), the essay haystack (``essay.py``, ``haystacks.py``)."""
