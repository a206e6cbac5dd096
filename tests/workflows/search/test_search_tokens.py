"""workflows/search/tokens.py: each rule is the ``re`` pattern it replaces, over every code point
and over random text (fixed seeds: a failure names its input and comes back)."""

from __future__ import annotations

import random
import re
import string
import sys

import pytest

from reflectgit.notes.frontmatter import _CLOSE
from reflectgit.workflows.search.tokens import (
    alnum_runs,
    camel_runs,
    closing_fence,
    dashed,
    has_alnum,
)

TOKEN = re.compile(r"[^\W_]+", re.UNICODE)  # query.py's _TOKEN, as it was
CAMEL_RE = re.compile(
    r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+"
)  # query.py's camel-case pattern, as it was
WORD = re.compile(r"[^\W_]", re.UNICODE)  # index.py's _WORD

EVERY = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)


def test_the_character_classes_agree_on_every_code_point() -> None:
    alnum = {m.start() for m in WORD.finditer(EVERY)}
    assert alnum == {i for i, c in enumerate(EVERY) if c.isalnum()}
    digits = {m.start() for m in re.finditer(r"\d", EVERY)}
    assert digits == {i for i, c in enumerate(EVERY) if c.isdecimal()}
    assert len(alnum) > 100_000 and len(digits) > 500  # the test saw both classes at all


# Letters and digits of several scripts and kinds, the underscore, separators and marks.
ALPHABET = (
    "aZzA09_- .\t\n/:*\"'"
    "éÉßİıǅ"  # accented, sharp s, dotted/dotless i, a title-case letter
    "٣७௫"  # Arabic-Indic, Devanagari, Tamil digits (decimal)
    "²½Ⅻ"  # superscript two, a fraction, a Roman numeral: numeric, not decimal
    "東京の"  # CJK and kana
    "\u0301\u200d\U0001f600"  # a combining accent, a zero-width joiner, an emoji
    "ＡＢａ"  # full-width Latin
)


def _texts(seed: int, count: int, longest: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(ALPHABET, k=rng.randint(0, longest))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_alnum_runs_are_the_token_pattern(seed: int) -> None:
    for text in [*_texts(seed, 20_000, 24), EVERY[:5000], EVERY[-5000:], ""]:
        assert alnum_runs(text) == TOKEN.findall(text), repr(text)
        assert has_alnum(text) == (WORD.search(text) is not None), repr(text)


CAMEL_ALPHABET = "AaBbZz09٣²é_-HTTPServerXMLHttpRequest"


@pytest.mark.parametrize("seed", range(4))
def test_camel_runs_are_the_camel_pattern(seed: int) -> None:
    rng = random.Random(seed)
    texts = ["".join(rng.choices(CAMEL_ALPHABET, k=rng.randint(0, 16))) for _ in range(20_000)]
    fixed = ["ConnectionError", "HTTPServer2", "getHTTPResponseCode", "ABc", "aB", "A", "ÉcoleA1"]
    for text in [*fixed, *texts, *(TOKEN.findall(t) for t in _texts(seed, 2000, 24))]:
        for token in [text] if isinstance(text, str) else text:
            assert camel_runs(token) == CAMEL_RE.findall(token), repr(token)


@pytest.mark.parametrize("seed", range(4))
def test_closing_fence_is_the_frontmatter_close_pattern(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["---", "-", "--", "\n", "\r", "\r\n", " ", "\t", "x", "title: a", "----"]
    texts = ["".join(rng.choices(pieces, k=rng.randint(0, 12))) for _ in range(40_000)]
    fixed = ["", "---", "\n---", "\n--- \t\r", "\n---\r\r", "\n----\n---\n", "x\n---x\n--- \n"]
    for text in [*fixed, *texts]:
        found = _CLOSE.search(text)
        assert closing_fence(text) == (found.end() if found else None), repr(text)


NAME_CHARS = string.ascii_letters + string.digits + "._-"


@pytest.mark.parametrize("seed", range(2))
def test_dashed_is_the_name_substitution(seed: int) -> None:
    for text in [*_texts(seed, 20_000, 20), "my kb (é)", "", "---", "a..b"]:
        expected = re.sub(r"[^A-Za-z0-9._-]+", "-", text)
        assert dashed(text, NAME_CHARS) == expected, repr(text)
