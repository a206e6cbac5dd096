"""Notes and sidecars: parse, render, ids, slugs and confidence tiers. Pure: no I/O, no git.

A note is ``---``-fenced YAML frontmatter followed by a markdown body. Parsing is strict about
what could hurt (encoding, size, duplicate keys, language tags, alias bombs) and lenient about
what people write (a BOM, CRLF line endings, unquoted dates). Rendering is deterministic: the
reflect template's key order, then extra keys sorted, every string emitted by the YAML emitter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reflectgit.errors import NoteError
from reflectgit.notes import names
from reflectgit.notes.frontmatter import _CLOSE as _CLOSE
from reflectgit.notes.frontmatter import _FENCE as _FENCE
from reflectgit.notes.frontmatter import MAX_NOTE_BYTES as MAX_NOTE_BYTES
from reflectgit.notes.frontmatter import decode_text as decode_text
from reflectgit.notes.frontmatter import split_frontmatter as split_frontmatter

MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 64  # nested lists and mappings; a note needs four
SLUG_MAX = 60
HASH_LEN = 6

TIERS = ("high", "medium", "low")
TIER_ALIASES = {
    "high": "high",
    "h": "high",
    "medium": "medium",
    "med": "medium",
    "m": "medium",
    "low": "low",
    "l": "low",
}
# THE tier -> number table: what a writer records as ``confidence_num`` for a tier, and where a
# tier-only note ranks. Each value sits inside its bucket of ``tier_from_num`` (>=0.8 high,
# >=0.5 medium, else low) with room on both sides, so a number written for a tier always reads
# back as that tier. (Before issue 10 four tables disagreed: 0.85 vs 0.9, 0.3 vs 0.35.)
TIER_NUM = {"high": 0.9, "medium": 0.6, "low": 0.3}

# Rule S9: fields that change on every query never appear in a note.
RANKING_FIELDS = (
    "importance",
    "maturity",
    "recall_count",
    "helpful_count",
    "ignored_count",
    "stale_count",
    "last_recalled_at",
)

# One closed set of entity types (the union of the original tool's two disagreeing sets) and
# one of relationship types, shared by every writer and validator.
ENTITY_TYPES = (
    "technology",
    "error",
    "pattern",
    "function",
    "concept",
    "tool",
    "artifact",
    "code",
    "config",
    "service",
    "platform",
    "framework",
    "library",
)
RELATIONSHIP_TYPES = (
    "caused_by",
    "causes",
    "enables",
    "prevents",
    "contradicts",
    "supersedes",
    "part_of",
    "uses",
    "solves",
    "requires",
    "relates_to",
    "implements",
    "configures",
    "triggers",
)

# The reflect template's order; extra keys follow, sorted.
NOTE_KEY_ORDER = (
    "type",
    "id",
    "created",
    "updated",
    "scope",
    "confidence",
    "confidence_num",
    "learning_type",
    "discovery_tokens",
    "title",
    "tags",
    "symptoms",
    "key_insight",
    "problem",
    "root_cause",
    "fix",
    "rule",
    "category",
    "entities",
    "causal_relations",
    "links",
    "source_episodes",
    "superseded_by",
    "supersedes",
    "forget_after",
    "provenance",
)
PROVENANCE_KEY_ORDER = (
    "source_tool",
    "source_path",
    "content_hash",
    "detected_at",
    "source_memory_ids",
    "proof_count",
    "written_by",
    "reviewed_by",
    "reviewed_at",
)
EDGE_KEY_ORDER = ("source", "target", "type")
ANCHOR_KEY_ORDER = ("path", "symbol", "commit")
SIDECAR_KEY_ORDER = ("document_id", "extracted_at", "entities", "relationships")
ENTITY_KEY_ORDER = ("name", "type", "description")
RELATIONSHIP_KEY_ORDER = (
    "source",
    "target",
    "type",
    "description",
    "strength",
    "tcommit",
    "tvalid",
    "tvalid_end",
    "superseded_by",
)

_UNSAFE_ID = re.compile(r"[/\\\x00-\x1f\x7f]")


# --------------------------------------------------------------------------- YAML
# PyYAML (``yamlcodec``) is imported where a text is parsed or emitted with it, not with this
# module: a process that only checks plain notes (the validate hook reads them with
# ``plainyaml``) never loads it.


def dump_yaml(data: Any) -> str:
    """Emit YAML deterministically: every note, sidecar and pointer is written here, by PyYAML's
    emitter in the notes' one style (``yamlcodec.NoteDumper``)."""
    from reflectgit.notes.yamlcodec import dump

    return dump(data)


def load_yaml(text: str, source: str = "<yaml>", line_offset: int = 0) -> Any:
    """Load one YAML document strictly; errors become ``NoteError`` with line and column."""
    import yaml

    from reflectgit.notes.yamlcodec import StrictLoader

    loader = StrictLoader(text)
    loader.line_offset = line_offset
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + 1 + line_offset) if mark else None
        col = (mark.column + 1) if mark else None
        problem = exc.problem or "YAML error"
        if exc.context and "duplicate" not in problem:
            where = exc.context_mark
            started = f" started on line {where.line + 1 + line_offset}" if where else ""
            problem = f"{exc.context}{started}: {problem}"
        raise NoteError(
            f"{source}: invalid YAML: {problem}", hint=_yaml_hint(problem), line=line, column=col
        ) from None
    except yaml.YAMLError as exc:
        raise NoteError(f"{source}: invalid YAML: {exc}", line=line_offset + 1, column=1) from None
    except RecursionError:
        data = _TOO_DEEP
    finally:
        loader.dispose()
    if data is _TOO_DEEP or deeper_than(data, MAX_DEPTH):
        line, col = _deep_mark(text, line_offset)
        raise NoteError(
            f"{source}: YAML nested more than {MAX_DEPTH} levels deep",
            hint="flatten the lists and mappings: a note needs a few levels, never dozens",
            line=line,
            column=col,
        )
    if "&" in text and _expanded_size(data, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
        raise NoteError(
            f"{source}: YAML aliases expand to more than {MAX_EXPANDED_NODES} values",
            hint="remove the anchors (&) and aliases (*): notes never need them",
            line=line_offset + 1,
            column=1,
        )
    return data


_TOO_DEEP = object()


def deeper_than(value: Any, limit: int) -> bool:
    """Do lists and mappings nest more than ``limit`` levels? (Iterative: no recursion; only
    lists and mappings are stacked, a note's many strings are passed over.)"""
    if not isinstance(value, (dict, list)):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        depth += 1
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                stack.append((child, depth))
    return False


def _deep_mark(text: str, line_offset: int) -> tuple[int, int]:
    """(line, column) where the YAML first nests past ``MAX_DEPTH`` (the parser's events are
    read one by one, so this never recurses)."""
    import yaml

    from reflectgit.notes.yamlcodec import BaseLoader

    loader = BaseLoader(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                mark = event.start_mark
                if depth > MAX_DEPTH and mark is not None:
                    return mark.line + 1 + line_offset, mark.column + 1
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return line_offset + 1, 1


def _yaml_hint(problem: str) -> str | None:
    if "duplicate key" in problem:
        return "keep one of the two keys"
    if "tag" in problem:
        return "notes hold plain values: strings, numbers, dates, lists and mappings"
    return "quote values that contain ':' or start with a special character"


def _expanded_size(value: Any, limit: int) -> int:
    """Count values as a consumer would see them, aliases expanded; stop once past ``limit``."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return count
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


# --------------------------------------------------------------------------- text


class Origin(NamedTuple):
    """Where a parsed note came from, so problems can point at lines in the file."""

    source: str
    yaml_text: str
    yaml_line: int  # 1-based line of the first frontmatter line in the file


@dataclass
class Note:
    """One learning: frontmatter mapping plus markdown body. Equal when both are (``origin``,
    where it was read from, aside)."""

    frontmatter: dict[str, Any]
    body: str = ""
    origin: Origin | None = field(default=None, compare=False, repr=False)

    @property
    def id(self) -> str | None:
        value = self.frontmatter.get("id")
        return value if isinstance(value, str) and value else None

    @property
    def title(self) -> str:
        for key in ("title", "name"):
            value = self.frontmatter.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return ""

    @property
    def tier(self) -> str | None:
        """``high|medium|low`` from ``confidence`` or ``confidence_num``; None when unknown."""
        return tier_of(self.frontmatter)


def parse_note(data: bytes | str, source: str = "<note>") -> Note:
    """Parse note bytes; raises ``NoteError`` (with line and column) on anything unreadable."""
    text = decode_text(data, source) if isinstance(data, bytes) else data.lstrip("\ufeff")
    yaml_text, body, yaml_line = split_frontmatter(text, source)
    loaded = load_yaml(yaml_text, source, line_offset=yaml_line - 1)
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise NoteError(
            f"{source}: the frontmatter is a {_kind(loaded)}, not a mapping of fields",
            hint="write fields as 'key: value' lines",
            line=yaml_line,
            column=1,
        )
    bad_keys = [k for k in loaded if not isinstance(k, str)]
    if bad_keys:
        raise NoteError(
            f"{source}: frontmatter keys must be strings, not {bad_keys[0]!r}",
            hint="quote the key",
            line=yaml_line,
            column=1,
        )
    return Note(loaded, body, Origin(source, yaml_text, yaml_line))


def render_note(note: Note) -> bytes:
    """The canonical bytes of a note: ordered frontmatter, ``---`` fences, the body as given."""
    front = canonical_frontmatter(note.frontmatter)
    text = "---\n" + (dump_yaml(front) if front else "") + "---\n" + note.body
    return text.encode("utf-8")


def canonical_frontmatter(front: Mapping[str, Any]) -> dict[str, Any]:
    """Frontmatter in the template's key order, extra keys sorted, nested mappings ordered."""
    ordered = _ordered(front, NOTE_KEY_ORDER)
    if isinstance(ordered.get("provenance"), Mapping):
        ordered["provenance"] = _ordered(ordered["provenance"], PROVENANCE_KEY_ORDER)
    if isinstance(ordered.get("causal_relations"), list):
        ordered["causal_relations"] = [
            _ordered(edge, EDGE_KEY_ORDER) if isinstance(edge, Mapping) else edge
            for edge in ordered["causal_relations"]
        ]
    if isinstance(ordered.get("anchors"), list):
        ordered["anchors"] = [
            _ordered(anchor, ANCHOR_KEY_ORDER) if isinstance(anchor, Mapping) else anchor
            for anchor in ordered["anchors"]
        ]
    return ordered


def _ordered(mapping: Mapping[str, Any], order: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in order:
        if key in mapping:
            out[key] = _deep_sorted(mapping[key])
    for key in sorted((k for k in mapping if k not in out), key=str):
        out[key] = _deep_sorted(mapping[key])
    return out


def _deep_sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _deep_sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_deep_sorted(v) for v in value]
    return value


def _kind(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}.get(
        type(value), type(value).__name__
    )


# --------------------------------------------------------------------------- sidecars


@dataclass
class Sidecar:
    """An entity sidecar (``<stem>.entities.yaml``): entities and typed relationships. Equal
    when their data are (``origin`` aside)."""

    data: dict[str, Any]
    origin: Origin | None = field(default=None, compare=False, repr=False)

    @property
    def document_id(self) -> str | None:
        value = self.data.get("document_id")
        return value if isinstance(value, str) and value else None


def parse_sidecar(data: bytes | str, source: str = "<sidecar>") -> Sidecar:
    """Parse a sidecar; raises ``NoteError`` with line and column on anything unreadable."""
    text = decode_text(data, source) if isinstance(data, bytes) else data.lstrip("\ufeff")
    text = text.replace("\r\n", "\n")
    loaded = load_yaml(text, source)
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise NoteError(
            f"{source}: a sidecar is a mapping (document_id, entities, relationships), "
            f"not a {_kind(loaded)}",
            line=1,
            column=1,
        )
    return Sidecar(loaded, Origin(source, text, 1))


def render_sidecar(sidecar: Sidecar) -> bytes:
    """The canonical bytes of a sidecar."""
    data = _ordered(sidecar.data, SIDECAR_KEY_ORDER)
    if isinstance(data.get("entities"), list):
        data["entities"] = [
            _ordered(e, ENTITY_KEY_ORDER) if isinstance(e, Mapping) else e for e in data["entities"]
        ]
    if isinstance(data.get("relationships"), list):
        data["relationships"] = [
            _ordered(r, RELATIONSHIP_KEY_ORDER) if isinstance(r, Mapping) else r
            for r in data["relationships"]
        ]
    return dump_yaml(data).encode("utf-8") if data else b"{}\n"


# --------------------------------------------------------------------------- ids, slugs, tiers


def slugify(title: str, max_len: int = SLUG_MAX) -> str:
    """Lowercase ASCII letters and digits joined by single hyphens; ``untitled`` when empty.
    Characters no one sees (zero-width, bidi controls, BOM, fillers) are dropped first, and
    NBSP and the other spaces separate words like a space."""
    ascii_text = unicodedata.normalize("NFKD", names.strip_invisible(title))
    ascii_text = ascii_text.encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > max_len:
        cut = slug[:max_len]
        slug = cut.rsplit("-", 1)[0] if "-" in cut[max_len // 2 :] else cut
        slug = slug.strip("-")
    return slug or "untitled"


def content_hash(*parts: str) -> str:
    """Hex sha256 of the parts joined by newlines."""
    import hashlib

    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def new_id(
    title: str,
    body: str,
    exists: Callable[[str], bool] = lambda _id: False,
    prefix: str = "",
) -> str:
    """``<prefix><slug>-<hash>``: hash of title and body, lengthened until ``exists`` is false."""
    digest = content_hash(title, body)
    slug = slugify(title)
    for length in range(HASH_LEN, len(digest) + 1, 2):
        candidate = f"{prefix}{slug}-{digest[:length]}"
        if not exists(candidate):
            return candidate
    raise NoteError(f"cannot find a free id for {title!r}")


def is_safe_id(value: object) -> bool:
    """An id usable as a file name: no ``/``, no ``..``, no leading dot, no control characters,
    and ``<id>.md`` and ``<id>.entities.yaml`` are names every checkout holds (``names``)."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= 200
        and not value.startswith(".")
        and ".." not in value
        and value == value.strip()
        and not _UNSAFE_ID.search(value)
        and names.id_problem(value) is None
    )


def normalize_tier(value: object) -> str | None:
    """``high|medium|low`` for a tier or an alias in any case; None for anything else."""
    if not isinstance(value, str):
        return None
    return TIER_ALIASES.get(value.strip().lower())


def normalized(front: Mapping[str, Any]) -> dict[str, Any]:
    """The frontmatter as reflect-git writes it: a confidence alias (``H``, ``HIGH``, ``Med``,
    ``l`` ... any case, see ``TIER_ALIASES``) becomes its tier. Everything else, and a value
    that is no alias at all (validation names it), stays as it was. THE normalisation every
    reader that writes applies: add, update, import, route."""
    out = dict(front)
    tier = normalize_tier(out.get("confidence"))
    if tier is not None:
        out["confidence"] = tier
    return out


def normalized_sidecar(data: Mapping[str, Any]) -> dict[str, Any]:
    """Sidecar values as reflect-git writes them: entity and relationship types in any case
    become the closed set's spelling (``Tool`` -> ``tool``, ``Relates_To`` -> ``relates_to``);
    an edge without a ``type`` gets ``relates_to`` (the original tool's backfill: the
    undirected fallback). Unknown types stay, for validation to name."""
    out = dict(data)
    for key, allowed in (("entities", ENTITY_TYPES), ("relationships", RELATIONSHIP_TYPES)):
        items = out.get(key)
        if not isinstance(items, list):
            continue
        fixed: list[Any] = []
        for item in items:
            if isinstance(item, Mapping):
                item = dict(item)
                kind = item.get("type")
                if key == "relationships" and kind in (None, ""):
                    item["type"] = "relates_to"
                elif isinstance(kind, str) and kind.strip().lower() in allowed:
                    item["type"] = kind.strip().lower()
            fixed.append(item)
        out[key] = fixed
    return out


# Where a note is (its folder) and what its frontmatter says, as one word. THE answer to "is
# this note live?" for list, search and recall alike.
NOTE_STATES = ("live", "superseded", "retired", "archived", "forgotten")
RETIRED_STATUSES = frozenset(
    {"superseded", "archived", "retired", "forgotten", "reverted", "rejected"}
)


def note_state(location: str, front: Mapping[str, Any]) -> str:
    """``archived`` or ``forgotten`` by location; a note in ``documents/`` is ``superseded``
    when ``superseded_by`` names another note, ``retired`` when its ``status`` says so (the
    original tool's ledger statuses), else ``live``."""
    if location != "live":
        return location
    if front.get("superseded_by") not in (None, "", []):
        return "superseded"
    status = front.get("status")
    if isinstance(status, str) and status.strip().lower() in RETIRED_STATUSES:
        return "retired"
    return "live"


def tier_from_num(value: float) -> str:
    """Buckets: >=0.8 high, >=0.5 medium, else low."""
    if value >= 0.8:
        return "high"
    if value >= 0.5:
        return "medium"
    return "low"


def tier_of(front: Mapping[str, Any]) -> str | None:
    """The tier of a frontmatter mapping: its confidence, else its confidence_num, else None."""
    tier = normalize_tier(front.get("confidence"))
    if tier:
        return tier
    num = front.get("confidence_num")
    if isinstance(num, (int, float)) and not isinstance(num, bool) and 0 <= num <= 1:
        return tier_from_num(float(num))
    return None


def sidecar_path_for(note_path: str) -> str:
    """``documents/x.md`` -> ``documents/x.entities.yaml``."""
    stem = note_path[: -len(".md")] if note_path.endswith(".md") else note_path
    return stem + ".entities.yaml"
