"""RULER's QA inputs read into RULER's structures: SQuAD v2.0 dev, HotpotQA dev distractor, XQuAD.

Exactly as ``qa.py``'s ``read_squad`` / ``read_hotpotqa`` build them:

- documents: the sorted set of every document's text (SQuAD, XQuAD: each paragraph's ``context``;
  HotpotQA: each context entry as ``f"{title}\\n{''.join(sentences)}"``), a question's documents
  being indices into it;
- questions, in file order: ``query``, ``outputs`` (SQuAD: every answer's text; HotpotQA: the one
  answer), ``context`` (the gold documents' indices) and, for SQuAD, ``more_context`` (the indices of
  the other paragraphs of the same article, in paragraph order, duplicates kept; RULER pads a prompt
  with them before drawing other documents). SQuAD v2.0's ``is_impossible`` questions are skipped.

XQuAD is in SQuAD v1.1's format (no ``is_impossible``; every question answerable) and is read with
the same rule, one language at a time. A file of another shape is refused with one line naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...base.errors import SourceError
from ..manifest import SourceFile
from ..parse import decode_utf8
from .pins import Fetched


@dataclass(frozen=True)
class QaQuestion:
    """One question as RULER keeps it: the query, the reference answers, the gold documents' indices and
    (SQuAD, XQuAD) the indices of the other documents of its article (``()`` for HotpotQA, as RULER's ``.get``)."""

    query: str
    outputs: tuple[str, ...]
    context: tuple[int, ...]
    more_context: tuple[int, ...] = ()


@dataclass(frozen=True)
class QaDataset:
    """A QA source in RULER's structures: ``documents`` (sorted, distinct), ``questions`` (file order), the name
    (``squad``, ``hotpotqa``, ``xquad``), the language of its text and the pinned file it was read from."""

    name: str
    language: str
    documents: tuple[str, ...]
    questions: tuple[QaQuestion, ...]
    files: tuple[SourceFile, ...]


def _load_json(data: bytes, where: str) -> object:
    try:
        return json.loads(decode_utf8(data, where))
    except json.JSONDecodeError as exc:
        raise SourceError(f"{where}: not valid JSON ({exc})") from None


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise SourceError(f"{where}: {what}")


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _squad_articles(doc: object, where: str) -> list:
    _need(isinstance(doc, dict) and isinstance(doc.get("data"), list), where,
          'expected SQuAD\'s format: {"data": [{"paragraphs": [{"context": ..., "qas": [...]}]}]}')
    for article in doc["data"]:
        _need(isinstance(article, dict) and isinstance(article.get("paragraphs"), list), where,
              "every article needs a list of paragraphs")
        for p in article["paragraphs"]:
            _need(isinstance(p, dict) and isinstance(p.get("context"), str) and isinstance(p.get("qas"), list),
                  where, "every paragraph needs a context (a string) and qas (a list)")
    return doc["data"]


def _answerable(qa: object, where: str, v2: bool) -> bool:
    _need(isinstance(qa, dict) and isinstance(qa.get("question"), str) and isinstance(qa.get("answers"), list)
          and all(isinstance(a, dict) and isinstance(a.get("text"), str) for a in qa["answers"]),
          where, "every question needs a question (a string) and answers (a list of {text: ...})")
    if not v2:
        _need("is_impossible" not in qa, where, "is_impossible in a SQuAD v1.1 file (XQuAD has none)")
        return True
    _need(isinstance(qa.get("is_impossible"), bool), where, "every SQuAD v2.0 question needs is_impossible")
    return not qa["is_impossible"]


def parse_squad(file: Fetched, name: str = "squad", language: str = "en", v2: bool = True) -> QaDataset:
    """``read_squad``: SQuAD v2.0 (``v2``, impossible questions skipped) or v1.1 (XQuAD) into RULER's structures."""
    entry, data = file
    articles = _squad_articles(_load_json(data, entry.path), entry.path)
    documents = tuple(sorted({p["context"] for article in articles for p in article["paragraphs"]}))
    index = {text: i for i, text in enumerate(documents)}
    questions = []
    for article in articles:
        article_docs = [index[p["context"]] for p in article["paragraphs"]]
        for p in article["paragraphs"]:
            own = index[p["context"]]
            for qa in p["qas"]:
                if _answerable(qa, entry.path, v2):
                    questions.append(QaQuestion(qa["question"], tuple(a["text"] for a in qa["answers"]), (own,),
                                                tuple(i for i in article_docs if i != own)))
    return QaDataset(name, language, documents, tuple(questions), (entry,))


def _hotpot_items(doc: object, where: str) -> list:
    _need(isinstance(doc, list), where, 'expected HotpotQA\'s format: [{"question", "answer", "context": [[title, '
                                        "[sentence, ...]], ...]}, ...]")
    for item in doc:
        _need(isinstance(item, dict) and isinstance(item.get("question"), str) and isinstance(item.get("answer"), str)
              and isinstance(item.get("context"), list), where, "every item needs question, answer and context")
        for pair in item["context"]:
            _need(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and _strings(pair[1]),
                  where, "every context entry must be [title, [sentence, ...]]")
    return doc


def parse_hotpotqa(file: Fetched) -> QaDataset:
    """``read_hotpotqa``: HotpotQA's dev distractor file into RULER's structures."""
    entry, data = file
    items = _hotpot_items(_load_json(data, entry.path), entry.path)
    documents = tuple(sorted({f"{title}\n{''.join(sentences)}" for item in items
                              for title, sentences in item["context"]}))
    index = {text: i for i, text in enumerate(documents)}
    questions = tuple(QaQuestion(item["question"], (item["answer"],),
                                 tuple(index[f"{t}\n{''.join(s)}"] for t, s in item["context"])) for item in items)
    return QaDataset("hotpotqa", "en", documents, questions, (entry,))


def parse_xquad(file: Fetched) -> QaDataset:
    """One XQuAD language (SQuAD v1.1 format) with ``read_squad``'s rule; the language is the entry's."""
    return parse_squad(file, name="xquad", language=file[0].language, v2=False)
