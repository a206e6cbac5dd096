"""JSON in and out: through orjson where it is installed and pays, the standard ``json`` otherwise.

Loading orjson's compiled module costs a process more than ``json`` takes to read a few hundred
KiB (bench/startup.py: about 10 ms, against 1.5 ms for ``json``), and most of our processes (a hook,
``add``, ``search``) read a few small documents. So orjson is loaded once a process has read
``ORJSON_AFTER`` bytes of JSON (a drain reading transcripts, an import, the MCP server), and
writes only once it is loaded.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

COMPACT = (",", ":")
_PLAIN = (str, int, bool, type(None))
ORJSON_AFTER = 1 << 20  # bytes of JSON a process reads before orjson is worth loading

orjson: Any = None  # the module, once loaded
_read = 0  # bytes read so far without it
_tried = False  # whether loading it was tried (it is an optional speed-up)


def _load_orjson() -> Any:
    global orjson, _tried
    _tried = True
    try:
        import orjson as module
    except ImportError:  # json does everything without it
        return None
    orjson = module
    return module


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``."""
    global _read
    fast = orjson
    if fast is None and not _tried:
        _read += len(text)
        if _read >= ORJSON_AFTER:
            fast = _load_orjson()
    if fast is not None:
        try:
            return fast.loads(text)
        except fast.JSONDecodeError:
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
