"""JSON for the hook processes through the interpreter's C accelerator, ``_json``, alone.

``import json`` imports ``json.decoder``, ``json.scanner`` and ``json.encoder``, and they import
``re`` (with ``enum``, ``functools``, ``collections``) to compile four small regexes: several
milliseconds of every agent tool call, whose hook reads one payload and may print one reply.
``loads`` and ``dumps`` here drive the same C scanner and encoder ``json`` itself uses (so they
parse and print exactly as ``json.loads`` and ``json.dumps`` with indent None do), with the two
things ``json`` does in Python written out: skipping whitespace around the document, and the
errors for an empty or trailing document, raised as ``json.JSONDecodeError`` (``json`` is
imported only then; the scanner raises that class itself for everything else, once
``json.decoder`` is imported: Python 3.11's does not import it). Where ``_json``
is missing (another interpreter), both are ``json``'s own. tests/test_cjson.py checks they agree
with ``json`` on every real payload and on generated values.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - CPython and PyPy ship it
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"
_NAN = float("nan")
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": _NAN}


class _Context:
    """What the C scanner reads from its context: ``json.JSONDecoder()``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = _json.make_scanner(_Context()) if _json is not None else None  # type: ignore[arg-type]


def _skip(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WHITESPACE:
        i += 1
    return i


def _error(message: str, text: str, at: int) -> ValueError:
    from json import JSONDecodeError

    return JSONDecodeError(message, text, at)


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``."""
    if _scan is None or not isinstance(text, str):
        import json  # bytes: json detects their encoding (UTF-8, -16, -32)

        return json.loads(text)
    if text.startswith("\ufeff"):
        raise _error("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        value, end = _scan(text, _skip(text, 0))
    except StopIteration as err:
        raise _error("Expecting value", text, err.value) from None
    except SystemError:
        # Python 3.11's scanner takes its error class from json.decoder only when that module
        # is already imported, and fails without an exception otherwise: let json say it.
        import json

        return json.loads(text)
    end = _skip(text, end)
    if end != len(text):
        raise _error("Extra data", text, end)
    return value


def _default(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(value, ensure_ascii=..., sort_keys=..., separators=..., default=...)``."""
    item, key = separators if separators is not None else (", ", ": ")
    if _json is None:
        import json

        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            sort_keys=sort_keys,
            separators=(item, key),
            default=default,
        )
    string = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return string(value)
    # markers (a fresh dict: it finds cycles), default, encoder, indent, the key and item
    # separators, sort_keys, skipkeys, allow_nan: what json.JSONEncoder.iterencode passes
    encoder = _json.make_encoder(
        {}, default or _default, string, None, key, item, sort_keys, False, True
    )
    return "".join(encoder(value, 0))
