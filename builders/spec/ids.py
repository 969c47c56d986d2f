"""Row ids: ``{config}/{index}`` (``pl_s_niah_8k/3``), the one grammar every layer reads and sorts by."""

from __future__ import annotations


def row_id(config: str, index: int) -> str:
    """The id of row ``index`` of ``config``."""
    return f"{config}/{index}"


def config_of(ident: str) -> str:
    """The config part of a row id (``pl_s_niah_8k/3`` → ``pl_s_niah_8k``)."""
    return ident.rpartition("/")[0]


def id_order(ident: str) -> tuple[str, int, str]:
    """Sort key of a row id: config, then the index as a number (then the id, for malformed ones)."""
    config, _, index = ident.rpartition("/")
    return config, int(index) if index.isdigit() else -1, ident


def check_id(ident: str, number: int) -> None:
    """ValueError unless ``ident`` has the form ``config/index`` (``number``: the line it came from)."""
    config, _, index = ident.rpartition("/")
    if not config or not index.isdigit():
        raise ValueError(f"line {number}: id {ident!r} is not '{{config}}/{{index}}'")
