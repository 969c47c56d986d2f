"""Run layer: send a dataset's prompts to an OpenAI-compatible server and record the answers (``oneruler run``)."""
