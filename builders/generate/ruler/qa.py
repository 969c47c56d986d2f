"""RULER's question answering (``scripts/data/synthetic/qa.py`` of NVIDIA/RULER), and its rule over XQuAD.

A row of ``ruler_qa_1`` (SQuAD v2.0 dev), ``ruler_qa_2`` (HotpotQA dev distractor) or ``ruler_qa_xquad`` (XQuAD
in the context language, RULER's English instructions), its dataset read from ``synthetic.yaml`` and its
template, answer prefix and ``tokens_to_generate`` from ``constants.py``:

- row i asks question i of the source as RULER parses it (``sources/ruler/qa.py``; RULER: ``index +
  pre_samples``), its gold documents (SQuAD, XQuAD: its paragraph; HotpotQA: the question's 10 context documents)
  first;
- for n documents fewer than the source holds: the gold documents, then, while n leaves room for fewer than the
  article's other paragraphs (SQuAD, XQuAD), ``random.sample`` of those; else all of them in article order and
  ``random.sample`` of the other documents; n at least the source's size: RULER's repetition, every document in
  sorted order, repeated and cut to n (SQuAD, HotpotQA; XQuAD stops at its pool, below);
- the documents in RULER's fixed-seed shuffle (``random.Random(seed).shuffle``: one permutation per n, the same for
  every row), each in qa.py's ``DOCUMENT_PROMPT`` and joined by its joiner (both read from that file:
  ``sources/ruler/texts.py``; ``Document {i}:\\n{document}`` and a blank line at the pinned commit).

XQuAD's pool (240 paragraphs a language) holds far fewer tokens than SQuAD's: a length past it gets every
paragraph once (RULER's rule at n = the pool: no document repeated) and falls short of its budget, recorded in
the row (``qa_pool_exhausted``) and the card and warned about at build, as CWE's word-pool shortfall is. RULER's
repetition would fill the length with copies of the same 240 paragraphs, the gold one among them up to
length / pool times: another task. ``needles`` record where the gold documents landed: their number in the
prompt (``key``), their header there (``value``: e.g. ``Document 3:``, what ``show`` highlights), depth in % of
the documents before them and of the context's tokens. n is the most documents whose prompt fits, one more
measured and over.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...base.errors import OneRulerError
from ...sources.ruler.qa import QaDataset, QaQuestion
from ...sources.ruler.texts import DocumentFormat
from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..material import RowMaterial
from .common import FixedOrder, NumberCosts, in_language, random_order, ruler_template, source_for
from .fit import fit_tight
from .frame import RulerFrame, ruler_frame

QA_FAMILY = "qa"  # RULER's family of qa_1 and qa_2, whose template ruler_qa_xquad takes
DATASETS = {"squad": "SQuAD v2.0 dev (RULER's qa_1)", "hotpotqa": "HotpotQA dev distractor (RULER's qa_2)"}


def qa_dataset(spec: ConfigSpec, task: RulerTask, material: RowMaterial) -> QaDataset:
    """The source a task asks: RULER's setting's dataset, or XQuAD in the config's context language."""
    ruler = material.ruler
    if task.ruler_name is None:
        return source_for(spec, f"XQuAD ({spec.context_language})", lambda: ruler.xquad(spec.context_language))
    name = ruler.tasks.setting(task.ruler_name).args["dataset"]
    return source_for(spec, DATASETS[name], lambda: getattr(ruler, name))


@dataclass(frozen=True)
class DocumentDraw:
    """One row's documents before the shuffle, for any n: RULER's ``all_docs`` as indices into the source."""

    gold: tuple[int, ...]
    more: tuple[int, ...]  # the article's other paragraphs, in article order
    more_order: np.ndarray  # a random order of ``more`` (random.sample of them)
    others: np.ndarray  # the other documents in a random order (random.sample of them)
    pool: int  # documents in the source

    def slots(self, n: int) -> np.ndarray:
        """RULER's ``all_docs`` for n documents (n at least the gold ones)."""
        g, m = len(self.gold), len(self.more)
        if n >= self.pool:  # RULER: (DOCS * repeats)[:num_docs]
            return np.arange(n) % self.pool
        if n - g > m:
            return np.concatenate([self.gold, self.more, self.others[: n - g - m]]).astype(np.int64)
        return np.concatenate([self.gold, np.asarray(self.more, dtype=np.int64)[self.more_order[: n - g]]]).astype(
            np.int64)


def draw_documents(dataset: QaDataset, question: QaQuestion, parts: tuple) -> DocumentDraw:
    """The random parts of a row's documents (``parts``: what they depend on)."""
    taken = set(question.context) | set(question.more_context)
    others = np.asarray([i for i in range(len(dataset.documents)) if i not in taken], dtype=np.int64)
    return DocumentDraw(question.context, question.more_context,
                        random_order(len(question.more_context), "ruler-qa-more", *parts),
                        others[random_order(len(others), "ruler-qa-others", *parts)], len(dataset.documents))


class DocumentCosts:
    """The tokens of each document's piece ``{after_number}{document}{joiner}{label}`` (``:\\n…\\n\\nDocument``),
    counted on first use (one per source, format and tokenizer)."""

    def __init__(self, dataset: QaDataset, form: DocumentFormat, material: RowMaterial):
        self.documents, self.form, self.tokenizer = dataset.documents, form, material.tokenizer
        self.costs = np.full(len(dataset.documents), -1, dtype=np.int64)

    def of(self, indices: np.ndarray) -> np.ndarray:
        """The costs of these documents."""
        missing = np.unique(indices[self.costs[indices] < 0])
        if len(missing):
            form = self.form
            texts = [form.after_number + self.documents[i] + form.joiner + form.label for i in missing.tolist()]
            self.costs[missing] = self.tokenizer.count_batch(texts)
        return self.costs[indices]


class DocumentsPrompt:
    """One row's prompt for any n documents: ``head + "Document 1:\\n…" + tail``, its exact tokens and text.

    Counted as the head, the label (``Document``), each number `` {i}``, each document's piece
    ``{after_number}{document}{joiner}{label}`` but the last's, and the last document's ``{after_number}{document}``
    with the closing: exact where the tokenizer provably cuts at each of those joins (after the head, before a
    space, after a digit); else tokenised whole."""

    def __init__(self, dataset: QaDataset, draw: DocumentDraw, order: FixedOrder, frame: RulerFrame,
                 material: RowMaterial):
        self.dataset, self.draw, self.order, self.frame = dataset, draw, order, frame
        self.form = form = material.ruler.texts.documents
        tokenizer = material.tokenizer
        self.counter = counter = material.prepared.counter(tokenizer)
        self.costs = material.prepared.shared(("ruler-qa-costs", dataset.name, dataset.language, dataset.files, form),
                                              tokenizer, lambda: DocumentCosts(dataset, form, material))
        self.numbers = material.prepared.shared("ruler-document-numbers", tokenizer,
                                                lambda: NumberCosts(tokenizer, ""))
        self.exact = counter.exact and bool(frame.head) and counter.is_cut(frame.head[-1], form.label[0]) and (
            counter.is_cut(form.label[-1], " ") and all(counter.is_cut(d, form.after_number[0]) for d in "0123456789"))
        self.fixed = counter.count(frame.head) + counter.count(form.label) + counter.count(frame.closing)

    def estimate(self, n: int) -> int:
        """Tokens of the prompt of n documents, the last document's join with the closing estimated."""
        return self.fixed + self.numbers.prefix(n)[n] + int(self.costs.of(self.draw.slots(n)).sum())

    def measure(self, n: int) -> tuple[int, None]:
        """Exact tokens of the prompt of n documents."""
        if not self.exact:
            return self.counter.count(self.frame.head + self.context(n) + self.frame.closing), None
        last = int(self.draw.slots(n)[self.order.last_slot(n)])
        joined = self.counter.count(self.form.after_number + self.dataset.documents[last] + self.frame.closing)
        return self.estimate(n) - int(self.costs.of(np.asarray([last]))[0]) - self.counter.count(
            self.frame.closing) + joined, None

    def listed(self, n: int) -> np.ndarray:
        """The documents of the prompt in listed order (indices into the source)."""
        return self.draw.slots(n)[self.order.order(n)]

    def blocks(self, n: int) -> list[str]:
        """RULER's documents in listed order, each ``Document {i}:\n{document}``."""
        documents = self.dataset.documents
        return [self.form.block(i, documents[d]) for i, d in enumerate(self.listed(n).tolist(), 1)]

    def context(self, n: int) -> str:
        """The documents joined by RULER's joiner (a blank line)."""
        return self.form.joiner.join(self.blocks(n))

    def tokens_before(self, n: int) -> tuple[np.ndarray, int]:
        """(tokens of the context before each document's block, tokens of the whole context) for n documents."""
        listed = self.listed(n)
        if not self.exact:
            blocks = self.blocks(n)
            starts = np.cumsum([0] + [len(b) + len(self.form.joiner) for b in blocks[:-1]]).tolist()
            context = self.form.joiner.join(blocks)
            return np.asarray(self.counter.count_batch([context[:s] for s in starts])), self.counter.count(context)
        # block j's number and its piece (`:\n{document}\n\nDocument`: the next block's label included)
        steps = np.diff(self.numbers.prefix(n)[: n + 1]) + self.costs.of(listed)
        before = np.concatenate([[0], np.cumsum(steps)[:-1]])
        last = self.counter.count(self.form.after_number + self.dataset.documents[int(listed[-1])])
        last_piece = int(steps[-1] - self.costs.of(listed[-1:])[0])
        return before, self.counter.count(self.form.label) + int(before[-1]) + last_piece + last


def gold_records(prompt: DocumentsPrompt, n: int) -> list[dict]:
    """Where each gold document landed: its number (``key``), its header in the context (``value``, what ``show``
    highlights), its depth in % of the documents before it (``actual_depth``; ``depth`` rounded) and of the
    context's tokens before it."""
    gold = set(prompt.draw.gold)
    listed = prompt.listed(n).tolist()
    before, total = prompt.tokens_before(n)
    form = prompt.form
    return [{"key": f"{form.label} {p + 1}", "value": form.block(p + 1, "").rstrip(), "depth": int(100 * p / n + 0.5),
             "actual_depth": 100 * p / n, "token_depth": 100 * int(before[p]) / max(total, 1)}
            for p, d in enumerate(listed) if d in gold]


def ruler_qa_fields(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one RULER QA row (those of the RULER QA family)."""
    dataset = qa_dataset(spec, task, material)
    if index >= len(dataset.questions):
        raise OneRulerError(f"config {spec.name!r}: row {index} asks question {index} of {dataset.name} "
                            f"({dataset.language}), which has {len(dataset.questions)}; build at most "
                            f"{len(dataset.questions)} samples")
    question = dataset.questions[index]
    template = in_language(ruler_template(material.ruler.tasks, task, QA_FAMILY), material.ruler.tasks,
                           spec.instruction_language)
    frame = ruler_frame(template, {"query": question.query})
    draw = draw_documents(dataset, question, (seed, task.name, spec.context_language, spec.length, index))
    order = FixedOrder("ruler-qa-documents", seed, task.name, spec.length)  # RULER's shuffle: one per length
    prompt = DocumentsPrompt(dataset, draw, order, frame, material)
    budget = spec.length - task.reserve
    repeats = task.ruler_name is not None  # RULER's repetition past the source's size; XQuAD stops at its pool
    k_max = max(len(question.context), budget // 4 + 1 if repeats else len(dataset.documents))
    fit = fit_tight(spec, task.reserve, prompt.estimate, prompt.measure, len(question.context), k_max, "document",
                    limit=None if repeats else len(dataset.documents))
    context = prompt.context(fit.units)
    return {
        "input": frame.head + context + frame.tail,
        "answers": list(question.outputs),
        "num_tokens": fit.tokens,
        "needles": gold_records(prompt, fit.units),
        "queries": [question.query],
        "context_span": [len(frame.head), len(frame.head) + len(context)],
        "num_units": fit.units,
        "budget": budget,
        "reserve": task.reserve,
        "answer_prefix": frame.answer_prefix,
        "qa_pool_size": len(dataset.documents),
        "qa_pool_exhausted": not repeats and fit.units == len(dataset.documents),
    }
