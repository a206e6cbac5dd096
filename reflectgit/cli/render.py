"""Every line the command line prints: JSON documents, text lines, progress bars, errors.

Commands hand their result objects here; nothing else in the package writes to stdout or
stderr for a person (the hooks print only the replies their harness expects). Imports no
workflow; the lines the MCP tools answer with too live below the interfaces
(``workflows/kb/lines.py``, ``workflows/search/results.py``) and are imported from there.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from reflectgit.cli.options import globals_of
from reflectgit.notes.words import plural
from reflectgit.workflows.kb.lines import short

if TYPE_CHECKING:
    from typing import Any

# --------------------------------------------------------------------------- primitives


def echo(line: str, err: bool = False) -> None:
    """One line on stdout (or stderr)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(line + "\n")
    stream.flush()


class _Run:
    """What this command has printed so far (``app.run`` starts each command afresh)."""

    documents = 0


def begin() -> None:
    """A new command starts: nothing printed yet."""
    _Run.documents = 0


def write_json(document: Any) -> None:
    """One JSON document on stdout (the whole of stdout under ``--json``)."""
    import json  # on first use: a text report (every `validate`'s) needs neither json nor its regexes

    sys.stdout.write(json.dumps(document, indent=2, sort_keys=False, default=str) + "\n")
    sys.stdout.flush()
    _Run.documents += 1


def write_lines(lines: Iterable[str]) -> None:
    for line in lines:
        echo(line)


def emit(ctx: Any, document: Any, text: str | Sequence[str] | None = None) -> None:
    """Print the JSON document with ``--json``, else the text lines (unless ``--quiet``)."""
    g = globals_of(ctx)
    if g.json:
        write_json(document)
        return
    if g.quiet or text is None:
        return
    write_lines([text] if isinstance(text, str) else list(text))


def note_line(ctx: Any, text: str) -> None:
    """A progress or informational line on stderr (never pollutes --json stdout)."""
    if not globals_of(ctx).quiet:
        echo(text, err=True)


def error(message: str, hint: str | None = None) -> None:
    """``error: ...`` and ``hint: ...`` on stderr."""
    echo(f"error: {message}", err=True)
    if hint:
        echo(f"hint: {hint}", err=True)


class ProgressBar:
    """A one-line stderr bar, drawn only on a terminal and at most ~20 times a second."""

    def __init__(self, label: str, enabled: bool) -> None:
        self.label = label
        self.enabled = enabled
        self._clock = time.monotonic
        self._last = 0.0
        self._drawn = False

    @classmethod
    def for_ctx(cls, ctx: Any, label: str) -> ProgressBar:
        return cls(label, enabled=sys.stderr.isatty() and not globals_of(ctx).quiet)

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        now = self._clock()
        if done < total and now - self._last < 0.05:
            return
        self._last = now
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        sys.stderr.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()


# --------------------------------------------------------------------------- knowledge base


def init_lines(result: Any) -> list[str]:
    if result.commit:
        verb = "Created" if result.created else "Adopted"
        lines = [f"{verb} the knowledge base in {result.kb} (commit {result.commit[:12]})"]
        lines += [f"  wrote {p}" for p in result.written]
    else:
        lines = [f"{result.kb} is already a reflect-git knowledge base: nothing to change"]
    lines += [
        f"  left {p} alone: it exists but is not committed (commit it yourself)"
        for p in result.left_untracked
    ]
    if getattr(result, "merge_driver", None) == "set":
        lines.append(
            "  git merges notes field by field here: merge driver set in the repository's "
            "git config (merge.reflect-git)"
        )
    return lines


def init_ci_lines(ci_paths: Sequence[str]) -> list[str]:
    return [f"  CI job: {p} (committed)" for p in ci_paths]


def init_unnamed_source(
    described: str, pre_commit: str | None, ci_paths: Sequence[str]
) -> list[str]:
    from reflectgit.config import CI_INSTALL_ENV

    lines = [
        f"Set by hand: this reflect-git was installed {described}, which others cannot install."
    ]
    if pre_commit:
        lines.append(
            f"  {pre_commit}: set repo: and rev: (SET-ME now) to a git URL of reflect-git "
            "your team can reach and a tag or commit of it"
        )
    for path in ci_paths:
        lines.append(
            f"  {path}: set the CI variable {CI_INSTALL_ENV} (SET-ME now) to what pip installs, "
            "e.g. git+https://<repository>@<commit>"
        )
    return lines


def init_next(kb: Any) -> str:
    return f"Next: `cd {kb} && pre-commit install` validates notes on every commit"


def forgotten(result: Any) -> list[str]:
    if result.dry_run:
        return [f"would forget {i}" for i in result.forgotten] or ["nothing to forget"]
    if result.forgotten:
        return [f"forgot {', '.join(result.forgotten)} in {short(result.commit)}"]
    return ["nothing to forget"]


def undone(result: Any) -> str:
    return f"reverted {short(result.reverted)} ({result.subject}) in {short(result.commit)}"


def note_list(notes: Sequence[Any]) -> list[str]:
    lines = [
        f"{n.id}  [{(n.confidence or '?').upper()}]  {n.title}"
        + (f"  ({n.state})" if n.state != "live" else "")
        for n in notes
    ]
    return lines or ["no notes"]


def log_lines(entries: Sequence[Any], ident: str | None = None) -> list[str]:
    lines = [f"{e.commit[:12]}  {e.date[:19]}  {(e.op or '?'):<9} {e.subject}" for e in entries]
    if lines:
        return lines
    return [f"no commits for {ident}"] if ident else ["no reflect-git commits yet"]


LOG_HINT = "hint: `reflect-git list --all` shows the ids; `reflect-git log` lists every commit"


def log_empty(ctx: Any, entries: Sequence[Any], ident: str | None) -> None:
    """No commit names that id: say where the ids are (stderr, so --json stays a list)."""
    if ident and not entries:
        note_line(ctx, LOG_HINT)


def imported(result: Any) -> list[str]:
    lines = [
        f"imported {plural(len(result.imported), 'note')} in {plural(len(result.commits), 'commit')}"
        + (f": {', '.join(short(c) for c in result.commits)}" if result.commits else "")
    ]
    adapted = getattr(result, "adapted", [])
    if adapted:
        lines.append(f"adapted {len(adapted)} on the way in (only these lines changed):")
        lines += [f"  {a.path} -> {a.id}: {'; '.join(a.changes)}" for a in adapted]
    if result.skipped:
        lines.append(f"skipped {len(result.skipped)}:")
        lines += [f"  {s.path}: {s.reason}" for s in result.skipped]
    return lines


def exported(result: Any) -> str:
    return f"exported {plural(result.notes, 'note')} to {result.file}"


def kb_reason(choice: Any) -> str:
    """Why a command uses its KB (``config.KbChoice``), as ``status`` says it."""
    if choice.source == "flag":
        return "from --kb"
    if choice.source == "env":
        return f"from {choice.origin}"
    if choice.source == "cwd":
        return f"the KB containing {choice.origin}"
    if choice.source == "default":
        return f"your default KB ({choice.origin})"
    return "the fallback ~/.learnings"


def no_kb_hint() -> str:
    return (
        "run `reflect-git init PATH` (the first KB becomes your default), run the command "
        "inside a KB, or pass --kb PATH"
    )


def default_kb_set(kb: Any, config_file: Any) -> str:
    """``init`` made its KB the default one."""
    return f"  default KB: {kb} (written to {config_file})"


def no_kb_yet(kb: Any) -> str:
    import shlex

    return f"note: no knowledge base at {kb} yet: `reflect-git init {shlex.quote(str(kb))}`"


def default_kb_lines(kb: Any, config_file: Any, action: str) -> list[str]:
    """``config default-kb [PATH]``."""
    if action == "unset":
        return [f"default KB unset ({config_file}): outside a KB, commands use ~/.learnings"]
    if kb is None:
        return [f"no default KB set ({config_file}): outside a KB, commands use ~/.learnings"]
    verb = {"set": "default KB set: ", "show": ""}[action]
    return [f"{verb}{kb} ({config_file})"]


def status_lines(st: Any, choice: Any = None) -> list[str]:
    n, t = st.notes, st.tiers
    return (
        [
            f"kb:       {st.kb} (branch {st.branch or 'detached'} at {short(st.head)})",
            *([f"why:      {kb_reason(choice)}"] if choice is not None else []),
            f"notes:    {n['live']} live, {n['archived']} archived, {n['forgotten']} forgotten, "
            f"{n['review_queue']} in review-queue",
            f"tiers:    {t['high']} high, {t['medium']} medium, {t['low']} low"
            + (f", {t['unknown']} unknown" if t["unknown"] else ""),
            f"queue:    {st.queue_depth} waiting, {st.dead_letters} dead letters"
            + (f", {st.corrupt_files} corrupt" if st.corrupt_files else "")
            + (f", {st.stale_files} stale temporary" if st.stale_files else ""),
            f"index:    {st.index}",
            *error_counts_lines(st.errors),
            "hooks:    "
            + ", ".join(
                f"{k} {'installed' if v else 'not installed'}" for k, v in st.hooks.items()
            ),
            f"work tree: {'clean' if st.clean else 'has uncommitted edits to notes'}",
        ]
        + ([f"pending:  {st.pending}"] if st.pending else [])
        + merge_driver_lines(st.merge_driver)
        + withheld_lines(st.withheld, n["live"])
        + publish_lines(st.publish)
    )


def merge_driver_lines(driver: Any) -> list[str]:
    """``status``: does git merge notes field by field in this repository?"""
    if not driver:
        return []
    if driver["active"]:
        line = (
            "merge:    driver registered, .gitattributes names it: git merges notes field by field"
        )
        if not driver["current"]:
            line += " (registered by another reflect-git install; `reflect-git hooks install` points it here)"
        return [line]
    gaps = []
    if not driver["registered"]:
        gaps.append("driver not registered in the repository's git config")
    if not driver["attributes"]:
        gaps.append(f".gitattributes lacks {len(driver['missing_attributes'])} of its lines")
    return [
        f"merge:    {'; '.join(gaps)}: git merges notes line by line "
        "(`reflect-git init` in the KB sets both)"
    ]


def withheld_lines(withheld: Any, live: int) -> list[str]:
    """``status``: the live notes recall and the MCP tools withhold from agents, and why."""
    if withheld is None and live:
        return ["withheld: not counted yet (no search index: `reflect-git reindex` builds it)"]
    if not withheld:
        return []
    return [
        f"withheld: {len(withheld)} note{'s' if len(withheld) != 1 else ''} never served to "
        "agents (they fail validation or hold a secret)",
        *(f"  {path}: {why}" for path, why in withheld),
    ]


def forge_lines(forge: Any, team: bool = True) -> list[str]:
    """Where the ``[forge]`` settings came from, and the committed ones that were ignored
    (nothing for a KB with no team and no forge settings)."""
    if not (team or forge.values or forge.ignored):
        return []
    return [forge.describe(), *(f"warning: {w}" for w in forge.ignored)]


def forge_doc(forge: Any) -> dict[str, Any]:
    return {"settings": forge.values, "sources": forge.sources, "ignored": forge.ignored}


def publish_lines(pub: Any) -> list[str]:
    """``status`` in the clone layout: what `git push` would publish (route's part of render)."""
    if not pub:
        return []
    where = f"{pub['remote']}/{pub['branch']}"
    guard = (
        f"guard:    pre-push guard installed: a push of {pub['branch']} to {pub['remote']} "
        "refuses unreviewed notes"
        if pub["guard"]
        else "guard:    none: a plain `git push` can publish unreviewed notes "
        "(`reflect-git team guard` installs it)"
    )
    if not pub["notes"]:
        return [f"publish:  nothing: local {pub['branch']} adds no note to {where}", guard]
    out = [f"publish:  `git push` would change {plural(len(pub['notes']), 'note')} on {where}:"]
    for note in pub["notes"]:
        flag = "" if note["reviewed"] else "  <- unreviewed: route it for review"
        out.append(f"  {note['change']:<8} {note['path']} [{(note['tier'] or '?').upper()}]{flag}")
    if pub["unreviewed"]:
        out.append(
            "  the pre-push guard refuses that push"
            if pub["guard"]
            else "  no pre-push guard: `reflect-git team guard` makes git refuse that push"
        )
    return [*out, guard]


# --------------------------------------------------------------------------- validation


def problems(ctx: Any, lines: Sequence[str], fmt: str, summary_line: str) -> None:
    """A validation report: the problem lines on stdout, the summary on stderr (text only)."""
    write_lines(lines)
    if fmt == "text":
        note_line(ctx, summary_line)


# --------------------------------------------------------------------------- team and review


def _tip(sha: str | None) -> str:
    return sha[:10] if sha else "(none)"


def team_status(result: Any) -> list[str]:
    out = [
        f"team remote: {result.remote}",
        f"local repository: {result.path}",
        f"{result.branch}: remote {_tip(result.remote_tip)}, local {_tip(result.local_tip)}"
        + (
            f" (ahead {result.ahead}, behind {result.behind})"
            if result.ahead or result.behind
            else ""
        ),
        f"open knowledge branches: {len(result.knowledge_branches)}",
    ]
    out += [f"  {name}" for name in result.knowledge_branches]
    out += [f"note: {n}" for n in result.notes]
    return out


def team_cloned(result: Any) -> list[str]:
    return [f"cloned {result.remote} into {result.path}", *team_status(result)]


def team_synced(result: Any) -> list[str]:
    merged = result.merged
    if merged is None:
        head = "fetched and fast-forwarded" if result.updated else "fetched"
        return [f"team KB {head}", *team_status(result)]
    out = [
        f"team KB fetched and merged: {plural(merged['files'], 'file')} from the team's "
        f"{result.branch} at {_tip(merged['from'])} (merge commit {_tip(merged['commit'])}, "
        "not pushed)"
    ]
    out += [
        f"  {n['path']}: yours changed {', '.join(n['ours']) or 'nothing'}; "
        f"the team's changed {', '.join(n['theirs']) or 'nothing'}"
        for n in merged["notes"]
    ]
    return [*out, *team_status(result)]


def routed(result: Any) -> list[str]:
    return list(result.lines())


def guarded(result: Any) -> list[str]:
    """``team guard``."""
    out = [f"pre-push guard {result.action}: {result.hook}"]
    if result.chained:
        out.append(f"chained: {result.chained} (runs first)")
    return out


def queue_changed(result: Any) -> list[str]:
    """``review queue promote|drop``."""
    if result.action == "promote":
        out = [f"promoted {result.id} to {result.confidence}; removed {result.pointer}"]
    else:
        out = [f"dropped {result.pointer} (the note {result.id or '?'} stays as it is)"]
    out.append(f"commit: {result.commit}")
    out += [f"note: {n}" for n in result.notes]
    return out


def reviewed(result: Any) -> list[str]:
    if result.action == "approve":
        how = "fast-forward" if result.fast_forward else "merge commit"
        if getattr(result, "merged_by", None):
            how = f"merged through the {result.merged_by} API,"
        out = [f"approved {result.branch}: {how} {result.commit or ''}".rstrip()]
        out.append(f"pushed to main: {'yes' if result.pushed else 'no'}")
    else:
        out = [f"rejected {result.branch}"]
        out.append(f"pull request closed: {'yes' if result.closed else 'no'}")
    out.append(f"branch deleted: {'yes' if result.deleted else 'no'}")
    if result.pr_url:
        out.append(f"pull request: {result.pr_url}")
    out += [f"note: {n}" for n in result.notes]
    return out


# --------------------------------------------------------------------------- hooks and capture


def agent_hooks(result: Any) -> list[str]:
    detail = f" ({', '.join(result.events)})" if result.events else ""
    lines = [f"{result.action}: {result.agent} hooks in {result.settings}{detail}"]
    if result.command and result.action != "uninstalled":
        lines.append(f"  command: {result.command}")
    lines += [f"  removed ours from {path}" for path in result.cleaned]
    lines += [f"  note: {note}" for note in result.notes]
    return lines


def hooks_kb_named(choice: Any) -> list[str]:
    """``hooks install``: the KB a personal file names."""
    return [f"  kb: {choice.path}, {kb_reason(choice)}; every command names it (--kb)"]


def hooks_kb_found(found: Any, chosen: Any) -> list[str]:
    """``hooks install``: a shared file names no KB; which one your hooks will find."""
    lines = [
        f"  kb: {found.path}, {kb_reason(found)}; the file is shared, so it names no KB: "
        "each user's hooks read the KB the project is in, else their default KB"
    ]
    if chosen.path != found.path:
        lines.append(
            f"  note: not {chosen.path} ({kb_reason(chosen)}): "
            f"`reflect-git config default-kb {chosen.path}` makes it your default"
        )
    return lines


def doubled_warning(twice: dict[str, Any], project: Any) -> str:
    """A session in ``project`` runs our hooks twice (``installer.doubled``)."""
    files = " and ".join(twice["settings"])
    if twice["kind"] == "both-scopes":
        agent = twice["agent"]
        return (
            f"warning: {agent} hooks are installed at user and project scope ({files}): "
            f"{agent} sessions in {project} get recall twice and record every event twice; "
            f"remove one (`reflect-git hooks install --agent {agent} --scope project --uninstall`)"
        )
    return (
        f"warning: Copilot CLI also runs the Claude Code hooks of the project's "
        f".claude/settings.json ({files}): Copilot sessions in {project} get recall twice and "
        "record every event twice; install one of the two here"
    )


def mcp_registration(result: Any) -> list[str]:
    """``hooks install --agent ... --mcp``: where the MCP server entry went, and how it runs."""
    verb = {"absent": "not registered"}.get(result.action, result.action)
    lines = [f"{verb}: {result.agent} MCP server reflect-git in {result.config}"]
    if result.command and result.action != "removed":
        import shlex

        lines.append(f"  command: {shlex.join(result.command)}")
    lines += [f"  note: {note}" for note in result.notes]
    return lines


def mcp_status(rows: Sequence[dict[str, Any]]) -> list[str]:
    """``hooks status``: where the MCP server is registered (user scope always shown)."""
    lines = []
    for row in rows:
        if row["registered"]:
            lines.append(f"{row['agent']} ({row['scope']}) MCP: {row['command']} ({row['config']})")
            lines.append(reads_kb_line(row))
        elif row["scope"] == "user":
            lines.append(f"{row['agent']} ({row['scope']}) MCP: not registered ({row['config']})")
    return lines


def mcp_offer(agent: str) -> str:
    return (
        f"note: the reflect-git MCP server is not registered with {agent}: add --mcp to "
        "register it (--no-mcp: do not ask)"
    )


def git_hook(done: Any) -> list[str]:
    lines = [f"{done.action}: {done.hook}"]
    if done.chained:
        lines.append(f"chained: {done.chained} runs first")
    if done.restored:
        lines.append(f"restored: the previous hook is back at {done.restored}")
    return lines


def merge_registration(reg: Any) -> list[str]:
    """The merge driver's line of ``hooks install``: set, unchanged or removed."""
    if reg.action in ("set", "unchanged"):
        what = "set" if reg.action == "set" else "already set"
        return [f"merge driver {what} in {reg.repo}: git merges notes field by field"]
    if reg.action == "removed":
        return [f"merge driver removed from {reg.repo}: git merges notes line by line again"]
    return []


def timers(result: Any) -> list[str]:
    """``hooks install --timer``: what was written or removed, and the scheduler's next step."""
    lines = [f"{result.action}: {result.kind} timers for the drain and the idle sweep"]
    lines.extend(f"  {path}" for path in result.files)
    if result.next:
        verb = (
            "start them" if result.action in ("installed", "updated", "unchanged") else "stop them"
        )
        lines.append(f"to {verb}:")
        lines.extend(f"  {line}" for line in result.next)
    return lines


def hooks_status(base: Any, git_status: dict[str, Any] | None, agents: Sequence[Any]) -> list[str]:
    lines = []
    if git_status is None:
        lines.append(f"post-commit: {base} is not a git repository")
    else:
        state = "installed" if git_status["installed"] else "not installed"
        lines.append(f"post-commit: {state} ({git_status['hook']})")
        if git_status["chained"]:
            lines.append(f"  chained: {git_status['chained']}")
        if git_status["hooks_path"]:
            lines.append(f"  core.hooksPath: {git_status['hooks_path']}")
        if git_status["installed"] and not git_status["python_ok"]:
            lines.append(f"  warning: {git_status['python']} is gone; run `hooks install` again")
        if git_status["installed"] and "kb_source" in git_status:
            lines.append(reads_kb_line(git_status))
    for row in agents:
        events = ", ".join(row["events"]) if row["events"] else "not installed"
        if row["installed"] or row["shared"] or row["scope"] == "user":
            lines.append(f"{row['agent']} ({row['scope']}): {events} ({row['settings']})")
        if row["installed"]:
            lines.append(reads_kb_line(row))
    return lines


def reads_kb_line(row: dict[str, Any]) -> str:
    """``hooks status``: the KB an installed integration reads, and whether it is there."""
    if row.get("kb") is None:
        return f"  reads: no KB ({row.get('kb_error', 'unknown')})"
    how = {
        "named": "named with --kb",
        "cwd": "the KB the project is in",
        "default": "your default KB",
        "env": "from REFLECT_GIT_KB",
        "fallback": "the fallback ~/.learnings",
    }.get(row["kb_source"], row["kb_source"])
    there = "" if row["kb_exists"] else ": no knowledge base there"
    return f"  reads: {row['kb']} ({how}){there}"


def idle_swept(rows: Sequence[dict[str, Any]], root: Any) -> list[str]:
    lines = [f"{r['reason']:<22} {r['entry'] or '-':<16} {r['transcript']}" for r in rows]
    return lines or [f"no quiet sessions under {root}"]


# --------------------------------------------------------------------------- queue and drain


def entry_line(entry: Any, now: float) -> str:
    wait = ""
    if entry.not_before and entry.not_before > now:
        wait = f" wait={int(entry.not_before - now)}s"
    session = f" session={entry.session_id}" if entry.session_id else ""
    return (
        f"{entry.id}  {entry.trigger:<12} retries={entry.retries}{wait}{session}  "
        f"{entry.transcript_path}"
    )


def queued(entry: Any, created: bool) -> str:
    verb = "queued" if created else "already queued"
    return f"{verb} {entry.id}  {entry_line(entry, time.time()).split('  ', 1)[1]}"


def queue_listing(
    entries: Sequence[Any], dead: Sequence[Any], corrupt: Sequence[Any], where: Any
) -> list[str]:
    now = time.time()
    lines = [entry_line(e, now) for e in entries] or ["queue is empty"]
    if dead:
        lines.append(f"{plural(len(dead), 'dead letter')}: `reflect-git queue failed`")
    if corrupt:
        lines.extend(corrupt_lines(corrupt, where))
    return lines


def corrupt_lines(corrupt: Sequence[Any], where: Any) -> list[str]:
    """Torn or edited queue files: which transcripts they held and how to queue them again."""
    lines = [f"{plural(len(corrupt), 'corrupt queue file')} moved aside in {where}:"]
    for c in corrupt:
        held = c.transcript or "transcript unknown (the file is torn before its path)"
        lines.append(f"  {c.name}  {held}" + (f"  ({c.reason})" if c.reason else ""))
    import shlex

    known = [c.transcript for c in corrupt if c.transcript]
    lines.append(
        "re-add each transcript with `reflect-git queue add TRANSCRIPT`"
        + (
            ": " + "; ".join(f"`reflect-git queue add {shlex.quote(t)}`" for t in known)
            if known
            else ""
        )
    )
    return lines


def dead_letters(dead: Sequence[Any]) -> list[str]:
    lines = []
    for e in dead:
        lines.append(f"{e.id}  {e.dead_reason}  retries={e.retries}  {e.transcript_path}")
        if e.last_error:
            lines.append(f"    last error: {e.last_error}")
    return lines or ["no dead letters"]


def row_line(row: dict[str, Any]) -> str:
    """One drain outcome row."""
    parts = [f"{row['entry_id']}  {row['outcome']:<24} entries={row['entries']}"]
    if row.get("notes"):
        parts.append(f"notes={','.join(row['notes'])}")
    if row.get("confirmed"):
        parts.append(f"confirmed={','.join(row['confirmed'])}")
    if row.get("archived"):
        parts.append(f"archived={','.join(row['archived'])}")
    if row.get("dropped"):
        parts.append(f"dropped={len(row['dropped'])}")
    if row.get("cost_usd"):
        parts.append(f"cost=${row['cost_usd']:.4f}")
    if row.get("detail"):
        parts.append(f"({row['detail']})")
    return "  ".join(parts)


def drained(report: Any) -> list[str]:
    head = f"drain: {report.status}" + (" (dry run)" if report.dry_run else "")
    head += f", writer {report.writer}"
    if report.message:
        head += f": {report.message}"
    return [head, *(row_line(r) for r in report.rows)]


def cost_table(doc: dict[str, Any], by: str) -> list[str]:
    width = max([len(g["key"]) for g in doc["groups"]] + [5])
    lines = [f"{by:<{width}}  runs  entries  tokens     cost_usd  ok  notes"]
    for g in [*doc["groups"], doc["total"]]:
        lines.append(
            f"{g['key']:<{width}}  {g['runs']:>4}  {g['entries']:>7}  {g['tokens']:>9}  "
            f"{g['cost_usd']:>8.4f}  {g['ok']:>2}  {g['notes']:>5}"
        )
    return lines


# --------------------------------------------------------------------------- search


def expansion_line(expansion: Any) -> str:
    """The first line of ``search --expand``: the terms the model added, or why none."""
    if expansion.error:
        return f"(not expanded: {expansion.error})"
    cached = ", cached" if expansion.cached else ""
    return f"(expanded{cached}: {', '.join(expansion.terms)})"


def reindexed(result: Any) -> str:
    notes = plural(result.changed, "note")
    if result.rebuilt:
        return f"index rebuilt: {notes} (tree {(result.tree or 'empty')[:12]})"
    if result.changed:
        return f"index updated: {notes} re-read (tree {(result.tree or '')[:12]})"
    return f"index already fresh (tree {(result.tree or 'empty')[:12]})"


# --------------------------------------------------------------------------- failures


USAGE_HINT = "see `reflect-git --help` or `reflect-git COMMAND --help`"


def failure(message: str, hint: str | None, exit_code: int, as_json: bool) -> None:
    """A failed command: ``error:``/``hint:`` on stderr; under ``--json`` also ONE document
    ``{"error", "hint", "exit_code"}`` on stdout (the whole of stdout a script reads), unless
    the command already printed its document, which then reports the failure itself (route)."""
    error(message, hint)
    if as_json and not _Run.documents:
        write_json({"error": message, "hint": hint, "exit_code": exit_code})


def internal_error(exc: BaseException, log: Any, as_json: bool = False) -> None:
    where = f" (traceback in {log})" if log else ""
    message = f"internal error: {type(exc).__name__}: {exc}"
    echo(f"error: {message}{where}", err=True)
    if as_json and not _Run.documents:
        hint = f"the traceback is in {log}" if log else None
        write_json({"error": message, "hint": hint, "exit_code": 3})


# --------------------------------------------------------------------------- serve


def serve_banner(url: str, kb: str, read_only: bool, loopback: bool) -> list[str]:
    """What `reflect-git serve` prints once it listens: the URL to open, with its token."""
    lines = [
        f"reflect-git serve: {kb}{' (read-only)' if read_only else ''}",
        f"open {url}",
        "the token in this URL is the key to the UI: keep it to yourself; Ctrl-C stops the server",
    ]
    if not loopback:
        lines.append(
            "warning: listening beyond this machine; anyone who gets the URL can use the UI"
        )
    return lines


# --------------------------------------------------------------------------- ingest


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def ingest_table(scan: Any, dry_run: bool = False) -> list[str]:
    """The candidates of ``reflect-git ingest``: one row a rule, its source and its status."""
    if not scan.files:
        return [
            "no memory files found (CLAUDE.md, AGENTS.md, .cursorrules, .cursor/rules, "
            ".github/copilot-instructions.md, ~/.claude)"
        ]
    lines = [f"{plural(len(scan.files), 'memory file')}: " + ", ".join(f.shown for f in scan.files)]
    if not scan.candidates:
        return [*lines, "no rules in them"]
    where = [f"{c.file}:{c.line}" for c in scan.candidates]
    width = min(max(len(w) for w in where), 44)
    lines.append(f"{'#':>3}  {'status':<9}  {'source':<{width}}  rule")
    for c, w in zip(scan.candidates, where, strict=True):
        w = w if len(w) <= width else "…" + w[-(width - 1) :]  # the file's name is what tells
        lines.append(f"{c.number:>3}  {c.status:<9}  {w:<{width}}  {_cut(c.text, 72)}")
    new = len(scan.new)
    secret = sum(1 for c in scan.candidates if c.status == "secret")
    done = len(scan.candidates) - new - secret
    summary = f"{plural(new, 'new rule')}, {done} already ingested or repeated" + (
        f", {secret} holding a secret (never ingested)" if secret else ""
    )
    lines.append(summary + ("; dry run: nothing written" if dry_run else ""))
    return lines


def ingested(done: Any) -> list[str]:
    lines = [
        f"ingested {plural(len(done.written), 'note')} ({plural(len(done.commits), 'commit')})"
    ]
    lines.extend(f"  {c.note_id}  <- {c.file}:{c.line}" for c in done.written)
    return lines


# --------------------------------------------------------------------------- errors


def error_counts_lines(counts: dict[str, int] | None) -> list[str]:
    """``status``'s line: what went wrong in the last 7 days."""
    if counts is None:
        return []
    if not counts:
        return ["errors:   none in the last 7 days"]
    parts = ", ".join(f"{kind} {n}" for kind, n in counts.items())
    total = sum(counts.values())
    return [f"errors:   {total} in the last 7 days ({parts}); `reflect-git errors` says more"]


def errors_table(report: Any) -> list[str]:
    """``reflect-git errors``: one row a kind, its count, when it last happened, what it said."""
    span = f"since {report.since:%Y-%m-%d %H:%M} UTC" if report.since else "ever"
    if not report.kinds:
        return [f"no errors {span}"]
    lines = [f"{plural(report.total, 'error')} {span}", "kind                    count  last"]
    for k in report.kinds.values():
        when = f"{k.last_at:%Y-%m-%d %H:%M}" if k.last_at else "-"
        lines.append(f"{k.kind:<22}  {k.count:>5}  {when}")
        if k.last_message:
            lines.append(f"    {_cut(k.last_message, 100)}")
    return lines


# --------------------------------------------------------------------------- rules (enforced)


def _rule_rows(rules: Sequence[Any]) -> list[str]:
    """What a match does, tier, source, pattern, title: one rule a line, in columns."""
    rows = [(r.effect, r.tier, r.source, r.pattern, r.title) for r in rules]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(4)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) for row in rows]
    return [
        f"{line}  {row[4]}" if row[4] else line.rstrip()
        for line, row in zip(lines, rows, strict=True)
    ]


def rule_table(ruleset: Any) -> list[str]:
    """``rules list``: one rule a line (what a match does, tier, source, pattern, title)."""
    out = _rule_rows(ruleset.rules)
    notes = sum(1 for r in ruleset.rules if r.origin != "file")
    files = len(ruleset.rules) - notes
    summary = (
        f"{plural(len(ruleset.rules), 'rule')} ({notes} from notes, {files} from policy files)"
    )
    if not ruleset.complete:
        summary += "; incomplete: not every note was read"
    return [*out, summary] if out else ["no rules in force", summary]


def rule_test(result: Any, harness: str, event: str, answer: Any) -> list[str]:
    """``rules test``: the matching rules, the decision, and the reply the harness reads."""
    out = _rule_rows(result.decision.matched) or ["no rule matches"]
    decision = result.decision
    if decision.action:
        out.append(f"decision: {decision.action}: {decision.reason}")
    elif decision.context:
        out.append("decision: none; context for the agent:")
        out.extend(f"  {line}" for line in decision.context)
    else:
        out.append("decision: none (the call goes ahead)")
    if answer is not None:
        import json

        out.append(f"{harness} {event} reply: {json.dumps(answer, ensure_ascii=False)}")
    else:
        out.append(f"{harness} {event} reply: nothing (no output)")
    return out


def stale_lines(report: Any, proposals: Sequence[Any] | None = None) -> list[str]:
    """``stale``: one block per stale note (id, label, each anchor and its commits), then the
    notes whose code changed in nothing they name, then those whose file moved."""
    out: list[str] = []
    for note in report.stale:
        out.append(f"{note.id}  {note.label}")
        out.extend(_anchor_lines(note))
    for note in report.changed:
        out.append(f"{note.id}  {note.label}")
        out.extend(_anchor_lines(note))
    for note in report.moved:
        first = note.anchors[0]
        out.append(f"{note.id}  {note.label} (its code unchanged)")
        now = f"{first.now}:{first.anchor.symbol}" if first.anchor.symbol else first.now
        out.append(f"    {first.anchor.label} -> {now} (stale --propose proposes the new anchor)")
    for p in proposals or []:
        out.append(f"proposed for review: {p.id} -> {p.where}")
    summary = (
        f"{plural(len(report.stale), 'stale note')} of {plural(report.checked, 'anchored note')} "
        f"in {report.project} (HEAD {report.head[:10]})"
    )
    if report.changed or report.moved:
        summary += f"; {len(report.changed)} changed elsewhere, {len(report.moved)} moved"
    if report.unchecked:
        summary += f"; {len(report.unchecked)} not checked (their commits are not in this clone)"
    return [*out, summary]


def model_reading_line(reading: Any) -> str:
    """``stale --ask-model`` (stderr): what the model read, and the calls that failed."""
    if not (reading.asked or reading.not_asked):
        return "the model had no note to read: none is stale for a change"
    line = (
        f"the model read {plural(reading.asked, 'note')} stale for a change: {reading.holds}"
        f" still hold{'s' if reading.holds == 1 else ''} (listed as changed), {reading.wrong}"
        f" wrong, {reading.unsure} unsure"
    )
    if reading.failed:
        line += (
            f"; {plural(reading.failed, 'call')} failed, the heuristic verdict kept"
            f" ({'; '.join(reading.errors[:2])})"
        )
    if reading.not_asked:
        line += f"; {reading.not_asked} not asked (the bound, or the model kept failing)"
    return line


def _anchor_lines(note: Any) -> list[str]:
    out: list[str] = []
    for a in note.anchors:
        moved = f" -> {a.now}" if a.now and a.now != a.anchor.path else ""
        names = f" ({', '.join(a.names[:5])})" if a.names else ""
        size = f", {a.lines[0]} of {a.lines[1]} lines" if a.lines and len(note.anchors) > 1 else ""
        whole = " (the symbol was not found at the note's commit: the file compared)"
        out.append(
            f"    {a.anchor.label}{moved}: {a.reason}{names}{size}{whole if a.whole_file else ''}"
        )
        out.extend(f"      {c.sha[:10]} {c.subject}" for c in a.commits[:5])
        if len(a.commits) > 5:
            out.append(f"      ... and {len(a.commits) - 5} more")
    return out


def pr_notes_lines(result: Any) -> list[str]:
    """``pr-notes``: one line per note (id, title), its why below; nothing when none bears on
    the change (a script or CI job reads an empty output as "nothing to say")."""
    out: list[str] = []
    for note in result.notes:
        out.append(f"{note.id}  {note.title}")
        out.append(f"    {note.why}")
    return out


def pr_comment_line(outcome: Any) -> str:
    """What ``pr-notes --comment`` did to the pull request's comment (stderr)."""
    what = {
        "created": "posted the reflect-git comment",
        "updated": "updated the reflect-git comment",
        "unchanged": "the reflect-git comment already says this",
        "deleted": "no note bears on the change now: deleted the reflect-git comment",
        "none": "no note bears on the change: no comment",
    }[outcome.action]
    extra = (
        f" (and {plural(outcome.duplicates_deleted, 'duplicate')} deleted)"
        if outcome.duplicates_deleted
        else ""
    )
    return f"pull request {outcome.number}: {what}{extra}"


def code_ci_lines(kind: str, written: Sequence[Any]) -> list[str]:
    """``code-ci``: the file written and what to set before committing it."""
    out = [f"wrote {p}" for p in written]
    if kind == "gitlab":
        out.append("include it from .gitlab-ci.yml (include: - local: <that path>); set the CI/CD")
        out.append("variables REFLECT_KB_URL and GITLAB_TOKEN (api scope), masked")
    else:
        out.append("set the secret REFLECT_KB_URL (the team KB's clone URL), then commit the file")
    return out
