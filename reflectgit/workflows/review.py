"""Review knowledge branches: list, show, approve (merge keeping the branch commit), reject.

Everything happens against the team remote: fetch, read the branch as objects, and push the
result. Approve fast-forwards ``main`` to the branch tip when it can, else writes a merge commit
whose second parent is the branch tip, so the forge sees the PR's commit on ``main`` and marks
the PR merged. Reject closes the PR with the reason as a comment. Both delete the branch.

Approving is a person's review: a note a machine wrote lands on main with
``provenance.reviewed_by`` (the approver's git author name) and ``reviewed_at`` stamped, in the
approve commit (then always a merge commit; on a forge that merges through its API, a commit
on top of the reviewed tip, which the forge merges), with a ``Reflect-Reviewed-By`` trailer.

What a reviewer reviews is the note the route made (and its sidecar). Anything else the branch
changes against main (a deletion, a second note, a settings, hook or CI file, any other path, a
secret in any file) is listed as *unreviewed*, and approve refuses until each such path is
accepted by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from reflectgit.backoff import Backoff
from reflectgit.config import DOCUMENTS, Config
from reflectgit.errors import (
    ConflictError,
    ForgeError,
    NoteError,
    NotFoundError,
    RefusedError,
    RemoteError,
)
from reflectgit.notes import authorship, messages
from reflectgit.notes.dates import utc_now
from reflectgit.notes.note import Note, parse_note, sidecar_path_for
from reflectgit.workflows.team import KNOWLEDGE_PREFIX, Team, require_team

DUPLICATE_THRESHOLD = 0.5
MAX_DUPLICATES = 5
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "not",
        "of",
        "on",
        "or",
        "the",
        "to",
        "use",
        "when",
        "with",
        "without",
    ]
)


# ============================================================================ near-duplicates


def title_words(title: str) -> set[str]:
    """Lowercase words of a title, short and very common words left out."""
    return {
        w for w in re.findall(r"[a-z0-9]+", title.lower()) if len(w) > 2 and w not in _STOPWORDS
    }


def _tags(note: Note) -> set[str]:
    tags = note.frontmatter.get("tags")
    return (
        {str(t).strip().lower() for t in tags if str(t).strip()}
        if isinstance(tags, list)
        else set()
    )


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


@dataclass(frozen=True)
class Duplicate:
    """A note on main that looks like the one under review, and why."""

    id: str
    path: str
    title: str
    score: float
    why: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "title": self.title,
            "score": round(self.score, 2),
            "why": self.why,
        }


def near_duplicates(
    note: Note, note_id: str, candidates: Iterable[tuple[str, Note]]
) -> list[Duplicate]:
    """Notes whose title words or tags overlap enough (Jaccard >= 0.5), or that share the id."""
    words, tags = title_words(note.title), _tags(note)
    found: list[Duplicate] = []
    for path, other in candidates:
        other_id = other.id or PurePosixPath(path).stem
        reasons: list[str] = []
        score = 0.0
        if other_id == note_id:
            reasons.append("same id")
            score = 1.0
        other_words = title_words(other.title)
        tw = jaccard(words, other_words)
        if tw >= DUPLICATE_THRESHOLD:
            shared = ", ".join(sorted(words & other_words))
            reasons.append(f"title words {shared} (Jaccard {tw:.2f})")
        other_tags = _tags(other)
        tj = jaccard(tags, other_tags)
        if tj >= DUPLICATE_THRESHOLD and len(tags & other_tags) >= 2:
            reasons.append(f"tags {', '.join(sorted(tags & other_tags))} (Jaccard {tj:.2f})")
        if reasons:
            score = max(score, tw, tj)
            found.append(Duplicate(other_id, path, other.title, score, "; ".join(reasons)))
    found.sort(key=lambda d: (-d.score, d.path))
    return found[:MAX_DUPLICATES]


# ============================================================================ what a review covers

# Paths outside documents/ that steer code, settings or credentials, and what to call them.
# A prefix ends with "/"; anything else is an exact path. Everything not named here is still
# unreviewed ("outside documents/"): the table only makes the reason plain.
_SENSITIVE: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".reflect-git.toml",), "the team's reflect-git settings"),
    (
        (".pre-commit-config.yaml", ".pre-commit-hooks.yaml", ".githooks/", ".husky/"),
        "a git hook setting (runs commands on teammates' machines)",
    ),
    (
        (
            ".github/workflows/",
            ".github/actions/",
            ".gitlab-ci.yml",
            ".gitlab/",
            ".gitea/workflows/",
            ".forgejo/workflows/",
            ".woodpecker/",
            ".woodpecker.yml",
            ".circleci/",
            ".travis.yml",
            ".buildkite/",
            "azure-pipelines.yml",
            "bitbucket-pipelines.yml",
            "Jenkinsfile",
        ),
        "a CI file (runs commands on the forge)",
    ),
    (
        (".gitattributes", ".gitmodules", ".github/", ".gitlab/", ".gitea/"),
        "a git or forge setting",
    ),
)


@dataclass(frozen=True)
class Unreviewed:
    """A change on a knowledge branch beyond the note its route made: approve needs it accepted."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


def _is_note_path(path: str) -> bool:
    return path.startswith(f"{DOCUMENTS}/") and path.endswith(".md") and path.count("/") == 1


def _outside_reason(path: str) -> str:
    for paths, what in _SENSITIVE:
        if any(path.startswith(p) if p.endswith("/") else path == p for p in paths):
            return what
    return "outside documents/"


def unreviewed_changes(
    store: Any, changes: Iterable[tuple[str, str | None, str | None]], note_path: str | None
) -> list[Unreviewed]:
    """Every change of a branch that is not the reviewed note or its sidecar, and every secret.

    ``changes`` are (path, old blob, new blob) against the merge base with main. The note and
    its sidecar are what review shows and validates; a deletion, a second note, a sidecar of
    another note, any other path, and a secret in any file (the note included) are listed.
    """
    from reflectgit.notes import secrets

    mine = {note_path, sidecar_path_for(note_path)} if note_path else set()
    out: list[Unreviewed] = []
    for path, old, new in changes:
        if new is None:
            what = "a note" if _is_note_path(path) else "a file"
            out.append(Unreviewed(path, f"deletes {what} that main holds"))
            continue
        verb = "changes" if old else "adds"
        if path in mine:
            pass
        elif _is_note_path(path):
            made = f" (its route made {note_path})" if note_path else ""
            out.append(Unreviewed(path, f"{verb} a second note{made}"))
        elif path.startswith(f"{DOCUMENTS}/") and path.endswith(".entities.yaml"):
            out.append(Unreviewed(path, f"{verb} the sidecar of another note"))
        else:
            out.append(Unreviewed(path, f"{verb} {_outside_reason(path)}"))
        text = _text(store, new)
        if text is None:
            out.append(Unreviewed(path, "is no file this clone holds (a submodule?)"))
            continue
        out += [
            Unreviewed(path, f"holds {f.label} at line {f.line} (the value is not shown)")
            for f in secrets.scan(text)
        ]
    return out


def _text(store: Any, blob: str) -> str | None:
    """A blob's text, or None when the object is not here (a submodule's commit)."""
    try:
        return store.read_blob(blob).decode("utf-8", "replace")
    except KeyError:
        return None


def _routed_note(
    store: Any, tip: str, base: str | None, changed_notes: list[str], limit: int = 1000
) -> str | None:
    """The note the branch's route made: the ``Reflect-Id`` of its oldest route commit (walking
    first parents from the tip to where it left main), else the branch's only or first note."""
    walked: list[str] = []
    sha: str | None = tip
    while sha and sha != base and len(walked) < limit:
        info = store.commit_info(sha)
        walked.append(info.message)
        sha = info.parents[0] if info.parents else None
    for message in reversed(walked):
        parsed = messages.parse(message)
        if parsed.op == "route" and parsed.ids:
            path = f"{DOCUMENTS}/{parsed.ids[0]}.md"
            if path in changed_notes:
                return path
    return changed_notes[0] if changed_notes else None


def check_accepted(review: BranchReview, accept: Iterable[str]) -> None:
    """Raise ``RefusedError`` unless every unreviewed path of ``review`` is in ``accept``, and
    every accepted path is one the review lists (a typo or a stale list accepts nothing)."""
    accepted = {a.strip().lstrip("/") for a in accept if a.strip()}
    listed = {u.path for u in review.unreviewed}
    stray = sorted(accepted - listed)
    if stray:
        raise RefusedError(
            f"--accept {stray[0]}: {review.branch} lists no such change "
            f"(it lists {', '.join(sorted(listed)) or 'nothing beyond its note'}); nothing was merged",
            hint=f"see what the branch changes with `reflect-git review show {review.branch}`",
        )
    left = [u for u in review.unreviewed if u.path not in accepted]
    if left:
        lines = "".join(f"\n  {u}" for u in left)
        flags = " ".join(f"--accept {p}" for p in sorted({u.path for u in left}))
        raise RefusedError(
            f"{review.branch} changes more than its note {review.note_path or '(none)'}; "
            f"not merged, nothing pushed:{lines}",
            hint=f"reject the branch, or fix it, or accept each change by name after reading it "
            f"(`reflect-git review show {review.branch}`): "
            f"`reflect-git review approve {review.branch} {flags}`",
        )


# ============================================================================ listing


@dataclass
class BranchReview:
    """One open knowledge branch as a reviewer sees it."""

    branch: str
    tip: str
    note_path: str | None
    id: str | None
    title: str
    tier: str | None
    age_days: float
    pr_url: str | None
    pr_number: int | None
    valid: bool
    problems: list[str]
    duplicates: list[Duplicate]
    note_text: str | None = None
    files: list[str] = field(default_factory=list)
    diff: str = ""  # what the branch changed against main, as a unified diff
    unreviewed: list[Unreviewed] = field(default_factory=list)  # approve needs each accepted

    @property
    def all_problems(self) -> list[str]:
        """The note's validation problems, then every unreviewed change."""
        return self.problems + [str(u) for u in self.unreviewed]

    def to_json(self, full: bool = False) -> dict[str, Any]:
        doc = {
            "branch": self.branch,
            "tip": self.tip,
            "path": self.note_path,
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "age_days": round(self.age_days, 1),
            "pr_url": self.pr_url,
            "valid": self.valid,
            "problems": self.all_problems,
            "unreviewed": [u.to_json() for u in self.unreviewed],
            "duplicates": [d.to_json() for d in self.duplicates],
        }
        if full:
            doc["files"] = self.files
            doc["note"] = self.note_text
        return doc


def _context(cfg: Config, team_path: Any) -> tuple[Team, Any, Any, dict[str, str]]:
    team = require_team(cfg, team_path)
    remote = team.remote()
    heads = remote.fetch()
    return team, remote, team.store(), heads


def _merge_base(store: Any, a: str, b: str) -> str | None:
    from reflectgit.git.history import merge_base

    return merge_base(store, a, b)


def _main_notes(store: Any, main: str | None) -> list[tuple[str, Note]]:
    if not main:
        return []
    out = []
    for path, blob in sorted(store.list_files(DOCUMENTS, rev=main).items()):
        if path.endswith(".md") and path.count("/") == 1:
            try:
                out.append((path, parse_note(store.read_blob(blob), path)))
            except NoteError:
                continue
    return out


class PrLookup:
    """Finds the open PR of a branch on the team's forge; finds nothing when there is no forge."""

    def __init__(self, forge: Any, base: str) -> None:
        self.forge = forge
        self.base = base

    def __call__(self, branch: str) -> Any:
        if self.forge is None:
            return None
        try:
            return self.forge.find_open(branch, self.base)
        except ForgeError:
            return None


def _pr_finder(cfg: Config, team: Team, remote: Any, store: Any, main: str | None) -> PrLookup:
    from reflectgit.forge.choose import choose_forge
    from reflectgit.workflows.routing import forge_settings

    try:
        choice = choose_forge(remote.url(), forge_settings(cfg, store, main), cfg.env)
    except ForgeError:
        return PrLookup(None, team.branch)
    return PrLookup(choice.forge, team.branch)


def _review(
    store: Any,
    branch: str,
    tip: str,
    main: str | None,
    main_notes: list[tuple[str, Note]],
    find_pr: Callable[[str], Any],
    now: datetime,
) -> BranchReview:
    from reflectgit.notes import secrets
    from reflectgit.notes.schema import validate_note_bytes, validate_sidecar_bytes

    base = _merge_base(store, main, tip) if main else None
    every = store.diff_trees(
        store.commit_info(base).tree if base else None, store.commit_info(tip).tree
    )
    changes = [c for c in every if c[2] is not None]
    files = [c[0] for c in changes]
    blobs = {path: blob for path, _old, blob in changes}
    note_path = _routed_note(store, tip, base, [p for p in files if _is_note_path(p)])
    problems: list[str] = []
    note: Note | None = None
    note_text = None
    if note_path:
        try:
            raw = store.read_blob(blobs[note_path])
        except KeyError:  # a submodule entry under a note's name
            raw = b""
        note_text = secrets.mask(raw.decode("utf-8", "replace"))
        found = validate_note_bytes(raw, note_path)
        problems += [f"{p.file}:{p.line}:{p.column}: {p.field}: {p.message}" for p in found]
        try:
            note = parse_note(raw, note_path)
        except NoteError:
            note = None
    sidecar = sidecar_path_for(note_path) if note_path else ""
    if sidecar in blobs:
        found = validate_sidecar_bytes(store.read_blob(blobs[sidecar]), sidecar)
        problems += [f"{p.file}:{p.line}:{p.column}: {p.field}: {p.message}" for p in found]
    unreviewed = unreviewed_changes(store, every, note_path)
    note_id = (note.id or PurePosixPath(note_path).stem) if note and note_path else None
    others = [(p, n) for p, n in main_notes if p != note_path]
    dupes = near_duplicates(note, note_id or "", others) if note else []
    info = store.commit_info(tip)
    pr = find_pr(branch)
    diff = secrets.mask(_unified_diff(store, every))  # a secret is listed, never shown
    return BranchReview(
        branch=branch,
        tip=tip,
        note_path=note_path,
        id=note_id,
        title=note.title if note else (note_path or "(no note)"),
        tier=note.tier if note else None,
        age_days=max(0.0, (now - info.commit_time).total_seconds() / 86400),
        pr_url=pr.url if pr else None,
        pr_number=pr.number if pr else None,
        valid=not problems and note is not None and not unreviewed,
        problems=problems if note_path else ["the branch adds no note under documents/"],
        duplicates=dupes,
        note_text=note_text,
        files=files,
        diff=diff,
        unreviewed=unreviewed,
    )


def _unified_diff(store: Any, changes: list[tuple[str, str | None, str | None]]) -> str:
    """``git diff``-style text for (path, old blob, new blob) changes."""
    import difflib

    def lines(blob: str | None) -> list[str]:
        if blob is None:
            return []
        return (_text(store, blob) or "").splitlines(keepends=True)

    return "".join(
        "".join(
            difflib.unified_diff(
                lines(old),
                lines(new),
                fromfile=f"a/{path}" if old else "/dev/null",
                tofile=f"b/{path}" if new else "/dev/null",
            )
        )
        for path, old, new in changes
    )


def list_branches(
    cfg: Config, team_path: Any = None, *, clock: Callable[[], datetime] = utc_now
) -> list[BranchReview]:
    """Every open ``knowledge/`` branch on the team remote, reviewed."""
    team, remote, store, heads = _context(cfg, team_path)
    main = heads.get(team.branch)
    main_notes = _main_notes(store, main)
    find_pr = _pr_finder(cfg, team, remote, store, main)
    now = clock()
    return [
        _review(store, name, sha, main, main_notes, find_pr, now)
        for name, sha in sorted(heads.items())
        if name.startswith(KNOWLEDGE_PREFIX)
    ]


def _require_branch(branch: str, heads: Mapping[str, str]) -> str:
    if not branch.startswith(KNOWLEDGE_PREFIX):
        branch = KNOWLEDGE_PREFIX + branch
    if branch not in heads:
        raise NotFoundError(
            f"no branch {branch} on the team remote",
            hint="see the open ones with `reflect-git review list`",
        )
    return branch


def show(
    cfg: Config, branch: str, team_path: Any = None, *, clock: Callable[[], datetime] = utc_now
) -> BranchReview:
    """One knowledge branch, with its note text."""
    team, remote, store, heads = _context(cfg, team_path)
    branch = _require_branch(branch, heads)
    main = heads.get(team.branch)
    find_pr = _pr_finder(cfg, team, remote, store, main)
    return _review(store, branch, heads[branch], main, _main_notes(store, main), find_pr, clock())


# ============================================================================ approve / reject


@dataclass
class ReviewResult:
    """What approve or reject did."""

    branch: str
    action: str
    commit: str | None = None
    pushed: bool = False
    closed: bool = False
    deleted: bool = False
    pr_url: str | None = None
    fast_forward: bool = False
    notes: list[str] = field(default_factory=list)
    merged_by: str | None = None  # the forge, when its API made the merge
    reviewed_by: str | None = None  # the approver, when the approval stamped a machine's note

    def to_json(self) -> dict[str, Any]:
        doc = {
            "merged_by": self.merged_by,
            "branch": self.branch,
            "action": self.action,
            "commit": self.commit,
            "pushed": self.pushed,
            "closed": self.closed,
            "deleted": self.deleted,
            "pr_url": self.pr_url,
            "fast_forward": self.fast_forward,
            "notes": self.notes,
        }
        if self.reviewed_by:  # this approval reviewed a machine's note (docs/team.md)
            doc["reviewed_by"] = self.reviewed_by
        return doc


def _reviewed_note(result: ReviewResult, review: BranchReview, reviewer: str) -> None:
    result.reviewed_by = reviewer
    result.notes.append(
        f"reviewed by {reviewer}: {review.id} lands on main with provenance.reviewed_by"
    )


def _merged_tree_changes(
    store: Any, main: str, tip: str, notes: list[str] | None = None
) -> list[Any]:
    """The branch's changes replayed onto main. A note (or sidecar) main changed since the
    branch was made is merged field by field with the branch's (the merge driver's merge,
    ``notes`` says which); any other path both sides changed differently conflicts, as does a
    field both changed."""
    from reflectgit.git.change import delete, write
    from reflectgit.workflows.merging import SIDECAR_SUFFIX, merge_bytes

    base = _merge_base(store, main, tip)
    base_tree = store.commit_info(base).tree if base else None
    main_tree = store.commit_info(main).tree
    out = []
    for path, old, new in store.diff_trees(base_tree, store.commit_info(tip).tree):
        raw = store.read_at_tree(main_tree, path)
        on_main = _blob_id(raw) if raw is not None else None
        if on_main in (old, new):
            out.append(write(path, store.read_blob(new)) if new else delete(path))
            continue
        fields = "the file"
        if raw is not None and new and (_is_note_path(path) or path.endswith(SIDECAR_SUFFIX)):
            merged, data = merge_bytes(
                store.read_blob(old) if old else None, raw, store.read_blob(new), path
            )
            if merged.clean:
                out.append(write(path, data))
                if notes is not None:
                    notes.append(f"{path} changed on main since the branch was made: merged "
                                 "field by field with the branch's change")  # fmt: skip
                continue
            fields = ", ".join([*merged.conflicts, *merged.problems]) or fields
        raise ConflictError(
            f"{path} changed on main since the branch was made, and both changed {fields}",
            hint="route the note again (a new branch from the current main), "
            "or merge the branch by hand",
        )
    return out


def _review_stamp(
    store: Any,
    tip: str,
    note_path: str | None,
    changes: list[Any],
    reviewer: str,
    at: datetime,
) -> Any:
    """The reviewed note with ``provenance.reviewed_by``/``reviewed_at`` stamped, as a change
    to commit with the merge; None when it needs no review (a person's note, or one this
    reviewer reviewed already). Only those two fields change: the note is what review showed
    (or main's field-by-field merge of it, when ``changes`` holds one)."""
    from reflectgit.git.change import write
    from reflectgit.notes.inplace import rewrite_note

    if note_path is None:
        return None
    merged = [c.data for c in changes if c.path == note_path and c.data is not None]
    data = merged[-1] if merged else store.read_at_tree(store.commit_info(tip).tree, note_path)
    if data is None:
        return None
    try:
        note = parse_note(data, note_path)
    except NoteError:
        return None
    reviewed = authorship.mark_reviewed(note, reviewer, at)
    return write(note_path, rewrite_note(data, reviewed)) if reviewed is not None else None


def _blob_id(data: bytes) -> str:
    from reflectgit.git.objects import blob_id

    return blob_id(data)


def approve(
    cfg: Config,
    branch: str,
    team_path: Any = None,
    *,
    accept: Iterable[str] = (),
    tip: str | None = None,
    max_attempts: int = 5,
) -> ReviewResult:
    """Merge a knowledge branch into main keeping its commit, push, delete the branch.

    Only the note its route made (and that note's sidecar) is merged unasked: every other
    change the branch makes must be named in ``accept`` (paths), else ``RefusedError`` lists
    them and nothing moves. ``tip``, when given, is the commit the reviewer saw: a branch that
    has moved since is refused. The tip reviewed here is the one merged, even if main moves
    and the push is retried. A machine's note is stamped reviewed by the approver
    (``_review_stamp``): only its two review fields differ from what review showed.
    """
    from reflectgit.git.scratch import commit_on

    team, remote, store, heads = _context(cfg, team_path)
    branch = _require_branch(branch, heads)
    reviewed = heads[branch]
    seen = tip.strip().lower() if tip is not None else None
    if seen is not None and (len(seen) < 7 or not reviewed.startswith(seen)):
        raise ConflictError(
            f"{branch} moved since it was reviewed: its tip is {reviewed[:10]}, "
            f"not {seen[:10]}; nothing was merged",
            hint=f"review it again: `reflect-git review show {branch}`",
        )
    result = ReviewResult(branch, "approve")
    review = _review(
        store, branch, reviewed, heads.get(team.branch), [], lambda _b: None, utc_now()
    )
    if review.problems or review.note_path is None:
        raise NoteError(
            f"{branch} does not validate: {'; '.join(review.problems[:3])}",
            hint="fix the note on the branch (or reject it) before approving",
        )
    check_accepted(review, accept)
    # Approving is a person's review: a machine's note lands on main stamped with the
    # approver's git identity (authorship.mark_reviewed), as a CLI confirm stamps it.
    reviewer, now = store.author(), utc_now()
    find_pr = _pr_finder(cfg, team, remote, store, heads.get(team.branch))
    pr = find_pr(branch)
    result.pr_url = pr.url if pr else None
    if pr is not None and find_pr.forge is not None and not find_pr.forge.detects_outside_merge:
        stamp = _review_stamp(store, reviewed, review.note_path, [], reviewer, now)
        if stamp is not None:  # the forge merges the branch: the review's commit goes on it
            reviewed = _push_review_commit(
                remote, store, branch, reviewed, stamp, _approve_message(branch, review, reviewer)
            )
            _reviewed_note(result, review, reviewer)
        return _approve_on_forge(team, remote, store, branch, reviewed, pr, find_pr, result)
    for attempt in range(1, max_attempts + 1):
        if attempt > 1:
            heads = remote.fetch()
            branch = _require_branch(branch, heads)  # someone may have deleted it meanwhile
            if heads[branch] != reviewed:
                raise ConflictError(
                    f"{branch} moved while it was being approved "
                    f"({reviewed[:10]} -> {heads[branch][:10]}); nothing was merged",
                    hint=f"review it again: `reflect-git review show {branch}`",
                )
        main, tip = heads.get(team.branch), reviewed
        base = _merge_base(store, main, tip) if main else None
        if main and base == tip:
            result.commit = main
            result.notes.append("the branch is already on main")
            break
        merge_notes: list[str] = []
        changes = _merged_tree_changes(store, main, tip, merge_notes) if main else []
        stamp = _review_stamp(store, tip, review.note_path, changes, reviewer, now)
        result.fast_forward = stamp is None and (main is None or base == main)
        if result.fast_forward:
            new = tip
        else:  # a merge commit: main moved, or the approval reviews a machine's note
            message = _approve_message(branch, review, reviewer if stamp is not None else None)
            merged = commit_on(
                store,
                [*changes, *([stamp] if stamp is not None else [])],
                message,
                main or tip,  # no main yet: the review's commit on top of the branch tip
                extra_parents=(tip,) if main else (),
                scratch=f"reflect-git/review/{branch}",
            )
            assert merged is not None  # a merge commit, or a commit that stamps the note
            new = merged
        [outcome] = remote.push([f"{new}:refs/heads/{team.branch}"])
        if outcome.ok:
            result.commit, result.pushed = new, True
            result.notes += merge_notes
            if stamp is not None:
                _reviewed_note(result, review, reviewer)
            store.set_any_ref(remote.tracking_prefix + team.branch, new)
            break
        if not outcome.stale:
            raise RemoteError(
                f"the team remote refused the push to {team.branch}: {outcome.reason}",
                hint=f"run `reflect-git review approve {branch}` again once that is fixed",
            )
        result.notes.append(f"attempt {attempt}: main moved ({outcome.reason}); retrying")
    else:
        raise RemoteError(
            f"the team's {team.branch} kept moving: gave up after {max_attempts} attempts",
            hint=f"run `reflect-git review approve {branch}` again",
        )
    deleted = remote.delete_branch(branch)
    result.deleted = deleted.ok
    if deleted.ok:
        store.set_any_ref(remote.tracking_prefix + branch, None)
    if pr is not None:
        result.notes.append(_pr_state_note(find_pr, pr))
    return result


def _approve_message(branch: str, review: BranchReview, reviewer: str | None) -> Any:
    """The approve commit's message; ``reviewer`` when it stamps a machine's note."""
    extra = [(authorship.REVIEWED_BY_TRAILER, reviewer)] if reviewer else []
    return messages.build(
        messages.shorten(f"Merge {branch}: {review.title}"),
        "approve",
        [review.id] if review.id else [],
        confidence=review.tier,
        source="cli",
        extra=extra,
    )


def _push_review_commit(
    remote: Any, store: Any, branch: str, tip: str, stamp: Any, message: Any
) -> str:
    """Put the approve commit (the note stamped reviewed) on the branch, on top of the
    reviewed ``tip``, for a forge that merges the branch itself; its new tip. A branch that
    moved since is not overwritten (the push is not a fast-forward) and nothing is merged."""
    from reflectgit.git.scratch import commit_on

    new = commit_on(store, [stamp], message, tip, scratch=f"reflect-git/review/{branch}")
    assert new is not None  # the stamp changes the note
    [outcome] = remote.push([f"{new}:refs/heads/{branch}"])
    if not outcome.ok:
        raise ConflictError(
            f"{branch} moved while it was being approved ({outcome.reason}); nothing was merged",
            hint=f"review it again: `reflect-git review show {branch}`",
        )
    store.set_any_ref(remote.tracking_prefix + branch, new)
    return new


def _approve_on_forge(
    team: Team,
    remote: Any,
    store: Any,
    branch: str,
    tip: str,
    pr: Any,
    find_pr: PrLookup,
    result: ReviewResult,
) -> ReviewResult:
    """Merge through the forge's API (Gitea, Forgejo): an outside push would leave the PR open.

    The forge merges exactly the reviewed tip (a branch that moved since is refused there) and
    deletes the branch; nothing is pushed by us. A refusal leaves main and the branch as they
    were.
    """
    forge = find_pr.forge
    try:
        forge.merge(pr, head_sha=tip)
    except ForgeError as exc:
        raise ForgeError(
            f"the {forge.name} API refused to merge pull request #{pr.number}: {exc.message}",
            hint=f"nothing was merged or pushed; see {pr.url or 'the pull request'}, fix what it "
            f"says (a conflict, branch protection, merge settings), then run "
            f"`reflect-git review approve {branch}` again",
        ) from None
    heads, main = _fetch_merged(remote, store, team.branch, tip)
    if main is None:
        raise RemoteError(
            f"the {forge.name} API said pull request #{pr.number} merged, but the team's "
            f"{team.branch} does not hold {tip[:10]}",
            hint=f"check {pr.url or 'the pull request'} on the forge",
        )
    result.commit, result.pushed, result.merged_by = main, True, forge.name
    result.fast_forward = main == tip
    result.notes.append(f"merged through the {forge.name} API (pull request #{pr.number})")
    if branch in heads:
        deleted = remote.delete_branch(branch)
        result.deleted = deleted.ok
        if deleted.ok:
            store.set_any_ref(remote.tracking_prefix + branch, None)
    else:
        result.deleted = True  # the forge deleted it with the merge
    result.notes.append(_pr_state_note(find_pr, pr))
    return result


# A forge's API may answer "merged" a moment before its git side serves the new main (a
# replica, a mirror, a push of its own still landing): the main is fetched again a few times
# before the merge is called missing.
MERGED_FETCHES = 4
MERGED_BACKOFF = Backoff(initial=0.25, multiplier=2.0, max_delay=2.0, jitter=0.5)


def _fetch_merged(
    remote: Any, store: Any, branch: str, tip: str
) -> tuple[dict[str, str], str | None]:
    """The remote's branches, and its ``branch`` once that holds ``tip`` (None when it still
    does not after the last try)."""
    for attempt in range(1, MERGED_FETCHES + 1):
        heads = remote.fetch()
        main = heads.get(branch)
        if main is not None and _merge_base(store, main, tip) == tip:
            return heads, main
        if attempt < MERGED_FETCHES:
            MERGED_BACKOFF.pause(attempt)
    return heads, None


def _pr_state_note(find_pr: PrLookup, pr: Any) -> str:
    """What the forge says about the PR now (a merge pushed from outside marks it merged)."""
    forge = find_pr.forge
    if forge is None:
        return f"pull request #{pr.number}: check it on the forge"
    try:
        state = forge.get(pr.number).state
    except ForgeError as exc:
        return f"pull request #{pr.number}: cannot read its state ({exc.message})"
    return f"the forge shows pull request #{pr.number} as {state}"


def reject(cfg: Config, branch: str, reason: str, team_path: Any = None) -> ReviewResult:
    """Close the branch's PR with the reason as a comment, then delete the branch."""
    from reflectgit.forge.choose import choose_forge
    from reflectgit.workflows.routing import forge_settings

    if not reason.strip():
        raise NoteError("a rejection needs a reason", hint="pass --reason 'why'")
    team, remote, store, heads = _context(cfg, team_path)
    branch = _require_branch(branch, heads)
    result = ReviewResult(branch, "reject")
    choice = choose_forge(remote.url(), forge_settings(cfg, store, heads.get(team.branch)), cfg.env)
    if choice.forge is None:
        result.notes.append(
            f"no forge to close the pull request on ({choice.reason}); close it by hand"
        )
    else:
        pr = choice.forge.find_open(branch, team.branch)
        if pr is None:
            result.notes.append("no open pull request for the branch")
        else:
            choice.forge.close(pr, f"Rejected in review: {reason.strip()}")
            result.closed, result.pr_url = True, pr.url
    deleted = remote.delete_branch(branch)
    result.deleted = deleted.ok
    if deleted.ok:
        store.set_any_ref(remote.tracking_prefix + branch, None)
    return result
