"""The window a run's prompts must fit: ``max_model_len`` when given, else what each server says in its own
dialect (``dialects.detect`` through a ``probe.ServerProbe``); servers of one balancer must agree.

``servers_window`` learns every server of the balancer once, keeps what it learnt on the balancer's ``Server``
(``known``: dialect and facts) and takes out the servers that cannot be reached.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.errors import OneRulerError, SettingError, named_setting
from ...base.text import plural
from .answers import ModelList
from .client import ServerClient
from .dialects import KnownServer, detect
from .balancer import Server, ServerBalancer
from .probe import ServerProbe


class ServerUnreachable(OneRulerError):
    """A server did not answer at all (no connection), as opposed to answering with an error."""


@dataclass(frozen=True)
class Window:
    """The server's context window in tokens (None: unknown) and where it was learnt."""

    size: int | None
    source: str
    prompt_limit: int | None = None  # a cap on the prompt alone (TGI's max_input_tokens)


async def learn_window(client: ServerClient, max_model_len: int | None,
                       offline_ok: bool) -> tuple[Window, list[str], KnownServer | None]:
    """(the window, warnings, what the server is): ``max_model_len``, else what the server says in its own dialect."""
    import openai

    if max_model_len is not None and max_model_len < 1:
        raise SettingError("max_model_len", f"must be positive (got {max_model_len})")
    try:
        listed = await client.served_models()
        known = await detect(ServerProbe(client), served_card(client, listed))
    except openai.APIConnectionError as exc:
        if max_model_len is not None and offline_ok:  # the window is given: a dry run goes on without the server
            said = f"{client.shown} is unreachable: prompts are estimated"
            return Window(max_model_len, "--max-model-len"), [said], None
        if not offline_ok:
            raise ServerUnreachable(f"cannot reach {client.shown} ({client.describe(exc)}); is the server running?") from None
        return Window(None, "server unreachable"), [f"{client.shown} is unreachable: the window is unknown"], None
    facts = known.facts
    warnings = [*list_warnings(client, listed), *facts.notes]
    unsent = client.address.unsent_user_info(client.secret)
    if unsent:
        warnings.append(unsent)
    if max_model_len is not None:
        if facts.truncates and facts.window and max_model_len > facts.window:
            warnings.append(f"--max-model-len {max_model_len} is larger than what {facts.software} uses ({facts.window}, "
                            f"{facts.window_source}): longer prompts will be cut by the server. To widen it: "
                            f"{facts.fix.format(need=max_model_len)}")
        return Window(max_model_len, "--max-model-len", facts.prompt_limit), warnings, known
    if facts.window is None:
        warnings.append(f"{client.shown} ({facts.software}) does not report its window for {client.model!r}: pass "
                        f"--max-model-len; overlong prompts will be rejected by the server and recorded as failed")
    return Window(facts.window, facts.window_source, facts.prompt_limit), warnings, known


def list_warnings(client: ServerClient, listed: ModelList) -> list[str]:
    """What the run must say about the server's model list: that it failed, or what in it is not a model card."""
    if listed.problem is not None:
        return [f"{client.shown}: the model list failed (GET /v1/models: {listed.problem}); the model name "
                f"{client.model!r} was not checked, nor the window read from it"]
    if listed.odd:
        return [f"{client.shown}: GET /v1/models lists {plural(len(listed.odd), 'entry', 'entries')} "
                f"that are not model cards ({'; '.join(listed.odd[:3])}{'; ...' if len(listed.odd) > 3 else ''}): "
                f"left out"]
    return []


def served_card(client: ServerClient, listed: ModelList) -> dict | None:
    """The model's entry in ``GET /v1/models`` (None: the server lists none); a model not served is an error."""
    if listed.cards is None:
        return None
    served = {m["id"]: m for m in listed.cards}
    if client.model not in served:
        said = f"model {client.model!r} is not served by {client.shown}; it serves: {', '.join(sorted(served)) or 'nothing'}"
        raise OneRulerError(f"{said} (give one of them to {named_setting('model')})")
    return served[client.model]


async def servers_window(balancer: ServerBalancer | None, max_model_len: int | None, offline_ok: bool) -> tuple[Window, list[str]]:
    """The window every server shares; servers that cannot be reached are taken out (a dry run may go on without any).

    Servers that report different windows are refused: a row that fits one would be cut or refused by another.
    """
    if balancer is None:  # batch request files without a server: the window is what --max-model-len says
        if max_model_len is not None:
            return Window(max_model_len, "--max-model-len"), []
        return Window(None, "unknown"), ["no --base-url and no --max-model-len: the window is unknown, nothing is "
                                         "checked against it"]
    learnt: list[tuple[Server, Window]] = []
    warnings: list[str] = []
    for server in balancer.servers:
        only = len(balancer.servers) == 1
        try:
            window, said, known = await learn_window(server.client, max_model_len, offline_ok and only)
        except ServerUnreachable:
            if only:
                raise
            balancer.take_out(server, "unreachable at the start")
            continue
        server.known = known
        learnt.append((server, window))
        warnings += said
    if not learnt:
        if offline_ok:  # a dry run prices the rows without any server
            return Window(None, "server unreachable"), [f"no server can be reached ({len(balancer.servers)} given): the "
                                                        f"window is unknown"]
        balancer.live()  # raises: no server left
    sizes = {w.size for _, w in learnt}
    if len(sizes) > 1:
        each = "; ".join(f"{s.url}: {w.size} ({w.source})" for s, w in learnt)
        raise OneRulerError(f"the servers report different windows ({each}); serve the model with the same window "
                            f"everywhere, or pass {named_setting('max_model_len')} with the smallest")
    return learnt[0][1], warnings
