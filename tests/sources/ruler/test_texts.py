"""RULER's needle format, noise lines and QA's document format, read from its scripts (sources/ruler/texts.py):
compared with what a line-by-line reading of the pinned mirror's files finds (the test's oracle, independent of
the parser's syntax-tree walk), and every unexpected shape refused in one line naming the file."""

from __future__ import annotations

import ast
import re

import pytest

from builders.base.errors import SourceError
from builders.sources.ruler.texts import (NIAH_SCRIPT, QA_SCRIPT, VT_SCRIPT, document_format, needle_format,
                                          noise_line, parse_ruler_texts, singular_replacements)
from builders.sources.manifest import SourceFile


def literal_after(text: str, pattern: str) -> str:
    """The Python string literal that ends the one line matching ``pattern`` (a regex up to the literal)."""
    found = re.findall(rf"^[ \t]*{pattern}(\"[^\"\n]*\"|'[^'\n]*')[ \t]*$", text, re.M)
    assert len(found) == 1, (pattern, found)
    return ast.literal_eval(found[0])


def noise_oracle(text: str) -> str:
    """The literal of the ``haystack = "..."`` line right after an unindented ``elif args.type_haystack == 'noise':``."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line == "elif args.type_haystack == 'noise':"]
    assert len(at) == 1
    return literal_after(lines[at[0] + 1], r"haystack = ")


def entry(path: str) -> SourceFile:
    return SourceFile(path, "0" * 64, 1, "ruler_generators", "en", "test")


def test_texts_are_the_mirror_scripts(ruler_mirror):
    niah, vt, qa = ((ruler_mirror / p).read_text(encoding="utf-8") for p in (NIAH_SCRIPT, VT_SCRIPT, QA_SCRIPT))
    texts = parse_ruler_texts([(entry(p), (ruler_mirror / p).read_bytes()) for p in (QA_SCRIPT, NIAH_SCRIPT, VT_SCRIPT)])
    assert texts.needle == literal_after(niah, r"needle = ")
    assert texts.niah_noise == noise_oracle(niah)
    assert texts.vt_noise == noise_oracle(vt)
    prompt = literal_after(qa, r"DOCUMENT_PROMPT = ")
    assert texts.documents.block(7, "DOC") == prompt.format(i=7, document="DOC")
    joiner = re.search(r"context = ('[^']*')\.join\(\[DOCUMENT_PROMPT\.format", qa)
    assert texts.documents.joiner == ast.literal_eval(joiner.group(1))
    assert [f.path for f in texts.files] == [NIAH_SCRIPT, VT_SCRIPT, QA_SCRIPT]
    replaced = re.findall(r"^ +template = template\.replace\(('[^']*'), ('[^']*')\)$", niah, re.M)
    assert texts.singular == tuple((ast.literal_eval(a), ast.literal_eval(b)) for a, b in replaced) and replaced


def test_the_store_reads_them_from_the_pinned_files(ruler_sources, ruler_mirror):
    texts = ruler_sources.texts
    assert texts.needle.format(type_needle_v="numbers", key="k", value="1") in (ruler_mirror / NIAH_SCRIPT).read_text(
        encoding="utf-8").replace("{type_needle_v}", "numbers").replace("{key}", "k").replace("{value}", "1")
    assert {f.role for f in texts.files} == {"ruler_generators"} and all(len(f.sha256) == 64 for f in texts.files)


NIAH = '''import argparse
args = parser.parse_args()
needle = "Key {key} has {value} of {type_needle_v}."
if args.type_haystack == 'essay':
    haystack = ["words"]
elif args.type_haystack == 'noise':
    haystack = "Noise here."
elif args.type_haystack == 'needle':
    haystack = needle
def generate(template, one):
    if one:
        template = template.replace('Some', 'One')
        template = template.replace('are', 'is')
    return template
'''


def test_a_script_of_another_shape_reads_as_such():
    data = NIAH.encode()
    assert needle_format(data, "n.py") == "Key {key} has {value} of {type_needle_v}."
    assert noise_line(data, "n.py") == "Noise here."
    assert singular_replacements(data, "n.py") == (("Some", "One"), ("are", "is"))


@pytest.mark.parametrize("source, reader, message", [
    (NIAH.replace("{type_needle_v}", "{kind}"), needle_format,
     "n.py: `needle` must be one line with the placeholders ['key', 'type_needle_v', 'value']; it has ['key', "
     "'kind', 'value']"),
    (NIAH.replace('needle = "', 'needle = f"'), needle_format, None),
    (NIAH.replace("needle = ", "pin = "), needle_format,
     "n.py: expected one module-level `needle` assigned a string literal, found 0 assignment(s)"),
    (NIAH + 'needle = "again {key} {value} {type_needle_v}"\n', needle_format,
     "n.py: expected one module-level `needle` assigned a string literal, found 2 assignment(s)"),
    (NIAH.replace('"Noise here."', '"Two\\nlines."'), noise_line,
     "n.py: the noise line must be one non-empty line without placeholders; got 'Two\\nlines.'"),
    (NIAH.replace("'noise'", "'static'"), noise_line,
     "n.py: expected one `haystack` for type_haystack 'noise' assigned a string literal, found 0 assignment(s)"),
    (NIAH.replace('"Noise here."', "make_noise()"), noise_line,
     "n.py: expected one `haystack` for type_haystack 'noise' assigned a string literal, found 1 assignment(s) of "
     "another kind"),
    ("needle = (", needle_format, "n.py: not valid Python ("),
    (NIAH.replace("template = template.replace", "template = other.replace"), singular_replacements,
     "n.py: expected one block of `template = template.replace('...', '...')` (the singular when one value is "
     "asked), found 0"),
    (NIAH + "if x:\n    template = template.replace('a', 'b')\n", singular_replacements,
     "n.py: expected one block of `template = template.replace('...', '...')` (the singular when one value is "
     "asked), found 2"),
])
def test_unexpected_shapes_are_one_line(source, reader, message):
    with pytest.raises(SourceError) as caught:
        reader(source.encode(), "n.py")
    text = str(caught.value)
    assert "\n" not in text and text.startswith("n.py: ")
    if message:
        assert text.startswith(message)


QA = '''DOCUMENT_PROMPT = "Document {i}:\\n{document}"
def generate(docs):
    context = '\\n\\n'.join([DOCUMENT_PROMPT.format(i=i+1, document=d) for i, d in enumerate(docs)])
'''


@pytest.mark.parametrize("source, message", [
    (QA.replace("Document {i}", "Document{i}"), "DOCUMENT_PROMPT must read `LABEL {i}TEXT{document}`"),
    (QA.replace(":\\n{document}", "{document}"), "DOCUMENT_PROMPT must read"),
    (QA.replace("{document}\"", "{document}.\""), "DOCUMENT_PROMPT must read"),
    (QA.replace("{i}", "{n}"), "DOCUMENT_PROMPT must read"),
    (QA.replace("'\\n\\n'.join", "sep.join"), "expected one `\"...\".join(...)` of DOCUMENT_PROMPT blocks, found 0"),
])
def test_document_format_of_another_shape_is_refused(source, message):
    assert document_format(QA.encode(), "q.py").block(2, "x") == "Document 2:\nx"
    with pytest.raises(SourceError, match=re.escape(f"q.py: {message}")):
        document_format(source.encode(), "q.py")


def test_a_missing_script_is_named():
    with pytest.raises(SourceError, match=f"RULER's generator scripts: {re.escape(QA_SCRIPT)} not among"):
        parse_ruler_texts([(entry(NIAH_SCRIPT), NIAH.encode()), (entry(VT_SCRIPT), NIAH.encode())])
