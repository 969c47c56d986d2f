"""RULER's QA rows checked against RULER's rules (qa.py) from the text alone: the documents parsed back (headers,
blank lines, which documents, how many, repeated past the source), question i of the file, the gold documents'
records, budgets counted whole, XQuAD's pool shortfall, determinism, token control, refusals (a missing source, a
question past the source's, a length too short).

SQuAD and HotpotQA are not on this machine: the tests write files in each exact format (SQuAD v2.0 made of XQuAD's
English articles with two impossible questions added, HotpotQA made of XQuAD's paragraphs as titled sentence
lists) into a temporary mirror pinned by a test manifest.
"""

from __future__ import annotations

import copy
import json
import os
import re

import pytest

from builders.base.errors import OneRulerError
from builders.base.files import sha256_bytes
from builders.generate.budget import BudgetError
from builders.generate.rows import RowGenerator
from builders.sources.manifest import SourceFile
from builders.sources.mirror import MissingSource
from builders.sources.ruler.pins import ruler_manifest
from builders.sources.ruler.store import RulerSources
from builders.spec.configs import parse_config_name

HEADER = re.compile(r"Document (\d+):\n")


def squad_v2(xquad: dict, articles: slice) -> dict:
    """XQuAD's articles as SQuAD v2.0 (every question answerable), with an impossible question in the first two."""
    data = copy.deepcopy(xquad["data"][articles])
    for article in data:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["is_impossible"] = False
    for article in data[:2]:
        article["paragraphs"][0]["qas"].insert(0, {"question": "Unanswerable?", "id": "x", "answers": [],
                                                   "is_impossible": True})
    return {"version": "v2.0", "data": data}


def hotpot(xquad: dict) -> list[dict]:
    """HotpotQA's dev distractor shape: per question, 10 context documents [title, [sentences]] (its own paragraph
    among nine of other articles), made of XQuAD's paragraphs."""
    paragraphs = [(a["title"], p) for a in xquad["data"] for p in a["paragraphs"]]
    items = []
    for i, (title, paragraph) in enumerate(paragraphs[:40]):
        context = [[t, re.split(r"(?<=\. )", p["context"])] for t, p in paragraphs[i + 7:i + 79:8][:9]]
        context.insert(i % 10, [title, re.split(r"(?<=\. )", paragraph["context"])])
        qa = paragraph["qas"][0]
        items.append({"_id": str(i), "question": qa["question"], "answer": qa["answers"][0]["text"], "type": "bridge",
                      "level": "easy", "supporting_facts": [[title, 0]], "context": context})
    return items


@pytest.fixture(scope="module")
def qa_generator(sources, mirrors, xquad_mirror, tmp_path_factory):
    """A generator whose RULER inputs hold a test SQuAD (XQuAD's first 30 articles), a test HotpotQA and, as the
    pinned SQuAD of a second generator, a small SQuAD of two articles (10 paragraphs) a 4096 prompt outgrows."""
    xquad = json.loads((xquad_mirror / "xquad.en.json").read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("qa-mirror")

    def generator(squad: dict) -> RowGenerator:
        files = {"dataset/dev-v2.0.json": (squad, "squad"), "hotpot_dev_distractor_v1.json": (hotpot(xquad), "hotpotqa")}
        entries = [e for e in ruler_manifest() if e.role not in ("squad", "hotpotqa")]
        root = folder / str(len(squad["data"]))
        for relative, (doc, role) in files.items():
            data = json.dumps(doc, ensure_ascii=False).encode("utf-8")
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_bytes(data)
            entries.append(SourceFile(relative, sha256_bytes(data), len(data), role, "en", "test",
                                      urls=(f"https://example.invalid/{relative}",)))
        mine = copy.copy(sources)
        mine.ruler = RulerSources(mirror=os.pathsep.join([str(root), mirrors]), cache_dir=root / "cache", entries=entries)
        return RowGenerator(mine)

    return generator(squad_v2(xquad, slice(0, 30))), generator(squad_v2(xquad, slice(0, 2))), xquad


def documents_of(row: dict) -> list[str]:
    """The documents of a row's context in order, checking RULER's headers ``Document {i}:`` and blank lines."""
    start, end = row["context_span"]
    context = row["input"][start:end]
    headers = list(HEADER.finditer(context))
    assert headers and headers[0].start() == 0 and [int(h.group(1)) for h in headers] == list(range(1, len(headers) + 1))
    bodies = [context[h.end():(headers[i + 1].start() if i + 1 < len(headers) else len(context))]
              for i, h in enumerate(headers)]
    assert all(body.endswith("\n\n") for body in bodies[:-1])
    return [body.removesuffix("\n\n") if i + 1 < len(bodies) else body for i, body in enumerate(bodies)]


def answerable(squad: dict) -> list[tuple[str, list[str], str, list[str]]]:
    """(question, answers, its paragraph, the article's other paragraphs) of every answerable question, file order."""
    out = []
    for article in squad["data"]:
        texts = [p["context"] for p in article["paragraphs"]]
        for p in article["paragraphs"]:
            out += [(qa["question"], [a["text"] for a in qa["answers"]], p["context"],
                     [t for t in texts if t != p["context"]]) for qa in p["qas"] if not qa["is_impossible"]]
    return out


def check_budget(row: dict, tokenizer, documents: list[str]) -> None:
    assert tokenizer.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]
    widest = max(tokenizer.count(f"\n\nDocument {len(documents) + 1}:\n{d}") for d in documents)
    assert row["budget"] - row["num_tokens"] < widest + 2  # one more document would not fit


@pytest.mark.parametrize("length", [4096, 16384])
def test_squad_rows_follow_rulers_rules(qa_generator, cl100k, ruler_sources, length):
    generator, _, xquad = qa_generator
    questions = answerable(squad_v2(xquad, slice(0, 30)))
    all_documents = {p["context"] for a in xquad["data"][:30] for p in a["paragraphs"]}
    template = ruler_sources.tasks.templates["qa"]
    for index in (0, 5):
        row = generator.example(parse_config_name(f"en_ruler_qa_1_{length}"), index)
        query, answers, gold, more = questions[index]  # RULER: QAS[index]
        documents = documents_of(row)
        assert row["queries"] == [query] and row["answers"] == answers and row["input"].endswith(f"Question: {query}")
        assert row["input"].startswith(template.template.split("{context}")[0]) and row["answer_prefix"] == " Answer:"
        assert documents.count(gold) == 1 and len(set(documents)) == len(documents) == row["num_units"]
        if len(documents) <= 1 + len(more):  # the gold paragraph and a sample of its article's others
            assert set(documents) <= {gold, *more}
        else:  # the whole article, then others
            assert set(more) < set(documents) <= all_documents
        position = documents.index(gold)
        (needle,) = row["needles"]
        assert needle["value"] == f"Document {position + 1}:"
        assert needle["key"] == f"Document {position + 1}" and needle["depth"] == int(100 * position / len(documents) + .5)
        before = row["input"][row["context_span"][0]:row["input"].index(f"Document {position + 1}:\n")]
        context = row["input"][slice(*row["context_span"])]
        assert needle["token_depth"] == pytest.approx(100 * cl100k.count(before) / cl100k.count(context), abs=0.05)
        check_budget(row, cl100k, documents)


def test_rulers_fixed_shuffle_puts_the_gold_document_at_one_place(qa_generator):
    generator = qa_generator[0]
    rows = [generator.example(parse_config_name("en_ruler_qa_1_8192"), i) for i in range(8)]
    places = {}
    for row in rows:  # rows holding as many documents have their gold one at the same number (RULER's shuffle)
        places.setdefault(row["num_units"], set()).add(row["needles"][0]["key"])
    assert all(len(keys) == 1 for keys in places.values()) and any(
        sum(r["num_units"] == n for r in rows) > 1 for n in places)


def test_past_the_source_documents_repeat_as_rulers(qa_generator, cl100k):
    small = qa_generator[1]  # two articles: 10 paragraphs, fewer tokens than a 4096 prompt holds
    squad = squad_v2(qa_generator[2], slice(0, 2))
    pool = sorted({p["context"] for a in squad["data"] for p in a["paragraphs"]})
    row = small.example(parse_config_name("en_ruler_qa_1_4096"), 3)
    documents = documents_of(row)
    repeated = (pool * (len(documents) // len(pool) + 1))[:len(documents)]  # RULER: (DOCS * repeats)[:num_docs]
    assert len(documents) > len(pool) and sorted(documents) == sorted(repeated)
    assert not row["qa_pool_exhausted"] and row["qa_pool_size"] == len(pool)
    gold = answerable(squad)[3][2]
    assert len(row["needles"]) == documents.count(gold) == repeated.count(gold) > 1  # the gold paragraph repeated
    check_budget(row, cl100k, documents)


def test_hotpotqa_rows_hold_the_ten_context_documents(qa_generator, cl100k):
    generator, _, xquad = qa_generator
    items = hotpot(xquad)
    row = generator.example(parse_config_name("en_ruler_qa_2_8192"), 4)
    documents = documents_of(row)
    gold = [f"{title}\n{''.join(sentences)}" for title, sentences in items[4]["context"]]
    assert row["queries"] == [items[4]["question"]] and row["answers"] == [items[4]["answer"]]
    assert set(gold) <= set(documents) and len(row["needles"]) == 10
    assert sorted(int(n["key"].split()[1]) for n in row["needles"]) == sorted(
        documents.index(g) + 1 for g in gold)
    check_budget(row, cl100k, documents)


def test_xquad_rows_are_the_context_languages_and_stop_at_its_pool(generator, ruler_sources, xquad_mirror, cl100k):
    de = json.loads((xquad_mirror / "xquad.de.json").read_text(encoding="utf-8"))
    row = generator.example(parse_config_name("de-en_ruler_qa_xquad_8192"), 2)
    question = [qa for a in de["data"] for p in a["paragraphs"] for qa in p["qas"]][2]
    assert row["input"].endswith(f"Question: {question['question']}") and row["input"].startswith("Answer the question")
    assert row["answers"] == [a["text"] for a in question["answers"]] and not row["qa_pool_exhausted"]
    check_budget(row, cl100k, documents_of(row))
    rows = [generator.example(parse_config_name("en_ruler_qa_xquad_65536"), i) for i in (0, 7)]
    for row in rows:  # 240 paragraphs hold ~40k tokens: every one once, the row short of its budget and saying so
        documents = documents_of(row)
        assert sorted(documents) == sorted(ruler_sources.xquad("en").documents) and row["qa_pool_exhausted"]
        assert cl100k.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] < row["budget"] - 20_000
    assert rows[0]["context_span"] == rows[1]["context_span"]  # the same documents in RULER's one shuffle


def test_a_native_config_takes_the_checked_translation(generator, ruler_sources, tmp_path, monkeypatch):
    from translation_fixtures import pseudo_document, write_document  # artificial: every word a [[de]] marker

    monkeypatch.setenv("ONERULER_TRANSLATIONS", str(tmp_path))
    write_document(tmp_path, pseudo_document(ruler_sources.tasks, "de", ["qa"]))
    native = generator.example(parse_config_name("de_ruler_qa_xquad_8192"), 2)
    crossed = generator.example(parse_config_name("de-en_ruler_qa_xquad_8192"), 2)
    assert native["input"].startswith("[[de]] ") and native["answer_prefix"].strip().startswith("[[de]]")
    assert "Answer the question" not in native["input"] and crossed["input"].startswith("Answer the question")
    assert native["answers"] == crossed["answers"]
    assert native["input"][slice(*native["context_span"])].startswith("Document 1:")


def test_rows_are_a_function_of_their_index(sources, registry):
    spec = parse_config_name("zh-en_ruler_qa_xquad_16384")
    forward = [RowGenerator(sources, registry).example(spec, i) for i in (0, 1)]
    backward = RowGenerator(sources, registry)
    assert [backward.example(spec, i) for i in (1, 0)][::-1] == forward


def test_token_control_counts_in_its_tokenizer(generator, registry):
    row = generator.example(parse_config_name("ru-en_ruler_qa_xquad_8192_llama3", ("llama3",)), 1)
    assert registry.get("llama3").count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]


def test_refusals_are_one_line(generator, qa_generator):
    with pytest.raises(MissingSource) as caught:  # no SQuAD on this machine: the shared sources lack it
        generator.example(parse_config_name("en_ruler_qa_1_4096"), 0)
    message = str(caught.value)
    assert message.startswith("config en_ruler_qa_1_4096: needs SQuAD v2.0 dev (RULER's qa_1): dataset/dev-v2.0.json")
    assert "\n" not in message and "save https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json" in message
    with pytest.raises(OneRulerError, match=r"^config 'en_ruler_qa_2_4096': row 40 asks question 40 of hotpotqa "
                                            r"\(en\), which has 40; build at most 40 samples$"):
        qa_generator[0].example(parse_config_name("en_ruler_qa_2_4096"), 40)
    with pytest.raises(BudgetError, match=r"^config 'en_ruler_qa_2_1k': 1,000 tokens cannot hold this task by "
                                          r"RULER's rules: with its smallest haystack \(10 documents\) the prompt takes "
                                          r"[\d,]+ tokens and the answer 32; the shortest length is [\d,]+$"):
        qa_generator[0].example(parse_config_name("en_ruler_qa_2_1000"), 0)
