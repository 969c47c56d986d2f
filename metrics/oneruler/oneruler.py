"""ONERULER metric: the paper's accuracy for the multilingual long-context benchmark (evaluate module).

The scoring rules live in the modules beside this script: a byte-for-byte copy of the oneruler project's
scoring package (builders/scoring/, kept identical by a test), so this folder works on its own as a Space.
oneruler_tasks.py says which rule scores each task id (generated from the project's task families).
"""

import datasets
import evaluate

# One import per module of the scoring package: evaluate.load copies beside this script exactly the modules it
# imports relatively (one level deep), and the copies import each other.
from .answer_text import as_text
from .digit_runs import values_found
from .example_score import MISSING_POLICIES, TRUNCATION_POLICIES, mean_score, score_example, summarize
from .niah_rules import score_numbers
from .none_words import NONE_WORDS
from .oneruler_tasks import rule_of
from .rule_registry import RULES
from .ruler_rules import score_match_all
from .word_rules import score_words

SCORING = (values_found, score_numbers, NONE_WORDS, RULES, score_match_all, score_words)  # imported for the copy (see above)

_CITATION = """\
@article{kim2025oneruler,
  title={One ruler to measure them all: Benchmarking multilingual long-context language models},
  author={Kim, Yekyung and Russell, Jenna and Karpinska, Marzena and Iyyer, Mohit},
  journal={arXiv preprint arXiv:2503.01996},
  year={2025}
}
"""

_DESCRIPTION = """\
ONERULER scores model outputs on the ONERULER benchmark (26 languages, NIAH and CWE tasks, 8K-128K
tokens) exactly as the paper's evaluation script does: NFKC, the instruction language's none words,
7-digit numbers compared as a set, common words as substrings. An opt-in strict mode matches none
words and CWE words as whole tokens. Also returns RULER-style partial-credit recall and error types.
RULER's tasks (ruler_*) are scored by RULER's own metric (string_match_all, string_match_part): each
row's score is its credit, and `score` is their mean, RULER's task score.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str or None): model outputs; None means no response (dropped from the
        accuracy for NIAH tasks, counted wrong for CWE, as in the paper).
    references (list of list of str): each row's `answers` (7-digit values, the none word, or
        the 10 common words).
    tasks (list of str): each row's `task` (s_niah, mk_niah, mv_niah, mq_niah, none_niah,
        s_niah_nonone, cwe_easy, cwe_hard, mv{K}[e]_niah, and RULER's ruler_niah_single_1 ...
        ruler_qa_2, ruler_qa_xquad).
    instruction_languages (list of str or None): each row's `instruction_language` (selects the
        none words; may be None for CWE).
    strict (bool, default False): whole-token matching of none words and CWE words.
    needles (list of list of dict, optional): each row's `needles`; enables the `distractor`
        error category.
    finish_reasons (list of str or None, optional): "length" marks a truncated output.
    truncation (str, default "paper"): truncated outputs are "paper" (treated as no response),
        "wrong" (wrong for every task) or "score" (scored as written).
    missing_policy (str, default "paper"): "paper" drops NIAH outputs that are None and counts CWE
        ones wrong (paper footnote 10); "upstream" drops None and length-truncated outputs for
        every task, as the authors' eval/evaluate.py does.
    strip_think (bool, default True): score the text after a leading <think>...</think> block
        (reasoning models); an unclosed <think> counts as no answer.
    answer_tag (bool, default False): score only the last <Answer>...</Answer> block
        (case-insensitive), nothing when there is none (upstream's DeepSeek-R1 rule).
Returns:
    accuracy (float): passed / counted (NaN when nothing is counted).
    passes (list of int): 0/1 per example, in order (0 for dropped examples).
    recall (float): mean partial-credit recall over counted examples; recalls: per example.
    counted (list of int): 1 if the example is in the accuracy's denominator.
    categories (list of str): correct, none_when_present, distractor, partial, wrong, no_answer.
    num_counted, num_dropped (int); with strict=True also paper_accuracy and disagreements
    (indices where strict and paper pass/fail differ).
    score (float), scores (list of float): only when some task is RULER's (ruler_*, graded): the
        mean score of the counted examples (RULER's task score as a fraction: each RULER row its
        credit, 0-1, any other row 1 or 0) and each example's score (0 for dropped examples).
        `accuracy` stays the share of examples with full credit.
Examples:
    >>> metric = evaluate.load("oneruler")
    >>> metric.compute(predictions=["<answer>1234567</answer>", "none"],
    ...                references=[["1234567"], ["1234567"]],
    ...                tasks=["s_niah", "s_niah"], instruction_languages=["en", "en"])["accuracy"]
    0.5
"""


def _sanitize(prediction):
    # Arrow stores only valid UTF-8: lone surrogates become U+FFFD, which no scoring rule can see.
    text = as_text(prediction)
    if text is None:
        return None
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class OneRuler(evaluate.Metric):
    """The ONERULER paper's accuracy, recall and error categories."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Value("string"),
                    "references": datasets.Sequence(datasets.Value("string")),
                    "tasks": datasets.Value("string"),
                    "instruction_languages": datasets.Value("string"),
                }
            ),
            reference_urls=["https://arxiv.org/abs/2503.01996", "https://github.com/mungg/OneRuler"],
        )

    def _enforce_nested_string_type(self, schema, obj):
        # evaluate rejects None for string features; here None is meaningful (no response, or no
        # instruction language for CWE) and Arrow stores it as null.
        if obj is None:
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch; predictions are coerced to text (see _sanitize)."""
        if predictions is not None:
            predictions = [_sanitize(p) for p in predictions]
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example; the prediction is coerced to text (see _sanitize)."""
        return super().add(prediction=_sanitize(prediction), reference=reference, **kwargs)

    def _compute(self, predictions, references, tasks, instruction_languages, strict=False, needles=None,
                 finish_reasons=None, truncation="paper", missing_policy="paper", strip_think=True,
                 answer_tag=False):
        n = len(predictions)
        for name, values in (("needles", needles), ("finish_reasons", finish_reasons)):
            if values is not None and len(values) != n:
                raise ValueError(f"{name} has {len(values)} entries for {n} predictions")
        if truncation not in TRUNCATION_POLICIES:
            raise ValueError(f"truncation must be one of {TRUNCATION_POLICIES}, got {truncation!r}")
        if missing_policy not in MISSING_POLICIES:
            raise ValueError(f"missing_policy must be one of {MISSING_POLICIES}, got {missing_policy!r}")
        scores, paper = [], []
        for i in range(n):
            try:
                rule = rule_of(tasks[i])
            except ValueError as exc:
                raise ValueError(f"example {i}: {exc}") from None
            args = (predictions[i], references[i], rule, instruction_languages[i])
            kwargs = dict(needles=needles[i] if needles is not None else None,
                          finish_reason=finish_reasons[i] if finish_reasons is not None else None,
                          truncation=truncation, missing_policy=missing_policy, strip_think=strip_think,
                          answer_tag=answer_tag)
            try:
                scores.append(score_example(*args, strict=strict, **kwargs))
                if strict:
                    paper.append(score_example(*args, strict=False, **kwargs))
            except ValueError as exc:
                raise ValueError(f"example {i}: {exc}") from None
        summary = summarize(scores)
        result = {
            "accuracy": float("nan") if summary["accuracy"] is None else summary["accuracy"],
            "passes": [int(s.passed) for s in scores],
            "recall": float("nan") if summary["recall"] is None else summary["recall"],
            "recalls": [s.recall for s in scores],
            "counted": [int(s.counted) for s in scores],
            "categories": [s.category for s in scores],
            "num_counted": summary["counted"],
            "num_dropped": summary["dropped"],
        }
        if any(s.graded for s in scores):  # RULER's tasks: a row scores its credit, a task its mean credit
            score = mean_score(scores)
            result["score"] = float("nan") if score is None else score
            result["scores"] = [s.score for s in scores]
        if strict:
            paper_accuracy = summarize(paper)["accuracy"]
            result["paper_accuracy"] = float("nan") if paper_accuracy is None else paper_accuracy
            result["disagreements"] = [i for i, (s, p) in enumerate(zip(scores, paper)) if s.passed != p.passed]
        return result
