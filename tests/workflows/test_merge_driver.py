"""Two teammates edit one note: real ``git merge``, ``git pull`` and ``git rebase`` of diverged
clones merge it field by field through the merge driver ``init`` registers.

A generated matrix of edit pairs (every field kind: scalars, numbers, dates, lists that are sets
with additions and removals, nested mappings, the body; same field and different fields; LF and
CRLF notes; sidecars) is applied in two clones of one KB, one note per pair, both sides bumping
``updated`` as ``update`` does. One merge merges them all. Then: a pair that changed different
fields (or a list on both sides) merged cleanly with nothing lost and the note valid; a pair
that changed the same scalar differently is a conflict in that field alone, whose two sides are
each the whole merge with that side's value.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from reflectgit.notes.conflicts import conflicts
from reflectgit.notes.inplace import rewrite_note, rewrite_sidecar
from reflectgit.notes.merge import SET_FIELDS, SIDECAR_SET_FIELDS
from reflectgit.notes.note import Note, parse_note, parse_sidecar
from reflectgit.notes.schema import validate_note_bytes, validate_sidecar_bytes
from tests.conftest import git

BASE_NOTE = """---
type: learning
id: {id}
created: 2026-03-04T09:12:00Z
updated: 2026-03-04T09:12:00Z
scope: global
confidence: medium
confidence_num: 0.6
learning_type: bug-fix
discovery_tokens: 14200
title: "Pool timeout on cold start"
tags: ["postgres", "pooling"]
symptoms:
  - "TimeoutError: QueuePool limit of size 5 overflow 10 reached"
  - "first request after deploy hangs"
key_insight: "Warm the pool before the first request burst."
rule: "Prefill connection pools in the startup hook."  # the imperative
entities: ["sqlalchemy", "QueuePool"]
causal_relations:
  - source: "lazy pool init"
    target: "cold start timeout"
    type: caused_by
source_episodes: [ep-20260304-091200]
forget_after: null
provenance:
  source_tool: "claude"
  source_memory_ids: [ep-1]
  proof_count: 1
---

## Problem
First requests after deploy time out.

## Solution
Open min_size connections during startup.

## Context
Seen on the billing service.
"""

BASE_SIDECAR = """document_id: {id}
extracted_at: "2026-03-04T09:12:00Z"
entities:
  - name: "sqlalchemy"
    type: library
    description: "Python SQL toolkit"
relationships:
  - source: "lazy pool init"
    target: "sqlalchemy"
    type: caused_by
    description: "Connections open lazily under load"
"""

Front = dict[str, Any]


@dataclass(frozen=True)
class Edit:
    """One person's change: its name, the field it touches and whether two different values
    of that field conflict (a scalar), and the change itself."""

    name: str
    field: str
    scalar: bool
    apply: Callable[[Front, str], tuple[Front, str]]


def _set(field: str, value: Any) -> Callable[[Front, str], tuple[Front, str]]:
    def apply(front: Front, body: str) -> tuple[Front, str]:
        out = dict(front)
        if "." in field:
            top, key = field.split(".")
            out[top] = {**out[top], key: value}
        else:
            out[field] = value
        return out, body

    return apply


def _drop(field: str) -> Callable[[Front, str], tuple[Front, str]]:
    def apply(front: Front, body: str) -> tuple[Front, str]:
        return {k: v for k, v in front.items() if k != field}, body

    return apply


def _add(field: str, item: Any) -> Callable[[Front, str], tuple[Front, str]]:
    def apply(front: Front, body: str) -> tuple[Front, str]:
        return {**front, field: [*front.get(field, []), item]}, body

    return apply


def _remove(field: str, item: Any) -> Callable[[Front, str], tuple[Front, str]]:
    def apply(front: Front, body: str) -> tuple[Front, str]:
        return {**front, field: [v for v in front[field] if v != item]}, body

    return apply


def _confirm(source: str) -> Callable[[Front, str], tuple[Front, str]]:
    def apply(front: Front, body: str) -> tuple[Front, str]:
        prov = dict(front["provenance"])
        prov["source_memory_ids"] = [*prov["source_memory_ids"], source]
        prov["proof_count"] = prov["proof_count"] + 1
        return {**front, "provenance": prov}, body

    return apply


def _body(heading: str, new: str) -> Callable[[Front, str], tuple[Front, str]]:
    """The line under ``heading`` rewritten."""

    def apply(front: Front, body: str) -> tuple[Front, str]:
        lines = body.split("\n")
        lines[lines.index(heading) + 1] = new
        return front, "\n".join(lines)

    return apply


EDGE = {"source": "pool size", "target": "cold start timeout", "type": "causes"}
EDITS = {
    e.name: e
    for e in [
        Edit("title-a", "title", True, _set("title", "Pool timeout at cold start")),
        Edit("title-b", "title", True, _set("title", "Cold start: the pool times out")),
        Edit("confidence-high", "confidence", True, _set("confidence", "high")),
        Edit("confidence-low", "confidence", True, _set("confidence", "low")),
        Edit("num-a", "confidence_num", True, _set("confidence_num", 0.95)),
        Edit("num-b", "confidence_num", True, _set("confidence_num", 0.4)),
        Edit("tokens", "discovery_tokens", True, _set("discovery_tokens", 999)),
        Edit("scope", "scope", True, _set("scope", "project")),
        Edit("insight-a", "key_insight", True, _set("key_insight", "Prefill the pool.")),
        Edit("insight-b", "key_insight", True, _set("key_insight", "Warm it at startup.")),
        Edit("forget-a", "forget_after", True, _set("forget_after", "2027-01-01")),
        Edit("forget-b", "forget_after", True, _set("forget_after", "2028-06-30")),
        Edit("category-new", "category", True, _set("category", "debugging")),
        Edit("rule-gone", "rule", True, _drop("rule")),
        Edit("tool-a", "provenance.source_tool", True, _set("provenance.source_tool", "codex")),
        Edit("tool-b", "provenance.source_tool", True, _set("provenance.source_tool", "gemini")),
        Edit("tag-add-a", "tags", False, _add("tags", "startup")),
        Edit("tag-add-b", "tags", False, _add("tags", "latency")),
        Edit("tag-remove", "tags", False, _remove("tags", "pooling")),
        Edit("symptom-add", "symptoms", False, _add("symptoms", "502 from the load balancer")),
        Edit(
            "symptom-remove",
            "symptoms",
            False,
            _remove("symptoms", "first request after deploy hangs"),
        ),
        Edit("entity-add-a", "entities", False, _add("entities", "psycopg")),
        Edit("entity-add-b", "entities", False, _add("entities", "pgbouncer")),
        Edit("entity-remove", "entities", False, _remove("entities", "QueuePool")),
        Edit("episode-add", "source_episodes", False, _add("source_episodes", "ep-2")),
        Edit("edge-add", "causal_relations", False, _add("causal_relations", EDGE)),
        Edit("confirm-a", "provenance.source_memory_ids", False, _confirm("pr-12")),
        Edit("confirm-b", "provenance.source_memory_ids", False, _confirm("pr-34")),
        Edit(
            "body-problem",
            "body:problem",
            True,
            _body("## Problem", "The first requests after a deploy time out."),
        ),
        Edit(
            "body-problem-b",
            "body:problem",
            True,
            _body("## Problem", "Requests right after deploy time out."),
        ),
        Edit(
            "body-context", "body:context", True, _body("## Context", "Seen on billing and search.")
        ),
    ]
}


def _pairs() -> list[tuple[str, str, bool]]:
    """(ours, theirs, crlf): every edit against an edit of another field, the same change on
    both sides, and the same field changed on both sides; a third of the notes in CRLF."""
    names = list(EDITS)
    pairs: list[tuple[str, str]] = []
    for i, name in enumerate(names):
        pairs.append((name, names[(i + 7) % len(names)]))  # another field (mostly)
    # both made the same change: one of each kind
    for name in (
        "title-a",
        "num-a",
        "forget-a",
        "tool-a",
        "tag-add-a",
        "confirm-a",
        "body-context",
    ):
        pairs.append((name, name))
    same_field = [
        ("title-a", "title-b"),
        ("confidence-high", "confidence-low"),
        ("num-a", "num-b"),
        ("insight-a", "insight-b"),
        ("forget-a", "forget-b"),
        ("tool-a", "tool-b"),
        ("tag-add-a", "tag-add-b"),
        ("tag-add-a", "tag-remove"),
        ("entity-add-a", "entity-remove"),
        ("entity-add-b", "entity-add-a"),
        ("confirm-a", "confirm-b"),
        ("body-problem", "body-problem-b"),
        ("body-problem", "body-context"),
        ("rule-gone", "title-a"),
        ("tokens", "scope"),
    ]
    pairs += same_field
    return [(a, b, i % 3 == 0) for i, (a, b) in enumerate(pairs)]


PAIRS = _pairs()
SIDECAR_PAIRS = [
    ("entity-add", "entity-add-other"),
    ("entity-add", "relationship-remove"),
    ("relationship-add", "relationship-remove"),
    ("entity-add", "entity-add"),
]


def _note_id(i: int) -> str:
    return f"pair-{i:03d}"


def _instant(hour: int) -> dt.datetime:
    return dt.datetime(2026, 3, 5, hour, 0, tzinfo=dt.timezone.utc)


def _updated(i: int, side: str) -> dt.datetime:
    """Each side bumps ``updated`` as ``update`` does; which one is later alternates."""
    later = (i % 2 == 0) == (side == "a")
    return _instant(12 if later else 10)


def _base_bytes(i: int, crlf: bool) -> bytes:
    text = BASE_NOTE.format(id=_note_id(i))
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")


def _edited(i: int, edit: str, side: str, data: bytes) -> bytes:
    note = parse_note(data)
    front, body = EDITS[edit].apply(dict(note.frontmatter), note.body)
    front["updated"] = _updated(i, side)
    return rewrite_note(data, Note(front, body))


def _sidecar_edit(name: str, data: dict[str, Any]) -> dict[str, Any]:
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in data.items()}
    if name == "entity-add":
        added = {"name": "psycopg", "type": "library", "description": "driver"}
        out["entities"] = [e for e in out["entities"] if e != added] + [added]
    elif name == "entity-add-other":
        out["entities"].append({"name": "pgbouncer", "type": "tool", "description": "pooler"})
    elif name == "relationship-add":
        out["relationships"].append(
            {"source": "pgbouncer", "target": "psycopg", "type": "uses", "description": ""}
        )
    elif name == "relationship-remove":
        out["relationships"] = [r for r in out["relationships"] if r["target"] != "sqlalchemy"]
    return out


# --------------------------------------------------------------------------- the team


@pytest.fixture
def team(tmp_path: Path, cli: Any) -> dict[str, Path]:
    """A KB made by ``init`` holding every pair's base note, pushed to a bare team repo, and
    two clones (``init`` run in each, as a teammate does in a fresh clone), each with its
    side's edits committed; clone b has pushed."""
    origin = tmp_path / "team.git"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    seed = tmp_path / "seed"
    assert cli("init", str(seed), "--no-pre-commit").code == 0
    docs = seed / "documents"
    for i, (_a, _b, crlf) in enumerate(PAIRS):
        (docs / f"{_note_id(i)}.md").write_bytes(_base_bytes(i, crlf))
    for i, _pair in enumerate(SIDECAR_PAIRS):
        stem = f"side-{i}"
        (docs / f"{stem}.md").write_bytes(
            BASE_NOTE.format(id=stem).encode("utf-8").replace(b"[ep-1]", b"[ep-0]")
        )
        (docs / f"{stem}.entities.yaml").write_text(BASE_SIDECAR.format(id=stem))
    git("add", "-A", cwd=seed)
    git("commit", "-qm", "base notes", cwd=seed)
    git("push", "-q", str(origin), "main", cwd=seed)
    clones = {}
    for side in ("a", "b"):
        clone = tmp_path / side
        git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
        assert cli("init", str(clone), "--no-pre-commit").code == 0  # an existing clone
        for i, (one, two, _crlf) in enumerate(PAIRS):
            path = clone / "documents" / f"{_note_id(i)}.md"
            path.write_bytes(_edited(i, one if side == "a" else two, side, path.read_bytes()))
        for i, (one, two) in enumerate(SIDECAR_PAIRS):
            path = clone / "documents" / f"side-{i}.entities.yaml"
            data = parse_sidecar(path.read_bytes()).data
            wanted = _sidecar_edit(one if side == "a" else two, data)
            path.write_bytes(rewrite_sidecar(path.read_bytes(), wanted))
        git("commit", "-qam", f"teammate {side}", cwd=clone)
        clones[side] = clone
    git("push", "-q", "origin", "main", cwd=clones["b"])
    return clones


# --------------------------------------------------------------------------- expectations


def _expected(i: int, first: str, second: str) -> tuple[Front, str]:
    """Both edits applied to the base, ``second`` last (it wins a field both set)."""
    base = parse_note(_base_bytes(i, False))
    front, body = EDITS[first].apply(dict(base.frontmatter), base.body)
    if second != first:  # the same change made twice is made once
        front, body = EDITS[second].apply(front, body)
    front["updated"] = _instant(12)
    return front, body


def _conflicting(one: str, two: str) -> bool:
    a, b = EDITS[one], EDITS[two]
    return a.field == b.field and a.scalar and one != two


def _comparable(front: Front) -> Front:
    """Set-like lists compared as sets."""
    out = copy.deepcopy(front)
    for path in SET_FIELDS:
        target = out
        for key in path[:-1]:
            target = target.get(key) if isinstance(target.get(key), dict) else {}
        if isinstance(target.get(path[-1]), list):
            target[path[-1]] = sorted(map(repr, target[path[-1]]))
    return out


def _resolve(text: str, keep: str) -> str:
    """The file with every conflict resolved to one side (``ours`` or ``theirs``)."""
    out, state = [], None
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare.startswith("<<<<<<<"):
            state = "ours"
        elif bare.startswith("=======") and state:
            state = "theirs"
        elif bare.startswith(">>>>>>>") and state:
            state = None
        elif state is None or state == keep:
            out.append(line)
    return "".join(out)


def _unmerged(clone: Path) -> set[str]:
    return set(git("diff", "--name-only", "--diff-filter=U", cwd=clone).split())


MODES = {
    "merge": [["fetch", "-q", "origin"], ["merge", "--no-edit", "origin/main"]],
    "pull": [["pull", "--no-rebase", "--no-edit", "origin", "main"]],
    "rebase": [["fetch", "-q", "origin"], ["rebase", "origin/main"]],
}


@pytest.mark.parametrize("mode", list(MODES))
def test_the_matrix_merges_field_by_field(team: dict[str, Path], mode: str) -> None:
    clone = team["a"]
    for args in MODES[mode]:
        git(*args, cwd=clone, check=False)
    # In a rebase, ours is the upstream (b) and theirs the replayed commit (a).
    ours, theirs = ("b", "a") if mode == "rebase" else ("a", "b")
    unmerged = _unmerged(clone)
    lost, invalid, wrong_conflicts = [], [], []
    for i, (one, two, crlf) in enumerate(PAIRS):
        path = f"documents/{_note_id(i)}.md"
        data = (clone / path).read_bytes()
        if crlf:
            assert data.count(b"\n") == data.count(b"\r\n"), f"{path} is no longer CRLF"
        edits = {"a": one, "b": two}
        if _conflicting(one, two):
            if path not in unmerged:
                wrong_conflicts.append(f"{path}: {one} x {two} merged without a conflict")
                continue
            text = data.decode("utf-8")
            assert len(conflicts(text)) == 1, f"{path}: one conflict block, in one field"
            for keep, winner, loser in (("ours", ours, theirs), ("theirs", theirs, ours)):
                note = parse_note(_resolve(text, keep).encode("utf-8"))
                want, body = _expected(i, edits[loser], edits[winner])
                if _comparable(note.frontmatter) != _comparable(want) or note.body != body:
                    lost.append(f"{path} ({keep} side of {one} x {two})")
            continue
        if path in unmerged or conflicts(data.decode("utf-8")):
            wrong_conflicts.append(f"{path}: {one} x {two} conflicted")
            continue
        note = parse_note(data)
        want, body = _expected(i, one, two)
        if _comparable(note.frontmatter) != _comparable(want) or note.body != body:
            lost.append(f"{path} ({one} x {two}): {note.frontmatter} != {want}")
        if [p for p in validate_note_bytes(data, path) if p.severity == "error"]:
            invalid.append(path)
    for i, (one, two) in enumerate(SIDECAR_PAIRS):
        path = f"documents/side-{i}.entities.yaml"
        data = (clone / path).read_bytes()
        assert path not in unmerged and not conflicts(data.decode("utf-8")), path
        base = parse_sidecar(BASE_SIDECAR.format(id=f"side-{i}").encode()).data
        want = _sidecar_edit(two, _sidecar_edit(one, base))
        got = parse_sidecar(data).data
        for key in [k for (k,) in SIDECAR_SET_FIELDS]:
            assert sorted(map(repr, got[key])) == sorted(map(repr, want[key])), (path, key)
        assert not [p for p in validate_sidecar_bytes(data, path) if p.severity == "error"]
    assert len(PAIRS) + len(SIDECAR_PAIRS) >= 50
    assert lost == [], lost
    assert invalid == []
    assert wrong_conflicts == []
    expected = {
        f"documents/{_note_id(i)}.md" for i, (a, b, _c) in enumerate(PAIRS) if _conflicting(a, b)
    }
    assert unmerged == expected


# --------------------------------------------------------------------------- route


def test_route_merges_a_teammates_change_to_the_note_in_a_clone_of_the_team(
    tmp_path: Path, cli: Any
) -> None:
    """The KB is a clone of the team KB. A teammate changed the note's tags on the team's main
    since; routing our change of its confidence merges the two (it used to refuse, as if the
    teammate's older version were another note), and a change of the same field still refuses."""
    origin = tmp_path / "team.git"
    git("init", "-q", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    seed = tmp_path / "seed"
    assert cli("init", str(seed), "--no-pre-commit", "--team-remote", "origin").code == 0
    (seed / "documents" / "pair-000.md").write_bytes(_base_bytes(0, False))
    git("add", "-A", cwd=seed)
    git("commit", "-qm", "base", cwd=seed)
    git("push", "-q", str(origin), "main", cwd=seed)
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for clone in (mine, theirs):
        git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    note = "documents/pair-000.md"
    path = theirs / note
    path.write_bytes(_edited(0, "tag-add-b", "b", path.read_bytes()))
    git("commit", "-qam", "teammate: a tag", cwd=theirs)
    git("push", "-q", "origin", "main", cwd=theirs)
    assert cli("--kb", str(mine), "update", "pair-000", "--set", "confidence=high").code == 0

    dry = cli("--kb", str(mine), "--json", "route", "pair-000", "--dry-run")
    assert dry.code == 0 and any("would merge" in n for n in dry.json()["notes"]), dry
    res = cli("--kb", str(mine), "--json", "route", "pair-000")
    assert res.code == 0, res
    doc = res.json()
    assert doc["pushed"] and any("field by field" in n for n in doc["notes"])
    front = parse_note(git("show", f"main:{note}", cwd=origin).encode()).frontmatter
    assert front["confidence"] == "high" and "latency" in front["tags"]

    # the same field changed on both sides: refused as before, nothing pushed
    git("pull", "-q", "--no-rebase", "--no-edit", cwd=theirs)
    path.write_bytes(_edited(0, "title-b", "b", path.read_bytes()))
    git("commit", "-qam", "teammate: a title", cwd=theirs)
    git("push", "-q", "origin", "main", cwd=theirs)
    tip = git("rev-parse", "main", cwd=origin)
    assert cli("--kb", str(mine), "update", "pair-000", "--set", "title=Mine").code == 0
    dry = cli("--kb", str(mine), "--json", "route", "pair-000", "--dry-run")
    assert any(n.startswith("would refuse") for n in dry.json()["notes"]), dry
    refused = cli("--kb", str(mine), "route", "pair-000")
    assert refused.code == 1 and "refused to overwrite a teammate's note" in refused.err
    assert git("rev-parse", "main", cwd=origin) == tip
