"""Regenerate raw/manifest.json and translations/manifest.json from a mirror of the pinned upstream.

Maintainer tool (not used at run time): ``python scripts/make_manifests.py ../shared/oneruler-upstream``.
It records path, sha256, size and licence of each file, and the paper's Table 4 facts for books.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from builders.sources.manifest import UPSTREAM_COMMIT, UPSTREAM_REPO, WONDERWORDS_VERSION  # noqa: E402
from builders.spec.languages import LANGUAGES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM_LICENCE = "MIT (github.com/mungg/OneRuler LICENSE)"


def _entry(mirror: Path, rel: str, **extra) -> dict:
    data = (mirror / rel).read_bytes()
    return {"path": rel, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data), **extra}


def main(mirror: Path) -> None:
    books, dictionaries = [], []
    for code, lang in sorted(LANGUAGES.items()):
        files = sorted((mirror / "OneRuler/data/books" / code).glob("*.txt"))
        assert len(files) == 1, (code, files)
        rel = files[0].relative_to(mirror).as_posix()
        b = lang.book
        books.append(_entry(mirror, rel, kind="book", language=code, title=b.title, author=b.author,
                            year=b.year, paper_o200k_tokens=b.paper_o200k_tokens,
                            licence="public domain in its source country (paper §2); redistributed upstream under MIT"))
        if lang.dictionary:
            rel = f"OneRuler/data/vocab/dictionaries/{lang.dictionary}/{lang.dictionary}.csv"
            dictionaries.append(_entry(mirror, rel, kind="dictionary", language=code, licence=UPSTREAM_LICENCE))
    wordlists = []
    assets = importlib.resources.files("wonderwords") / "assets"
    for name in ("nounlist.txt", "adjectivelist.txt", "verblist.txt"):
        data = (assets / name).read_bytes()
        wordlists.append({"package": f"wonderwords=={WONDERWORDS_VERSION}", "path": f"wonderwords/assets/{name}",
                          "sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "kind": "wordlist",
                          "language": "en", "licence": "MIT (wonderwords)"})
    common = {"upstream_repo": UPSTREAM_REPO, "upstream_commit": UPSTREAM_COMMIT}
    raw = {**common, "description": "Books (NIAH haystacks) and CWE word lists.",
           "files": books + dictionaries, "packaged_files": wordlists}
    prompts = []
    for code in sorted(LANGUAGES):
        for name, kind in (("niah.txt", "niah_prompt"), ("cwe.txt", "cwe_prompt")):
            prompts.append(_entry(mirror, f"OneRuler/data/prompt/{code}/{name}", kind=kind, language=code,
                                  licence=UPSTREAM_LICENCE))
    nouns = _entry(mirror, "OneRuler/data/vocab/100_noun_list_translated.tsv", kind="noun_table",
                   language="*", licence=UPSTREAM_LICENCE)
    tr = {**common, "description": "Native-speaker translations: instruction templates and the 100-noun table.",
          "files": prompts + [nouns]}
    for path, obj in ((ROOT / "raw/manifest.json", raw), (ROOT / "translations/manifest.json", tr)):
        path.write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(path, len(obj["files"]))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared/oneruler-upstream"))
