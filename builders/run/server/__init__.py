"""The servers a run talks to: ``client.py`` (one server through the ``openai`` client: retries, answers
split from reasoning), ``balancer.py`` (several servers, fewest in flight, failover), ``probe.py`` (what a
dialect may ask of a server), ``dialects/`` (each server kind recognised and asked in its own way),
``window.py`` (each server's window, learnt through its dialect), ``counting.py`` (prompt tokens
counted by the server, a local tokenizer, or ``estimate.py``), ``preflight.py`` (every prompt + its
new tokens against the window, before anything is sent), ``guard.py`` (answers' ``prompt_tokens``
against what was sent), ``secrets.py`` (no credential in what is said or written).

Imports ``rows/``, ``request_settings.py`` and ``progress.py`` of ``run/``, nothing else of it."""
