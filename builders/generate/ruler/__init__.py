"""RULER's task families' row generators (``niah.py``, ``vt.py``) and what they share: the prompt frame
(``frame.py``), needle keys and values (``keys.py``), line haystacks (``lines.py``), the essay haystack
(``essay.py``) and the fit to a budget (``fit.py``)."""
