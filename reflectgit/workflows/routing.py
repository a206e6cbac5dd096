"""Confidence routing: high -> the team's ``main``; medium -> ``knowledge/<slug>`` + draft PR;
low, or no team -> a review-queue pointer in the personal KB.

Routing never checks anything out. Every team commit is built as objects on top of a tip
fetched from the remote (``main`` for high notes, ``main`` or the existing knowledge branch for
medium ones) and pushed by sha to exactly one ref, so a medium note can never reach ``main``:
no local branch is ever shared between routes. A rejected push of ``main`` (someone else
pushed first) fetches, re-applies and pushes again, a bounded number of times, and every
attempt is reported. The source note is read, never rewritten; a push that fails leaves it
where it was and the result says how to retry.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from reflectgit.config import DOCUMENTS, REVIEW_QUEUE, SETTINGS_FILE, Config
from reflectgit.errors import NoteError, NotFoundError, RemoteError
from reflectgit.notes import messages, names
from reflectgit.notes.dates import format_timestamp, utc_now
from reflectgit.notes.note import (
    Note,
    dump_yaml,
    is_safe_id,
    parse_note,
    sidecar_path_for,
    slugify,
)
from reflectgit.workflows.team import KNOWLEDGE_PREFIX, Team, resolve_team

DEFAULT_ATTEMPTS = 5
TMP_BRANCH_PREFIX = "reflect-git/routing/"


# ============================================================================ inputs


@dataclass(frozen=True)
class SourceNote:
    """The note being routed: its bytes (and sidecar's), parsed, and where it lives."""

    data: bytes
    note: Note
    source: str  # KB-relative path, or the absolute path of a file outside the KB
    team_path: str  # where it goes in the team KB: documents/<file>
    sidecar: bytes | None

    @property
    def id(self) -> str:
        return self.note.id or PurePosixPath(self.team_path).stem

    @property
    def title(self) -> str:
        return self.note.title or self.id

    @property
    def sidecar_team_path(self) -> str:
        return sidecar_path_for(self.team_path)

    def changes(self) -> list[Any]:
        from reflectgit.git.store import write

        out = [write(self.team_path, self.data)]
        if self.sidecar is not None:
            out.append(write(self.sidecar_team_path, self.sidecar))
        return out


def load_source(cfg: Config, target: str) -> SourceNote:
    """``target`` is a note file (absolute path) or an id of a note in the personal KB."""
    path = Path(target)
    if path.is_absolute() and path.is_file():
        return _from_file(cfg, path)
    return _from_id(cfg, target)


def _from_file(cfg: Config, path: Path) -> SourceNote:
    data = path.read_bytes()
    note = parse_note(data, str(path))
    sidecar_file = Path(sidecar_path_for(str(path)))
    sidecar = sidecar_file.read_bytes() if sidecar_file.is_file() else None
    try:
        rel = path.resolve().relative_to(cfg.kb.resolve()).as_posix()
    except ValueError:
        rel = None
    return SourceNote(data, note, rel or str(path), team_path_of(note, path.name), sidecar)


def team_path_of(note: Note, file_name: str) -> str:
    """Where a note goes in the team KB: ``documents/<id>.md``, by its frontmatter id.

    The id (not the file name) is the note's identity: two people who saved the same note
    under different names route it to one path, and a hand-named file lands where every
    reflect-git command looks for its id. A note without an id keeps its file's stem.
    """
    stem = PurePosixPath(file_name).name
    stem = stem[: -len(".md")] if stem.endswith(".md") else stem
    ident = note.id if is_safe_id(note.id) else None
    return f"{DOCUMENTS}/{ident or stem}.md"


def _from_id(cfg: Config, note_id: str) -> SourceNote:
    from reflectgit.git.store import Store

    store = Store.open(cfg.kb, cfg.env)
    direct = f"{DOCUMENTS}/{note_id}.md"
    candidates = [direct] if store.exists(direct) else []
    if not candidates:
        for rel, _blob in sorted(store.list_files(DOCUMENTS).items()):
            if not rel.endswith(".md") or rel.count("/") != 1:
                continue
            raw = store.read(rel)
            try:
                if raw is not None and parse_note(raw, rel).id == note_id:
                    candidates.append(rel)
                    break
            except NoteError:
                continue
    if not candidates:
        raise NotFoundError(
            f"no note with id {note_id!r} in {cfg.kb}",
            hint="pass the note's file path, or see the ids with `reflect-git list`",
        )
    rel = candidates[0]
    data = store.read(rel)
    assert data is not None
    sidecar = store.read(sidecar_path_for(rel))
    note = parse_note(data, rel)
    return SourceNote(data, note, rel, team_path_of(note, rel), sidecar)


def validate_source(src: SourceNote) -> list[str]:
    """Pre-validated commits: refuse a note (or sidecar) the schema rejects.

    A missing or unknown ``confidence`` is the one exception: routing sends such a note to a
    knowledge branch as medium (the reference's rule), where review shows the problem and
    approve refuses it until it is fixed. Those problems come back as notes.
    """
    from reflectgit.notes import secrets
    from reflectgit.notes.schema import validate_note, validate_sidecar_bytes

    problems = validate_note(src.note, src.source)
    if src.sidecar is not None:
        problems += validate_sidecar_bytes(src.sidecar, sidecar_path_for(src.source))
    problems += secrets.source_problems(src.note, src.sidecar, src.source)  # never pushed
    errors = [p for p in problems if p.severity == "error" and p.field != "confidence"]
    warnings = [
        f"{p.field}: {p.message} (fix it before the branch is approved)"
        for p in problems
        if p.field == "confidence"
    ]
    if errors:
        first = errors[0]
        raise NoteError(
            f"{first.file}:{first.line}:{first.column}: {first.field + ': ' if first.field else ''}"
            f"{first.message}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""),
            hint=secrets.HINT
            if secrets.MASK in first.message
            else f"fix the note (`reflect-git validate {src.source}`), then route it again",
            line=first.line,
            column=first.column,
            field=first.field,
        )
    return warnings


# ============================================================================ result


@dataclass
class RouteResult:
    """What routing did (or, with ``--dry-run``, would do)."""

    route: str  # "main" | "branch" | "queue"
    id: str
    title: str
    tier: str
    source: str
    branch: str | None = None
    commit: str | None = None
    pushed: bool = False
    pr_url: str | None = None
    queue_path: str | None = None
    dry_run: bool = False
    attempts: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "route": self.route,
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "source": self.source,
            "branch": self.branch,
            "commit": self.commit,
            "pushed": self.pushed,
            "pr_url": self.pr_url,
            "queue_path": self.queue_path,
            "dry_run": self.dry_run,
            "attempts": self.attempts,
            "notes": self.notes,
            "error": self.error,
        }

    def lines(self) -> list[str]:
        verb = "would route" if self.dry_run else "could not route" if self.error else "routed"
        where = {"main": "team main", "branch": self.branch or "a knowledge branch"}.get(
            self.route, self.queue_path or "the review queue"
        )
        out = [f"{verb} {self.id} ({self.tier}) -> {where}"]
        for attempt in self.attempts:
            out.append(
                f"  attempt {attempt['attempt']}: {attempt['result']}"
                + (f" (commit {attempt['commit'][:10]})" if attempt.get("commit") else "")
            )
        if self.commit:
            out.append(f"commit: {self.commit}")
        if self.route != "queue" and not self.dry_run:
            out.append(f"pushed: {'yes' if self.pushed else 'no'}")
        if self.pr_url:
            out.append(f"pull request: {self.pr_url}")
        out += [f"note: {n}" for n in self.notes]
        return out


# ============================================================================ routing


def route(
    cfg: Config,
    target: str,
    *,
    team_path: str | Path | None = None,
    dry_run: bool = False,
    max_attempts: int | None = None,
    clock: Callable[[], datetime] = utc_now,
) -> RouteResult:
    """Route one note by its confidence tier (missing or unknown confidence means medium)."""
    src = load_source(cfg, target)
    warnings = validate_source(src)
    tier = src.note.tier or "medium"
    result = RouteResult("queue", src.id, src.title, tier, src.source, dry_run=dry_run)
    if src.note.tier is None:
        result.notes.append("no usable confidence on the note: routed as medium")
    result.notes += warnings
    team = resolve_team(cfg, team_path) if tier != "low" else None
    if tier == "low" or team is None:
        if team is None and tier != "low":
            result.notes.append("no team KB configured: queued for review in the personal KB")
        return _to_queue(cfg, src, result, clock)
    attempts = max_attempts or cfg.routing.max_attempts
    if tier == "high":
        result.route = "main"
        return _to_main(team, src, result, max(1, attempts))
    result.route = "branch"
    return _to_branch(cfg, team, src, result)


def retry_hint(src: SourceNote) -> str:
    return f"the note is safe in your KB ({src.source}); run `reflect-git route {src.id}` again"


def _commit_message(src: SourceNote, tier: str) -> messages.CommitMessage:
    kind = "feat" if tier == "high" else "docs"
    return messages.build(
        messages.knowledge_subject(src.title, tier, kind),
        "route",
        [src.id],
        confidence=tier,
        source="route",
    )


def _same_on(store: Any, src: SourceNote, rev: str | None) -> bool:
    """Is this exact note (and sidecar) already at ``rev``?"""
    if rev is None or store.read(src.team_path, rev=rev) != src.data:
        return False
    return src.sidecar is None or store.read(src.sidecar_team_path, rev=rev) == src.sidecar


def _tmp_branch() -> str:
    # Unique per call: concurrent routes in one clone never share a local ref.
    return f"{TMP_BRANCH_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"


def _build(store: Any, src: SourceNote, base: str | None, tier: str) -> str | None:
    """Commit the (validated) note on ``base`` as objects; the scratch ref is gone afterwards."""
    from reflectgit.git.scratch import commit_on

    return commit_on(store, src.changes(), _commit_message(src, tier), base, scratch=_tmp_branch())


def _fail(result: RouteResult, src: SourceNote, exc: RemoteError) -> RouteResult:
    result.error = exc.message
    result.hint = (exc.hint + "; " if exc.hint else "") + retry_hint(src)
    return result


def _to_main(team: Team, src: SourceNote, result: RouteResult, attempts: int) -> RouteResult:
    remote = team.remote()
    store = team.store()
    result.branch = team.branch
    if result.dry_run:
        try:
            tip = remote.ls_remote().get(team.branch)
        except RemoteError as exc:
            return _fail(result, src, exc)
        result.notes.append(
            f"would commit {src.team_path} on {team.branch} at {tip[:10] if tip else '(empty)'} "
            f"of {remote.display()} and push"
        )
        return result
    for number in range(1, attempts + 1):
        try:
            base = remote.fetch().get(team.branch)
        except RemoteError as exc:
            result.attempts.append(
                {"attempt": number, "base": None, "commit": None, "result": "fetch failed"}
            )
            return _fail(result, src, exc)
        if _same_on(store, src, base):
            result.commit = base
            result.notes.append(f"already on the team's {team.branch}: nothing to push")
            result.attempts.append(
                {"attempt": number, "base": base, "commit": None, "result": "already there"}
            )
            return result
        sha = _build(store, src, base, "high")
        if sha is None:  # same tree as main (say, a sidecar-less copy): nothing to add
            result.commit = base
            result.notes.append(f"already on the team's {team.branch}: nothing to push")
            return result
        try:
            [outcome] = remote.push([f"{sha}:refs/heads/{team.branch}"])
        except RemoteError as exc:
            result.attempts.append(
                {"attempt": number, "base": base, "commit": sha, "result": "push failed"}
            )
            return _fail(result, src, exc)
        if outcome.ok:
            result.attempts.append(
                {"attempt": number, "base": base, "commit": sha, "result": "pushed"}
            )
            result.commit, result.pushed = sha, True
            store.set_any_ref(remote.tracking_prefix + team.branch, sha)
            return result
        reason = f"rejected ({outcome.reason or outcome.status})"
        result.attempts.append({"attempt": number, "base": base, "commit": sha, "result": reason})
        if not outcome.stale:
            result.error = f"the team remote refused the push to {team.branch}: {outcome.reason}"
            result.hint = retry_hint(src)
            return result
    result.error = f"the team's {team.branch} kept moving: push rejected {attempts} times in a row"
    result.hint = retry_hint(src)
    return result


def _to_branch(cfg: Config, team: Team, src: SourceNote, result: RouteResult) -> RouteResult:
    remote = team.remote()
    store = team.store()
    slug = names.safe_stem(slugify(src.title))  # never knowledge/con
    try:
        heads = remote.ls_remote() if result.dry_run else remote.fetch()
    except RemoteError as exc:
        return _fail(result, src, exc)
    base = heads.get(team.branch)
    known = lambda sha: store.resolve(sha) is not None  # noqa: E731 - objects may be missing in a dry run
    if base and known(base) and _same_on(store, src, base):
        result.route = "main"
        result.branch = team.branch
        result.commit = base
        result.notes.append(f"already on the team's {team.branch}: nothing to do")
        return result
    existing = _existing_branch(store, src, heads, base, slug, known)
    if existing is not None:
        name, tip = existing
        result.branch = name
        if _same_on(store, src, tip):
            result.commit = tip
            result.notes.append(f"already on {name}: nothing new to push")
        elif result.dry_run:
            result.notes.append(f"would add the new version of the note to {name} and push")
        else:
            sha = _build(store, src, tip, "medium")
            if sha is None:
                result.commit = tip
                result.notes.append(f"already on {name}: nothing new to push")
            elif not _push_branch(remote, store, result, src, name, sha, tip):
                return result
    else:
        name = _unique_branch(slug, heads)
        result.branch = name
        if result.dry_run:
            result.notes.append(
                f"would create {name} from {team.branch} of {remote.display()}, push it and open a draft PR"
            )
            return result
        sha = _build(store, src, base, "medium")
        assert sha is not None  # the note is not on main, so the tree changes
        for _ in range(DEFAULT_ATTEMPTS):
            if _push_branch(remote, store, result, src, name, sha, base, quiet_stale=True):
                break
            if result.error:
                return result
            # Someone took the name in the meantime: the next free one.
            heads = remote.fetch()
            name = _unique_branch(slug, heads)
            result.branch = name
        else:
            result.error = f"could not find a free branch name for {slug}"
            result.hint = retry_hint(src)
            return result
    if result.dry_run:
        return result
    _ensure_pr(cfg, team, remote, store, src, result)
    return result


def _push_branch(
    remote: Any,
    store: Any,
    result: RouteResult,
    src: SourceNote,
    name: str,
    sha: str,
    expected: str | None,
    *,
    quiet_stale: bool = False,
) -> bool:
    number = len(result.attempts) + 1
    try:
        [outcome] = remote.push([f"{sha}:refs/heads/{name}"])
    except RemoteError as exc:
        result.attempts.append(
            {"attempt": number, "base": expected, "commit": sha, "result": "push failed"}
        )
        _fail(result, src, exc)
        return False
    if outcome.ok:
        result.attempts.append(
            {"attempt": number, "base": expected, "commit": sha, "result": "pushed"}
        )
        result.commit, result.pushed = sha, True
        store.set_any_ref(remote.tracking_prefix + name, sha)
        return True
    result.attempts.append(
        {
            "attempt": number,
            "base": expected,
            "commit": sha,
            "result": f"rejected ({outcome.reason})",
        }
    )
    if not (quiet_stale and outcome.stale):
        result.error = f"the team remote refused the push to {name}: {outcome.reason}"
        result.hint = retry_hint(src)
    return False


def _existing_branch(
    store: Any,
    src: SourceNote,
    heads: Mapping[str, str],
    base: str | None,
    slug: str,
    known: Callable[[str], bool],
) -> tuple[str, str] | None:
    """A knowledge branch that already carries this note (its path differs from main there)."""
    on_main = store.read(src.team_path, rev=base) if base and known(base) else None
    candidates = sorted(
        (name for name in heads if name.startswith(KNOWLEDGE_PREFIX)),
        key=lambda n: (not n.startswith(f"{KNOWLEDGE_PREFIX}{slug}"), n),
    )
    for name in candidates:
        tip = heads[name]
        if not known(tip):
            continue
        there = store.read(src.team_path, rev=tip)
        if there is not None and there != on_main:
            return name, tip
    return None


def _unique_branch(slug: str, heads: Mapping[str, str]) -> str:
    name = f"{KNOWLEDGE_PREFIX}{slug}"
    number = 2
    while name in heads:
        name = f"{KNOWLEDGE_PREFIX}{slug}-{number}"
        number += 1
    return name


def forge_settings(cfg: Config, store: Any, base: str | None) -> dict[str, Any]:
    """``[forge]`` from the team KB's settings on main, overridden by the personal KB's."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    merged: dict[str, Any] = {}
    raw = store.read(SETTINGS_FILE, rev=base) if base else None
    if raw:
        try:
            table = tomllib.loads(raw.decode("utf-8")).get("forge")
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            table = None
        if isinstance(table, Mapping):
            merged.update(table)
    mine = cfg.settings.get("forge")
    if isinstance(mine, Mapping):
        merged.update(mine)
    return merged


def pr_body(src: SourceNote, branch: str) -> str:
    insight = src.note.frontmatter.get("key_insight")
    lines = [f"Learning `{src.id}` routed by reflect-git with medium confidence."]
    if isinstance(insight, str) and insight.strip():
        lines += ["", f"> {insight.strip()}"]
    lines += [
        "",
        f"Review with `reflect-git review show {branch}`; "
        f"approve with `reflect-git review approve {branch}`.",
    ]
    return "\n".join(lines)


def _ensure_pr(
    cfg: Config, team: Team, remote: Any, store: Any, src: SourceNote, result: RouteResult
) -> None:
    """Find the open PR for the branch, or open a draft; a missing forge is a note, not a failure."""
    from reflectgit.errors import ForgeError
    from reflectgit.forge.base import manual_pr_url
    from reflectgit.forge.choose import choose_forge

    assert result.branch
    url = remote.url()
    base = remote.tracked().get(team.branch)
    settings = forge_settings(cfg, store, base)
    try:
        choice = choose_forge(url, settings, cfg.env)
    except ForgeError as exc:
        result.notes.append(f"no pull request: {exc.message}")
        return
    if choice.forge is None:
        manual = manual_pr_url(url, result.branch, team.branch, choice.provider)
        result.notes.append(
            f"no pull request opened ({choice.reason}); open it by hand"
            + (f": {manual}" if manual else f" from {result.branch} into {team.branch}")
        )
        return
    try:
        pr = choice.forge.find_open(result.branch, team.branch)
        if pr is not None:
            result.notes.append(f"pull request already open: #{pr.number}")
        else:
            pr = choice.forge.open_draft(
                result.branch, team.branch, src.title, pr_body(src, result.branch)
            )
            result.notes.append(f"opened draft pull request #{pr.number} ({choice.reason})")
        result.pr_url = pr.url
    except ForgeError as exc:
        manual = manual_pr_url(url, result.branch, team.branch, choice.provider)
        result.notes.append(
            f"the branch is pushed but the pull request failed: {exc.message}; "
            f"open it by hand{': ' + manual if manual else ''}, or run `reflect-git route {src.id}` again"
        )


# ============================================================================ review queue


def queue_pointer(src: SourceNote, tier: str, queued_at: datetime) -> dict[str, Any]:
    """The review-queue pointer (reference: KB format, review-queue/)."""
    front = src.note.frontmatter
    created = front.get("created")
    if isinstance(created, datetime):
        created = format_timestamp(created)
    elif created is not None and not isinstance(created, str):
        created = str(created)
    tags = front.get("tags")
    return {
        "slug": slugify(src.title),
        "title": src.title,
        "source": src.source,
        "confidence": tier,
        "category": front.get("category") if isinstance(front.get("category"), str) else None,
        "tags": [str(t) for t in tags] if isinstance(tags, list) else [],
        "created": created,
        "queued_at": format_timestamp(queued_at),
    }


def _to_queue(
    cfg: Config, src: SourceNote, result: RouteResult, clock: Callable[[], datetime]
) -> RouteResult:
    """Commit a review-queue pointer to the personal KB, through the KB's mutation door."""
    from reflectgit.git.store import write
    from reflectgit.notes.note import load_yaml
    from reflectgit.workflows.kb import KnowledgeBase
    from reflectgit.workflows.kb.base import Edit, Snapshot

    pointer = queue_pointer(src, result.tier, clock())
    slug = names.safe_stem(pointer["slug"])  # never review-queue/con.yaml

    def build(snap: Snapshot) -> Edit[tuple[str, bool]]:
        """(pointer path, already queued?) and the pointer's commit."""
        path = f"{REVIEW_QUEUE}/{slug}.yaml"
        number = 2
        while True:
            raw = snap.read(path)
            if raw is None:
                break
            try:
                existing = load_yaml(raw.decode("utf-8"), path)
            except (NoteError, UnicodeDecodeError):
                existing = None
            if isinstance(existing, Mapping) and existing.get("source") == src.source:
                return Edit((path, True))
            path = f"{REVIEW_QUEUE}/{slug}-{number}.yaml"
            number += 1
        message = messages.build(
            messages.chore_subject("review-queue", slug),
            "review-queue",
            [src.id],
            confidence=result.tier,
            source="route",
        )
        change = write(path, dump_yaml(pointer).encode("utf-8"))
        return Edit((path, False), [change], message)

    with KnowledgeBase.open(cfg.kb, env=cfg.env, source="route") as kb:
        if result.dry_run:
            path, queued = build(Snapshot(kb)).value
        else:
            done = kb.mutate(build)
            (path, queued), result.commit = done.value, done.commit
    result.queue_path = path
    if queued:
        result.notes.append(f"already queued for review at {path}: nothing to do")
    elif result.dry_run:
        result.notes.append(f"would write {path} and commit it to the personal KB")
    return result
