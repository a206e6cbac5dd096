"""``reflectgit.cjson`` reads and writes exactly what ``json`` does: on every real payload and
transcript line, and on generated values and texts (NaN and infinities, lone surrogates, big
integers, duplicate keys, whitespace, broken documents raising the same error)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflectgit import cjson
from tests.conftest import REPO_ROOT

REAL = REPO_ROOT.parent / "shared" / "data" / "real"
OPTIONS = [
    {},
    {"ensure_ascii": False},
    {"sort_keys": True, "separators": (",", ":")},
    {"ensure_ascii": False, "sort_keys": True},
]


def outcome(read: Any, text: Any) -> tuple[str, str]:
    """(repr of the value, "") or (error class, message): NaN, types and key order show."""
    try:
        return repr(read(text)), ""
    except Exception as exc:
        return type(exc).__name__, str(exc)


def documents() -> list[tuple[str, str]]:
    out = []
    for path in sorted(REAL.rglob("*.json*")):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(REAL))
        if path.suffix == ".jsonl":
            out.extend((f"{name}:{n}", line) for n, line in enumerate(text.splitlines(), 1))
        else:
            out.append((name, text))
    return out


def test_every_real_payload_and_transcript_line_reads_and_writes_the_same() -> None:
    docs = documents()
    assert len(docs) > 500, "the real data is missing"
    for name, text in docs:
        ours, theirs = outcome(cjson.loads, text), outcome(json.loads, text)
        assert ours == theirs, name
        if ours[1]:
            continue
        value = json.loads(text)
        for options in OPTIONS:
            assert cjson.dumps(value, **options) == json.dumps(value, **options), (name, options)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**60), max_value=10**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(blacklist_categories=())),  # lone surrogates included
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.text(st.characters(blacklist_categories=()), max_size=5), inner, max_size=5
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(OPTIONS))
def test_generated_values_write_and_read_back_the_same(value: Any, options: dict) -> None:
    text = cjson.dumps(value, **options)
    assert text == json.dumps(value, **options)
    assert outcome(cjson.loads, text) == outcome(json.loads, text)


@settings(max_examples=300, deadline=None)
@given(
    json_values,
    st.text(" \t\n\r", max_size=3),
    st.text(" \t\n\r", max_size=3),
    st.sampled_from(["", "x", ",", "1", "]", "\ufeff", "\x00", " {"]),
)
def test_whitespace_and_broken_documents_read_and_fail_the_same(
    value: Any, before: str, after: str, junk: str
) -> None:
    text = before + json.dumps(value, indent=1 if junk == "x" else None) + after
    for candidate in (text, text + junk, junk + text, text[: len(text) // 2]):
        assert outcome(cjson.loads, candidate) == outcome(json.loads, candidate), candidate


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_any_text_reads_or_fails_the_same(text: str) -> None:
    assert outcome(cjson.loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # the last duplicate wins
        "[NaN, Infinity, -Infinity, 1e400, -0.0]",
        '"\\ud800\\udc00 \\ud800 \\u00e9"',
        "1" * 400,
        "1" * 5000,  # over int's digit limit: ValueError from both
        "[" * 100000 + "]" * 100000,  # RecursionError from both
        "",
        "   ",
        "nul",
        '{"a" 1}',
        "[1,]",
        '"unterminated',
        '"bad \\x escape"',
        '"a\tb"',  # a control character inside a string (strict)
    ],
)
def test_edge_documents_read_or_fail_the_same(text: str) -> None:
    assert outcome(cjson.loads, text) == outcome(json.loads, text)


def test_bytes_and_what_json_cannot_write_behave_as_json() -> None:
    for raw in (b'{"a": 1}', '{"a": "é"}'.encode("utf-16"), b"\xef\xbb\xbf[1]"):
        assert outcome(cjson.loads, raw) == outcome(json.loads, raw)
    for bad in ({"a": {1, 2}}, {(1, 2): 3}, [b"x"]):
        assert outcome(cjson.dumps, bad) == outcome(json.dumps, bad)
    odd = {"when": {1, 2}, "b": b"x", "n": [object]}
    for options in OPTIONS:
        assert cjson.dumps(odd, default=repr, **options) == json.dumps(odd, default=repr, **options)
    assert cjson.dumps(odd["when"], default=str) == json.dumps(odd["when"], default=str)
    cycle: list[Any] = []
    cycle.append(cycle)
    assert outcome(cjson.dumps, cycle) == outcome(json.dumps, cycle)
    assert cjson.dumps([1]) == "[1]"  # a failed encoding leaves nothing behind


def test_it_imports_neither_json_nor_re() -> None:
    """Without ``site`` (an editable install's finder imports ``re`` itself), the package and
    the site-packages on ``PYTHONPATH``."""
    import os
    import subprocess
    import sys

    path = os.pathsep.join([str(REPO_ROOT), *(p for p in sys.path if "-packages" in p)])
    probe = (
        "import sys; from reflectgit import cjson; "
        'cjson.dumps(cjson.loads(\'{"a": [1, 2.5, "\\u00e9", null]}\'), ensure_ascii=False); '
        "print(sorted(m for m in sys.modules if m == 're' or m.startswith('json')))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


ERRORS_PROBE = r"""
import sys
from reflectgit import cjson
for bad in sys.argv[1:]:
    try:
        cjson.loads(bad)
    except ValueError as exc:
        print(type(exc).__module__, type(exc).__name__, exc)
"""


def test_broken_documents_fail_the_same_in_a_process_without_json() -> None:
    """Python 3.11's scanner finds its error class only where json.decoder is imported."""
    import os
    import subprocess
    import sys

    bad = ["{ torn", "[1,]", '"\\x"', "", "1 2", '{"a" 1}', "[" * 100]
    path = os.pathsep.join([str(REPO_ROOT), *(p for p in sys.path if "-packages" in p)])
    out = subprocess.run(
        [sys.executable, "-S", "-c", ERRORS_PROBE, *bad],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=True,
    )
    expected = []
    for text in bad:
        try:
            json.loads(text)
        except ValueError as exc:
            expected.append(f"{type(exc).__module__} {type(exc).__name__} {exc}")
    assert out.stdout.splitlines() == expected
