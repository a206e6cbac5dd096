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
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from reflectgit.backoff import Backoff
from reflectgit.config import DOCUMENTS, REVIEW_QUEUE, SETTINGS_FILE, Config, ForgeSettings
from reflectgit.errors import ConflictError, NoteError, NotFoundError, RemoteError
from reflectgit.notes import authorship, messages, names
from reflectgit.notes.dates import format_timestamp, utc_now
from reflectgit.notes.note import (
    Note,
    dump_yaml,
    is_safe_id,
    normalize_tier,
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
    """The note being routed: its normalised bytes (and sidecar's), parsed, and where it lives.

    ``data`` is what reaches the team: the file as written, except a confidence alias
    (``H``, ``Med``, ``LOW``) or a missing confidence written out as ``high|medium|low``.
    """

    data: bytes
    note: Note
    source: str  # KB-relative path, or the absolute path of a file outside the KB
    team_path: str  # where it goes in the team KB: documents/<id>.md
    sidecar: bytes | None
    normalised: tuple[str, ...] = ()  # what normalising changed, for the report

    @property
    def id(self) -> str:
        return self.note.id or PurePosixPath(self.team_path).stem

    @property
    def title(self) -> str:
        """The title as the branch name, the commit subject, the pull request and the review
        queue carry it: through the secret scanner, masked (a note holding a secret is refused
        before it is routed; this keeps a title that slipped past out of names and requests)."""
        from reflectgit.notes import secrets as scanner

        return scanner.mask(self.note.title or self.id)

    @property
    def tier(self) -> str:
        return self.note.tier or "medium"

    @property
    def sidecar_team_path(self) -> str:
        return sidecar_path_for(self.team_path)

    def changes(self) -> list[Any]:
        from reflectgit.git.change import write

        out = [write(self.team_path, self.data)]
        if self.sidecar is not None:
            out.append(write(self.sidecar_team_path, self.sidecar))
        return out


def load_source(cfg: Config, target: str) -> SourceNote:
    """``target`` is a note file (absolute path) or an id of a note in the personal KB.

    The note is parsed, normalised and validated here, before anything talks to the team:
    an invalid note (or sidecar) raises ``NoteError`` naming file:line:col.
    """
    path = Path(target)
    if path.is_absolute() and path.is_file():
        return _from_file(cfg, path)
    return _from_id(cfg, target)


def _from_file(cfg: Config, path: Path) -> SourceNote:
    data = path.read_bytes()
    sidecar_file = Path(sidecar_path_for(str(path)))
    sidecar = sidecar_file.read_bytes() if sidecar_file.is_file() else None
    try:
        rel = path.resolve().relative_to(cfg.kb.resolve()).as_posix()
    except ValueError:
        rel = None
    return prepare(data, rel or str(path), sidecar, stem_id=None)


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
    dirty = store.dirty_paths([rel, sidecar_path_for(rel)])
    if dirty:
        # the id routes the committed note; routing it silently would not be what they see
        raise ConflictError(
            f"{', '.join(dirty)} {'has' if len(dirty) == 1 else 'have'} uncommitted edits in "
            f"{cfg.kb}; `route {note_id}` routes committed notes only",
            hint=f"commit them first (`git -C {cfg.kb} commit {' '.join(dirty)}`), or route "
            f"the file as it is now: `reflect-git route {cfg.kb / rel}`",
        )
    data = store.read(rel)
    assert data is not None
    sidecar = store.read(sidecar_path_for(rel))
    # In the KB, documents/<stem>.md is the note's id when the frontmatter names none.
    return prepare(data, rel, sidecar, stem_id=PurePosixPath(rel).stem)


def prepare(data: bytes, source: str, sidecar: bytes | None, *, stem_id: str | None) -> SourceNote:
    """Parse, normalise and validate a note (and its sidecar) the way ``validate`` does.

    The team-side path comes from the note's ``id`` (``documents/<id>.md``, the sidecar
    beside it), never from the name of the file it was saved under; a file outside the KB
    without an ``id`` is refused. What would fail ``reflect-git validate`` on the team's
    main raises ``NoteError`` with the file, line and column.
    """
    from reflectgit.notes import secrets
    from reflectgit.notes.schema import validate_note_bytes, validate_sidecar_bytes

    note = parse_note(data, source)  # unreadable: NoteError with line and column
    fixed, changed = normalise_confidence(data, note)
    if changed:
        note = parse_note(fixed, source)
    ident = note.id or stem_id
    if ident is None:
        raise NoteError(
            f"{source}:1:1: id: the note has no id, and routing never names a note after its file",
            hint="add an `id:` line to the frontmatter (or `reflect-git add` the file first), "
            "then route it again",
            line=1,
            column=1,
            field="id",
        )
    team_path = f"{DOCUMENTS}/{ident}.md"
    problems = [p for p in validate_note_bytes(fixed, source) if p.severity == "error"]
    sidecar_source = sidecar_path_for(source)
    if sidecar is not None:
        problems += [
            p for p in validate_sidecar_bytes(sidecar, sidecar_source) if p.severity == "error"
        ]
    problems += secrets.source_problems(note, sidecar, source)  # a secret is never pushed
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise NoteError(
            f"{first.file}:{first.line}:{first.column}: "
            f"{first.field + ': ' if first.field else ''}{first.message}{more}",
            hint=secrets.HINT
            if secrets.MASK in first.message
            else f"fix the note (`reflect-git validate {source}` lists every problem), "
            "then route it again; nothing was pushed",
            line=first.line,
            column=first.column,
            field=first.field,
        )
    if ident is not None and not is_safe_id(ident):
        raise NoteError(
            f"{source}:1:1: id: {ident!r} cannot be a file name on the team's main",
            hint="give the note a plain id (letters, digits, dashes)",
            line=1,
            column=1,
            field="id",
        )
    if sidecar is not None:
        _check_sidecar_id(sidecar, sidecar_source, ident)
    return SourceNote(fixed, note, source, team_path, sidecar, tuple(changed))


def _check_sidecar_id(sidecar: bytes, source: str, ident: str) -> None:
    """A sidecar must name the note it travels with (``check`` fails on main otherwise)."""
    from reflectgit.notes.note import parse_sidecar

    named = parse_sidecar(sidecar, source).document_id
    if named is not None and named != ident:
        raise NoteError(
            f"{source}:1:1: document_id: names {named!r}, but the note's id is {ident!r}",
            hint=f"set `document_id: {ident}` in the sidecar, then route the note again",
            line=1,
            column=1,
            field="document_id",
        )


_CONFIDENCE_LINE = re.compile(
    r"^confidence[ \t]*:[ \t]*(?P<value>[^\r\n#]*?)[ \t]*(?P<rest>(?:#[^\r\n]*)?)(?P<eol>\r?\n|$)",
    re.MULTILINE,
)


def normalise_confidence(data: bytes, note: Note) -> tuple[bytes, list[str]]:
    """Write a confidence alias as its tier, and a missing confidence as the note's tier.

    The tier itself comes from the note reader (``Note.tier``: the one alias table, and
    ``confidence_num`` buckets); a missing or unusable confidence routes as medium, as the
    reference does. Only the ``confidence:`` line changes (or one line is added at the end of
    the frontmatter): key order, quoting, comments, line endings and the body stay as written.
    A value the reader cannot read as a tier is left alone for validation to refuse.
    """
    origin = note.origin
    if origin is None:
        return data, []
    raw = note.frontmatter.get("confidence", _MISSING)
    tier = note.tier
    text = data.decode("utf-8")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body_text = text[len(bom) :]
    fence = re.match(r"---[ \t]*(\r?\n)", body_text)
    if fence is None:
        return data, []
    start = fence.end()
    close = re.compile(r"^---[ \t]*\r?$", re.MULTILINE).search(body_text, start)
    if close is None:
        return data, []
    front = body_text[start : close.start()]
    eol = fence.group(1)
    if raw is _MISSING or raw is None:
        tier = tier or "medium"
        if raw is None:
            match = _CONFIDENCE_LINE.search(front)
            if match is None:
                return data, []
            new_front = front[: match.start()] + f"confidence: {tier}" + front[match.end("value") :]
        else:
            new_front = front + ("" if not front or front.endswith("\n") else eol)
            new_front += f"confidence: {tier}{eol}"
        why = f"confidence: (missing) -> {tier}"
    else:
        if tier is None or normalize_tier(raw) is None:
            return data, []  # unknown: validation refuses it below
        match = _CONFIDENCE_LINE.search(front)
        if match is None:
            return data, []
        value = match.group("value")
        if value.strip("'\"") == tier:
            return data, []
        new_front = front[: match.start("value")] + tier + front[match.end("value") :]
        why = f"confidence: {value} -> {tier}"
    out = bom + body_text[:start] + new_front + body_text[close.start() :]
    return out.encode("utf-8"), [why]


_MISSING = object()


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
    conflict: dict[str, Any] | None = None  # a different note under this id on the team's main
    forced: bool = False
    pr_error: str | None = None  # the branch is pushed, but its pull request failed
    pr_hint: str | None = None
    # The machine that wrote the note, when no person has reviewed it (it goes to review).
    unreviewed: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "conflict": self.conflict,
            "forced": self.forced,
            "pr_error": self.pr_error,
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
            "unreviewed": self.unreviewed,
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
        if self.conflict and self.dry_run and not self.forced and self.hint:
            out.append(f"hint: {self.hint}")
        return out


# ============================================================================ routing


def route(
    cfg: Config,
    target: str,
    *,
    team_path: str | Path | None = None,
    dry_run: bool = False,
    max_attempts: int | None = None,
    force: bool = False,
    review: bool = False,
    clock: Callable[[], datetime] = utc_now,
) -> RouteResult:
    """Route one note by its confidence tier (missing confidence means medium).

    The note is parsed, normalised and validated first (``prepare``); nothing talks to the
    team before that passes. ``review`` sends a high note to a knowledge branch instead of
    main; ``force`` lets a high route replace a different note under the same id on main
    (recorded in the commit as a ``Reflect-Replaces`` trailer).
    """
    src = load_source(cfg, target)
    tier = src.tier
    result = RouteResult("queue", src.id, src.title, tier, src.source, dry_run=dry_run)
    result.notes += [f"normalised {change}" for change in src.normalised]
    team = resolve_team(cfg, team_path) if tier != "low" else None
    if tier == "low" or team is None:
        if team is None and tier != "low":
            result.notes.append("no team KB configured: queued for review in the personal KB")
        return _to_queue(cfg, src, result, clock)
    attempts = max_attempts or cfg.routing.max_attempts
    machine = authorship.unreviewed(src.note.frontmatter)
    result.unreviewed = machine
    if tier == "high" and not review and machine is None:
        result.route = "main"
        return _to_main(cfg, team, src, result, max(1, attempts), force=force)
    if review and tier == "high":
        result.notes.append("--review: sent to a knowledge branch for review instead of main")
    elif tier == "high" and machine is not None:
        result.notes.append(
            f"written by {machine} and not reviewed by a person: sent to a knowledge branch "
            f"for review instead of main (`reflect-git confirm {src.id} --source <where>` "
            "reviews it; route it again afterwards)"
        )
    result.route = "branch"
    return _to_branch(cfg, team, src, result)


# A push that lost the race to the team's main waits before it fetches again: exponential,
# capped, and jittered over the whole range, so clones that collided do not collide again.
PUSH_BACKOFF = Backoff(initial=0.25, multiplier=2.0, max_delay=4.0, jitter=1.0)


def retry_hint(src: SourceNote) -> str:
    return f"the note is safe in your KB ({src.source}); run `reflect-git route {src.id}` again"


REPLACES_TRAILER = "Reflect-Replaces"


def _commit_message(
    src: SourceNote, tier: str, replaces: str | None = None
) -> messages.CommitMessage:
    kind = "feat" if tier == "high" else "docs"
    extra = [(REPLACES_TRAILER, replaces)] if replaces else []
    return messages.build(
        messages.knowledge_subject(src.title, tier, kind),
        "route",
        [src.id],
        confidence=tier,
        source="route",
        extra=extra,
    )


def conflict_on(store: Any, src: SourceNote, rev: str | None) -> dict[str, Any] | None:
    """A different note (or sidecar) under this id on ``rev``: what a high route would replace."""
    if rev is None:
        return None
    from reflectgit.git.objects import blob_id

    theirs = store.read(src.team_path, rev=rev)
    their_sidecar = store.read(src.sidecar_team_path, rev=rev)
    note_differs = theirs is not None and theirs != src.data
    sidecar_differs = (
        src.sidecar is not None and their_sidecar is not None and their_sidecar != src.sidecar
    )
    if not (note_differs or sidecar_differs):
        return None
    what = src.team_path if note_differs else src.sidecar_team_path
    blob = blob_id(theirs if note_differs and theirs is not None else their_sidecar or b"")
    return {
        "path": what,
        "commit": rev,
        "blob": blob,
        "message": f"{what} on the team's main holds a different note with the id {src.id} "
        f"(blob {blob[:10]} at {rev[:10]})",
    }


def id_elsewhere(store: Any, src: SourceNote, rev: str | None) -> str | None:
    """Another file on ``rev`` whose note has this id (a hand-named file): routing would make
    two notes with one id, which ``check`` rejects on main."""
    if rev is None:
        return None
    needle = src.id.encode("utf-8")
    for path, blob in sorted(store.list_files(DOCUMENTS, rev=rev).items()):
        if path == src.team_path or not path.endswith(".md") or path.count("/") != 1:
            continue
        data = store.read_blob(blob)
        if needle not in data:
            continue
        try:
            if parse_note(data, path).id == src.id:
                return str(path)
        except NoteError:
            continue
    return None


def look_alike_on(store: Any, src: SourceNote, rev: str | None) -> str | None:
    """A note on ``rev`` whose id a person (or a case-insensitive checkout) would take for this
    one: another file name with the same skeleton (``redis-pool`` for ``rеdis-pool``)."""
    if rev is None:
        return None
    key = names.id_key(src.id)
    for path in sorted(store.list_files(DOCUMENTS, rev=rev)):
        stem = PurePosixPath(path).stem
        one_note = path.endswith(".md") and path.count("/") == 1
        if one_note and stem != src.id and names.id_key(stem) == key:
            return str(path)
    return None


def _refuse_look_alike(src: SourceNote, other: str) -> None:
    raise ConflictError(
        f"the id {src.id!r} looks like the team's {other} (they differ only by case, Unicode "
        "normalisation or look-alike characters); nothing was pushed",
        hint=f"if it is the same learning, update {other}; otherwise give yours an id a "
        "person can tell apart",
    )


def _refuse_twin(src: SourceNote, other: str) -> None:
    raise ConflictError(
        f"the id {src.id} is already used on the team's main by {other}; routing "
        f"{src.team_path} would make two notes with one id (nothing was pushed)",
        hint=f"compare with {other}: if it is the same learning, update that note; "
        "otherwise give yours another id",
    )


def _refuse_taken(store: Any, src: SourceNote, tip: str | None) -> None:
    """Refuse a note whose id the team's ``tip`` gives another note, or a look-alike id."""
    other = id_elsewhere(store, src, tip)
    if other is not None:
        _refuse_twin(src, other)
    other = look_alike_on(store, src, tip)
    if other is not None:
        _refuse_look_alike(src, other)


def conflict_hint(src: SourceNote) -> str:
    return (
        f"compare the two, then route yours for review (`reflect-git route {src.id} --review`: "
        f"a knowledge branch whose pull request shows the change), or replace the team's "
        f"(`reflect-git route {src.id} --force`, recorded in the commit as {REPLACES_TRAILER})"
    )


def merged_with_team(
    cfg: Config, team: Team, store: Any, src: SourceNote, rev: str | None
) -> tuple[SourceNote, str, bool] | None:
    """The note merged field by field with the team's version on ``rev`` (the merge driver's
    merge), when the KB is a clone of the team KB and both versions come from one ancestor:
    ours is an edit of the team's note, and a teammate may have changed it since this clone
    last had it (a push that lost the race to one is retried through this too). ``(merged
    note, ancestor commit, did the team change it)``; None when there is no common ancestor
    or the two conflict (then ``route`` refuses as before)."""
    from reflectgit.git.history import merge_base
    from reflectgit.workflows.merging import merge_bytes
    from reflectgit.workflows.team import clone_layout

    if rev is None or Path(src.source).is_absolute() or clone_layout(cfg) is None:
        return None
    local = store.tip(team.branch)
    ancestor = merge_base(store, local, rev) if local else None
    if ancestor is None:
        return None
    old, theirs = store.read(src.team_path, rev=ancestor), store.read(src.team_path, rev=rev)
    if old is None or theirs is None:
        return None
    if old == theirs and store.read(src.sidecar_team_path, rev=ancestor) == store.read(
        src.sidecar_team_path, rev=rev
    ):
        return src, ancestor, False  # the team's is the version ours was edited from
    result, data = merge_bytes(old, src.data, theirs, src.team_path, env=cfg.env)
    if not result.clean:
        return None
    sidecar = src.sidecar
    their_sidecar = store.read(src.sidecar_team_path, rev=rev)
    if sidecar is not None and their_sidecar is not None and sidecar != their_sidecar:
        old_sidecar = store.read(src.sidecar_team_path, rev=ancestor)
        side, sidecar = merge_bytes(old_sidecar, sidecar, their_sidecar, src.sidecar_team_path)
        if not side.clean:
            return None
    elif sidecar is None:
        sidecar = their_sidecar
    note = parse_note(data, src.team_path)
    return replace(src, data=data, note=note, sidecar=sidecar), ancestor, True


def merge_note_line(path: str, ancestor: str, changed: bool, *, dry_run: bool) -> str:
    if not changed:
        verb = "would update" if dry_run else "updates"
        return f"{verb} the team's {path} as of {ancestor[:10]}, which it was edited from"
    verb = "would merge" if dry_run else "merged with"
    return f"{verb} the team's changes to {path} since {ancestor[:10]}, field by field"


def _same_on(store: Any, src: SourceNote, rev: str | None) -> bool:
    """Is this exact note (and sidecar) already at ``rev``?"""
    if rev is None or store.read(src.team_path, rev=rev) != src.data:
        return False
    return src.sidecar is None or store.read(src.sidecar_team_path, rev=rev) == src.sidecar


def _tmp_branch() -> str:
    # Unique per call: concurrent routes in one clone never share a local ref.
    return f"{TMP_BRANCH_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"


def _build(
    store: Any, src: SourceNote, base: str | None, tier: str, replaces: str | None = None
) -> str | None:
    """Commit the (validated) note on ``base`` as objects; the scratch ref is gone afterwards."""
    from reflectgit.git.scratch import commit_on

    message = _commit_message(src, tier, replaces)
    return commit_on(store, src.changes(), message, base, scratch=_tmp_branch())


def _fail(result: RouteResult, src: SourceNote, exc: RemoteError) -> RouteResult:
    result.error = exc.message
    result.hint = (exc.hint + "; " if exc.hint else "") + retry_hint(src)
    return result


def drop_pointers(cfg: Config, src: SourceNote, result: RouteResult) -> None:
    """The note reached the team: its review-queue pointers go, in one personal-KB commit.

    A pointer that cannot be removed (the KB is busy, say) never fails the route: the note
    is on the team already, and the result says how to drop the pointer by hand.
    """
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.review_queue import drop_pointers_for

    if src.source.startswith("/"):
        return  # a file outside the KB has no pointer in it
    try:
        gone, commit = drop_pointers_for(cfg, src.id, src.source, "routed")
    except ReflectGitError as exc:
        result.notes.append(
            f"could not remove its review-queue pointer ({exc.message}); "
            f"run `reflect-git review queue drop {src.id}`"
        )
        return
    if gone:
        result.notes.append(f"removed {', '.join(gone)} from the review queue (commit {commit})")


def _refuse_conflict(result: RouteResult, src: SourceNote, conflict: dict[str, Any]) -> None:
    result.conflict = conflict
    if result.dry_run:
        result.notes.append(f"would refuse: {conflict['message']}")
        result.hint = conflict_hint(src)
        return
    raise ConflictError(
        f"refused to overwrite a teammate's note: {conflict['message']}; nothing was pushed",
        hint=conflict_hint(src),
    )


def _to_main(
    cfg: Config, team: Team, src: SourceNote, result: RouteResult, attempts: int, *, force: bool
) -> RouteResult:
    remote = team.remote()
    store = team.store()
    result.branch = team.branch
    if result.dry_run:
        try:
            tip = remote.ls_remote().get(team.branch)
            if tip is not None and store.resolve(tip) is None:
                remote.fetch_objects(team.branch)  # objects only: no ref moves in a dry run
        except RemoteError as exc:
            return _fail(result, src, exc)
        _refuse_taken(store, src, tip)
        conflict = conflict_on(store, src, tip)
        if conflict is not None and not force:
            merged = merged_with_team(cfg, team, store, src, tip)
            if merged is None:
                _refuse_conflict(result, src, conflict)
                return result
            src, ancestor, changed = merged
            conflict = None
            result.notes.append(merge_note_line(src.team_path, ancestor, changed, dry_run=True))
        if _same_on(store, src, tip):
            result.notes.append(f"already on the team's {team.branch}: nothing to push")
            return result
        verb = "replace" if conflict else "commit"
        result.forced = conflict is not None
        result.conflict = conflict
        result.notes.append(
            f"would {verb} {src.team_path} on {team.branch} at {tip[:10] if tip else '(empty)'} "
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
            drop_pointers(cfg, src, result)
            return result
        _refuse_taken(store, src, base)
        conflict = conflict_on(store, src, base)
        if conflict is not None and not force:
            merged = merged_with_team(cfg, team, store, src, base)
            if merged is not None:
                src, ancestor, changed = merged
                result.notes.append(
                    merge_note_line(src.team_path, ancestor, changed, dry_run=False)
                )
                conflict = None
                if _same_on(store, src, base):
                    result.commit = base
                    result.notes.append(f"already on the team's {team.branch}: nothing to push")
                    return result
        if conflict is not None and not force:
            result.attempts.append(
                {"attempt": number, "base": base, "commit": None, "result": "refused (conflict)"}
            )
            _refuse_conflict(result, src, conflict)
        replaces = f"{conflict['path']} {conflict['blob']}" if conflict else None
        sha = _build(store, src, base, "high", replaces)
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
            result.conflict, result.forced = conflict, conflict is not None
            if conflict is not None:
                result.notes.append(f"--force: replaced {conflict['message']}")
            store.set_any_ref(remote.tracking_prefix + team.branch, sha)
            drop_pointers(cfg, src, result)
            return result
        reason = f"rejected ({outcome.reason or outcome.status})"
        result.attempts.append({"attempt": number, "base": base, "commit": sha, "result": reason})
        if not outcome.stale:
            result.error = f"the team remote refused the push to {team.branch}: {outcome.reason}"
            result.hint = retry_hint(src)
            return result
        if number < attempts:
            PUSH_BACKOFF.pause(number)
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
    if base and known(base):
        other = look_alike_on(store, src, base)
        if other is not None:
            _refuse_look_alike(src, other)
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
    if base and known(base) and conflict_on(store, src, base) is not None:
        result.notes.append(
            f"the branch updates {src.team_path}, which the team's {team.branch} already holds "
            "with other content: the pull request shows the change"
        )
    if result.dry_run:
        return result
    _ensure_pr(cfg, team, remote, store, src, result)
    drop_pointers(cfg, src, result)
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


def team_forge(cfg: Config, store: Any, base: str | None) -> ForgeSettings:
    """``[forge]`` from the team KB's settings on main, under the personal KB's, under the
    user's own config and environment; where a token goes is never taken from a committed file
    (``config.forge_settings``)."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    table: Any = None
    raw = store.read(SETTINGS_FILE, rev=base) if base else None
    if raw:
        try:
            table = tomllib.loads(raw.decode("utf-8")).get("forge")
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            table = None
    return cfg.forge(table if isinstance(table, Mapping) else None)


def forge_settings(cfg: Config, store: Any, base: str | None) -> dict[str, Any]:
    """The ``[forge]`` table ``team_forge`` settles on."""
    return team_forge(cfg, store, base).values


def pr_body(src: SourceNote, branch: str) -> str:
    """The pull request's text, masked like the title (it leaves for the forge)."""
    from reflectgit.notes import secrets as scanner

    insight = src.note.frontmatter.get("key_insight")
    machine = authorship.unreviewed(src.note.frontmatter)
    lines = [f"Learning `{src.id}` routed by reflect-git with {src.tier} confidence."]
    if machine is not None:
        lines[0] += (
            f" It was written by {machine}, not by a person: it reaches the team's main only "
            "through this review."
        )
    if isinstance(insight, str) and insight.strip():
        lines += ["", f"> {insight.strip()}"]
    lines += [
        "",
        f"Review with `reflect-git review show {branch}`; "
        f"approve with `reflect-git review approve {branch}`.",
    ]
    return scanner.mask("\n".join(lines))


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
    chosen = team_forge(cfg, store, base)
    result.notes.extend(chosen.ignored)
    settings = chosen.values
    try:
        choice = choose_forge(url, settings, cfg.env)
    except ForgeError as exc:
        result.notes.append(f"no pull request: {exc.message}")
        return
    if choice.forge is None:
        manual = manual_pr_url(url, result.branch, team.branch, choice.provider, settings)
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
    except (ForgeError, KeyError, TypeError, ValueError) as exc:
        # The branch is on the team remote already: a forge that fails (or answers nonsense)
        # is reported with what was pushed and how to finish, never a crash.
        why = exc.message if isinstance(exc, ForgeError) else f"unexpected answer ({exc!r})"
        manual = manual_pr_url(url, result.branch, team.branch, choice.provider, settings)
        pushed = f" (commit {result.commit[:10]})" if result.commit else ""
        result.notes.append(
            f"the branch {result.branch} is pushed{pushed} but the pull request failed: {why}; "
            f"open it by hand{': ' + manual if manual else ''}, or run `reflect-git route {src.id}` again"
        )
        result.pr_error = (
            f"the branch {result.branch} is pushed{pushed}, but no pull request was opened: {why}"
        )
        result.pr_hint = (
            (exc.hint + "; then " if isinstance(exc, ForgeError) and exc.hint else "")
            + (f"open it by hand at {manual}" if manual else "open it by hand")
            + f", or run `reflect-git route {src.id}` again (the branch is not pushed twice)"
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
    from reflectgit.git.change import write
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
