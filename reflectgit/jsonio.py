"""JSON in and out: through orjson where it is installed, the standard ``json`` otherwise.

``loads`` reads with orjson and hands whatever orjson refuses (NaN and infinities, lone
surrogates, another encoding than UTF-8, a broken document) to ``json``, so it reads what
``json.loads`` reads and raises ``json.JSONDecodeError`` with ``json``'s own message. One
difference: orjson reads an integer beyond 64 bits as a float.

``dumps`` writes exactly what ``json.dumps`` writes with the same options. orjson writes one
format, compact (``separators=(",", ":")``) and without ``ensure_ascii``'s escapes, and floats
its own way; so it writes only compact documents of strings, integers, booleans, None, lists and
dicts with string keys whose text is ASCII or not asked to be, and ``json`` writes the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

try:
    import orjson
except ImportError:  # an optional speed-up: json does everything without it
    orjson = None  # type: ignore[assignment]

COMPACT = (",", ":")
_PLAIN = (str, int, bool, type(None))


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``."""
    if orjson is not None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # json reads what orjson refuses, or says why it cannot
    return json.loads(text)


def _orjson_can(value: Any) -> bool:
    """Whether orjson writes ``value`` as ``json`` does: no floats (formatted otherwise), no
    keys but strings, no types ``json`` leaves to ``default``."""
    todo = [value]
    while todo:
        item = todo.pop()
        if type(item) is dict:
            for key, inner in item.items():
                if type(key) is not str:
                    return False
                todo.append(inner)
        elif type(item) is list or type(item) is tuple:
            todo.extend(item)
        elif type(item) not in _PLAIN:
            return False
    return True


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """``json.dumps(value, ensure_ascii=..., sort_keys=..., separators=..., default=...)``."""
    if orjson is not None and separators == COMPACT and _orjson_can(value):
        try:
            raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
        except TypeError:  # an integer beyond 64 bits, a lone surrogate, nesting too deep
            pass
        else:
            # ensure_ascii escapes every byte outside " " to "~"; orjson escapes below " " alone
            if not ensure_ascii or (raw.isascii() and b"\x7f" not in raw):
                return raw.decode("utf-8")
    return json.dumps(
        value,
        ensure_ascii=ensure_ascii,
        sort_keys=sort_keys,
        separators=separators,
        default=default,
    )
