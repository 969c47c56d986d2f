import re
import subprocess
import sys

import pytest

from builders.cli.handler import flag_of
from builders.spec.configs import (
    ConfigNameError, ConfigSpec, iter_standard_configs, parse_config_name, parse_length, render_length,
)
from builders.spec.grids import grid_configs
from builders.spec.selection import match_configs


def test_standard_grid_sizes():
    configs = list(iter_standard_configs())
    names = [c.name for c in configs]
    assert len(names) == len(set(names)) == 952
    assert sum(1 for c in configs if not c.is_cross_lingual and c.task != "s_niah_nonone") == 728
    assert sum(1 for c in configs if c.task == "s_niah_nonone") == 104
    xling = [c for c in configs if c.is_cross_lingual]
    assert len(xling) == 120
    assert {c.languages for c in xling} == {"en-ko", "en-pl", "ko-en", "ko-pl", "pl-en", "pl-ko"}


def test_every_listed_name_round_trips():
    for spec in iter_standard_configs():
        again = parse_config_name(spec.name)
        assert again == spec and again.name == spec.name


@pytest.mark.parametrize(
    "name, ctx, inst, task, length, alias",
    [
        ("pl_s_niah_128k", "pl", "pl", "s_niah", 128_000, None),
        ("ko-en_none_niah_32k", "ko", "en", "none_niah", 32_000, None),
        ("en_s_niah_nonone_8k", "en", "en", "s_niah_nonone", 8_000, None),
        ("pl_s_niah_128k_o200k", "pl", "pl", "s_niah", 128_000, "o200k"),
        ("en_mv_niah_64k_llama3", "en", "en", "mv_niah", 64_000, "llama3"),
        ("zh_cwe_hard_1m", "zh", "zh", "cwe_hard", 1_000_000, None),
        ("ta-sw_mq_niah_5500", "ta", "sw", "mq_niah", 5_500, None),
    ],
)
def test_parse(name, ctx, inst, task, length, alias):
    spec = parse_config_name(name, ["llama3"])
    assert (spec.context_language, spec.instruction_language, spec.task, spec.length, spec.tokenizer_alias) == (
        ctx, inst, task, length, alias)
    assert spec.name == name
    assert spec.alias == (alias or "cl100k")


@pytest.mark.parametrize("text, value", [("8k", 8000), ("128k", 128000), ("256k", 256000), ("1m", 1000000), ("5500", 5500)])
def test_lengths(text, value):
    assert parse_length(text) == value
    assert render_length(value) == text


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("pl_s_niha_128k", "did you mean 's_niah'"),
        ("xx_s_niah_8k", "unknown context language 'xx'"),
        ("pl_s_niah_12x", "invalid length '12x'"),
        ("pl_s_niah_0", "must be positive"),
        ("pl_s_niah", "missing length"),
        ("pl_cwe_easy_8k_foo", "unknown tokenizer alias 'foo'"),
        ("en-ko_cwe_easy_8k", "only for NIAH/RULER VT/RULER QA tasks, not 'cwe_easy'"),
        ("en-en_s_niah_8k", "both 'en'"),
        ("pl_s_niah_8k_o200k_x", "unexpected parts"),
        ("plsniah", "expected {lang}_{task}_{length}"),
    ],
)
def test_bad_names_fail_well(name, fragment):
    with pytest.raises(ConfigNameError) as info:
        parse_config_name(name)
    assert fragment in str(info.value)
    assert name in str(info.value) or fragment.startswith("expected")


def test_bad_language_lists_valid_choices():
    with pytest.raises(ConfigNameError, match="valid: cs, da, de, en"):
        ConfigSpec("xx", "s_niah", 8000)


def test_globs_and_token_control_twins():
    assert len(match_configs(["pl_*"])) == 7 * 4 + 4
    twins = match_configs(["pl_*_8k_o200k"])
    assert {c.name for c in twins} == {f"pl_{t}_8k_o200k" for t in
                                      ["s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah", "cwe_easy", "cwe_hard", "s_niah_nonone"]}
    with pytest.raises(ConfigNameError, match="matches no config"):
        match_configs(["qq_*"])


def test_list_command_prints_the_grid():
    out = subprocess.run([sys.executable, "-m", "builders.cli", "list", "*"], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == 952 and lines == sorted(set(lines), key=lines.index)
    out = subprocess.run([sys.executable, "-m", "builders.cli", "list", "ko-*_8k"], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [f"ko-{i}_{t}_8k" for i in ("en", "pl") for t in ("s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah")]
    bad = subprocess.run([sys.executable, "-m", "builders.cli", "list", "zz_*"], capture_output=True, text=True)
    assert bad.returncode == 2 and "matches no config" in bad.stderr and not bad.stdout
    ruler = subprocess.run([sys.executable, "-m", "builders.cli", "list", "--grid", "ruler"], capture_output=True,
                           text=True, check=True)
    assert ruler.stdout.split() == [c.name for c in grid_configs("ruler")] and len(ruler.stdout.split()) == 78


@pytest.mark.parametrize("name, fragment", [
    ("pl_s_niah_128", "did you mean 'pl_s_niah_128k' (128,000 tokens)?"),
    ("ko-en_cwe_easy_999_o200k", "did you mean 'ko-en_cwe_easy_999k_o200k'"),
    ("pl_s_niah_999999999999", "above the maximum of 10m (10,000,000 tokens"),
    ("pl_s_niah_10001k", "above the maximum of 10m"),
])
def test_lengths_that_are_surely_typos_are_refused_with_the_fix(name, fragment):
    with pytest.raises(ConfigNameError) as info:
        parse_config_name(name)
    assert fragment in str(info.value) and name in str(info.value)
    assert "did you mean 'pl_s_niah_8k'" not in str(info.value)


def test_lengths_at_the_limits_are_accepted():
    assert parse_config_name("pl_s_niah_1000").length == 1000
    assert parse_config_name("pl_s_niah_10m").length == 10_000_000
    with pytest.raises(ConfigNameError, match="above the maximum"):
        ConfigSpec("pl", "s_niah", 10_000_001)


@pytest.mark.parametrize("pattern, says, never", [
    ("pl_*_256k", ["256k is not a standard length (8k, 32k, 64k, 128k)", "oneruler build pl_s_niah_256k",
                   "e.g. 'pl_*_128k'"], ["64k'"]),
    ("pl_*_256k_o200k", ["oneruler build pl_s_niah_256k_o200k", "'pl_*_128k_o200k'"], []),
    ("pl_*_128", ["did you mean 'pl_*_128k'?"], []),
    ("xx_*", ["unknown language 'xx'", "valid: cs, da"], []),
    ("ta-sw_*", ["pair en, ko, pl only", "ta-sw_s_niah_8k"], []),
    ("*_s_nih_*", ["'pl_*' (one language)", "'*_128k' (one length)", "oneruler list GLOB"], []),
    ("pl_s_niah_8k_at*", ["fixed-depth configs are in the depth grid: add --grid depth"], ["evidence"]),
    ("*_mv16e_niah_32k", ["multi-evidence configs are in the evidence grid: add --grid evidence"], ["depth grid"]),
])
def test_a_glob_matching_nothing_suggests_globs_that_do(pattern, says, never):
    with pytest.raises(ConfigNameError) as info:
        match_configs([pattern])
    message = info.value.worded(flag_of)  # as the command line says it
    assert message.startswith(f"pattern {pattern!r} matches no config of the standard grid: ")
    for fragment in says:
        assert fragment in message
    for fragment in never:
        assert fragment not in message
    # every glob the message suggests selects something
    for suggested in [w.strip("'?,;") for w in message.split() if "*" in w and w.strip("'?,;") != pattern]:
        assert match_configs([suggested]), suggested


def test_a_hint_names_the_grid_setting_and_quotes_the_command_as_it_is():
    with pytest.raises(ConfigNameError) as info:
        match_configs(["pl_s_niah_8k_at*"])
    assert str(info.value).endswith("add grid depth (`oneruler list --grid depth` lists them)")
    assert info.value.worded(flag_of).endswith("add --grid depth (`oneruler list --grid depth` lists them)")


@pytest.mark.parametrize("name, task, depth, alias", [
    ("pl_s_niah_32k_at25", "s_niah", 25, None),
    ("ko-en_s_niah_8k_at0", "s_niah", 0, None),
    ("en_mk_niah_128k_at100_o200k", "mk_niah", 100, "o200k"),
    ("de_mv16e_niah_128k", "mv16e_niah", None, None),
    ("sw_mv256_niah_64k_at40", "mv256_niah", 40, None),
    ("fr_s_niah_nonone_8k_at10_llama3", "s_niah_nonone", 10, "llama3"),
])
def test_position_controlled_names_round_trip(name, task, depth, alias):
    spec = parse_config_name(name, ["llama3"])
    assert (spec.task, spec.depth, spec.tokenizer_alias) == (task, depth, alias)
    assert spec.name == name and parse_config_name(spec.name, ["llama3"]) == spec
    # valid as a Hub config name and, with its prefix, as an lm-eval task name
    assert re.fullmatch(r"[a-z0-9][a-z0-9_.\-]*", name) and len(f"oneruler_{name}") < 96


@pytest.mark.parametrize("name, fragment", [
    ("pl_s_niah_32k_at101", "invalid depth part 'at101': use _at{D} with D an integer percent 0..100"),
    ("pl_s_niah_32k_at-5", "invalid depth part 'at-5'"),
    ("pl_s_niah_32k_at2.5", "invalid depth part 'at2.5'"),
    ("pl_s_niah_32k_at+5", "invalid depth part 'at+5'"),
    ("pl_s_niah_32k_at05", "invalid depth part 'at05'"),
    ("pl_cwe_hard_32k_at5", "a fixed depth needs a NIAH task, not 'cwe_hard'"),
    ("pl_mv16e_niah_32k_at5", "places its values evenly"),
    ("pl_s_niah_32k_at5_at6", "'at6' is a depth part; a name has at most one"),
    ("pl_s_niah_32k_o200k_at5", "'at5' is a depth part"),
    ("pl_mv1_niah_32k", "K = 1 values is not valid; use mv{K}_niah or mv{K}e_niah (K = 2..256)"),
    ("pl_mv1000_niah_32k", "K = 1000 values is not valid"),
    ("pl_mv257e_niah_32k", "K = 257 values is not valid"),
    ("pl_mv016_niah_32k", "K = 016 values is not valid"),
])
def test_position_controlled_names_that_must_be_refused(name, fragment):
    with pytest.raises(ConfigNameError) as info:
        parse_config_name(name)
    message = str(info.value)
    assert message.startswith(f"config {name!r}: ") and fragment in message
    assert "\n" not in message


def test_aliases_that_read_as_depth_parts_are_reserved():
    from builders.base.errors import TokenizerError
    from builders.generate.tokenizer import parse_tokenizer_option

    for alias in ("at5", "at-5", "at+1", "at0x"):
        with pytest.raises(TokenizerError, match=f"alias '{re.escape(alias)}' must be .*not starting with 'at'"):
            parse_tokenizer_option(f"{alias}=cl100k_base")
        with pytest.raises(ConfigNameError, match="invalid tokenizer alias"):
            ConfigSpec("pl", "s_niah", 8000, tokenizer_alias=alias)
    assert parse_tokenizer_option("atlas=cl100k_base") == ("atlas", "cl100k_base")  # 'at' + letter is an alias
    assert parse_config_name("pl_s_niah_8k_atlas", ["atlas"]).tokenizer_alias == "atlas"


def test_sweep_grids():
    depth = grid_configs("depth")
    assert len({c.name for c in depth}) == len(depth) == 26 * 11 * 4 + 6 * 5 * 4
    mono = [c for c in depth if not c.is_cross_lingual]
    assert {c.depth for c in mono} == set(range(0, 101, 10)) and {c.task for c in depth} == {"s_niah"}
    assert {c.length for c in depth} == {8_000, 32_000, 64_000, 128_000}
    xling = [c for c in depth if c.is_cross_lingual]
    assert {c.depth for c in xling} == {0, 25, 50, 75, 100}
    assert {c.languages for c in xling} == {"en-ko", "en-pl", "ko-en", "ko-pl", "pl-en", "pl-ko"}
    evidence = grid_configs("evidence")
    assert len(evidence) == 26 * 4 * 2 and {c.task for c in evidence} == {"mv8e_niah", "mv16e_niah", "mv32e_niah", "mv64e_niah"}
    assert {c.length for c in evidence} == {32_000, 128_000}
    for c in depth + evidence:
        assert parse_config_name(c.name) == c
    assert [c.name for c in match_configs(["pl_s_niah_8k_at*"], grid_name="depth")] == [
        f"pl_s_niah_8k_at{d}" for d in range(0, 101, 10)]
    assert [c.name for c in match_configs(["ko-en_*_32k_at50_o200k"], grid_name="depth")] == ["ko-en_s_niah_32k_at50_o200k"]
    assert len(match_configs(["*"], grid_name="evidence")) == 208
    with pytest.raises(ConfigNameError, match="unknown grid 'depths'; valid: standard, depth, evidence, ruler"):
        grid_configs("depths")


def test_multi_value_tasks_are_made_on_demand():
    from builders.spec.tasks import FAMILIES, TASKS, get_task

    task = get_task("mv64e_niah")
    assert (task.num_keys, task.num_values, task.num_queries, task.even, task.draws_as) == (1, 64, 1, True, "mv_niah")
    assert task.reserve == 30 + 9 * 64 and get_task("mv2_niah").reserve == 48 and not get_task("mv2_niah").even
    # the table holds the families' listed tasks only: ids of a form are never added to it
    assert "mv64e_niah" not in TASKS and list(TASKS) == [*(t.name for f in FAMILIES.values() for t in f.tasks if t.main),
                                                         *(t.name for f in FAMILIES.values() for t in f.tasks if not t.main)]
    with pytest.raises(ValueError, match="unknown task 'mvx_niah'"):
        get_task("mvx_niah")


@pytest.mark.parametrize("name, ctx, inst, task, length, alias", [
    ("en_ruler_niah_single_2_131072", "en", "en", "ruler_niah_single_2", 131072, None),
    ("en_ruler_vt_8192_llama3", "en", "en", "ruler_vt", 8192, "llama3"),
    ("en_ruler_niah_multikey_3_4096", "en", "en", "ruler_niah_multikey_3", 4096, None),
    ("en_ruler_qa_1_16k", "en", "en", "ruler_qa_1", 16000, None),
    ("pl-en_ruler_vt_32768", "pl", "en", "ruler_vt", 32768, None),
    ("de-en_ruler_qa_xquad_8192", "de", "en", "ruler_qa_xquad", 8192, None),
    ("en_ruler_qa_xquad_8192", "en", "en", "ruler_qa_xquad", 8192, None),
])
def test_ruler_names(name, ctx, inst, task, length, alias):
    spec = parse_config_name(name, ["llama3"])
    assert (spec.context_language, spec.instruction_language, spec.task, spec.length, spec.tokenizer_alias) == (
        ctx, inst, task, length, alias)
    assert parse_config_name(spec.name, ["llama3"]) == spec  # 4096, 131072: written as integers, read back


@pytest.mark.parametrize("name, fragment", [
    ("en_ruler_niah_singel_1_8192", "unknown task in 'ruler_niah_singel_1_8192' (did you mean 'ruler_niah_single_1'?)"),
    ("en_ruler_multikey_1_8192", "(did you mean 'ruler_niah_multikey_1'?)"),
    ("en_ruler_vtt_8192", "(did you mean 'ruler_vt'?)"),
    ("pl_ruler_vt_8192", "task 'ruler_vt' takes no instruction language 'pl' (RULER's English instructions; no native "
                         "translation yet): contexts any of the 26 languages, instructions en; e.g. pl-en_ruler_vt_8192"),
    ("en-pl_ruler_vt_8192", "takes no instruction language 'pl'"),
    ("de_ruler_cwe_8192", "task 'ruler_cwe' takes no context language 'de' (RULER's English task): contexts en, "
                          "instructions en; e.g. en_ruler_cwe_8192"),
    ("ko-en_ruler_niah_single_1_8192", "takes no context language 'ko' (RULER's English task)"),
    ("de-en_ruler_qa_1_8192", "e.g. en_ruler_qa_1_8192"),
    ("fr-en_ruler_qa_xquad_8192", "takes no context language 'fr' (XQuAD's languages that are ONERULER's; RULER's "
                                  "English instructions): contexts de, es, hi, ru, vi, zh, en, instructions en; "
                                  "e.g. de-en_ruler_qa_xquad_8192"),
    ("de_ruler_qa_xquad_8192", "e.g. de-en_ruler_qa_xquad_8192"),
    ("en_ruler_vt_8192_at50", "a fixed depth needs a NIAH task, not 'ruler_vt' (RULER VT has no fixed-depth configs)"),
    ("en_ruler_niah_single_1_8192_at50", "(RULER NIAH has no fixed-depth configs)"),
])
def test_ruler_names_refused_in_one_line_that_says_what_is_valid(name, fragment):
    with pytest.raises(ConfigNameError) as info:
        parse_config_name(name)
    message = str(info.value)
    assert fragment in message and "\n" not in message
    assert "did you mean 'en_" not in message and "did you mean 'pl_" not in message  # no unrelated standard name


def test_the_ruler_grid_is_rulers_13_tasks_at_its_six_lengths(ruler_sources):
    from builders.spec.grids import RULER_LENGTHS, grid_groups

    specs = grid_configs("ruler")
    assert len(specs) == 78 and len({s.name for s in specs}) == 78
    assert RULER_LENGTHS == tuple(2 ** n for n in range(12, 18))
    tasks = list(dict.fromkeys(s.task for s in specs))
    assert tasks == [f"ruler_{name}" for name in ruler_sources.tasks.settings]  # RULER's order, synthetic.yaml
    assert {(s.context_language, s.instruction_language, s.tokenizer_alias) for s in specs} == {("en", "en", None)}
    assert specs[0].name == "en_ruler_niah_single_1_4096" and specs[-1].name == "en_ruler_qa_2_131072"
    groups = grid_groups("ruler")
    assert len(groups[""]) == 78 and len(groups["vt"]) == 6 and len(groups["131072"]) == 13
    assert [s.name for s in match_configs(["*_vt_*"], grid_name="ruler")][:2] == ["en_ruler_vt_4096", "en_ruler_vt_8192"]
    with pytest.raises(ConfigNameError, match="RULER configs are in the ruler grid: add grid ruler"):
        match_configs(["*_ruler_vt_*"])


def test_the_ruler_xling_grid_is_vt_in_25_books_and_qa_over_xquad_in_7(ruler_sources):
    from builders.spec.grids import RULER_LENGTHS, grid_groups
    from builders.spec.languages import LANGUAGE_CODES

    specs = grid_configs("ruler_xling")
    assert len(specs) == 192 == len({s.name for s in specs})
    vt = [s for s in specs if s.task == "ruler_vt"]
    assert {(s.context_language, s.length) for s in vt} == {(c, n) for c in LANGUAGE_CODES if c != "en"
                                                            for n in RULER_LENGTHS}
    xquad = {(s.context_language, s.length) for s in specs if s.task == "ruler_qa_xquad"}
    assert xquad == {(c, n) for c in ("de", "es", "hi", "ru", "vi", "zh", "en") for n in RULER_LENGTHS}
    assert {c for c, _ in xquad} == set(ruler_sources.xquad_languages) & set(LANGUAGE_CODES)
    assert {s.instruction_language for s in specs} == {"en"} and not set(specs) & set(grid_configs("ruler"))
    assert specs[0].name == "cs-en_ruler_vt_4096" and specs[-1].name == "en_ruler_qa_xquad_131072"
    assert [parse_config_name(s.name) for s in specs] == specs
    groups = grid_groups("ruler_xling")
    assert (len(groups["vt"]), len(groups["qa_xquad"]), len(groups["pl"]), len(groups["de"]),
            len(groups["8192"])) == (150, 42, 6, 12, 32)
    with pytest.raises(ConfigNameError, match="in the ruler_xling grid: add grid ruler_xling"):
        match_configs(["pl-en_ruler_vt_*"])
    with pytest.raises(ConfigNameError, match="in the ruler_xling grid: add grid ruler_xling"):
        match_configs(["*_ruler_qa_xquad_*"])
