"""Counting by construction (``generate/counting.py``, ``generate/bookcount.py``) against full tokenisations.

Real tokenizers only: cl100k and o200k (tiktoken), Llama 3 and Qwen 2 (``tokenizer.json``). Every
claim of the proof in docs/generation.md is checked on adversarial character pairs, and every
count by construction is compared with tokenising the assembled text whole.
"""

from __future__ import annotations

import itertools
import json

import pytest

from builders.generate.bookcount import BookCounter, ContextLayout
from builders.generate.counting import GPT_PATTERNS, TokenCounter, counting_profile, gpt_cut
from builders.generate.tokenizer import HFTokenizer, TokenizerRegistry
from builders.spec.languages import get_language

ALIASES = ("cl100k", "o200k", "llama3", "qwen")

# Characters on either side of a join: scripts of the benchmark, digits, marks, apostrophes, slashes,
# quotes, every kind of space and newline, CJK punctuation, symbols.
CHARS = ("a", "Z", "é", "ß", "я", "Ж", "中", "の", "カ", "한", "क", "ि", "்", "ا", "\u0301", "3", "٣", "²",
         "'", "’", "/", ".", ",", "!", "?", "-", "“", "”", "«", "(", ")", "<", ">", "=", "。", "，", "、",
         "「", "」", "…", "%", "$", "€", "😀", " ", "  ", "\t", "\n", "\r", "\r\n", "\u3000", "\xa0", "\u200b")
LEFT = ("", "word", "12", "!?", "  ", "\n", "的话")
RIGHT = ("", "s", "t", "ll", "ve", "99", "word", " x", "\n\n", "——", "是")


@pytest.fixture(scope="module", params=ALIASES)
def counter(request, registry) -> TokenCounter:
    return TokenCounter(registry.get(request.param))


def test_the_four_tokenizers_are_inside_the_proof(registry):
    for alias in ALIASES:
        profile = counting_profile(registry.get(alias))
        assert profile.cut is not None, (alias, profile.reason)
    assert counting_profile(registry.get("qwen")).nfc  # Qwen normalises with NFC
    assert registry.get("cl100k").pattern in GPT_PATTERNS and registry.get("o200k").pattern in GPT_PATTERNS


def test_every_claimed_cut_is_a_cut(counter):
    """Wherever is_cut(x, y) holds, count(a + b) == count(a) + count(b) for a = L + x, b = y + R."""
    cases = []
    for x, y in itertools.product(CHARS, CHARS):
        if counter.is_cut(x[-1], y[0]):
            cases += [(left + x, y + right) for left in LEFT for right in RIGHT]
    assert len(cases) > 5_000  # the rules are not vacuous
    texts = [t for a, b in cases for t in (a, b, a + b)]
    counts = counter.count_batch(texts)
    wrong = [(a, b) for (a, b), (ca, cb, cab) in zip(cases, zip(*[iter(counts)] * 3)) if ca + cb != cab]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("pattern", sorted(GPT_PATTERNS))
def test_every_claimed_cut_splits_the_pre_tokenizer_pattern(pattern):
    """The proof's claim itself: at a cut the pattern's pieces of a + b are those of a, then of b."""
    import regex  # the same backtracking semantics as tiktoken's fancy-regex and the HF Split regex

    compiled = regex.compile(pattern)
    checked = 0
    for x, y in itertools.product(CHARS, CHARS):
        if not gpt_cut(x[-1], y[0]):
            continue
        for left, right in itertools.product(LEFT, RIGHT + ("'s", "'T", "/x")):
            a, b = left + x, y + right
            assert compiled.findall(a + b) == compiled.findall(a) + compiled.findall(b), (pattern, a, b)
            checked += 1
    assert checked > 5_000


def test_joins_the_builder_relies_on(counter):
    assert counter.is_cut(".", " ") and counter.is_cut("a", " ") and counter.is_cut("\n", "<")
    assert counter.is_cut("说", "，") and counter.is_cut("5", ".")
    assert not counter.is_cut("。", "他")  # zh/ja sentences: a stop joins the next word
    assert not counter.is_cut(" ", "1") and not counter.is_cut(".", "\n") and not counter.is_cut("a", "b")


def test_pieces_and_tally_equal_a_full_count(counter, sources):
    zh = [s for s in sources.book_text("zh")[:4000].split("。") if s][:30]
    en = sources.book_text("en")[10_000:14_000].split(". ")[:30]
    pieces_texts = [s + "。" for s in zh] + [" " + s + "." for s in en] + ["\n\n<text>\n", "1.", " 2.", "”", "\n"]
    order = sorted(range(len(pieces_texts)), key=lambda i: (i * 7919) % len(pieces_texts))  # shuffled joins
    texts = [pieces_texts[i] for i in order]
    pieces = counter.pieces(texts)
    assert pieces is not None
    assert counter.total(pieces) == counter.count("".join(texts))
    for k in range(1, 8):  # short runs too: windows that span several pieces
        assert counter.total(pieces[:k]) == counter.count("".join(texts[:k]))


@pytest.mark.parametrize("lang", ["en", "zh", "ja", "ta", "ko"])
def test_book_runs_and_prompts_count_exactly(counter, sources, lang):
    from builders.generate.segment import split_sentences

    joiner = get_language(lang).joiner
    sentences = split_sentences(lang, sources.book_text(lang))[:400]
    book = BookCounter(sentences, counter.count_batch([joiner + s for s in sentences]), joiner, counter)
    assert book.exact
    assert book.book_tokens() == counter.count(joiner.join(sentences))
    for b in (0, 1, 2, 37, 399, 400, 401, 1000):  # a haystack's first b sentences (token depths), cycling
        assert book.haystack_tokens(b) == counter.count(joiner.join(sentences[i % len(sentences)] for i in range(b))), b
    head, tail = "Read this.\n\n<text>\n", "\n</text>\n\n<Question> What? </Question>"
    needle_texts = ["The special magic number for “clock” is: 1234567.", "「鍵」の数字は7654321です。", "x"]
    pieces = counter.pieces([head, tail] + [t for n in needle_texts for t in (n, joiner + n)])
    needles = list(zip(pieces[2::2], pieces[3::2]))
    # needles at the start, adjacent, at the end; contexts that cycle past the end of the book
    layouts = [(0, []), (1, [0]), (5, [0, 0, 3]), (37, [12, 12, 37]), (400, [0, 199, 400]), (1000, [399, 401, 999]),
               (2, [1, 2])]
    for k, positions in layouts:
        taken = [sentences[i % len(sentences)] for i in range(k)]
        parts, last = [], 0
        for pos, text in zip(positions, needle_texts):
            parts += taken[last:pos] + [text]
            last = pos
        context = joiner.join(parts + taken[last:])
        got = book.count_prompt(pieces[0], ContextLayout(k, tuple(positions)), pieces[1], needles[:len(positions)])
        assert got == counter.count(head + context + tail), (k, positions)


def test_the_layout_counts_what_insert_needles_builds(counter, sources):
    """The builder and the counter read a ContextLayout alike: every needle position of a short book,
    one needle and two adjacent ones, including before the first and after the last unit."""
    from builders.generate.niah import Needle, insert_needles
    from builders.generate.segment import split_sentences

    sentences = split_sentences("en", sources.book_text("en"))[:12]
    book = BookCounter(sentences, counter.count_batch([" " + s for s in sentences]), " ", counter)
    head, tail = "<text>\n", "\n</text>"
    texts = ["Needle 1234567.", "Needle 7654321."]
    frame = counter.pieces([head, tail])
    needles = list(zip(counter.pieces(texts), counter.pieces([" " + t for t in texts])))
    for k in (0, 1, 12, 25):
        for point in range(k + 1):
            for points in ((point,), (point, point), (0, point)):
                layout = ContextLayout(k, points)
                made = [Needle("key", "0", t) for t in texts[:len(points)]]
                context = insert_needles([sentences[i % 12] for i in range(k)], made, layout, " ")
                got = book.count_prompt(frame[0], layout, frame[1], needles[:len(points)])
                assert got == counter.count(head + context + tail), (k, points)


def test_unanalysed_tokenizers_fall_back_to_full_counts(tmp_path, registry, sources):
    """A tokenizer.json outside the proof (here: a lowercasing normalizer) gets no cuts, and rows stay exact."""
    from builders.generate.rows import RowGenerator
    from builders.spec.configs import parse_config_name

    config = json.loads(json.dumps(registry.get("llama3").config))
    config["normalizer"] = {"type": "Lowercase"}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    tok = HFTokenizer("lower", str(path))
    assert counting_profile(tok).cut is None and "normalizer" in counting_profile(tok).reason
    generator = RowGenerator(sources, TokenizerRegistry({"lower": str(path)}))
    for name in ("en_mk_niah_8k_lower", "en_cwe_easy_8k_lower"):
        row = generator.example(parse_config_name(name, ("lower",)), 3)
        assert row["num_tokens"] == tok.count(row["input"]) <= row["budget"]


def test_full_count_mode_tokenises_whole_prompts(registry, sources):
    counter = TokenCounter(registry.get("cl100k"), full_count=True)
    assert not counter.exact and counter.profile.reason == "full_count"
    assert not counter.is_cut(".", " ")
    sentences = ["第一句。", "第二句话。", "最后一句！"]
    book = BookCounter(sentences, counter.count_batch(sentences), "", counter)
    assert not book.exact
    for b in (0, 1, 3, 7):  # token depths without cuts: the haystack tokenised whole
        assert book.haystack_tokens(b) == counter.count("".join(sentences[i % 3] for i in range(b)))


def test_nfc_facts_the_proof_uses():
    """NFC never turns a non-space into a space, and a canonical composite keeps its base's class."""
    import unicodedata as ud

    def group(c: str) -> str:
        return "space" if c.isspace() else {"L": "L", "M": "M", "N": "N", "P": "PS", "S": "PS"}.get(ud.category(c)[0], "C")

    composites = 0
    for cp in range(0x30000):
        c = chr(cp)
        d = ud.decomposition(c)
        if not d or d.startswith("<"):
            continue
        parts = [chr(int(h, 16)) for h in d.split()]
        assert all(p.isspace() == c.isspace() for p in parts), hex(cp)
        if len(parts) == 2 and ud.normalize("NFC", "".join(parts)) == c:
            assert group(parts[0]) == group(c), hex(cp)
            composites += 1
    assert composites > 900
