"""The Inspect task's options (``-T name=value``) as typed settings: rows, generation, scoring.

Inspect parses every ``-T`` value as YAML and splits an unquoted value at commas, so a value may
arrive as a string, a list, a number or a boolean; each option is checked here and a wrong one
raises an error naming the option. The rows come from the row source the lm-eval tasks use too
(``taskrows/source.py:row_source``): ``dataset`` (an export folder or a Hub repo id) or, without
one, rows generated on the fly byte for byte as the export has them (``tokenizer``, ``samples``,
``data_seed``). ``configs`` are globs over the dataset's configs, or over a named grid (``grid``,
the standard one by default) when the rows are generated; with ``tokenizer=ALIAS=SPEC`` each
picked config is read (or generated) as its token-control twin ``{config}_{ALIAS}``.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from ..base.errors import OneRulerError, SettingError
from ..dataset.source import select_configs
from ..report.score.options import ScoringOptions
from ..lmeval.options import scoring_options
from ..taskrows.loaded import LOADED
from ..taskrows.source import DATASET_ENV, RowSource, row_source
from ..spec.configs import ConfigNameError, parse_config_name
from ..spec.selection import match_configs
from ..spec.grids import DEFAULT_GRID, GRIDS
from ..spec.presets import PRESETS, preset_values


@dataclass(frozen=True)
class Generation:
    """What each request asks for: ``temperature``, ``max_tokens`` (None: the row's reserve), ``reasoning_effort``."""

    temperature: float = 0.0
    max_tokens: int | None = None
    reasoning_effort: str | None = None

    def config_args(self) -> dict[str, Any]:
        """The task's ``GenerateConfig`` arguments (``max_tokens`` is set per row by the solver)."""
        args: dict[str, Any] = {"temperature": self.temperature}
        if self.reasoning_effort is not None:
            args["reasoning_effort"] = self.reasoning_effort
        return args


def text_list(value: Any, setting: str) -> list[str]:
    """A comma-separated string or a list of strings (as Inspect passes ``-T a,b``) as a list."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in items):
        raise SettingError(setting, f"must be one or more globs like 'pl_*_8k' (comma-separated), got {value!r}")
    return [v.strip() for v in items]


def optional_text(value: Any, setting: str, example: str) -> str | None:
    """A string option (None or "" when absent)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise SettingError(setting, f"must be a string like {example!r}, got {value!r}")
    return value


def optional_count(value: Any, setting: str, minimum: int = 1) -> int | None:
    """An integer option of at least ``minimum`` (None when absent)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise SettingError(setting, f"must be an integer of at least {minimum}, got {value!r}")
    return value


def flag(value: Any, setting: str) -> bool:
    """A true/false option."""
    if not isinstance(value, bool):
        raise SettingError(setting, f"must be true or false, got {value!r}")
    return value


def choice(value: Any, setting: str, valid: tuple[str, ...]) -> str:
    """One of ``valid``."""
    if value not in valid:
        raise SettingError(setting, f"must be one of {', '.join(valid)}, got {value!r}")
    return value


def rows_source(dataset: Any, tokenizer: Any, samples: Any, data_seed: Any) -> RowSource:
    """Where the rows come from: the lm-eval tasks' rule (``dataset``, else ``$ONERULER_DATASET``, else generated)."""
    given = optional_text(dataset, "dataset", "org/oneruler") or os.environ.get(DATASET_ENV) or None
    meta: dict[str, Any] = {"dataset": given}
    location = optional_text(tokenizer, "tokenizer", "llama3=meta-llama/Meta-Llama-3-8B")
    if location is not None:
        meta["tokenizer"] = location
    for key, value, minimum in (("samples", samples, 1), ("data_seed", data_seed, 0)):
        if optional_count(value, key, minimum) is not None:
            if given:
                raise SettingError(key, f"only applies to rows generated on the fly; dataset {given!r} has fixed rows",
                                   settings=("dataset",))
            meta[key] = value
    if given and location is not None and "=" not in location:
        raise SettingError("tokenizer", f"with a dataset must be ALIAS=SPEC (it picks the configs {{config}}_{{ALIAS}}), "
                                        f"got {location!r}")
    return row_source(meta, where=None)  # the lm-eval tasks' rule, its errors naming the options themselves


def chosen_configs(globs: list[str], source: RowSource, grid: str | None) -> list[str]:
    """The text-control names of the configs the globs pick (read or generated with ``source``'s tokenizer)."""
    if source.dataset:
        if grid is not None:
            raise SettingError("grid", "only applies to rows generated on the fly; a dataset has its own configs")
        return dataset_picks(globs, source)
    if grid is not None and grid not in GRIDS:
        raise SettingError("grid", f"must be one of {', '.join(GRIDS)}, got {grid!r}")
    try:
        specs = match_configs(globs or ["*"], [source.alias] if source.token_control else None, grid or DEFAULT_GRID)
    except ConfigNameError as exc:
        raise OneRulerError(f"configs: {exc}", settings=("configs",)) from None
    names = []
    for spec in specs:
        if spec.tokenizer_alias is not None and spec.alias != source.alias:
            raise SettingError("configs", f"picks {spec.name!r}, a config measured with {spec.alias!r}; give its text-"
                                          f"control name and tokenizer={spec.alias}=SPEC", settings=("tokenizer",))
        names.append(dataclasses.replace(spec, tokenizer_alias=None).name)
    return names


def dataset_picks(globs: list[str], source: RowSource) -> list[str]:
    """The dataset's configs measured with ``source``'s tokenizer whose text-control names match a glob."""
    bases = []
    for name in LOADED.configs(source.dataset):
        try:
            spec = parse_config_name(name, [source.alias])
        except ConfigNameError:  # another tokenizer's twin, or a name this version does not know
            continue
        if spec.alias == source.alias:
            bases.append(dataclasses.replace(spec, tokenizer_alias=None).name)
    if not bases:
        raise SettingError("tokenizer", f"{source.alias!r}: dataset {source.dataset!r} has no config measured with it")
    return select_configs(bases, globs, what="configs glob")


@dataclass(frozen=True)
class TaskOptions:
    """Every option of a run: the configs, where their rows come from, the generation and the scoring."""

    configs: list[str]
    source: RowSource
    limit: int | None
    generation: Generation
    scoring: ScoringOptions  # built by lmeval.options.scoring_options


def generation(preset: Any, max_tokens: Any) -> Generation:
    """Greedy with the row's reserve, or a paper preset; ``max_tokens`` overrides both (``spec/presets.py``)."""
    chosen = None if preset is None else choice(preset, "preset", tuple(PRESETS))
    values = preset_values(chosen, {"max_tokens": optional_count(max_tokens, "max_tokens")})
    values.pop("max_tokens_param", None)  # Inspect's OpenAI provider picks the parameter an o-series model needs
    return Generation(**values)


def task_options(configs: Any = None, dataset: Any = None, tokenizer: Any = None, samples: Any = None,
                 data_seed: Any = None, grid: Any = None, limit: Any = None, preset: Any = None,
                 max_tokens: Any = None, strict: Any = False, truncation: Any = "paper",
                 missing_policy: Any = "paper", keep_think: Any = False, answer_tag: Any = False) -> TaskOptions:
    """Check and type every task option (each error names the option at fault)."""
    source = rows_source(dataset, tokenizer, samples, data_seed)
    names = chosen_configs(text_list(configs, "configs"), source, optional_text(grid, "grid", "standard"))
    flags = {"strict": flag(strict, "strict"), "keep_think": flag(keep_think, "keep_think"),
             "answer_tag": flag(answer_tag, "answer_tag")}
    scoring = dataclasses.replace(scoring_options(flags), truncation=truncation, missing_policy=missing_policy)
    return TaskOptions(names, source, optional_count(limit, "limit"), generation(preset, max_tokens), scoring)
