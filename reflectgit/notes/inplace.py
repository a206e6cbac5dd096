"""Edits that keep the file: changed fields written back into the note's own bytes. Pure.

A person's note is theirs: key order, quoting, comments, blank lines, CRLF line endings and a
byte-order mark are choices we keep. ``rewrite_note`` takes the bytes of a note and the
frontmatter (and body) an edit wants, and changes only the lines of the fields whose values
changed: a changed field's lines are replaced by freshly emitted YAML (indented where the field
was, in the quoting or flow style the old value had, its trailing ``# comment`` kept); a
changed mapping (``provenance``) is edited key by key, and so is a list of mappings item by
item (sidecar relationships); a new field is inserted after the field the reflect template
puts before it (else at the end); a removed field's lines go. Every value is emitted by the
YAML emitter (``yamlcodec.NoteDumper``), never by string formatting.

Located by PyYAML's composer (the C parser, the same one that reads every note): each node
knows its start and end. The result is parsed again and must give exactly the wanted
frontmatter and body; anything this cannot do in place (a flow-style frontmatter, an empty
one, odd layouts) falls back to the canonical rendering, so an edit is never wrong, only
sometimes not minimal.

(A full round-trip re-dump, as ruamel.yaml does, was measured first: with no edit at all it
changed 12 of the 36 notes of the shared corpus, `null` became empty and sequence indents
moved. Splicing changes nothing it was not asked to.)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reflectgit.errors import NoteError
from reflectgit.notes.note import (
    _CLOSE,
    _FENCE,
    NOTE_KEY_ORDER,
    Note,
    Sidecar,
    decode_text,
    load_yaml,
    parse_note,
    parse_sidecar,
    render_note,
    render_sidecar,
)

if TYPE_CHECKING:
    from typing import Any

    import yaml

BOM = "\ufeff"


class _CannotSplice(Exception):
    """The edit cannot be made in place; the caller renders canonically."""


@dataclass
class _Op:
    start: int  # first line replaced (0-based)
    end: int  # one past the last line replaced
    lines: list[str]


# --------------------------------------------------------------------------- entry points


def rewrite_note(data: bytes, note: Note) -> bytes:
    """``note`` (an edit of the note stored as ``data``) as bytes that change only what changed."""
    import yaml  # the splice composes the old text with PyYAML

    try:
        return _rewrite_note(data, note)
    except (_CannotSplice, NoteError, yaml.YAMLError, RecursionError):
        return render_note(note)


def rewrite_sidecar(data: bytes, wanted: Mapping[str, Any]) -> bytes:
    """Sidecar data written back into the sidecar's own bytes (see ``rewrite_note``)."""
    import yaml

    try:
        text = decode_text(data, "<sidecar>")
        bom = data.startswith(BOM.encode("utf-8"))
        newline = "\r\n" if "\r\n" in text else "\n"
        lf = text.replace("\r\n", "\n")
        old = load_yaml(lf, "<sidecar>")
        if not isinstance(old, dict):
            raise _CannotSplice
        spliced = splice_mapping(lf, old, dict(wanted), order=())
        out = (BOM if bom else "") + spliced.replace("\n", newline)
        raw = out.encode("utf-8")
        if parse_sidecar(raw, "<sidecar>").data != dict(wanted):
            raise _CannotSplice
        return raw
    except (_CannotSplice, NoteError, yaml.YAMLError, RecursionError):
        return render_sidecar(Sidecar(dict(wanted)))


def _rewrite_note(data: bytes, note: Note) -> bytes:
    text = decode_text(data, "<note>")
    bom = data.startswith(BOM.encode("utf-8"))
    opening = _FENCE.match(text)
    if not opening:
        raise _CannotSplice
    start = opening.end()
    closing = _CLOSE.search(text, start)
    if not closing:
        raise _CannotSplice
    newline = "\r\n" if opening.group(1) == "\r\n" else "\n"
    yaml_lf = text[start : closing.start()].replace("\r\n", "\n")
    old_note = parse_note(data, "<note>")
    spliced = splice_mapping(yaml_lf, old_note.frontmatter, note.frontmatter, order=NOTE_KEY_ORDER)
    head = text[:start]
    if note.body == old_note.body:
        tail = text[closing.start() :]
    else:
        fence = text[closing.start() : closing.end()]
        rest = text[closing.end() :]
        fence += "\n" if rest.startswith("\n") or not rest else ""
        body = note.body.replace("\r\n", "\n")
        tail = fence + (body.replace("\n", newline) if newline != "\n" else body)
    out = (BOM if bom else "") + head + spliced.replace("\n", newline) + tail
    raw = out.encode("utf-8")
    again = parse_note(raw, "<note>")
    if again.frontmatter != note.frontmatter or again.body != note.body:
        raise _CannotSplice
    return raw


# --------------------------------------------------------------------------- splicing


def splice_mapping(
    text: str, old: Mapping[str, Any], new: Mapping[str, Any], order: Sequence[str] = ()
) -> str:
    """The YAML ``text`` (whose top mapping loads as ``old``) changed to load as ``new``."""
    import yaml

    from reflectgit.notes.yamlcodec import StrictLoader

    loader = StrictLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    if not isinstance(root, yaml.MappingNode) or root.flow_style or not root.value:
        raise _CannotSplice
    lines = text.split("\n")
    ops: list[_Op] = []
    _edit_mapping(root, old, new, lines, ops, order)
    if not ops:
        return text
    ops.sort(key=lambda op: (op.start, op.end))
    for earlier, later in itertools.pairwise(ops):
        if later.start < earlier.end:
            raise _CannotSplice
    for op in reversed(ops):
        lines[op.start : op.end] = op.lines
    return "\n".join(lines)


def _entries(node: yaml.MappingNode) -> list[tuple[str, yaml.Node, yaml.Node]]:
    import yaml

    out: list[tuple[str, yaml.Node, yaml.Node]] = []
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
            raise _CannotSplice
        out.append((key_node.value, key_node, value_node))
    return out


def _span(key_node: yaml.Node, value_node: yaml.Node, lines: list[str]) -> tuple[int, int]:
    """Lines [start, end) of one ``key: value`` entry, trailing comments and blanks left out."""
    start = key_node.start_mark.line
    mark = value_node.end_mark
    # A collection ends where the next token starts: on a later line, after only indentation.
    at_next = mark.line >= len(lines) or not lines[mark.line][: mark.column].strip()
    end = mark.line + (0 if at_next else 1)
    end = max(end, start + 1)
    column = key_node.start_mark.column
    while end - 1 > start:
        line = lines[end - 1]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if stripped == "" or (stripped.startswith("#") and indent <= column):
            end -= 1
            continue
        break
    return start, end


def _edit_mapping(
    node: yaml.MappingNode,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    lines: list[str],
    ops: list[_Op],
    order: Sequence[str],
) -> None:
    import yaml

    entries = _entries(node)
    keys = [key for key, _k, _v in entries]
    if len(set(keys)) != len(keys) or set(keys) != set(old):
        raise _CannotSplice
    column = entries[0][1].start_mark.column
    spans = {key: _span(k, v, lines) for key, k, v in entries}
    for key, key_node, value_node in entries:
        start, end = spans[key]
        if key not in new:
            ops.append(_Op(start, end, []))
            continue
        before, after = old[key], new[key]
        if _same(before, after):
            continue
        if (
            isinstance(before, dict)
            and isinstance(after, dict)
            and isinstance(value_node, yaml.MappingNode)
            and not value_node.flow_style
            and value_node.value
            and value_node.start_mark.line > key_node.start_mark.line
        ):
            _edit_mapping(value_node, before, after, lines, ops, ())
            continue
        if (
            isinstance(before, list)
            and isinstance(after, list)
            and len(before) == len(after)
            and isinstance(value_node, yaml.SequenceNode)
            and not value_node.flow_style
            and _edit_items(value_node, before, after, lines, ops)
        ):
            continue
        emitted = _emit(key, after, value_node, column)
        if end - start == 1:
            emitted[-1] += _trailing_comment(lines[start], value_node)
        ops.append(_Op(start, end, emitted))
    # New fields in the template's order (those it does not know after them, as given).
    added = sorted(
        (key for key in new if key not in old),
        key=lambda k: order.index(k) if k in order else len(order),
    )
    for key in added:
        at = _insert_at(key, keys, spans, order)
        ops.append(_Op(at, at, _emit(key, new[key], None, column)))


def _edit_items(
    node: yaml.SequenceNode, before: list[Any], after: list[Any], lines: list[str], ops: list[_Op]
) -> bool:
    """Edit a block list of mappings item by item; False when it is not that kind of list."""
    import yaml

    planned: list[_Op] = []
    for item_node, old_item, new_item in zip(node.value, before, after, strict=True):
        if _same(old_item, new_item):
            continue
        if not (
            isinstance(old_item, dict)
            and isinstance(new_item, dict)
            and isinstance(item_node, yaml.MappingNode)
            and not item_node.flow_style
            and item_node.value
        ):
            return False
        _edit_mapping(item_node, old_item, new_item, lines, planned, ())
    ops.extend(planned)
    return True


def _insert_at(
    key: str, keys: list[str], spans: Mapping[str, tuple[int, int]], order: Sequence[str]
) -> int:
    """After the field the template puts before ``key`` (if the file has one), else at the end."""
    if key in order:
        earlier = set(order[: order.index(key)])
        ends = [spans[k][1] for k in keys if k in earlier]
        if ends:
            return max(ends)
    return max(end for _start, end in spans.values())


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _trailing_comment(line: str, value_node: yaml.Node) -> str:
    """`` # comment`` after a one-line value, to keep it on the edited line."""
    import yaml

    if not isinstance(value_node, yaml.ScalarNode) or value_node.style in ("|", ">"):
        return ""
    rest = line[value_node.end_mark.column :]
    hash_at = rest.find("#")
    if hash_at < 0 or rest[:hash_at].strip():
        return ""
    return rest.rstrip()


def _emit(key: str, value: Any, old_node: yaml.Node | None, column: int) -> list[str]:
    """``key: value`` as YAML lines at ``column``, styled like the value it replaces."""
    import yaml

    from reflectgit.notes.yamlcodec import NodeRepresenter, NoteDumper

    node = NodeRepresenter(default_flow_style=False, sort_keys=False).represent_data({key: value})
    value_node = node.value[0][1]
    if old_node is not None:
        _restyle(value_node, old_node)
    text = yaml.serialize(node, Dumper=NoteDumper)  # in the notes' one style
    if text.endswith("...\n"):  # a lone plain scalar document end marker
        text = text[: -len("...\n")]
    out = text.rstrip("\n").split("\n")
    indent = " " * column
    if isinstance(old_node, yaml.SequenceNode) and not old_node.flow_style and old_node.value:
        # Keep the list's indentation: ``  - item`` stays indented when it was.
        dash = old_node.value[0].start_mark.column - 2 - column
        if dash > 0 and all(not isinstance(v, (dict, list)) for v in value):
            out = [out[0]] + [
                (" " * dash + line) if line.startswith("- ") else line for line in out[1:]
            ]
    return [indent + line if line else line for line in out]


def _restyle(new: yaml.Node, old: yaml.Node) -> None:
    import yaml

    if isinstance(new, yaml.ScalarNode) and isinstance(old, yaml.ScalarNode):
        if (
            old.style in ('"', "'")
            and new.tag == "tag:yaml.org,2002:str"
            and "\n" not in new.value
            and (old.style == '"' or new.value.isprintable())
        ):
            new.style = old.style
    elif (
        isinstance(new, yaml.SequenceNode)
        and isinstance(old, yaml.SequenceNode)
        and old.flow_style
        and all(isinstance(item, yaml.ScalarNode) for item in new.value)
    ):
        new.flow_style = True
        # ["a", "b"] stays quoted when every item was: the items are restyled like the first
        styles = {item.style for item in old.value if isinstance(item, yaml.ScalarNode)}
        if old.value and len(styles) == 1 and styles & {'"', "'"}:
            for item in new.value:
                _restyle(item, old.value[0])
