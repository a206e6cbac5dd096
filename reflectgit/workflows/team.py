"""The team KB: which remote it is, which local repository holds its objects, clone/sync/status.

``.reflect-git.toml`` in the personal KB records it::

    [team]
    remote = "https://github.com/acme/team-kb.git"   # or "origin": the KB's own remote
    path = "/home/me/.learnings-team"                 # a local clone (set by `team clone`)
    branch = "main"

Routing needs a local repository to build commits in (as objects; nothing is checked out):
the clone at ``path`` when there is one, else the personal KB itself, fetching the team remote
into ``refs/reflect-git/team/*`` (or ``refs/remotes/<name>/*`` for a named remote).
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import SETTINGS_FILE, Config
from reflectgit.errors import ConfigError, ConflictError, NotFoundError, RemoteError
from reflectgit.git import repo_info
from reflectgit.git.remote import TeamRemote, is_url, redact
from reflectgit.git.remote import clone as git_clone
from reflectgit.notes import messages

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_BRANCH = "main"
KNOWLEDGE_PREFIX = "knowledge/"


@dataclass(frozen=True)
class Team:
    """Where the team KB is: the local repository used for objects and the remote to talk to."""

    repo_path: Path
    remote_spec: str
    branch: str = DEFAULT_BRANCH
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    is_personal_kb: bool = False

    @property
    def is_clone(self) -> bool:
        """Does the local branch follow the team's (a team clone, or the KB with an origin)?

        A personal KB that only routes to a team URL has its own, unrelated ``main``: status
        does not compare it and sync never moves it.
        """
        return not self.is_personal_kb or not is_url(self.remote_spec)

    def remote(self) -> TeamRemote:
        git_dir = repo_info.repository_dir(self.repo_path)
        return TeamRemote(self.repo_path, self.remote_spec, git_dir=git_dir, env=self.env)

    def store(self) -> Any:
        from reflectgit.git.store import Store

        return Store.open(self.repo_path, self.env)


def team_settings(cfg: Config) -> dict[str, Any]:
    table = cfg.settings.get("team")
    return dict(table) if isinstance(table, Mapping) else {}


def resolve_team(cfg: Config, team_path: str | Path | None = None) -> Team | None:
    """The configured team KB, ``--team PATH`` first; None when no team is configured."""
    settings = cfg.team  # [team] as config parsed it (a malformed value is a ConfigError)
    branch = settings.branch or DEFAULT_BRANCH
    remote = settings.remote
    if team_path is not None:
        path = Path(team_path).expanduser().absolute()
        if not repo_info.is_repository(path):
            raise NotFoundError(
                f"{path} is not a git repository",
                hint="pass the folder of a clone of the team KB (`reflect-git team clone URL`)",
            )
        # A clone talks to its own origin (its remote-tracking refs stay meaningful to git).
        spec = remote if remote and not is_url(remote) else "origin"
        return Team(path, spec, branch, cfg.env, path == cfg.kb)
    clone = settings.path
    if clone:
        path = Path(clone).expanduser()
        path = path if path.is_absolute() else (cfg.kb / path)
        if not path.exists():
            raise NotFoundError(
                f"the team clone {path} named in {SETTINGS_FILE} does not exist",
                hint=f"run `reflect-git team clone {remote or 'URL'} --path {path}` again",
            )
        return Team(path, remote if remote and not is_url(remote) else "origin", branch, cfg.env)
    if remote:
        return Team(cfg.kb, remote, branch, cfg.env, True)
    return None


def require_team(cfg: Config, team_path: str | Path | None = None) -> Team:
    team = resolve_team(cfg, team_path)
    if team is None:
        raise ConfigError(
            "no team KB is configured",
            hint="run `reflect-git team clone URL`, or set [team] remote in .reflect-git.toml",
        )
    return team


# ============================================================================ settings file


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        escaped = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04x}", escaped)
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise ConfigError(f"cannot write {value!r} into {SETTINGS_FILE}")


def set_table(text: str, table: str, values: Mapping[str, Any]) -> str:
    """Replace (or append) one ``[table]`` in TOML text, keeping everything else as written."""
    body = "".join(
        f"{key} = {_toml_value(val)}\n" for key, val in values.items() if val is not None
    )
    block = f"[{table}]\n{body}"
    lines = text.splitlines(keepends=True)
    start = end = None
    header = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")
    for i, line in enumerate(lines):
        match = header.match(line.rstrip("\n"))
        if match and start is None and match.group(1) == table:
            start = i
        elif match and start is not None:
            end = i
            break
    if start is None:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        sep = "\n" if prefix.strip() else ""
        new_text = prefix + sep + block
    else:
        stop = end if end is not None else len(lines)
        tail = lines[stop:]
        new_text = "".join(lines[:start]) + block + ("\n" if tail else "") + "".join(tail)
    tomllib.loads(new_text)  # never write a file config.py cannot read back
    return new_text


def record_team(cfg: Config, values: Mapping[str, Any]) -> str | None:
    """Commit ``[team]`` settings into the personal KB's ``.reflect-git.toml``."""
    from reflectgit.git.change import write
    from reflectgit.git.store import Store

    store = Store.init(cfg.kb, cfg.env)
    current = store.read(SETTINGS_FILE)
    on_disk = cfg.kb / SETTINGS_FILE
    text = (current or b"").decode("utf-8")
    if current is None and on_disk.exists():
        text = on_disk.read_text(encoding="utf-8")
    merged = {**team_settings(cfg), **values}
    new_text = set_table(text, "team", merged)
    message = messages.build(
        messages.chore_subject("team", "set the team KB remote"), "init", source="cli"
    )
    from reflectgit.workflows.kb.base import Base

    with Base(store) as kb:  # the KB's one mutation door
        kb.adopting = True  # writing the settings file is what makes a clone a KB, like init
        return kb.write_files([write(SETTINGS_FILE, new_text.encode("utf-8"))], message)


# ============================================================================ clone, sync, status


@dataclass
class TeamStatus:
    """What ``team status`` / ``team sync`` / ``team clone`` report."""

    remote: str
    path: str
    branch: str
    remote_tip: str | None = None
    local_tip: str | None = None
    ahead: int = 0
    behind: int = 0
    knowledge_branches: list[str] = field(default_factory=list)
    fetched: bool = False
    updated: bool = False
    commit: str | None = None
    notes: list[str] = field(default_factory=list)
    merged: dict[str, Any] | None = None  # sync merged a diverged clone: what it combined

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "path": self.path,
            "branch": self.branch,
            "remote_tip": self.remote_tip,
            "local_tip": self.local_tip,
            "ahead": self.ahead,
            "behind": self.behind,
            "knowledge_branches": self.knowledge_branches,
            "fetched": self.fetched,
            "updated": self.updated,
            "commit": self.commit,
            "notes": self.notes,
            "merged": self.merged,
        }


def default_clone_path(cfg: Config) -> Path:
    """Next to the KB: ``~/.learnings`` -> ``~/.learnings-team``."""
    return cfg.kb.parent / f"{cfg.kb.name or 'kb'}-team"


def clone(cfg: Config, url: str, path: str | Path | None = None) -> TeamStatus:
    """Clone the team KB and record it in the personal KB's settings."""
    target = Path(path).expanduser().absolute() if path else default_clone_path(cfg)
    if target.exists() and any(target.iterdir()):
        raise ConfigError(
            f"{target} already exists and is not empty",
            hint="pass --path to clone somewhere else, or remove the folder",
        )
    git_clone(url, target, cfg.env)
    status = TeamStatus(redact(url), str(target), DEFAULT_BRANCH, fetched=True)
    from reflectgit.workflows.merging import ensure

    ensure(target, cfg.env)
    status.notes.append("git merges notes field by field in the clone (merge driver set)")
    if target == cfg.kb:
        status.notes.append("the KB is itself the team clone; its origin is the team remote")
        if resolve_team(Config.resolve(cfg.kb, cfg.env)) is None:
            # Only when the team's own settings do not say so: this commit stays local.
            status.commit = record_team(cfg, {"remote": "origin"})
        hook = guard(Config.resolve(cfg.kb, cfg.env))
        status.notes.append(
            f"pre-push guard {hook.action} ({hook.hook}): `git push` of main refuses notes "
            "that are not high confidence; route those for review"
        )
    else:
        status.commit = record_team(cfg, {"remote": url, "path": str(target)})
    fresh = Config.resolve(cfg.kb, cfg.env)
    return _fill_status(require_team(fresh), status)


def status(cfg: Config, team_path: str | Path | None = None, *, fetch: bool = True) -> TeamStatus:
    """Fetch the team remote and compare it with the local branch."""
    team = require_team(cfg, team_path)
    remote = team.remote()
    result = TeamStatus(remote.display(), str(team.repo_path), team.branch)
    if fetch:
        remote.fetch()
        result.fetched = True
    return _fill_status(team, result)


def sync(cfg: Config, team_path: str | Path | None = None) -> TeamStatus:
    """Fetch, then bring the team clone's local branch up to the team's: a fast-forward, or
    (diverged) the merge ``git pull --no-rebase`` makes, notes merged field by field."""
    team = require_team(cfg, team_path)
    result = status(cfg, team_path)
    if result.remote_tip is None:
        result.notes.append("the team remote has no main branch yet")
        return result
    if not team.is_clone:
        return result
    from reflectgit.workflows.merging import ensure

    # The clone's own `git pull`, `git merge` and `git rebase` merge notes field by field.
    ensure(team.repo_path, cfg.env)
    if result.behind and not result.ahead:
        remote = team.remote()
        try:
            remote.fast_forward(team.branch, f"{remote.tracking_prefix}{team.branch}")
        except RemoteError as exc:
            # not updated is a failure a script must see (exit 1), with what to do about it
            raise RemoteError(
                f"{team.branch} was not updated: {exc.message}",
                hint=exc.hint
                or f"commit or stash local edits in {team.repo_path}, then run "
                "`reflect-git team sync` again",
            ) from exc
        result.updated = True
        if os.path.realpath(team.repo_path) == os.path.realpath(cfg.kb):
            from reflectgit.workflows.background import recompile_rules

            recompile_rules(cfg.kb, cfg.env, cfg.state_dir)
        return _fill_status(team, result)
    if result.ahead and result.behind:
        merge_team(cfg, team, result)
        if os.path.realpath(team.repo_path) == os.path.realpath(cfg.kb):
            from reflectgit.workflows.background import recompile_rules

            recompile_rules(cfg.kb, cfg.env, cfg.state_dir)
        return _fill_status(team, result)
    return result


def merge_team(cfg: Config, team: Team, result: TeamStatus) -> None:
    """Merge the fetched team branch into the clone's diverged one, as ``git pull --no-rebase``
    would: git merges, through the merge driver (notes and sidecars field by field). A conflict
    is aborted (nothing changed) and raised naming the notes and fields in conflict. The merge
    is not pushed: sync updates the local clone."""
    from reflectgit.git.pullmerge import merge_into_head

    remote = team.remote()
    target = result.remote_tip or ""
    message = messages.build(
        messages.chore_subject("merge", f"the team's {team.branch}"),
        "sync",
        source="team-sync",
        body=f"Merge {remote.display()} {team.branch} at {target[:12]} into the clone's "
        f"{team.branch}.",
    ).render()
    store = team.store()
    with store.lock():  # no reflect-git write of this repository runs meanwhile
        done = merge_into_head(team.repo_path, team.branch, target, message, cfg.env)
    if not done.clean:
        raise ConflictError(
            f"{team.branch} was not updated: your {team.branch} and the team's "
            f"({result.ahead} ahead, {result.behind} behind) conflict in "
            f"{_conflict_summary(done.conflicts)}; the merge was aborted and nothing changed",
            hint=f"resolve it by hand: `git -C {team.repo_path} pull --no-rebase` (notes merge "
            "field by field: git's markers are only around the conflicting fields), edit them, "
            "`git commit`, then `reflect-git team sync`",
        )
    both = sorted(set(done.ours) & set(done.theirs))
    notes = []
    for path in both:
        if not _is_note(path):
            continue
        base = store.read(path, rev=done.base) if done.base else None
        notes.append(
            {
                "path": path,
                "ours": _fields(base, store.read(path, rev=done.head), path),
                "theirs": _fields(base, store.read(path, rev=done.target), path),
            }
        )
    result.updated = True
    result.commit = done.commit
    result.merged = {
        "commit": done.commit,
        "from": done.target,
        "files": len(done.theirs),
        "notes": notes,
    }


def _is_note(path: str) -> bool:
    from reflectgit.workflows.merging import ATTRIBUTE_LINES

    return any(fnmatch.fnmatchcase(path, line.split()[0]) for line in ATTRIBUTE_LINES)


def _fields(base: bytes | None, side: bytes | None, path: str) -> list[str]:
    from reflectgit.notes.merge import changed_fields
    from reflectgit.workflows.merging import SIDECAR_SUFFIX

    if path.endswith(SIDECAR_SUFFIX):
        return ["sidecar"]
    return changed_fields(base, side, path)


def _conflict_summary(conflicts: Mapping[str, Any]) -> str:
    """``documents/x.md (title, confidence), README.md`` — the driver's own merge of each."""
    from reflectgit.workflows.merging import merge_bytes

    parts = []
    for path, (base, ours, theirs) in conflicts.items():
        fields: list[str] = []
        if _is_note(path) and ours is not None and theirs is not None:
            driven, _data = merge_bytes(base, ours, theirs, path)
            fields = [*driven.conflicts, *(["invalid merge"] if driven.problems else [])]
            if driven.clean:  # git merged it line by line: no .gitattributes line names us
                fields = ["lines: .gitattributes does not name the merge driver; `reflect-git "
                          "init` adds it"]  # fmt: skip
        elif ours is None or theirs is None:
            fields = ["deleted on one side"]
        parts.append(f"{path} ({', '.join(fields)})" if fields else path)
    return ", ".join(parts)


def _fill_status(team: Team, result: TeamStatus) -> TeamStatus:
    remote = team.remote()
    heads = remote.tracked()
    result.remote_tip = heads.get(team.branch)
    result.knowledge_branches = sorted(b for b in heads if b.startswith(KNOWLEDGE_PREFIX))
    result.ahead = result.behind = 0
    if not team.is_clone:
        result.local_tip = None
        note = "the personal KB routes to the team by URL; its own main is not compared"
        if note not in result.notes:
            result.notes.append(note)
        return result
    store = team.store()
    result.local_tip = store.tip(team.branch)
    if result.remote_tip and result.local_tip and result.remote_tip != result.local_tip:
        result.ahead, result.behind = remote.ahead_behind(result.local_tip, result.remote_tip)
    elif result.remote_tip and not result.local_tip:
        result.behind = 1
    return result


# ============================================================================ the clone layout
#
# When the KB is itself a clone of the team KB (``[team] remote = "origin"``), a plain
# ``git push`` of local ``main`` would publish whatever ``add``, the drain or capture put there,
# reviewed or not. reflect-git keeps git's own push working and guards it instead: a pre-push
# hook (``team guard``) refuses a push of ``main`` to the team remote that would add or change
# a note that is not high confidence; those go through ``route`` (a knowledge branch and a
# pull request). ``status`` says what a push would publish. reflect-git's own pushes (route,
# review approve) run with REFLECT_GIT_INTERNAL=1 and pass.

ZERO_SHA = "0" * 40
GUARD_HOOK = "pre-push"
GUARD_MARK = "# >>> reflect-git pre-push >>>"
CHAINED = ".reflect-git-chained"
GUARD_SETTING = "reflect-git.guard"  # "false" in the KB's own git config: never auto-install


@dataclass(frozen=True)
class Published:
    """One note a push of local main would change on the team's main."""

    path: str
    id: str
    tier: str | None  # None: the note does not parse
    change: str  # "added" | "modified" | "deleted"

    @property
    def reviewed(self) -> bool:
        """May this change reach main by a plain push? Only high notes, and deletions."""
        return self.change == "deleted" or self.tier == "high"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "id": self.id,
            "tier": self.tier,
            "change": self.change,
            "reviewed": self.reviewed,
        }


@dataclass
class Publication:
    """What ``git push`` of local main would publish to the team's main (the clone layout)."""

    remote: str
    branch: str
    remote_tip: str | None
    local_tip: str | None
    notes: list[Published] = field(default_factory=list)
    guard: bool = False  # is the pre-push guard installed?

    @property
    def unreviewed(self) -> list[Published]:
        return [n for n in self.notes if not n.reviewed]

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "branch": self.branch,
            "remote_tip": self.remote_tip,
            "local_tip": self.local_tip,
            "notes": [n.to_json() for n in self.notes],
            "unreviewed": [n.path for n in self.unreviewed],
            "guard": self.guard,
        }


def changed_notes(store: Any, old: str | None, new: str) -> list[Published]:
    """Notes under documents/ that differ between two commits, with the new version's tier."""
    from reflectgit.config import DOCUMENTS
    from reflectgit.errors import NoteError
    from reflectgit.notes.note import parse_note

    old_tree = store.commit_info(old).tree if old else None
    out = []
    for path, before, after in store.diff_trees(old_tree, store.commit_info(new).tree):
        if not (path.startswith(f"{DOCUMENTS}/") and path.endswith(".md")):
            continue
        stem = path[len(DOCUMENTS) + 1 : -len(".md")]
        if after is None:
            out.append(Published(path, stem, None, "deleted"))
            continue
        try:
            note = parse_note(store.read_blob(after), path)
            tier, ident = note.tier or "medium", note.id or stem
        except NoteError:
            tier, ident = None, stem
        out.append(Published(path, ident, tier, "modified" if before else "added"))
    return out


def clone_layout(cfg: Config) -> Team | None:
    """The team, when the KB itself is a clone of it (its main follows the team's main).

    Either ``[team] remote`` names one of the KB's remotes (``origin``), or it is a URL and
    the KB's team branch follows a remote with that URL (a plain ``git clone`` of the team
    KB whose settings name the team by URL): the team is then reached through that remote.
    """
    try:
        team = resolve_team(cfg)
    except (ConfigError, NotFoundError):
        return None
    if team is None or team.repo_path.resolve() != cfg.kb.resolve():
        return None
    if is_url(team.remote_spec):
        name = _upstream_of(cfg, team)
        return Team(cfg.kb, name, team.branch, cfg.env) if name else None
    return team if team.is_clone else None


def _upstream_of(cfg: Config, team: Team) -> str | None:
    """The remote the KB's team branch follows, when its URL is the team remote's URL."""
    name = repo_info.config_value(cfg.kb, f"branch.{team.branch}.remote", cfg.env)
    if not name or name == "." or is_url(name):
        return None
    url = repo_info.config_value(cfg.kb, f"remote.{name}.url", cfg.env)
    return name if url and _same_repository(url, team.remote_spec) else None


def _same_repository(a: str, b: str) -> bool:
    def plain(url: str) -> str:
        url = url.strip().rstrip("/")
        return url[: -len(".git")] if url.endswith(".git") else url

    return plain(a) == plain(b)


def publication(cfg: Config) -> Publication | None:
    """What a plain ``git push`` would publish, from the last fetch (no network); None when
    the KB is not a clone of the team KB."""
    team = clone_layout(cfg)
    if team is None:
        return None
    store = team.store()
    remote = team.remote()
    remote_tip = store.refs(remote.tracking_prefix).get(team.branch)
    local_tip = store.tip(team.branch)
    pub = Publication(team.remote_spec, team.branch, remote_tip, local_tip)
    pub.guard = guard_installed(cfg)
    if local_tip and local_tip != remote_tip:
        pub.notes = changed_notes(store, remote_tip, local_tip)
    return pub


def check_push(cfg: Config, remote_name: str, remote_url: str, updates: str) -> list[str]:
    """Git's pre-push lines (``<local ref> <local sha> <remote ref> <remote sha>``): the
    reasons to refuse, one per unreviewed note a push of main to the team would publish."""
    team = clone_layout(cfg)
    if team is None or (remote_name != team.remote_spec and remote_url != team.remote_spec):
        return []
    store = team.store()
    tracked = store.refs(team.remote().tracking_prefix).get(team.branch)
    problems = []
    for line in updates.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] != f"refs/heads/{team.branch}" or parts[1] == ZERO_SHA:
            continue
        local, theirs = parts[1], parts[3]
        base = theirs if theirs != ZERO_SHA and store.resolve(theirs) else tracked
        for note in changed_notes(store, base, local):
            if not note.reviewed:
                what = f"{note.tier} confidence" if note.tier else "does not parse"
                problems.append(f"{note.path} ({note.id}): {note.change}, {what}")
    return problems


GUARD_SHIM = """#!/bin/sh
{mark}
# Installed by `reflect-git team guard`; `reflect-git team guard --uninstall` removes it (and
# puts back the hook that was here before, kept as pre-push{chained}).
# Refuses a push of main to the team remote that would publish a note that is not high
# confidence: route those for review (`reflect-git route ID`).
rg_input=$(cat)
if [ -x "$0{chained}" ]; then
    printf '%s\\n' "$rg_input" | "$0{chained}" "$@" || exit $?
fi
if [ "${{REFLECT_GIT_INTERNAL:-0}}" = 1 ]; then
    exit 0  # reflect-git's own pushes (route, review approve) are reviewed already
fi
rg_python={python}
if [ -x "$rg_python" ]; then
    printf '%s\\n' "$rg_input" | "$rg_python" -m reflectgit.hooks.prepush "$@"
fi
"""


@dataclass
class GuardResult:
    """What ``team guard`` did."""

    hook: str
    action: str  # installed | updated | unchanged | uninstalled | absent
    chained: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"hook": self.hook, "action": self.action, "chained": self.chained}


def _guard_path(cfg: Config) -> Path:
    from reflectgit.workflows.installer import hooks_dir

    return hooks_dir(cfg.kb, cfg.env) / GUARD_HOOK


def ensure_guard(cfg: Config) -> GuardResult | None:
    """In the clone layout, install the pre-push guard unless it is there (or the person
    removed it with ``team guard --uninstall``); the mutation door calls this before a KB's
    first commit, so nothing it writes on the team's branch can be pushed unreviewed."""
    if clone_layout(cfg) is None or guard_installed(cfg):
        return None
    if repo_info.config_value(cfg.kb, GUARD_SETTING, cfg.env) == "false":
        return None
    return guard(cfg)


def guard_installed(cfg: Config) -> bool:
    try:
        return GUARD_MARK in _guard_path(cfg).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def guard(cfg: Config, *, uninstall: bool = False) -> GuardResult:
    """Install (or remove) the pre-push guard in the KB; a hook already there is chained."""
    import os

    from reflectgit.workflows.installer import sh_quote

    hook = _guard_path(cfg)
    chained = hook.with_name(GUARD_HOOK + CHAINED)
    ours = hook.exists() and GUARD_MARK in hook.read_text(encoding="utf-8", errors="replace")
    kept = str(chained) if chained.exists() else None
    if uninstall:
        # Remembered in the KB's own git config (which no teammate's push can change), so
        # the next `add` does not put the guard back.
        if repo_info.is_repository(cfg.kb):
            repo_info.set_config_value(cfg.kb, GUARD_SETTING, "false", cfg.env)
        if not ours:
            return GuardResult(str(hook), "absent", kept)
        hook.unlink()
        if chained.exists():
            os.replace(chained, hook)
        return GuardResult(str(hook), "uninstalled", None)
    if not repo_info.is_repository(cfg.kb):
        raise NotFoundError(f"{cfg.kb} is not a git repository", hint="run `reflect-git init`")
    repo_info.set_config_value(cfg.kb, GUARD_SETTING, None, cfg.env)
    text = GUARD_SHIM.format(mark=GUARD_MARK, chained=CHAINED, python=sh_quote(sys.executable))
    hook.parent.mkdir(parents=True, exist_ok=True)
    if ours:
        if hook.read_text(encoding="utf-8") == text:
            return GuardResult(str(hook), "unchanged", kept)
        action = "updated"
    else:
        if hook.exists():
            if chained.exists():
                raise ConfigError(
                    f"{chained} already exists, so the current {hook} cannot be chained",
                    hint="merge the two by hand, then run `reflect-git team guard` again",
                )
            os.replace(hook, chained)
            kept = str(chained)
        action = "installed"
    tmp = hook.with_name(f".{hook.name}.reflect-git.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, hook)
    return GuardResult(str(hook), action, kept)
