"""ONERULER as a Hugging Face ``datasets`` builder.

``datasets`` >= 4 no longer runs dataset scripts through ``load_dataset``; import the class::

    from oneruler import OneRuler
    builder = OneRuler(config_name="pl_s_niah_128k")
    builder.download_and_prepare()
    ds = builder.as_dataset("test")

``BUILDER_CONFIGS`` is the standard grid (952 configs); any other valid name — another length,
a cross-lingual pair, a token-control alias registered with ``tokenizers={"llama3": PATH}`` —
is accepted too. Sources are fetched and verified like every other command (``mirror=`` or
``ONERULER_MIRROR`` for an offline copy). The frozen Parquet export is what ``load_dataset`` reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import datasets

from builders.spec.configs import ConfigSpec, iter_standard_configs, parse_config_name
from builders.spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from builders.spec.schema import features_of

_DESCRIPTION = (
    "ONERULER: a multilingual long-context benchmark (26 languages, 7 tasks: single/multi-key/"
    "multi-value/multi-query/none needle-in-a-haystack and common-word extraction, 8K-128K tokens)."
)
_CITATION = """@inproceedings{kim2025oneruler,
  title={One ruler to measure them all: Benchmarking multilingual long-context language models},
  author={Kim, Yekyung and Russell, Jenna and Karpinska, Marzena and Iyyer, Mohit},
  booktitle={Second Conference on Language Modeling},
  year={2025},
  eprint={2503.01996},
  archivePrefix={arXiv}
}"""


@dataclass
class OneRulerConfig(datasets.BuilderConfig):
    """One ONERULER configuration; its name is parsed and validated (``pl_s_niah_128k``)."""

    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    mirror: str | None = None
    source_cache: str | None = None
    tokenizers: dict = field(default_factory=dict)

    def __post_init__(self):
        super().__post_init__()
        if self.samples < 1:
            raise ValueError(f"config {self.name}: samples must be >= 1, got {self.samples}")
        self.spec: ConfigSpec = parse_config_name(self.name, tuple(self.tokenizers))


class OneRuler(datasets.GeneratorBasedBuilder):
    """Generates ONERULER examples from the pinned upstream sources."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIG_CLASS = OneRulerConfig
    BUILDER_CONFIGS = [OneRulerConfig(name=spec.name, version=datasets.Version("1.0.0")) for spec in iter_standard_configs()]

    def _create_builder_config(self, config_name=None, custom_features=None, config_id=None, **config_kwargs):
        # Any valid name is a config, not only the standard grid.
        if isinstance(config_name, str) and config_name not in self.builder_configs:
            config_kwargs["name"] = parse_config_name(config_name, tuple(config_kwargs.get("tokenizers") or ())).name
            return super()._create_builder_config(None, custom_features, config_id, **config_kwargs)
        return super()._create_builder_config(config_name, custom_features, config_id, **config_kwargs)

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=features_of(self.config.spec.task),  # the core fields, then the task family's own
            homepage="https://github.com/mungg/OneRuler",
            license="MIT",
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST)]

    def _generate_examples(self):
        from builders.generate.rows import RowGenerator
        from builders.generate.tokenizer import TokenizerRegistry
        from builders.sources.store import load_sources

        cfg: OneRulerConfig = self.config
        sources = load_sources(mirror=cfg.mirror, cache_dir=cfg.source_cache)
        generator = RowGenerator(sources, TokenizerRegistry(cfg.tokenizers))
        for row in generator.rows(cfg.spec, samples=cfg.samples, seed=cfg.seed):
            yield row["index"], row
