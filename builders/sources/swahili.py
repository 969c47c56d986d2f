"""The Swahili book: a text extraction of a PDF (page furniture, letter-spaced emphasis, glossary).

Upstream's ``sw`` file keeps the PDF's pages: CRLF line ends, form feeds, a running header and a
page number on every page, a glossary ("KIELELEZO CHA MSAMIATI", ``word: definition`` lines that
read like key/value needles) and library back matter. Emphasis is letter-spaced (``m w a n z o``),
with nothing marking where one spaced word ends and the next begins (``m a r a k w a m a r a`` is
*mara kwa mara*). A run of two or more single letters is joined; a run that spans several words is
split where ``SPACED_PHRASES`` says. That table was proposed by a unigram segmentation over the
book's own vocabulary (words outside the spaced runs) and then checked by hand, run by run; every
entry occurs in the book (tested).
"""

from __future__ import annotations

import re

from ..base.errors import SourceError
from .cleaner import TextCleaner

RUNNING_HEADER = "Maisha Yangu na Baada ya Miaka Hamsini"
BACK_MATTER_ANCHOR = "\nKumbukumbu\n"
GLOSSARY_HEADING = re.compile(r"^[ \t]*KIELELEZO[ \t]+CHA[ \t]+MSAMIATI", re.M)
# Two or more single letters separated by spaces, with a spaced stop after them (``m w e m a .``).
LETTER_SPACED = re.compile(r"(?<!\S)((?:[^\W\d_][ \t]+)+[^\W\d_])(?:[ \t]+([.,;:!?]))?(?!\S)")

# Letter-spaced runs that span several words, as the words they are (see the module docstring).
SPACED_PHRASES: tuple[str, ...] = (
    "akosapo atakayo hupokea", "alikuwa ameanza", "alikuwa bado hajatenda", "alikuwa mtambo wa kimo",
    "ambayo haitoi faraja", "ambayo huwezekana", "Amri Abedi", "au mtu wake", "au upande wa utetezi shairi",
    "baadaye kidogo", "chafu na mbaya", "cha madaha", "gharama yangu nikarudishiwa", "habari ambayo baadaye",
    "habari zao mimi", "hapana hata moja", "Hapana jambo", "Harvey ambaye alikuwa Bwana", "hasara hata kidogo",
    "hata kuikamilisha kama ilivyotakiwa", "hayajulikani kabisa", "huko Mpwapwa", "huo mno", "Huyu alikuwa",
    "Ilikuwa kweli", "Ilipasa umri wake utumiwe vema kabla", "ilivyo desturi katika", "iliyoniajabisha sana",
    "Ingawa watu husimamisha", "Jumla yake", "kama dhihaka ambayo", "kama lilitendwa", "kama mtu",
    "kama nilivyohofu tauni", "karaha alinilazimisha kushuka", "karibu katika", "Katika baadhi", "katika dunia",
    "Katika maisha baadhi husumbuka", "katika maisha maana", "katika mazunguko", "katika uchungu na jitimai",
    "kazi yangu moja iliyokuwa Ulaya", "kilichokuwa kikavu", "kubwa kuwa sikumsikitisha hata mtu mmoja",
    "kunipa stashahada", "kunipeleka mahali", "kuonekana thamani", "kusamehe haraka", "kutoka Korogwe",
    "Kutoka Korogwe tulikwenda Morogoro", "kuwa haukutosha", "kuwa nilikuwa", "kuwaza kuwa",
    "kuzidi kukaa Mpwapwa", "kwa dhoruba kama hana chombo", "kwa haraka", "kwa malipo", "Kwa maneno",
    "kwa maskini", "kwamba hasara", "kwamba maandao kama hayo yalipasa", "Kwa mshangao", "kwa mwenye kuamuliwa",
    "kwa namna", "kwa nyenzo", "kwanza haikupata kupigwa chapa", "kwanza katika", "kwa sababu",
    "kwa wanyama katika pori", "kwa watu", "Mabwana Adam", "Madarasa Makuu", "madua mabaya",
    "Maendeleo yangu yalihesabiwa", "mahamisho ambayo sikuweza kuyaepa pasipo", "majadiliano haya",
    "makabila yaliyotengana", "mama wakambo", "Mambo mengine kadha wa kadha yangu", "mapendeleo yote",
    "Mara kwa mara", "mara kwa mara", "masomo yake wala aishi maisha", "mazuio ambayo", "mchezo wa", "mema ambayo",
    "mikono yao kuwa", "Mimi nilikuwa", "mkubwa kwa mdogo", "Mkuu wa kwanza katika Tanganyika alikuwa",
    "mlango kikakubali", "mno kuliko kwa mtoto ambaye bahati mbaya", "moyo mkuu", "Moyo wako", "moyo wangu",
    "mpaka nilitumbukwa", "mshauri mwema", "Msuso huu ulikamata watu wa biashara kati", "Mtu alishindwa kufahamu",
    "mtu huyo huchukuliwa katika", "Mtu huyu", "mtu mmoja", "Mtu mwongo", "muda wa", "Mudir wa",
    "Mudir wa Forodha", "mwanamke ikawatumia", "mwandishi ukawa", "mwanzo wa",
    "mwenyewe nikaheshimika kwa kuwa mwungwana", "mwenyewe nilipokuwa nimeidunisha", "mwisho katika maisha yangu",
    "na katika", "na kumpenda kuliko majohari", "Na mwanamume", "na nane", "na ndoto", "Natumai kuwa hapana",
    "ndiyo nyenzo", "Nia yangu ilikuwa", "nikapata zawadi", "Nilihofu jambo", "Nilikwenda nayo pamoja kama",
    "Nilipewa ruhusa nikapumzike", "Nilipokataa kutii", "niliposa mchumba", "nyimbo zilizokuwa zikiimbwa na",
    "pahali katika dunia", "pamoja ambayo", "raia wa Kijerumani", "sana akanitendea", "Sikurudi kazini",
    "taabani katika", "thamani ndogo", "thamani wala heshima", "tnwingine katika idara", "tokeo kubwa",
    "totoro kwa mwandishi", "tupu kaburini", "udhuru ulipatikana", "ukaliza machozi wanaume", "ukombozi wangu",
    "ulipotokea mara", "Umri wa", "upande wa", "uungwana wa", "viongozi na wafuasi", "waandishi wa",
    "wafahamu omwasho", "waivu wangu katika", "wajibu kwa", "wakati huo", "wakati wa",
    "wale walikuwa wastadi katika", "walikuwa tayari kunipa sahihi", "waliungana katika umoja", "wa Mudir",
    "wapiga chapa katika", "wasemavyo washairi", "watoto wake", "watoto wangu", "watoto watatu wanawake waliokuwa",
    "Watu hao", "watu kama watatu hata kumi", "watu kuwa", "Watu waliokuwa", "watu waliokuwa hawana himaya",
    "watu wema wameonywa", "wazazi wake", "wote walikuwa", "wowote ambao", "yalikuwa kwa mwamuzi",
    "yalikuwa yamelazimu kuandaliwa", "yangu ambaye alikuwa", "yao kwa muda", "zote niliiona barua moja",)
_PHRASES = {p.replace(" ", ""): p for p in SPACED_PHRASES}


def clean_swahili(book: TextCleaner) -> None:
    """Apply the sw fixes to ``book`` in place (each counted)."""
    book.text = book.text.replace("\r\n", "\n").replace("\r", "\n")
    book.sub("sw_form_feeds", r"\f", "\n", "replaced PDF form feeds by line breaks")
    end = book.text.find(BACK_MATTER_ANCHOR)
    if end < 0:
        raise SourceError("sw book: back-matter anchor 'Kumbukumbu' not found; the pinned file changed?")
    book.cut("sw_back_matter", end, len(book.text),
             "cut the library catalogue entry, back-cover blurb, ISBN and publisher address at the end")
    glossary = GLOSSARY_HEADING.search(book.text)
    if glossary is None:
        raise SourceError("sw book: glossary heading 'KIELELEZO CHA MSAMIATI' not found; the pinned file changed?")
    book.cut("sw_glossary", glossary.start(), len(book.text),
             "cut the glossary 'KIELELEZO CHA MSAMIATI' (word: definition lines) before the back matter")
    book.sub("sw_page_headers", rf"^[ \t]*{RUNNING_HEADER}[ \t]*$", "", "removed repeated running page headers", re.M)
    book.sub("sw_page_numbers", r"^[ \t]*\d{1,3}[ \t]*$", "", "removed page-number lines", re.M)
    join_letter_spacing(book)


def join_letter_spacing(book: TextCleaner) -> None:
    """Join letter-spaced runs (``m w a n z o`` → ``mwanzo``, ``N a`` → ``Na``); split known phrases."""
    counts = {"word": [0, 0], "phrase": [0, 0]}  # runs, characters removed

    def repl(m: re.Match) -> str:
        letters = re.sub(r"\s+", "", m.group(1))
        kind = "phrase" if letters in _PHRASES else "word"
        out = _PHRASES.get(letters, letters) + (m.group(2) or "")
        counts[kind][0] += 1
        counts[kind][1] += len(m.group(0)) - len(out)
        return out

    book.text = LETTER_SPACED.sub(repl, book.text)
    book.record("sw_letter_spacing", *counts["word"],
                "joined letter-spaced words ('m w a n z o' → 'mwanzo', 'N a' → 'Na'; runs of 2+ single letters)")
    book.record("sw_letter_spacing_phrases", *counts["phrase"],
                "split letter-spaced runs that span several words by a hand-checked table "
                "('m a r a k w a m a r a' → 'mara kwa mara')")
