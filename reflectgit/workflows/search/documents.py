"""The searchable view of a note: which files are notes, their fields, state, weight and
scoping, and the sidecar edges with the dates they held."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from reflectgit.config import ARCHIVED, DOCUMENTS, FORGOTTEN
from reflectgit.errors import NoteError, UsageError

if TYPE_CHECKING:
    from typing import Any

    from reflectgit.notes.note import Note, Sidecar

LOCATIONS = {DOCUMENTS: "live", ARCHIVED: "archived", FORGOTTEN: "forgotten"}
# Raw originals kept by the original tool's ingest are not notes.
SKIPPED_PREFIXES = (f"{DOCUMENTS}/memories/",)
SIDECAR_SUFFIX = ".entities.yaml"

# A note's searchable fields: the columns of the full-text table, in order (ranking.WEIGHTS
# gives each its bm25 weight).
FIELDS = (
    "title",
    "key_insight",
    "problem",
    "root_cause",
    "fix",
    "rule",
    "symptoms",
    "tags",
    "entities",
    "body",
)


# --------------------------------------------------------------------------- code words

# A camelCase or PascalCase word (ipcRenderer, CancellationException, HTTPServer): the full-text
# table's tokenizer keeps it whole, so its parts are indexed too (``indexed_text``).
_CAMEL = None


def indexed_text(text: str) -> str:
    """A field's text as the full-text table indexes it: the text, then the parts of each of
    its camelCase words (``ipcRenderer``: ipc renderer; ``getHTTPServer``: get http server), so a
    query word finds the word a code name is made of, as `git grep` finds it inside the name.
    snake_case, dotted and dashed names need nothing: the tokenizer splits them already."""
    global _CAMEL
    if _CAMEL is None:
        import re  # the index build parses YAML, which has imported it already

        _CAMEL = re.compile(r"[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*")
    words = _CAMEL.findall(text)
    if not words:
        return text
    from reflectgit.workflows.search.tokens import camel_runs

    parts = [p.lower() for w in dict.fromkeys(words) for p in camel_runs(w)]
    return text + "\n" + " ".join(parts)


# --------------------------------------------------------------------------- weights


def confidence_weight(confidence: float) -> float:
    """0.3 (low) -> 0.8, 0.6 -> 1.1, 0.9 (high) -> 1.4: confident notes rank higher."""
    return 0.5 + confidence


def proof_weight(proofs: int) -> float:
    """A note confirmed many times ranks a little higher; logarithmic so text still leads."""
    return 1.0 + 0.1 * math.log1p(max(proofs, 0))


# The note's weight (confidence x proofs, 0.8 .. about 1.9) counts as weight ** TIE_EXPONENT in
# search: at most about 8 % between a low note confirmed once and a high one confirmed often.
# Enough to order near ties, never enough to lift a weaker match over a clearly better one.
TIE_EXPONENT = 0.1


def tie_weight(weight: float) -> float:
    """How much a note's confidence and proofs move it in search: a tie-breaker."""
    return float(max(weight, 1e-6) ** TIE_EXPONENT)


# --------------------------------------------------------------------------- dates


def parse_when(text: str | dt.date | dt.datetime) -> tuple[str, str]:
    """A date or timestamp as a UTC interval ``(start, end)`` of ISO strings (a day spans it)."""
    if isinstance(text, dt.datetime):
        moment = utc_text(text)
        return moment, moment
    if isinstance(text, dt.date):
        day = text.isoformat()
        return f"{day}T00:00:00", f"{day}T23:59:59"
    value = text.strip()
    import re  # a date given as text (``--as-of``): a plain search never gets here

    from reflectgit.notes.dates import parse_instant

    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        if parse_instant(value) is None:
            raise UsageError(f"{text!r} is not a date", hint="use YYYY-MM-DD")
        return f"{value}T00:00:00", f"{value}T23:59:59"
    moment_s = _iso(value)
    if moment_s is None:
        raise UsageError(
            f"{text!r} is not a date or timestamp",
            hint="use YYYY-MM-DD or an ISO 8601 timestamp such as 2026-03-04T09:12:00Z",
        )
    return moment_s, moment_s


def utc_text(value: dt.datetime) -> str:
    """``value`` as the index writes an instant: naive UTC, ISO, whole seconds."""
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    return value.replace(microsecond=0).isoformat()


def _iso(value: object) -> str | None:
    """Any date-ish value (a date, a datetime, an ISO string) as a naive-UTC ISO string."""
    from reflectgit.notes.dates import parse_instant  # the one parser (not needed by a search)

    moment = parse_instant(value)
    return utc_text(moment) if moment is not None else None


def edge_interval(
    edge: Mapping[str, Any], extracted_at: object = None
) -> tuple[str | None, str | None]:
    """``[tvalid, tvalid_end]`` of a relationship; tvalid defaults to tcommit, then extracted_at."""
    start = _iso(edge.get("tvalid")) or _iso(edge.get("tcommit")) or _iso(extracted_at)
    return start, _iso(edge.get("tvalid_end"))


def edges_as_of(sidecar: Any, when: str | dt.date | dt.datetime) -> list[dict[str, Any]]:
    """The sidecar's relationships valid at ``when`` (overlap test on [tvalid, tvalid_end]).

    ``sidecar`` is a ``note.Sidecar`` or its mapping; ``when`` a date (the whole day) or a time.
    """
    data = getattr(sidecar, "data", sidecar)
    if not isinstance(data, Mapping):
        return []
    start, end = parse_when(when)
    out: list[dict[str, Any]] = []
    for edge in data.get("relationships") or []:
        if not isinstance(edge, Mapping):
            continue
        vstart, vend = edge_interval(edge, data.get("extracted_at"))
        if (vstart is None or vstart <= end) and (vend is None or vend >= start):
            out.append(dict(edge))
    return out


# --------------------------------------------------------------------------- documents


class Document(NamedTuple):
    """The searchable view of one note (and its sidecar): made once, never changed."""

    path: str
    id: str
    title: str
    tier: str
    confidence: float
    proofs: int
    state: str
    scope: str | None
    project: str | None
    tags: list[str]
    entities: list[str]
    summary: str
    updated: str | None
    texts: dict[str, str]
    edges: list[tuple[str, str | None, str | None]]
    # The texts as the full-text table indexes them (``indexed_text``), field by field.
    indexed: dict[str, str]
    # Recall's scoping fields (SCOPING_FIELDS); only the ones a note sets.
    scoping: dict[str, Any]
    # Why recall, the MCP tools and the SessionStart hook never serve this note (it does not
    # validate or holds a secret: ``notes.withheld``); None when they may. Decided here, once.
    withheld: str | None = None

    @property
    def weight(self) -> float:
        return confidence_weight(self.confidence) * proof_weight(self.proofs)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return " ".join(_text(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "\n".join(_text(v) for v in value)
    return str(value)


def _names(value: Any) -> list[str]:
    out: list[str] = []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Mapping):
        name = value.get("name")
        return [name] if isinstance(name, str) and name.strip() else []
    if isinstance(value, (list, tuple)):
        for item in value:
            out.extend(_names(item))
    return out


def note_state(path: str, front: Mapping[str, Any]) -> str:
    """live, archived, forgotten (by location), else superseded or retired (by frontmatter):
    ``notes.note.note_state``, the one answer ``list`` gives too."""
    from reflectgit.notes.note import note_state as state_of

    return state_of(LOCATIONS.get(path.split("/", 1)[0], "live"), front)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def document_from(path: str, note_bytes: bytes, sidecar_bytes: bytes | None) -> Document:
    """Build the searchable view of a note; an unreadable note is still searchable as text."""
    from reflectgit.notes import withheld
    from reflectgit.notes.note import TIER_NUM, parse_note, parse_sidecar, tier_of

    stem = path.rsplit("/", 1)[-1][: -len(".md")]
    note: Note | None = None
    unreadable = None
    try:
        note = parse_note(note_bytes, path)
        front, body = note.frontmatter, note.body
    except NoteError as exc:
        front, body = {}, note_bytes.decode("utf-8", "replace")
        unreadable = withheld.one_line(exc.message)
    sidecar: dict[str, Any] = {}
    parsed_sidecar: Sidecar | None = None
    if sidecar_bytes is not None:
        try:
            parsed_sidecar = parse_sidecar(sidecar_bytes, path)
            sidecar = parsed_sidecar.data
        except NoteError:
            sidecar = {}  # an unreadable sidecar adds nothing
    why = withheld.reason(path, note, unreadable, body, parsed_sidecar)
    note_id = next(
        (v for v in (front.get("id"), front.get("name")) if isinstance(v, str) and v.strip()),
        stem,
    ).strip()
    title = next(
        (v for v in (front.get("title"), front.get("name")) if isinstance(v, str) and v.strip()),
        note_id,
    ).strip()
    tier = tier_of(front) or "medium"  # the reflect format reads a missing confidence as medium
    num = _number(front.get("confidence_num"))
    confidence = num if num is not None and 0 <= num <= 1 else TIER_NUM[tier]
    provenance = front.get("provenance")
    proofs_raw = front.get("proof_count")
    if proofs_raw is None and isinstance(provenance, Mapping):
        proofs_raw = provenance.get("proof_count")
    proofs = int(proofs_raw) if _number(proofs_raw) is not None else 1  # type: ignore[arg-type]
    tags = [t.strip() for t in _names(front.get("tags"))]
    entities = _names(front.get("entities")) + _names(sidecar.get("entities"))
    texts = {name: _text(front.get(name)) for name in FIELDS}
    texts["title"] = title
    texts["tags"] = " ".join(tags)
    texts["entities"] = "\n".join(entities)
    texts["body"] = body
    edges: list[tuple[str, str | None, str | None]] = []
    for edge in sidecar.get("relationships") or []:
        if not isinstance(edge, Mapping):
            continue
        words = " ".join(
            _text(edge.get(k)) for k in ("source", "type", "target", "description")
        ).replace("_", " ")
        start, end = edge_interval(edge, sidecar.get("extracted_at"))
        edges.append((words, start, end))
    if why is not None:
        # A withheld note's secret is never indexed, shown in a title, summary or snippet, or
        # found by its value (masking text that holds none changes nothing).
        from reflectgit.notes.secrets import mask

        texts = {name: mask(text) for name, text in texts.items()}
        title, body = texts["title"], texts["body"]
        entities = [mask(e) for e in entities]
        tags = [mask(t) for t in tags]
        edges = [(mask(words), start, end) for words, start, end in edges]
    summary = next(
        (texts[k].strip() for k in ("key_insight", "rule", "fix", "problem") if texts[k].strip()),
        " ".join(body.split())[:300],
    )
    scope = front.get("scope")
    project = front.get("project") or front.get("project_id")
    return Document(
        path=path,
        id=note_id,
        title=title,
        tier=tier,
        confidence=confidence,
        proofs=proofs,
        state=note_state(path, front),
        scope=str(scope) if scope not in (None, "") else None,
        project=str(project) if project not in (None, "") else None,
        tags=tags,
        entities=entities,
        summary=summary,
        updated=_iso(front.get("updated")) or _iso(front.get("created")),
        texts=texts,
        edges=edges,
        indexed={name: indexed_text(text) for name, text in texts.items()},
        scoping=scoping_of(front),
        withheld=why,
    )


def _flag(value: Any) -> bool:
    """A YAML flag as people write it: true, yes, 1, "true" (anything else is false)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    return isinstance(value, str) and value.strip().lower() in ("true", "yes", "y", "1", "on")


def scoping_of(front: Mapping[str, Any]) -> dict[str, Any]:
    """Recall's scoping fields of a note's frontmatter: branch, authority, quarantine, domain,
    discovery_tokens, provenance.source_path (or source_path), learning_type, and the machine
    that wrote it while no person has reviewed it (``notes.authorship``); unset ones left out."""
    provenance = front.get("provenance")
    prov: Mapping[str, Any] = provenance if isinstance(provenance, Mapping) else {}
    out: dict[str, Any] = {}
    for key, value in (
        ("branch", front.get("branch") or prov.get("branch")),
        ("authority", front.get("authority")),
        ("domain", front.get("domain")),
        ("source_path", prov.get("source_path") or front.get("source_path")),
        ("learning_type", front.get("learning_type")),
    ):
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            text = str(value).strip()
            if text:
                out[key] = text.lower() if key in ("authority", "learning_type") else text
    if _flag(front.get("quarantine")):
        out["quarantine"] = 1
    tokens = _number(front.get("discovery_tokens"))
    if tokens is not None and tokens > 0:
        out["discovery_tokens"] = int(tokens)
    from reflectgit.notes.authorship import unreviewed

    machine = unreviewed(front)
    if machine is not None:
        out["unreviewed"] = machine
    if isinstance(front.get("stale"), Mapping):
        out["code"] = "flagged"
    elif isinstance(front.get("anchors"), list) and front["anchors"]:
        out["code"] = "anchored"
    return out


def is_indexed_path(path: str) -> bool:
    """A note or sidecar under documents/, archived/ or .forgotten/."""
    if path.split("/", 1)[0] not in LOCATIONS or path.startswith(SKIPPED_PREFIXES):
        return False
    return path.endswith(".md") or path.endswith(SIDECAR_SUFFIX)


def note_path_of(path: str) -> str:
    """``documents/x.entities.yaml`` -> ``documents/x.md``; a note path is itself."""
    if path.endswith(SIDECAR_SUFFIX):
        return path[: -len(SIDECAR_SUFFIX)] + ".md"
    return path


def sidecar_path_of(note_path: str) -> str:
    return note_path[: -len(".md")] + SIDECAR_SUFFIX
