"""How a run sends the answer prefix of the rows that have one (``run/prompt.py``): asked of the servers, once.

It is chosen before any prompt is counted, since a count reads the request as it will be sent.
``--api completions`` appends it (the prompt is text: RULER's ``base`` template, the prompt then the
prefix). A chat run asks each server's dialect (``Dialect.prefix_form``: vLLM and SGLang continue a
final assistant message given their own fields; llama.cpp and TGI are checked on the server with the
first row that has a prefix; any other server gets the safe form, the prefix appended) and prefills
only if every server takes it the same way. Without a server (request files alone) it is appended,
the form every server reads.
"""

from __future__ import annotations

from contextlib import closing

from ..prompt import PrefixForm, Prompt
from ..rows.selection import RowRef, Selection
from .balancer import ServerBalancer
from .dialects.base import appended


def first_prefixed(refs: list[RowRef], selection: Selection) -> Prompt | None:
    """The prompt of the first row to send that has an answer prefix (None: no such row); prompts are read config by
    config, only until one is found (the first config of a family with prefixes, as a rule)."""
    with closing(selection.prompts([r for r in refs if r.config in selection.prefixed])) as batches:
        for batch in batches:
            found = next((row.prompt for row in batch if row.answer_prefix), None)
            if found is not None:
                return found
    return None


async def prefix_form(balancer: ServerBalancer | None, sample: Prompt, api: str) -> PrefixForm:
    """How the run's servers take ``sample``'s answer prefix: one form for every server."""
    import openai

    if api != "chat":
        return appended("--api completions: the prompt is the input followed by the prefix (RULER's base template)")
    servers = [s for s in balancer.servers if s.out_reason is None and s.known is not None] if balancer else []
    if not servers:
        return appended("no server to ask (request files for any server, or none reachable): appended, the form "
                        "every server reads")
    forms: list[PrefixForm] = []
    for server in servers:
        assert server.known is not None
        try:
            forms.append(await server.known.prefix_form(sample))
        except openai.APIConnectionError as exc:
            forms.append(appended(f"{server.url} could not be asked ({server.client.describe(exc)})"))
    if all(form == forms[0] for form in forms):
        return forms[0]
    each = "; ".join(f"{s.url}: {f.sent_as}" for s, f in zip(servers, forms))
    return appended(f"the servers take it differently ({each}): appended, the form every server reads")
