"""Three-way merge of a note or a sidecar, field by field. Pure: no I/O, no git.

What ``reflect-git merge-driver`` computes when two people changed one note (git hands it the
common ancestor, ours and theirs). The frontmatter is merged on its parsed values, one field at
a time:

- a field only one side changed takes that side's value (a removal included);
- a list that is a set (``SET_FIELDS``: tags, anchors, symptoms, entities, source episodes, causal
  relations, links, supersedes, the provenance's source ids, enforce patterns) keeps what either
  side added and drops what either side removed;
- ``provenance.proof_count`` counts the distinct sources when both sides added different ones;
- ``updated`` (a sidecar's ``extracted_at``) takes the later instant;
- a mapping (``provenance``, ``enforce``) is merged key by key;
- the same scalar changed differently on both sides is a conflict in that field alone: the file
  holds git's markers around that field's lines, ours above theirs, everything else merged.

The body is merged by the caller's ``merge_body`` (the workflow runs ``git merge-file``). The
bytes are ours with the changed fields spliced in (``inplace``): one-field diffs, the quoting,
comments, CRLF line endings and byte-order mark of our copy kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reflectgit.errors import NoteError
from reflectgit.notes.edit import LEGACY_SOURCES, SOURCES_FIELD
from reflectgit.notes.inplace import rewrite_note, rewrite_sidecar
from reflectgit.notes.note import Note, parse_note, parse_sidecar

Path = tuple[str, ...]


class _Missing:
    """A field one side does not have."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

# Lists that are sets, by field path (the schemas' lists of ids, names and patterns).
SET_FIELDS: frozenset[Path] = frozenset(
    {
        ("tags",),
        ("anchors",),
        ("symptoms",),
        ("entities",),
        ("source_episodes",),
        ("causal_relations",),
        ("links",),
        ("supersedes",),
        ("anchors",),
        ("provenance", SOURCES_FIELD),
        ("provenance", LEGACY_SOURCES),
        ("enforce", "deny"),
        ("enforce", "ask"),
    }
)
LATER_FIELDS: frozenset[Path] = frozenset({("updated",)})
SIDECAR_SET_FIELDS: frozenset[Path] = frozenset({("entities",), ("relationships",)})
SIDECAR_LATER_FIELDS: frozenset[Path] = frozenset({("extracted_at",)})

MARKER_SIZE = 7  # git's default conflict-marker-size
LABELS = ("ours", "base", "theirs")

BodyMerge = Callable[[str, str, str], tuple[str, bool]]


@dataclass(frozen=True)
class Fields:
    """A merged mapping: ``ours`` holds the merge with our value in each conflicting field,
    ``theirs`` the same with theirs; ``conflicts`` names the fields (dotted) both changed."""

    ours: dict[str, Any]
    theirs: dict[str, Any]
    conflicts: tuple[str, ...]

    def conflicting_keys(self) -> list[str]:
        """The top-level fields that hold a conflict, in our order."""
        tops = {name.split(".", 1)[0] for name in self.conflicts}
        keys = list(self.ours) + [k for k in self.theirs if k not in self.ours]
        return [k for k in keys if k in tops]


@dataclass(frozen=True)
class Merged:
    """The merged file: its bytes (with markers where there are conflicts) and what conflicted
    (field names, and ``body``)."""

    data: bytes
    conflicts: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return not self.conflicts


# --------------------------------------------------------------------------- values


def merge_fields(
    base: Mapping[str, Any],
    ours: Mapping[str, Any],
    theirs: Mapping[str, Any],
    *,
    sets: frozenset[Path] = SET_FIELDS,
    later: frozenset[Path] = LATER_FIELDS,
) -> Fields:
    """Merge three mappings field by field (the rules are the module's)."""
    merger = _Merger(sets, later)
    out_ours, out_theirs = merger.mapping((), base, ours, theirs)
    if "provenance" in out_ours:
        merger.recount(base, ours, theirs, out_ours, out_theirs)
    return Fields(out_ours, out_theirs, tuple(merger.conflicts))


class _Merger:
    def __init__(self, sets: frozenset[Path], later: frozenset[Path]) -> None:
        self.sets = sets
        self.later = later
        self.conflicts: list[str] = []

    def mapping(
        self,
        path: Path,
        base: Mapping[str, Any],
        ours: Mapping[str, Any],
        theirs: Mapping[str, Any],
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        keys = list(ours) + [k for k in theirs if k not in ours]
        keys += [k for k in base if k not in ours and k not in theirs]
        out_ours: dict[str, Any] = {}
        out_theirs: dict[str, Any] = {}
        for key in keys:
            one, two = self.value(
                (*path, key),
                base.get(key, MISSING),
                ours.get(key, MISSING),
                theirs.get(key, MISSING),
            )
            if one is not MISSING:
                out_ours[key] = one
            if two is not MISSING:
                out_theirs[key] = two
        return out_ours, out_theirs

    def value(self, path: Path, base: Any, ours: Any, theirs: Any) -> tuple[Any, Any]:
        if same(ours, theirs):
            return ours, ours
        if same(ours, base):
            return theirs, theirs
        if same(theirs, base):
            return ours, ours
        if path in self.sets and all(isinstance(v, list) for v in (ours, theirs)):
            merged = set_merge(base if isinstance(base, list) else [], ours, theirs)
            return merged, merged
        if path in self.later:
            chosen = later_of(ours, theirs)
            if chosen is not MISSING:
                return chosen, chosen
        if isinstance(ours, dict) and isinstance(theirs, dict):
            return self.mapping(path, base if isinstance(base, dict) else {}, ours, theirs)
        self.conflicts.append(".".join(path))
        return ours, theirs

    def recount(
        self,
        base: Mapping[str, Any],
        ours: Mapping[str, Any],
        theirs: Mapping[str, Any],
        out_ours: dict[str, Any],
        out_theirs: dict[str, Any],
    ) -> None:
        """Both sides added different sources: ``proof_count`` counts the distinct ones (plus
        what the ancestor counted without naming a source)."""
        merged = _provenance(out_ours)
        sources = _sources(merged)
        if sources in (_sources(_provenance(ours)), _sources(_provenance(theirs))):
            return
        if not any("proof_count" in _provenance(m) for m in (base, ours, theirs)):
            return
        old = _provenance(base)
        counted = old.get("proof_count")
        unnamed = counted - len(_sources(old)) if isinstance(counted, int) else 0
        count = len(sources) + max(0, unnamed)
        for front in (out_ours, out_theirs):
            prov = front.get("provenance")
            if isinstance(prov, dict):
                front["provenance"] = {**prov, "proof_count": count}
            if _is_int(front.get("proof_count")):
                front["proof_count"] = count
        self.conflicts = [
            c for c in self.conflicts if c not in ("provenance.proof_count", "proof_count")
        ]


def _provenance(front: Mapping[str, Any]) -> Mapping[str, Any]:
    prov = front.get("provenance")
    return prov if isinstance(prov, Mapping) else {}


def _sources(prov: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key in (SOURCES_FIELD, LEGACY_SOURCES):
        values = prov.get(key)
        if isinstance(values, list):
            out.extend(str(v) for v in values if str(v) not in out)
    return sorted(out)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types (``1`` is not ``1.0`` nor ``True``; ``MISSING`` only
    equals itself)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a is b or a == b)


def _key(value: Any) -> Any:
    """A hashable stand-in for a list item (mappings and lists frozen, types kept apart)."""
    if isinstance(value, dict):
        return ("map", tuple(sorted((str(k), _key(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("list", tuple(_key(v) for v in value))
    return (type(value).__name__, value)


def set_merge(base: Sequence[Any], ours: Sequence[Any], theirs: Sequence[Any]) -> list[Any]:
    """Ours, without what theirs removed, then what theirs added; each item once."""
    in_base = {_key(v) for v in base}
    in_theirs = {_key(v) for v in theirs}
    out: list[Any] = []
    seen: set[Any] = set()
    for item in ours:
        key = _key(item)
        if key not in seen and (key in in_theirs or key not in in_base):
            out.append(item)
            seen.add(key)
    for item in theirs:
        key = _key(item)
        if key not in seen and key not in in_base:
            out.append(item)
            seen.add(key)
    return out


def later_of(ours: Any, theirs: Any) -> Any:
    """The later of two instants (ours on a tie); ``MISSING`` when either is no instant."""
    from reflectgit.notes.dates import parse_instant

    one, two = parse_instant(ours), parse_instant(theirs)
    if one is None or two is None:
        return MISSING
    return theirs if two > one else ours


# --------------------------------------------------------------------------- files


def merge_note(
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    merge_body: BodyMerge,
    *,
    marker_size: int = MARKER_SIZE,
    labels: Sequence[str] = LABELS,
    source: str = "<note>",
) -> Merged:
    """The three-way merge of a note's bytes (``base`` None or empty: both sides added it).
    Raises ``NoteError`` when a side does not parse (the caller merges the text instead)."""
    one = parse_note(ours, source)
    two = parse_note(theirs, source)
    old = parse_note(base, source) if base else Note({}, "")
    fields = merge_fields(old.frontmatter, one.frontmatter, two.frontmatter)
    conflicts = list(fields.conflicts)
    body, body_conflict = _merge_body(old.body, one.body, two.body, merge_body)
    if body_conflict:
        conflicts.append("body")

    def render(front: dict[str, Any], template: bytes) -> bytes:
        return rewrite_note(template, Note(front, body))

    data = render(fields.ours, ours)
    data = _mark_conflicts(data, fields, render, marker_size, labels)
    return Merged(data, tuple(conflicts))


def merge_sidecar(
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    *,
    marker_size: int = MARKER_SIZE,
    labels: Sequence[str] = LABELS,
    source: str = "<sidecar>",
) -> Merged:
    """The three-way merge of a sidecar: entities and relationships as sets, the rest field by
    field. Raises ``NoteError`` when a side does not parse."""
    one = parse_sidecar(ours, source).data
    two = parse_sidecar(theirs, source).data
    old = parse_sidecar(base, source).data if base else {}
    fields = merge_fields(old, one, two, sets=SIDECAR_SET_FIELDS, later=SIDECAR_LATER_FIELDS)

    def render(data: dict[str, Any], template: bytes) -> bytes:
        return rewrite_sidecar(template, data)

    data = render(fields.ours, ours)
    data = _mark_conflicts(data, fields, render, marker_size, labels)
    return Merged(data, fields.conflicts)


def _merge_body(base: str, ours: str, theirs: str, merge_body: BodyMerge) -> tuple[str, bool]:
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return merge_body(base, ours, theirs)


def _mark_conflicts(
    data: bytes,
    fields: Fields,
    render: Callable[[dict[str, Any], bytes], bytes],
    marker_size: int,
    labels: Sequence[str],
) -> bytes:
    """``data`` (the merge, ours in every conflicting field) with git's markers around each
    conflicting field's lines: ours, then theirs as the same splice writes them."""
    keys = fields.conflicting_keys()
    if not keys:
        return data
    lines = data.splitlines(keepends=True)
    regions = []
    for key in keys:
        wanted = dict(fields.ours)
        if key in fields.theirs:
            wanted[key] = fields.theirs[key]
        else:
            wanted.pop(key, None)
        regions.append(_region(lines, render(wanted, data).splitlines(keepends=True)))
    regions.sort(key=lambda r: (r[0], r[1]))
    if any(b[0] < a[1] for a, b in itertools.pairwise(regions)):
        regions = [_region(lines, render(fields.theirs, data).splitlines(keepends=True))]
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    size = max(1, marker_size)
    ours_label, theirs_label = labels[0].encode("utf-8"), labels[-1].encode("utf-8")
    for start, end, theirs_lines in reversed(regions):
        block = [b"<" * size + b" " + ours_label + newline, *lines[start:end]]
        block += [b"=" * size + newline, *theirs_lines]
        block.append(b">" * size + b" " + theirs_label + newline)
        lines[start:end] = block
    return b"".join(lines)


def _region(ours: list[bytes], theirs: list[bytes]) -> tuple[int, int, list[bytes]]:
    """Where two versions differ: [start, end) of ours and theirs' lines there."""
    prefix = 0
    limit = min(len(ours), len(theirs))
    while prefix < limit and ours[prefix] == theirs[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix and ours[len(ours) - 1 - suffix] == theirs[len(theirs) - 1 - suffix]
    ):
        suffix += 1
    return prefix, len(ours) - suffix, theirs[prefix : len(theirs) - suffix]


def changed_fields(base: bytes | None, side: bytes | None, source: str = "<note>") -> list[str]:
    """The top-level fields (and ``body``) one side changed in a note since ``base``, for
    saying what a merge combined; a side that does not parse, or is gone, is ``["file"]``."""
    if side is None:
        return ["file"]
    try:
        new = parse_note(side, source)
        old = parse_note(base, source) if base else Note({}, "")
    except NoteError:
        return ["file"]
    keys = list(new.frontmatter) + [k for k in old.frontmatter if k not in new.frontmatter]
    out = [
        k
        for k in keys
        if not same(old.frontmatter.get(k, MISSING), new.frontmatter.get(k, MISSING))
    ]
    return [*out, "body"] if old.body != new.body else out
