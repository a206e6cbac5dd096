"""PyYAML's loader and dumper as notes use them. Pure: text in, values out, and back.

Importing PyYAML costs a process 12 to 18 ms (its pure-Python reader, loader and dumper load
even when only the C parser runs), so nothing on a path that may not need it imports this
module at its top: ``note.load_yaml``, ``note.dump_yaml`` (every note, sidecar and pointer
written), ``schema``'s full and fast paths and ``inplace``'s splicing import it where they parse
or emit.

- ``StrictLoader``: PyYAML's C safe loader (pure fallback) with duplicate keys and odd tags
  refused and a leaner resolver.
- ``NoteDumper``: the deterministic emitter (ISO timestamps, no aliases, literal blocks) with
  the one style notes are written in (``STYLE``); ``dump`` writes a value with it.
- ``NodeRepresenter``: ``NoteDumper``'s representers without a stream (``inplace`` emits one
  field at a time).
- ``PlainLoader`` and ``SCALARS``: ``schema.fast_frontmatter``'s loader and scalar table.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import yaml

from reflectgit.notes.dates import format_timestamp

if TYPE_CHECKING:
    from typing import Any, ClassVar

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


# PyYAML's own resolver (yaml.Resolver adds only its table to it), for StrictLoader.resolve.
_pyyaml_resolve: Callable[..., str] = yaml.resolver.BaseResolver.resolve


class _StrictLoaderMixin:
    """Duplicate keys are errors; only JSON-shaped values (plus dates) are constructed."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """PyYAML's mapping, built in one pass: a plain string key or value (nearly all of a
        note's) is taken from its node as PyYAML's own ``str`` constructor would, without the
        generic dispatch; a merge key (``<<``) goes the general way."""
        pairs = node.value
        if not isinstance(node, yaml.MappingNode) or any(k.tag == _MERGE for k, _ in pairs):
            self._check_keys(node)
            return super().construct_mapping(node, deep=deep)  # type: ignore[misc]
        construct = self.construct_object  # type: ignore[attr-defined]
        mapping: dict[Any, Any] = {}
        seen: dict[Any, yaml.Node] = {}
        for key_node, value_node in pairs:
            key = self._key(node, key_node, seen)
            if value_node.tag == _STR and type(value_node) is yaml.ScalarNode:
                mapping[key] = value_node.value
            else:
                mapping[key] = construct(value_node, deep=deep)
        return mapping

    # A plain scalar's implicit resolvers by its first character (PyYAML's table, wildcards
    # appended), filled in below once StrictLoader exists.
    _implicit_by_first: ClassVar[dict[str, tuple[tuple[str, re.Pattern[str]], ...]]] = {}
    _wildcards: ClassVar[tuple[tuple[str, re.Pattern[str]], ...]] = ()

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        """PyYAML's ``Resolver.resolve`` (the composer asks it the tag of every node), without
        the two lists it builds per plain scalar: the same regular expressions in the same
        order, so the same tag; anything but a plain scalar goes PyYAML's own way."""
        if kind is yaml.ScalarNode and implicit[0] and not self.yaml_path_resolvers:  # type: ignore[attr-defined]
            for tag, regexp in self._implicit_by_first.get(value[:1], self._wildcards):
                if regexp.match(value):
                    return tag
            return _STR
        return _pyyaml_resolve(self, kind, value, implicit)

    def _check_keys(self, node: yaml.Node) -> None:
        """Refuse duplicate and unhashable keys before PyYAML's own mapping (merges) runs."""
        seen: dict[Any, yaml.Node] = {}
        for key_node, _value_node in node.value:
            if key_node.tag != _MERGE:
                self._key(node, key_node, seen)

    def _key(self, node: yaml.Node, key_node: yaml.Node, seen: dict[Any, yaml.Node]) -> Any:
        """One key of a mapping, refused when unhashable or seen before; noted in ``seen``."""
        if key_node.tag == _STR and type(key_node) is yaml.ScalarNode:
            key = key_node.value
        else:
            key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    "found an unhashable key",
                    key_node.start_mark,
                ) from None
        if key in seen:
            first_line = seen[key].start_mark.line + 1 + getattr(self, "line_offset", 0)
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first defined on line {first_line})",
                key_node.start_mark,
            )
        seen[key] = key_node
        return key

    def _refuse(self, node: yaml.Node) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, f"the tag {node.tag} is not allowed in notes", node.start_mark
        )


try:
    BaseLoader: type = yaml.CSafeLoader
    BaseDumper: type = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    BaseLoader = yaml.SafeLoader
    BaseDumper = yaml.SafeDumper


class StrictLoader(_StrictLoaderMixin, BaseLoader):
    """PyYAML's C safe loader (pure fallback) with duplicate keys and odd tags refused."""


for _tag in ("binary", "set", "omap", "pairs"):
    StrictLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _StrictLoaderMixin._refuse)


def _index_resolvers(loader: type[Any]) -> None:
    table = loader.yaml_implicit_resolvers
    wildcards = tuple(table.get(None, ()))
    loader._wildcards = wildcards
    loader._implicit_by_first = {
        first: tuple(resolvers) + wildcards
        for first, resolvers in table.items()
        if first is not None
    }


_index_resolvers(StrictLoader)


# The one style notes, sidecars and pointers are written in: block style, keys in the order
# given, unicode kept, two-space indentation (lists at their key's), ``\n`` line breaks, and
# never folded (a line may be as long as its value).
STYLE: dict[str, Any] = {
    "default_flow_style": False,
    "sort_keys": False,
    "allow_unicode": True,
    "indent": 2,
    "width": 100_000,
    "line_break": "\n",
}


class NoteDumper(BaseDumper):
    """Deterministic emitter: ISO timestamps, no aliases, literal blocks, always in ``STYLE``
    (whatever ``yaml.dump`` or ``yaml.serialize`` would default to)."""

    def __init__(self, stream: Any, **options: Any) -> None:
        super().__init__(stream, **{**options, **STYLE})

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_datetime(dumper: yaml.SafeDumper, value: dt.datetime) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", format_timestamp(value))


def literal_safe(value: str) -> bool:
    """Is the multi-line ``value`` written as a literal block (``|``)? When the emitter keeps it
    exact: no blank at either end, no leading newline, no carriage return, every character
    printable (Python's sense) but the newlines, none of BOM, LS, PS."""
    if value != value.strip(" \t") or value.startswith("\n") or "\r" in value:
        return False
    return all(ch == "\n" or (ch.isprintable() and ch not in "\ufeff\u2028\u2029") for ch in value)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # Multi-line strings read best as literal blocks, when the emitter can keep them exact.
    style = "|" if "\n" in value and literal_safe(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


NoteDumper.add_representer(dt.datetime, _represent_datetime)
NoteDumper.add_representer(str, _represent_str)


def dump(data: Any) -> str:
    """The YAML text of ``data`` as notes are written (``NoteDumper``, in ``STYLE``)."""
    text: str = yaml.dump(data, Dumper=NoteDumper)
    return text


class NodeRepresenter(yaml.representer.SafeRepresenter):
    """``NoteDumper``'s representers (timestamps, literal blocks), without a stream."""

    yaml_representers = NoteDumper.yaml_representers

    def ignore_aliases(self, data: Any) -> bool:
        return True


# --------------------------------------------------------------------------- the fast path

TAG = "tag:yaml.org,2002:"
_SAFE = yaml.constructor.SafeConstructor()
SCALARS: dict[str, Callable[[Any], Any]] = {
    TAG + "int": _SAFE.construct_yaml_int,
    TAG + "float": _SAFE.construct_yaml_float,
    TAG + "bool": _SAFE.construct_yaml_bool,
    TAG + "null": _SAFE.construct_yaml_null,
    TAG + "timestamp": lambda node: _SAFE.construct_yaml_timestamp(node).isoformat(),
}


_IMPLICIT: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    first: list(resolvers) + list(StrictLoader.yaml_implicit_resolvers.get(None, []))
    for first, resolvers in StrictLoader.yaml_implicit_resolvers.items()
    if first is not None
}


class PlainLoader(StrictLoader):
    """The strict loader with a lean resolver: the C composer calls it for every scalar.

    Same answers as PyYAML's resolver for a loader without path resolvers, minus its
    bookkeeping (the fast path's agreement test holds it to that).
    """

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, pattern in _IMPLICIT.get(value[:1], ()):
                    if pattern.match(value):
                        return tag
            return TAG + "str"
        return TAG + ("seq" if kind is yaml.SequenceNode else "map")
