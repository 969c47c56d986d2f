"""The scoring package (builders/scoring/) against SPEC §5, case by case and with property tests; each task scored
by the rule its record names (spec/families/)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring_corpus import (CATEGORY_CASES, GOLD_SETS, LANGS, NEEDLES, OUTPUTS, WORDS, oracle_cwe, oracle_none,
                            oracle_numbers)

from builders import scoring
from builders.scoring import NONE_WORDS, ExampleScore
from builders.spec.languages import LANGUAGE_CODES
from builders.spec.tasks import TASKS, get_task

TASK_IDS = tuple(TASKS)
NUMBER_TASKS = tuple(t for t in TASKS if TASKS[t].scoring_rule == "numbers")
CWE_TASKS = tuple(t for t in TASKS if TASKS[t].scoring_rule == "words")


def score_example(prediction, answers, task, lang=None, **kw) -> ExampleScore:
    """The verdict on an output for a row of ``task``: the scoring core with the rule the task's record names."""
    return scoring.score_example(prediction, answers, get_task(task).scoring_rule, lang, **kw)


def passed(prediction, answers, task, lang="en", **kw) -> bool:
    return score_example(prediction, answers, task, lang, **kw).passed


# --------------------------------------------------------------------------- the contract


def test_every_task_names_a_rule_and_the_none_words_cover_every_language():
    assert {t.scoring_rule for t in TASKS.values()} == set(scoring.RULES) == {
        "numbers", "none", "words", "string_match_all", "string_match_part"}  # every rule is some task's
    assert CWE_TASKS == ("cwe_easy", "cwe_hard")
    assert [t for t in TASKS if TASKS[t].scoring_rule == "none"] == [t for t in TASKS if not getattr(TASKS[t], "relevant", True)]
    assert set(NONE_WORDS) == set(LANGUAGE_CODES)


# SPEC §5's table of none words, transcribed independently of the scorer's table.
SPEC_NONE_WORDS = {
    "en": ["none"], "ko": ["없음"], "pl": ["brak"], "zh": ["无"], "vi": ["Không có"], "ja": ["なし", "数字はありません"],
    "ta": ["ஏதுமில்லை"], "hu": ["nincs"], "fr": ["aucun"], "no": ["ingen"], "uk": ["немає", "Нема"], "ru": ["нет"],
    "de": ["Keine vorhanden"], "es": ["ninguno"], "sv": ["inga"], "fi": ["ei mikään"], "cs": ["žádné", "žádná"],
    "sr": ["nema"], "pt": ["nenhum"], "it": ["nessuno"], "fa": ["هیچ کدام"], "sw": ["hakuna"], "nl": ["geen"],
    "st": ["ha ho letho"], "hi": ["कोई नहीं"], "da": ["ingen"],
}


def test_none_words_are_specs_table_and_accept_upstreams_gold(sources):
    assert {lang: list(words) for lang, words in scoring.NONE_WORDS.items()} == SPEC_NONE_WORDS
    for lang in LANGUAGE_CODES:  # the none_niah gold the generator writes (upstream's niah.txt "none") passes
        gold = sources.niah_template(lang).none_word
        assert score_example(gold, [gold], "none_niah", lang).passed, lang


def test_clean_is_the_papers():
    assert scoring.clean("  Keine vorhanden\u200c ") == "keinevorhanden"
    assert scoring.clean("Không\tcó") == "không\tcó"  # only ASCII spaces go


# --------------------------------------------------------------------------- NIAH with numbers


@pytest.mark.parametrize("task", NUMBER_TASKS)
def test_exact_value_passes_in_every_number_task(task):
    assert passed("<answer>4817290</answer>", ["4817290"], task)
    assert not passed("<answer>4817291</answer>", ["4817290"], task)


def test_empty_output_fails():
    assert not passed("", ["4817290"], "s_niah")
    assert score_example("", ["4817290"], "s_niah", "en").counted


def test_lowercase_none_fails_english_but_capitalised_none_does_not():
    assert not passed("none 4817290", ["4817290"], "s_niah")
    assert passed("None. 4817290", ["4817290"], "s_niah")
    assert not passed("nonetheless 4817290", ["4817290"], "s_niah")  # substring, as upstream


@pytest.mark.parametrize(
    "lang, text",
    [
        ("de", "Keine vorhanden"), ("de", "keinevorhanden"), ("ja", "数字はありません"), ("ja", "なし"),
        ("fi", "eimikään"), ("st", "haholetho"), ("vi", "khôngcó"), ("vi", "Không có"), ("hi", "कोईनहीं"),
        ("uk", "Нема"), ("uk", "нема"), ("cs", "žádná"), ("fa", "هیچکدام"), ("zh", "无"), ("ko", "없음"),
    ],
)
def test_none_words_and_their_space_free_forms_fail_number_tasks(lang, text):
    assert not passed(f"{text} 4817290", ["4817290"], "s_niah", lang)
    assert not passed(f"4817290 ({text})", ["4817290"], "mk_niah", lang)


def test_none_word_check_is_case_sensitive_before_cleaning():
    # "keine vorhanden" is neither "Keine vorhanden" nor "keinevorhanden"
    assert passed("keine vorhanden 4817290", ["4817290"], "s_niah", "de")
    # U+200C inside the Persian phrase keeps it from matching (upstream quirk, kept on purpose)
    assert passed("هیچ\u200cکدام 4817290", ["4817290"], "s_niah", "fa")
    # none words of other languages are irrelevant
    assert passed("brak 4817290", ["4817290"], "s_niah", "en")


def test_length_one_digits_are_ignored_and_duplicates_collapse():
    assert passed("1. 4817290 2. 4817290 3", ["4817290"], "s_niah")
    assert passed("4817290, 4817290, 4817290", ["4817290"], "s_niah")
    assert not passed("4817290 12", ["4817290"], "s_niah")  # two digits are a number
    assert not passed("4817290 1234567", ["4817290"], "s_niah")


def test_multi_value_and_multi_query_any_order():
    gold = ["1111111", "2222222", "3333333", "4444444"]
    assert passed("4444444, 2222222, 1111111, 3333333", gold, "mv_niah")
    assert passed("4444444 2222222 1111111 3333333 2222222", gold, "mv_niah")
    assert not passed("4444444, 2222222, 1111111", gold, "mv_niah")
    assert passed("<answer>2222222 and 1111111</answer>", ["1111111", "2222222"], "mq_niah")
    assert not passed("2222222 1111111 9999999", ["1111111", "2222222"], "mq_niah")


def test_count_uses_strings_before_int_conversion():
    # "04817290" and "4817290" are two numbers for the count but one integer: upstream fails it
    assert not passed("4817290 04817290", ["4817290"], "s_niah")
    assert passed("04817290", ["4817290"], "s_niah")


@pytest.mark.parametrize(
    "text",
    ["４８１７２９０", "४८१७२९०", "۴۸۱۷۲۹۰", "٤٨١٧٢٩٠", "௪௮௧௭௨௯௦", "48١٧٢90"],
    ids=["fullwidth", "devanagari", "persian", "arabic-indic", "tamil", "mixed"],
)
def test_digits_of_other_scripts_count_as_python_re_and_int_read_them(text):
    assert passed(f"<answer>{text}</answer>", ["4817290"], "s_niah", "hi")
    assert oracle_numbers(text, ["4817290"], "hi")


def test_numbers_inside_longer_runs_do_not_count():
    assert not passed("14817290", ["4817290"], "s_niah")
    assert score_example("14817290", ["4817290"], "s_niah", "en").recall == 0.0


# --------------------------------------------------------------------------- none_niah


@pytest.mark.parametrize(
    "lang, text",
    [
        ("en", "none"), ("en", "None"), ("en", "NONE."), ("de", "Keine vorhanden"), ("de", "KEINE VORHANDEN"),
        ("de", "keinevorhanden"), ("ja", "数字はありません"), ("ja", "なし"), ("fa", "هیچ\u200cکدام"),
        ("fa", "هیچ کدام"), ("vi", "không có"), ("st", "Ha ho letho"), ("hi", "कोई नहीं"), ("ta", "ஏதுமில்லை"),
        ("uk", "немає"), ("ru", "Нет"), ("cs", "Žádné"), ("pl", "<odpowiedź>Brak</odpowiedź>"), ("zh", "<答案>无</答案>"),
    ],
)
def test_none_niah_accepts_each_none_word(lang, text):
    assert passed(text, ["x"], "none_niah", lang)


def test_none_niah_allows_numbers_and_needs_the_instruction_language():
    assert passed("none, but 4817290 was mentioned for another key", ["none"], "none_niah", "en")
    assert passed("1. none", ["none"], "none_niah", "en")
    assert not passed("4817290", ["none"], "none_niah", "en")
    assert not passed("brak", ["none"], "none_niah", "en")
    assert passed("brak", ["brak"], "none_niah", "pl")
    assert not passed("", ["none"], "none_niah", "en")


def test_none_niah_deletes_isolated_single_digits_after_cleaning():
    # a digit between two combining marks is "isolated" (marks are not \w), so deleting it
    # rejoins the Hindi none word: upstream behaviour, reproduced
    assert passed("कोई नही1ं", ["कोई नहीं"], "none_niah", "hi")
    assert not passed("कोई नही12ं", ["कोई नहीं"], "none_niah", "hi")


def test_none_niah_applies_nfkc_first():
    decomposed = unicodedata.normalize("NFD", "Không có")
    assert decomposed != "Không có"
    assert passed(decomposed, ["Không có"], "none_niah", "vi")


# --------------------------------------------------------------------------- CWE




@pytest.mark.parametrize("task", CWE_TASKS)
def test_cwe_words_in_any_order_case_insensitive(task):
    assert passed(", ".join(reversed([w.upper() for w in WORDS])), WORDS, task, None)
    assert not passed(", ".join(WORDS[:9]), WORDS, task, None)
    assert passed("  " + " ".join(WORDS) + "\n", [f" {w} " for w in WORDS], task, None)


def test_cwe_is_substring_without_nfkc():
    assert passed("category " + " ".join(WORDS[:2] + WORDS[3:]), WORDS, "cwe_easy", None)  # cat in category
    nfd_words = ["café"] + WORDS[1:]
    assert not passed(unicodedata.normalize("NFD", " ".join(nfd_words)), nfd_words, "cwe_easy", None)


def test_cwe_multilingual_words():
    ja = ["在る", "議室", "けがらわしい", "組合せ", "もらう", "出る", "社", "連休", "年", "物"]
    assert passed("<答え>" + "、".join(reversed(ja)) + "</答え>", ja, "cwe_hard", "ja")
    ru = ["Дом", "кот", "вода", "лес", "мост", "окно", "снег", "путь", "сад", "чай"]
    assert passed(" ".join(w.upper() for w in ru), ru, "cwe_easy", "ru")


# --------------------------------------------------------------------------- strict mode


def test_strict_none_words_are_whole_tokens():
    assert passed("nonetheless 4817290", ["4817290"], "s_niah", strict=True)
    assert not passed("None. 4817290", ["4817290"], "s_niah", strict=True)  # case-insensitive
    assert not passed("nonetheless", ["none"], "none_niah", strict=True)
    assert passed("<answer>None</answer>", ["none"], "none_niah", strict=True)
    assert passed("нет", ["нет"], "none_niah", "ru", strict=True)
    assert not passed("нетто", ["нет"], "none_niah", "ru", strict=True)
    assert passed("нетто", ["нет"], "none_niah", "ru")  # paper mode: substring
    assert not passed("ingenting", ["ingen"], "none_niah", "no", strict=True)


def test_strict_multiword_none_words_allow_any_whitespace_or_none():
    for text in ["Keine vorhanden", "keinevorhanden", "Keine\nvorhanden", "keine\u00a0vorhanden"]:
        assert passed(text, ["x"], "none_niah", "de", strict=True), text
    assert not passed("Keine vorhandenen", ["x"], "none_niah", "de", strict=True)
    assert passed("هیچ\u200cکدام", ["x"], "none_niah", "fa", strict=True)
    assert passed("<उत्तर>कोई नहीं</उत्तर>", ["x"], "none_niah", "hi", strict=True)


def test_strict_treats_combining_marks_as_part_of_a_word():
    # a following vowel sign continues the Devanagari word, so it is not the none word
    assert not passed("कोई नहींा", ["x"], "none_niah", "hi", strict=True)
    assert passed("कोई नहींा", ["x"], "none_niah", "hi")


def test_strict_cjk_none_word_must_stand_apart():
    assert passed("<答案>无</答案>", ["无"], "none_niah", "zh", strict=True)
    assert not passed("无法确定", ["无"], "none_niah", "zh", strict=True)
    assert passed("无法确定", ["无"], "none_niah", "zh")
    assert passed("4817290。无法确定其他", ["4817290"], "s_niah", "zh", strict=True)


def test_strict_cwe_whole_words():
    text = "category " + " ".join(WORDS[:2] + WORDS[3:])
    assert not passed(text, WORDS, "cwe_easy", None, strict=True)
    assert passed(" ".join(WORDS).upper(), WORDS, "cwe_easy", None, strict=True)
    odd = ["c++", "-ish"] + WORDS[2:]
    assert passed("c++, -ish, " + " ".join(WORDS[2:]), odd, "cwe_easy", None, strict=True)


# --------------------------------------------------------------------------- recall and categories



@pytest.mark.parametrize("task, gold, text, category, recall", CATEGORY_CASES)
def test_categories_and_recall(task, gold, text, category, recall):
    result = score_example(text, gold, task, "en", needles=NEEDLES)
    assert (result.category, result.recall) == (category, recall)


def test_distractor_needs_needles_and_accepts_bare_values():
    assert score_example("3333333", ["2222222"], "mk_niah", "en").category == "wrong"
    assert score_example("3333333", ["2222222"], "mk_niah", "en", needles=["2222222", "3333333"]).category == "distractor"


def test_cwe_categories_and_recall():
    assert score_example(" ".join(WORDS[:4]), WORDS, "cwe_easy").category == "partial"
    assert score_example(" ".join(WORDS[:4]), WORDS, "cwe_easy").recall == 0.4
    assert score_example("nothing", WORDS, "cwe_easy").category == "wrong"
    assert score_example("", WORDS, "cwe_easy").category == "no_answer"


# --------------------------------------------------------------------------- missing / truncated


def test_no_response_is_dropped_for_niah_and_wrong_for_cwe():
    niah = score_example(None, ["4817290"], "s_niah", "en")
    cwe = score_example(None, WORDS, "cwe_hard")
    assert (niah.counted, niah.status, niah.category) == (False, "no_response", "no_answer")
    assert (cwe.counted, cwe.passed, cwe.status) == (True, False, "no_response")


@pytest.mark.parametrize(
    "policy, task, counted, ok",
    [("paper", "s_niah", False, False), ("paper", "cwe_easy", True, False), ("wrong", "s_niah", True, False),
     ("wrong", "cwe_easy", True, False), ("score", "s_niah", True, True), ("score", "cwe_easy", True, True)],
)
def test_truncation_policies(policy, task, counted, ok):
    gold = ["4817290"] if task == "s_niah" else WORDS
    text = " ".join(gold)
    result = score_example(text, gold, task, "en", finish_reason="length", truncation=policy)
    assert (result.counted, result.passed, result.status) == (counted, ok, "truncated")
    assert score_example(text, gold, task, "en", finish_reason="stop", truncation=policy).passed


def test_summarize():
    scores = [ExampleScore(True, 1.0, "correct"), ExampleScore(False, 0.5, "partial"),
              ExampleScore(False, 0.0, "no_answer", counted=False, status="no_response")]
    s = scoring.summarize(scores)
    assert (s["accuracy"], s["recall"], s["counted"], s["dropped"], s["no_response"]) == (0.5, 0.75, 2, 1, 1)
    assert s["categories"]["partial"] == 1 and s["categories"]["no_answer"] == 0
    assert scoring.summarize([])["accuracy"] is None


def test_bad_task_language_or_gold_are_clear_errors():
    with pytest.raises(ValueError, match="unknown task 'x_niah'"):
        score_example("1", ["1234567"], "x_niah", "en")
    with pytest.raises(ValueError, match="instruction language 'xx'"):
        score_example("1", ["1234567"], "s_niah", "xx")
    with pytest.raises(ValueError, match="instruction language None"):
        score_example(None, ["1234567"], "none_niah", None)
    with pytest.raises(ValueError, match="not a number"):
        score_example("1", ["abc"], "s_niah", "en")
    with pytest.raises(ValueError, match="truncation"):
        score_example("1", ["1234567"], "s_niah", "en", truncation="drop")


# --------------------------------------------------------------------------- robustness


def _every_seven_digit_number() -> str:
    # built by substitution: 9,000 prefixes x 1,000 suffixes without formatting 9M integers
    template = " ".join(f"@{s:03d}" for s in range(1000))
    return " ".join(template.replace("@", str(p)) for p in range(1000, 10000))


def test_every_seven_digit_number_gets_a_defined_score():
    text = _every_seven_digit_number()
    assert len(text) == 9_000_000 * 8 - 1
    for task, gold in [("s_niah", ["4817290"]), ("mv_niah", ["1111111", "2222222", "3333333", "4444444"])]:
        result = score_example(text, gold, task, "en", needles=NEEDLES)
        assert (result.passed, result.recall, result.category) == (False, 1.0, "distractor" if task == "s_niah" else "wrong")
    assert score_example(text, ["none"], "none_niah", "en", needles=NEEDLES).category == "distractor"


@pytest.mark.parametrize(
    "prediction",
    [None, "", " ", "\x00" * 10, "\ud800\udfff\ud83d", b"\xff\xfe\x00binary\x80", bytearray(b"4817290"), 4817290,
     ["4817290"], "9" * 10_000_000, "x" * 10_000_000, "4817290 " + "\U0001f600" * 1_000_000,
     "१" * 5000 + " 4817290"],
    ids=["none", "empty", "space", "nul", "surrogates", "bytes", "bytearray", "int", "list", "10M-digits",
         "10M-letters", "emoji", "devanagari-run"],
)
@pytest.mark.parametrize("task", ["s_niah", "none_niah", "cwe_easy"])
@pytest.mark.parametrize("strict", [False, True])
def test_any_prediction_gets_a_defined_score(prediction, task, strict):
    gold = {"s_niah": ["4817290"], "none_niah": ["none"], "cwe_easy": WORDS}[task]
    result = score_example(prediction, gold, task, "en", needles=NEEDLES, strict=strict)
    assert isinstance(result.passed, bool) and 0.0 <= result.recall <= 1.0
    assert result.category in scoring.CATEGORIES
    assert result.counted == (prediction is not None or task == "cwe_easy")


def test_coerced_predictions_score_like_their_text():
    assert passed(b"<answer>4817290</answer>", ["4817290"], "s_niah")
    assert passed(4817290, ["4817290"], "s_niah")


# --------------------------------------------------------------------------- properties

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output=OUTPUTS, lang=LANGS, gold=GOLD_SETS, task=st.sampled_from(NUMBER_TASKS))
def test_number_tasks_agree_with_the_upstream_oracle(output, lang, gold, task):
    result = score_example(output, gold, task, lang, needles=NEEDLES)
    assert result.passed == oracle_numbers(output, gold, lang)
    if result.passed:
        assert result.recall == 1.0 and result.category == "correct"
    else:
        assert result.category != "correct"


@settings(max_examples=300, deadline=None)
@given(output=OUTPUTS, lang=LANGS)
def test_none_niah_agrees_with_the_upstream_oracle(output, lang):
    result = score_example(output, [NONE_WORDS[lang][0]], "none_niah", lang, needles=NEEDLES)
    assert result.passed == oracle_none(output, lang)
    assert result.recall == float(result.passed)


_words = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=10)


@settings(max_examples=300, deadline=None)
@given(words=_words, extra=st.text(max_size=20), data=st.data())
def test_cwe_agrees_with_the_oracle_and_strict_implies_paper(words, extra, data):
    chosen = data.draw(st.lists(st.sampled_from(words), max_size=len(words)))
    output = " ".join(chosen) + extra
    paper = score_example(output, words, "cwe_easy")
    strict = score_example(output, words, "cwe_easy", strict=True)
    assert paper.passed == oracle_cwe(output, words)
    assert strict.recall <= paper.recall
    assert not strict.passed or paper.passed


@settings(max_examples=200, deadline=None)
@given(output=st.text(), lang=LANGS, task=st.sampled_from(TASK_IDS), strict=st.booleans(),
       reason=st.sampled_from([None, "stop", "length"]), policy=st.sampled_from(scoring.TRUNCATION_POLICIES))
def test_arbitrary_text_never_crashes(output, lang, task, strict, reason, policy):
    gold = WORDS if task in CWE_TASKS else ["4817290"]
    result = score_example(output, gold, task, lang, needles=NEEDLES, strict=strict, finish_reason=reason,
                           truncation=policy)
    assert result.category in scoring.CATEGORIES and 0.0 <= result.recall <= 1.0
    assert not result.passed or result.recall == 1.0


@settings(max_examples=100, deadline=None)
@given(blob=st.binary(max_size=200), task=st.sampled_from(TASK_IDS))
def test_arbitrary_bytes_never_crash(blob, task):
    gold = WORDS if task in CWE_TASKS else ["4817290"]
    assert score_example(blob, gold, task, "ja").category in scoring.CATEGORIES


@settings(max_examples=100, deadline=None)
@given(gold=st.permutations(["1111111", "2222222", "3333333", "4817290"]), singles=st.lists(st.integers(0, 9)))
def test_gold_order_and_single_digits_do_not_matter(gold, singles):
    text = " ".join(gold + [str(d) for d in singles])
    assert passed(text, ["4817290", "3333333", "2222222", "1111111"], "mv_niah")


# --------------------------------------------------------------------------- reasoning models and policies


@pytest.mark.parametrize("text, reasoning, answer", [
    ("<think>a 1234567</think>7654321", "a 1234567", "7654321"),
    ("  \n<THINK>x</Think> ok", "x", " ok"),
    ("<think>never closed 7654321", "never closed 7654321", ""),
    ("no block 7654321", None, "no block 7654321"),
    ("answer first <think>late</think>", None, "answer first <think>late</think>"),  # only a leading block
])
def test_split_reasoning(text, reasoning, answer):
    assert scoring.split_reasoning(text) == (reasoning, answer)


def test_a_leading_think_block_is_removed_by_default():
    out = "<think>The value might be 1111111 or 2222222.</think>\n<Answer>7654321</Answer>"
    assert score_example(out, ["7654321"], "s_niah", "en").passed
    assert not score_example(out, ["7654321"], "s_niah", "en", strip_think=False).passed
    # none inside the reasoning does not fail a number task, and is not an answer to none_niah
    thought = "<think>is it none? no: 7654321</think> 7654321"
    assert score_example(thought, ["7654321"], "mk_niah", "en").passed
    assert not score_example("<think>none</think> 7654321", ["none"], "none_niah", "en").passed


def test_an_unclosed_think_block_is_no_answer():
    score = score_example("<think>7654321 is the value", ["7654321"], "s_niah", "en")
    assert (score.passed, score.counted, score.category) == (False, True, "no_answer")
    words = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
    assert not score_example("<think>" + " ".join(words), words, "cwe_easy").passed
    assert score_example("<think>" + " ".join(words), words, "cwe_easy", strip_think=False).passed


def test_answer_tag_scores_only_the_last_answer_block():
    out = "<Answer>1111111</Answer> on reflection <answer> 7654321 </ANSWER>"
    assert score_example(out, ["7654321"], "s_niah", "en", answer_tag=True).passed
    assert not score_example(out, ["7654321"], "s_niah", "en").passed  # both numbers count without it
    assert not score_example("7654321", ["7654321"], "s_niah", "en", answer_tag=True).passed  # no block: nothing
    assert scoring.extract_answer("x<answer>a\nb</answer>", answer_tag=True) == "a\nb"
    assert scoring.extract_answer(None, answer_tag=True) is None


@pytest.mark.parametrize("task, language", [("s_niah", "en"), ("none_niah", "de"), ("cwe_hard", None)])
def test_upstream_missing_policy_drops_null_and_truncated_everywhere(task, language):
    gold = {"s_niah": ["7654321"], "none_niah": ["Keine vorhanden"], "cwe_hard": list("abcdefghij")}[task]
    null = score_example(None, gold, task, language, missing_policy="upstream")
    cut = score_example("a b c", gold, task, language, finish_reason="length", missing_policy="upstream")
    assert (null.counted, null.status) == (False, "no_response")
    assert (cut.counted, cut.status) == (False, "truncated")
    paper_null = score_example(None, gold, task, language)
    assert paper_null.counted == (task == "cwe_hard")  # paper: CWE null counts wrong, NIAH null is dropped
    with pytest.raises(ValueError, match="unknown missing policy"):
        score_example(None, gold, task, language, missing_policy="mine")


@pytest.mark.parametrize("task, rule", [("s_niah", "numbers"), ("mv_niah", "numbers"), ("mv16_niah", "numbers"),
                                        ("mv64e_niah", "numbers"), ("none_niah", "none"), ("cwe_hard", "words"),
                                        ("mv_e_niah", None), ("mv16x_niah", None), ("s_niahx", None)])
def test_each_task_names_its_rule_standard_and_multi_evidence_ids(task, rule):
    if rule is None:
        with pytest.raises(ValueError, match="unknown task"):
            get_task(task)
        return
    assert get_task(task).scoring_rule == rule
    assert scoring.get_rule(rule).null_dropped == (rule in ("numbers", "none"))  # the NIAH rules drop no answer


def test_rules_are_chosen_by_name_and_a_new_rule_is_a_function(monkeypatch):
    with pytest.raises(ValueError, match="unknown scoring rule 'numbrs'; valid: numbers, none, words"):
        scoring.score_example("1234567", ["1234567"], "numbrs", "en")
    with pytest.raises(ValueError, match="unknown instruction language"):
        scoring.score_example("none", ["none"], "none", "xx")  # the NIAH rules need the instruction language

    def exact(text, answers, language, needles, strict):
        hit = text.strip() == answers[0]
        return hit, float(hit), "correct" if hit else "wrong"

    monkeypatch.setitem(scoring.RULES, "exact", scoring.Rule("exact", exact, null_dropped=False, needs_language=False))
    assert scoring.score_example(" yes ", ["yes"], "exact").passed
    assert scoring.score_example(None, ["yes"], "exact").counted  # not dropped: counted wrong, as CWE
    with pytest.raises(ValueError, match="exists already"):
        scoring.register_rule(scoring.Rule("exact", exact, null_dropped=False, needs_language=False))
    monkeypatch.setitem(scoring.RULES, "odd", scoring.Rule("odd", lambda *a: (False, 0.0, "odd"), False, False))
    with pytest.raises(ValueError, match="gave category 'odd'"):
        scoring.score_example("x", ["y"], "odd")


def test_a_multi_evidence_task_scores_like_mv_niah():
    gold = ["1234567", "7654321", "5555555"]
    out = "7654321, 1234567 and 5555555"
    assert score_example(out, gold, "mv3e_niah", "en").passed
    missing = score_example(out.replace("5555555", ""), gold, "mv3_niah", "en")
    assert not missing.passed and missing.recall == pytest.approx(2 / 3) and missing.category == "partial"
    assert not score_example(None, gold, "mv3_niah", "en").counted  # a NIAH task: no response is dropped
