"""Writer actions (CREATE / UPDATE / DELETE) made safe, and CREATEs rendered as notes. Pure.

Whatever a writer returns passes these rules before anything is written:

- at most ``MAX_CREATES`` CREATEs; extras are dropped;
- UPDATE and DELETE only for ids listed in the belief-revision block (never ids quoted in the
  transcript); everything else is dropped with a reason;
- only known fields are read, every value is coerced to a bounded plain string or list of
  strings, and every string reaches YAML through ``note.dump_yaml`` (no key can be injected);
- causal link types outside the closed set become ``relates_to``; entity types outside theirs
  become ``concept``;
- ids are ``lrn-<slug>-<hash6>`` with ``hash6 = sha1(title + rule)[:6]``, shared by the note
  and its sidecar.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reflectgit.notes import authorship
from reflectgit.notes.dates import format_timestamp
from reflectgit.notes.note import (
    ENTITY_TYPES,
    NOTE_KEY_ORDER,
    RANKING_FIELDS,
    RELATIONSHIP_TYPES,
    TIER_NUM,
    Note,
    Sidecar,
    is_safe_id,
    normalize_tier,
    parse_note,
    parse_sidecar,
    render_note,
    render_sidecar,
    slugify,
    tier_from_num,
)
from reflectgit.notes.privacy import scrub_secrets
from reflectgit.notes.scope import note_text, scope_fields
from reflectgit.workflows.kb.twins import TwinFinder

MAX_CREATES = 12
MAX_ACTIONS = 64  # actions read from one answer at all (a huge list costs nothing more)
# Every frontmatter key a drain note can have (the model cannot add one).
NOTE_FIELDS = tuple(
    k for k in NOTE_KEY_ORDER if k not in {"links", "superseded_by", "supersedes", "forget_after"}
)
TEXT_FIELDS = ("key_insight", "problem", "root_cause", "fix", "rule")
SHORT_MAX = 160
TEXT_MAX = 600
BODY_MAX = 4000
LIST_MAX = 12
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]")


@dataclass
class Draft:
    """A note (and sidecar) a CREATE would add."""

    id: str
    note: Note
    sidecar: Sidecar

    @property
    def title(self) -> str:
        return self.note.title

    @property
    def tier(self) -> str:
        return self.note.tier or "medium"


@dataclass
class Plan:
    """The safe part of a writer's answer, plus what was dropped and why."""

    creates: list[Draft] = field(default_factory=list)
    confirms: list[tuple[str, str]] = field(default_factory=list)  # (id, reason)
    archives: list[tuple[str, str]] = field(default_factory=list)  # (id, reason)
    dropped: list[dict[str, Any]] = field(default_factory=list)

    def drop(self, index: int, action: str, reason: str) -> None:
        self.dropped.append({"index": index, "action": action, "reason": reason})

    @property
    def empty(self) -> bool:
        return not (self.creates or self.confirms or self.archives)


@dataclass(frozen=True)
class Context:
    """Where the actions come from, for provenance and the idle cap."""

    session_id: str
    transcript_path: str
    now: dt.datetime
    harness: str | None = None
    trigger: str = "manual"
    content_hash: str | None = None
    scope: str = "global"
    discovery_tokens: int | None = None
    project: str | None = None  # where the session worked (``workflows.project``); issue 12.7
    writer: str = "extract"
    anchors: tuple[dict[str, str], ...] = ()  # the files the session edited, at HEAD

    @property
    def source(self) -> str:
        return f"drain:{self.session_id or 'unknown'}"


def clean_text(value: Any, limit: int = TEXT_MAX, *, single_line: bool = True) -> str:
    """A bounded plain string: no control characters, one line unless told otherwise."""
    if value is None or isinstance(value, (dict, list, tuple, set)):
        return ""
    text = value if isinstance(value, str) else str(value)
    text = scrub_secrets(_CONTROL.sub(" ", text))  # a model answer never carries a secret in
    text = " ".join(text.split()) if single_line else text.replace("\r\n", "\n").strip()
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def clean_list(value: Any, limit: int = SHORT_MAX) -> list[str]:
    """A bounded list of distinct non-empty strings (a comma string is split)."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)):
        return []
    out: list[str] = []
    for item in value:
        text = clean_text(item, limit)
        if text and text not in out:
            out.append(text)
        if len(out) >= LIST_MAX:
            break
    return out


def learning_id(title: str, rule: str) -> str:
    """``lrn-<slug>-<hash6>`` with ``hash6 = sha1(title + rule)[:6]``."""
    digest = hashlib.sha1((title + rule).encode("utf-8")).hexdigest()[:6]
    return f"lrn-{slugify(title)}-{digest}"


def _confidence(raw: Mapping[str, Any], cap_medium: bool) -> tuple[str, float]:
    tier = normalize_tier(raw.get("confidence"))
    num_raw = raw.get("confidence_num")
    num = (
        float(num_raw)
        if isinstance(num_raw, (int, float)) and not isinstance(num_raw, bool)
        else None
    )
    if num is not None and not 0.0 <= num <= 1.0:
        num = None
    if tier is None:
        tier = tier_from_num(num) if num is not None else "medium"
    if num is None or tier_from_num(num) != tier:
        num = TIER_NUM[tier]
    if cap_medium and tier == "high":
        tier, num = "medium", TIER_NUM["medium"]
    return tier, round(num, 2)


def _entities(value: Any) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if not isinstance(value, list):
        return out
    for item in value[:LIST_MAX]:
        if isinstance(item, Mapping):
            name = clean_text(item.get("name"), 80)
            etype = clean_text(item.get("type"), 40).lower()
            desc = clean_text(item.get("description"), SHORT_MAX)
        else:
            name, etype, desc = clean_text(item, 80), "concept", ""
        if not name or any(e["name"] == name for e in out):
            continue
        # description is required by the sidecar schema, even when empty
        entity = {
            "name": name,
            "type": etype if etype in ENTITY_TYPES else "concept",
            "description": desc,
        }
        out.append(entity)
    return out


def _relations(value: Any) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if not isinstance(value, list):
        return out
    for item in value[:LIST_MAX]:
        if not isinstance(item, Mapping):
            continue
        source = clean_text(item.get("source"), 80)
        target = clean_text(item.get("target"), 80)
        rtype = clean_text(item.get("type"), 40).lower()
        if not source or not target:
            continue
        out.append(
            {
                "source": source,
                "target": target,
                "type": rtype if rtype in RELATIONSHIP_TYPES else "relates_to",
            }
        )
    return out


def _body(fields: Mapping[str, str], extra: str) -> str:
    parts = []
    if fields.get("problem"):
        parts.append(f"## Problem\n\n{fields['problem']}\n")
    solution = [
        f"Root cause: {fields['root_cause']}" if fields.get("root_cause") else "",
        f"Fix: {fields['fix']}" if fields.get("fix") else "",
    ]
    if any(solution):
        parts.append("## Solution\n\n" + "\n\n".join(s for s in solution if s) + "\n")
    if extra:
        parts.append(f"## Context\n\n{extra}\n")
    parts.append(f"**How to apply:** {fields.get('rule') or fields.get('key_insight')}\n")
    return "\n" + "\n".join(parts)


def build_draft(raw: Mapping[str, Any], ctx: Context) -> Draft | str:
    """A Draft from one CREATE, or the reason it cannot become a note."""
    title = clean_text(raw.get("title"), 120)
    if not title:
        return "CREATE without a title"
    fields = {k: clean_text(raw.get(k)) for k in TEXT_FIELDS}
    if not fields["key_insight"]:
        fields["key_insight"] = fields["rule"] or fields["fix"] or title
    idle = ctx.trigger == "idle"
    tier, num = _confidence(raw, cap_medium=idle)
    tags = clean_list(raw.get("tags"), 40)
    tags = [slugify(t, 40) for t in tags if slugify(t, 40) != "untitled"]
    if idle and "speculative" not in tags:
        tags.append("speculative")
    if ctx.writer == "heuristic" and "heuristic" not in tags:
        tags.append("heuristic")
    entities = _entities(raw.get("entities"))
    relations = _relations(raw.get("causal_relations"))
    nid = learning_id(title, fields["rule"])
    now = ctx.now
    front: dict[str, Any] = {
        "type": "learning",
        "id": nid,
        "created": now,
        "updated": now,
        "scope": ctx.scope,
        "confidence": tier,
        "confidence_num": num,
        "learning_type": clean_text(raw.get("learning_type"), 40) or "bug-fix",
        "title": title,
        "tags": list(dict.fromkeys(tags)),
        "symptoms": clean_list(raw.get("symptoms")),
        **{k: v for k, v in fields.items() if v},
        "category": clean_text(raw.get("category"), 40) or "general",
        "entities": [e["name"] for e in entities],
        "causal_relations": relations,
        "source_episodes": [ctx.source],
        "provenance": {
            "source_tool": ctx.harness or "unknown",
            "source_path": ctx.transcript_path,
            "content_hash": ctx.content_hash or "",
            "detected_at": now,
            "source_memory_ids": [ctx.source],
            "proof_count": 1,
            "written_by": authorship.DRAIN,  # reviewed by a person before the team
        },
    }
    if ctx.discovery_tokens:
        front["discovery_tokens"] = ctx.discovery_tokens
    extra = clean_text(raw.get("body"), BODY_MAX, single_line=False)
    note = Note(front, _body(fields, extra))
    # The project it was learned in, scope: project; global only when the text says so.
    front.pop("scope", None)
    front.update(scope_fields(ctx.project, note_text(front, note.body)))
    if ctx.anchors and ctx.project:
        front["anchors"] = [dict(a) for a in ctx.anchors]
    relationships = [{**r, "description": ""} for r in relations]
    # Strict validation wants every edge endpoint to be a known entity.
    names = {e["name"] for e in entities}
    for rel in relations:
        for end in (rel["source"], rel["target"]):
            if end not in names:
                names.add(end)
                entities.append({"name": end, "type": "concept", "description": ""})
    sidecar = Sidecar(
        {
            "document_id": nid,
            "extracted_at": format_timestamp(now),
            "entities": entities,
            "relationships": relationships,
        }
    )
    return Draft(nid, note, sidecar)


def _schema_problems(draft: Draft) -> list[str]:
    """The KB schema's verdict (``reflectgit.notes.schema``), when that module is installed."""
    try:
        schema = importlib.import_module("reflectgit.notes.schema")
    except ImportError:
        return []
    out: list[str] = []
    checks = (
        ("validate_note_bytes", render_note(draft.note), f"{draft.id}.md"),
        ("validate_sidecar_bytes", render_sidecar(draft.sidecar), f"{draft.id}.entities.yaml"),
    )
    for name, data, path in checks:
        check = getattr(schema, name, None)
        if check is None:
            continue
        for problem in check(data, path):
            where = getattr(problem, "field", "") or ""
            out.append(f"{path}: {where}: {getattr(problem, 'message', problem)}")
    return out


def validate_draft(draft: Draft) -> list[str]:
    """Problems that keep a draft out of the KB (empty when it may be committed)."""
    problems: list[str] = _schema_problems(draft)
    if not is_safe_id(draft.id) or not re.fullmatch(r"lrn-[a-z0-9-]+-[0-9a-f]{6,}", draft.id):
        problems.append(f"unsafe id {draft.id!r}")
    try:
        again = parse_note(render_note(draft.note), f"{draft.id}.md")
    except Exception as exc:  # a NoteError: the rendered bytes do not read back
        return [*problems, f"note does not parse back: {exc}"]
    front = again.frontmatter
    if render_note(again) != render_note(draft.note):
        problems.append("note does not round-trip")
    for key in ("title", "created", "confidence", "key_insight"):
        if not front.get(key):
            problems.append(f"missing {key}")
    if normalize_tier(front.get("confidence")) != front.get("confidence"):
        problems.append(f"confidence {front.get('confidence')!r} is not high|medium|low")
    bad = [k for k in RANKING_FIELDS if k in front]
    if bad:
        problems.append(f"ranking fields are not allowed in notes (S9): {', '.join(bad)}")
    if front.get("id") != draft.id:
        problems.append("frontmatter id differs from the file id")
    for edge in front.get("causal_relations") or []:
        if not isinstance(edge, dict) or edge.get("type") not in RELATIONSHIP_TYPES:
            problems.append(f"causal relation type {edge!r} is not in the closed set")
    try:
        side = parse_sidecar(render_sidecar(draft.sidecar), f"{draft.id}.entities.yaml")
    except Exception as exc:
        return [*problems, f"sidecar does not parse back: {exc}"]
    if side.document_id != draft.id:
        problems.append("sidecar document_id differs from the note id")
    for entity in side.data.get("entities") or []:
        if not isinstance(entity, dict) or entity.get("type") not in ENTITY_TYPES:
            problems.append(f"entity type of {entity!r} is not in the closed set")
    for rel in side.data.get("relationships") or []:
        if not isinstance(rel, dict) or rel.get("type") not in RELATIONSHIP_TYPES:
            problems.append(f"relationship type of {rel!r} is not in the closed set")
    return problems


# Where a writer may put a CREATE's fields instead of beside its "action": the original tool's
# contract nests them, {"action": "CREATE", "reason": ..., "learning": {"title": ...}}.
NESTED_FIELDS = ("learning", "note")


def unnest(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """One action with its fields beside its ``action``, however the writer nested them.

    ``{"action": "CREATE", "learning": {...}}`` and ``{"CREATE": {...}}`` read as the flat
    shape; fields given at both levels keep the outer value.
    """
    if len(raw) == 1:
        ((key, inner),) = raw.items()
        kinds = ("CREATE", "UPDATE", "DELETE", "ADD")
        if isinstance(key, str) and key.upper() in kinds and isinstance(inner, Mapping):
            return {**inner, "action": key.upper()}
    for key in NESTED_FIELDS:
        inner = raw.get(key)
        if isinstance(inner, Mapping):
            outer = {k: v for k, v in raw.items() if k != key}
            return {**inner, **outer}
    return raw


def plan_actions(
    actions: Iterable[Any],
    ctx: Context,
    *,
    revision_ids: Iterable[str],
    exists: Callable[[str], bool] = lambda _id: False,
    twins: TwinFinder | None = None,
) -> Plan:
    """Turn raw writer actions into a safe Plan (see the module docstring for the rules).

    ``twins`` knows the live notes: a CREATE whose rule one of them already states (in other
    words) confirms that note instead, and two CREATEs of one answer that are twins make one
    note.
    """
    allowed = set(revision_ids)
    finder = twins if twins is not None else TwinFinder()
    plan = Plan()
    seen_ids: set[str] = set()
    creates = 0
    for index, raw in enumerate(actions):
        if index >= MAX_ACTIONS:
            plan.drop(index, "?", f"over the cap of {MAX_ACTIONS} actions (the rest ignored)")
            break
        if not isinstance(raw, Mapping):
            plan.drop(index, "?", "action is not an object")
            continue
        raw = unnest(raw)
        kind = clean_text(raw.get("action") or raw.get("type") or raw.get("op"), 20).upper()
        if kind in ("CREATE", "ADD"):
            creates += 1
            if creates > MAX_CREATES:
                plan.drop(index, "CREATE", f"over the cap of {MAX_CREATES} CREATEs")
                continue
            draft = build_draft(raw, ctx)
            if isinstance(draft, str):
                plan.drop(index, "CREATE", draft)
                continue
            if draft.id in seen_ids:
                plan.drop(index, "CREATE", f"duplicate of {draft.id} in the same answer")
                continue
            seen_ids.add(draft.id)
            if exists(draft.id):
                # Same title and rule as a learning we hold: that is a confirmation.
                plan.confirms.append((draft.id, "re-learned (same title and rule)"))
                continue
            rule = str(draft.note.frontmatter.get("rule") or "")
            twin = finder.find(draft.title, rule)
            if twin is not None:
                if any(d.id == twin.id for d in plan.creates):
                    plan.drop(index, "CREATE", f"twin of {twin.id} in the same answer")
                    continue
                if twin.id in seen_ids:
                    plan.drop(index, "CREATE", f"twin of {twin.id}, which already has an action")
                    continue
                seen_ids.add(twin.id)
                plan.confirms.append((twin.id, f"re-learned: twin of {twin.id} (the same rule)"))
                continue
            problems = validate_draft(draft)
            if problems:
                plan.drop(index, "CREATE", "invalid note: " + "; ".join(problems))
                continue
            plan.creates.append(draft)
            finder.add(draft.id, draft.title, rule)
        elif kind in ("UPDATE", "DELETE"):
            target = (
                raw.get("id") or raw.get("target_id") or raw.get("target") or raw.get("learning_id")
            )
            target_id = target if isinstance(target, str) else ""
            reason = clean_text(raw.get("reason"), 300) or (
                "confirmed by a later session" if kind == "UPDATE" else "retired by the drain"
            )
            if target_id not in allowed:
                plan.drop(index, kind, f"id {clean_text(target_id, 80)!r} is not listed")
                continue
            if target_id in seen_ids:
                plan.drop(index, kind, f"{target_id} already has an action")
                continue
            seen_ids.add(target_id)
            (plan.confirms if kind == "UPDATE" else plan.archives).append((target_id, reason))
        else:
            plan.drop(index, kind or "?", "unknown action")
    return plan
