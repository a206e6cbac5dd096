"""``reflectgit.jsonio``: reads and writes what ``json`` does, with orjson installed and with it
blocked (every test runs both ways)."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reflectgit.jsonio

OPTIONS = [
    {},
    {"ensure_ascii": False},
    {"sort_keys": True, "separators": (",", ":")},
    {"ensure_ascii": False, "separators": (",", ":")},
    {"ensure_ascii": False, "sort_keys": True},
]
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(params=["orjson", "json"])
def jsonio(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    if request.param == "orjson":
        pytest.importorskip("orjson")
    else:
        monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson raises ImportError
    module = importlib.reload(reflectgit.jsonio)
    if request.param == "orjson":
        module._load_orjson()  # as after ORJSON_AFTER bytes read
    assert (module.orjson is None) == (request.param == "json")
    yield module
    monkeypatch.undo()
    importlib.reload(reflectgit.jsonio)


def outcome(read: Any, text: Any) -> tuple[str, str]:
    """(repr of the value, "") or (error class, message): NaN, types and key order show."""
    try:
        return repr(read(text)), ""
    except Exception as exc:
        return type(exc).__name__, str(exc)


def values(big: int) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-big, max_value=big)
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


@SETTINGS
@given(values(10**60), st.sampled_from(OPTIONS))
def test_it_writes_what_json_writes(jsonio: ModuleType, value: Any, options: dict) -> None:
    assert jsonio.dumps(value, **options) == json.dumps(value, **options)


@SETTINGS
@given(values(2**63 - 1), st.sampled_from(OPTIONS))
def test_it_reads_what_json_reads(jsonio: ModuleType, value: Any, options: dict) -> None:
    text = json.dumps(value, **options)
    assert outcome(jsonio.loads, text) == outcome(json.loads, text)
    assert outcome(jsonio.loads, text.encode("utf-8", "surrogatepass")) == outcome(
        json.loads, text.encode("utf-8", "surrogatepass")
    )


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # the last duplicate wins
        "[NaN, Infinity, -Infinity, 1e400, -0.0]",
        '"\\ud800\\udc00 \\ud800 \\u00e9"',
        "\ufeff[1]",
        "",
        "   ",
        '{"a" 1}',
        "[1,]",
        '"unterminated',
        '"a\tb"',  # a control character inside a string (strict)
    ],
)
def test_edge_documents_read_or_fail_as_json(jsonio: ModuleType, text: str) -> None:
    assert outcome(jsonio.loads, text) == outcome(json.loads, text)
    raw = text.encode("utf-8", "surrogatepass")
    assert outcome(jsonio.loads, raw) == outcome(json.loads, raw)


def test_what_json_leaves_to_default_or_refuses(jsonio: ModuleType) -> None:
    assert jsonio.loads('{"a": "é"}'.encode("utf-16")) == {"a": "é"}
    odd = {"when": {1, 2}, "b": b"x", "n": [object], 1: (1, 2.5)}
    for options in OPTIONS[:2]:
        assert jsonio.dumps(odd, default=repr, **options) == json.dumps(
            odd, default=repr, **options
        )
    for bad in ({"a": {1, 2}}, {(1, 2): 3}, [b"x"]):
        assert outcome(jsonio.dumps, bad) == outcome(json.dumps, bad)
    with pytest.raises(json.JSONDecodeError):
        jsonio.loads("{ torn")


def test_an_integer_past_64_bits_reads_as_a_float_with_orjson(jsonio: ModuleType) -> None:
    """The one documented difference."""
    read = jsonio.loads("1" * 25)
    assert read == (int("1" * 25) if jsonio.orjson is None else float("1" * 25))


def test_orjson_is_loaded_only_once_a_process_has_read_much_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("orjson")
    module = importlib.reload(reflectgit.jsonio)
    try:
        monkeypatch.setattr(module, "ORJSON_AFTER", 1000)
        for _ in range(10):
            assert module.loads('{"a": [1, 2, 3]}') == {"a": [1, 2, 3]}
        assert module.orjson is None  # 160 bytes: json alone
        big = json.dumps({"k": "x" * 1000})
        assert module.loads(big) == {"k": "x" * 1000}
        assert module.orjson is not None
        assert module.loads(b'{"b": 2}') == {"b": 2}
    finally:
        importlib.reload(reflectgit.jsonio)
