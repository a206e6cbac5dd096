"""Start-up budgets (issue 31): each command as a whole process against its anchor, in one run.

Each row times reflect-git and its anchor interleaved run by run, every install in the same
loop (two warm-up rounds dropped), and prints the medians, the ratio and "met" or "NOT met":

  posttooluse         PostToolUse hook, real payload, 10,000 notes  <= 1.5x python -c pass
  pretooluse          PreToolUse hook, the same (rules compiled)    <= 1.5x python -c pass
  pretooluse-ruled    PreToolUse of a Bash call no rule matches     <= 1.5x python -c pass
  sessionstart        SessionStart hooks (recall), 10,000 notes     <= 4x   python -c pass
  validate-hook       reflect-git-validate ONE.md (pre-commit)      <= 2.5x python -c pass
  pretooluse-changed  PreToolUse right after an `add` (hook timed)  <= 3x   python -c pass
  add                 add, 10,000 notes                             <= 3x   git add && git commit
  search              search WORD, CLI, 100,000 notes     >= 4x  faster than git grep -i WORD
  mcp                 the same, one `reflect-git mcp` process, per query: >= 20x faster

Hook rows run what `reflect-git hooks install --agent claude` writes into Claude Code's
settings (an event's commands started together, as Claude Code does) with a real payload on
stdin: a real session's median-size PostToolUse (shared data: REFLECT_SHARED_DIR, else ../shared
beside the checkout), the PreToolUse of that call, the session's SessionStart; without the
shared data, bench/data/claude-hook-events.json (written for this bench; the output says so).

Timed is a normal install: a wheel of this checkout pip-installed byte-compiled into a venv
whose own `python -c pass` is the anchor. ``--release-venv DIR`` keeps or reuses it; given
twice or more, all are timed in the same loop (before and after, under one load). ``--dev``
adds the editable venv running this; ``--no-release`` drops the wheel. ``--kb-dir DIR`` keeps
and reuses the KBs; ``--rows a,b`` times (and builds) only those. ``--cpu`` times the CPU the
processes used (user and system, theirs and their waited-for children's) instead of the wall
clock: steadier on a loaded machine, for before and after (the ``mcp`` row is left out); the
budgets are wall-clock ones.

Run: .venv/bin/python bench/startup.py [--runs 11] [--notes 10000] [--search-notes 100000]
     [--rows ROW,...] [--release-venv DIR]... [--kb-dir DIR] [--dev] [--no-release] [--cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from subprocess import PIPE

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("REFLECT_SHARED_DIR", ROOT.parent / "shared")).resolve() / "data"
REAL_EVENTS = "real/hook-events/derived-spotter-ae4a77f8.json"  # a real Claude Code session
OWN_EVENTS = ROOT / "bench" / "data" / "claude-hook-events.json"  # when the real ones are absent
REAL = (DATA / REAL_EVENTS).is_file()
sys.path.insert(0, str(ROOT / "bench"))

from kbgen import env as git_env  # noqa: E402 - bench/ is not a package
from kbgen import make_kb, note_bytes  # noqa: E402

HOOK_ROWS = ("posttooluse", "pretooluse", "sessionstart")
ROWS = (
    *HOOK_ROWS,
    "pretooluse-ruled",
    "validate-hook",
    "pretooluse-changed",
    "add",
    "search",
    "mcp",
)
RULED = "PreToolUse-ruled"  # the payload of the `pretooluse-ruled` row
WORDS = ("zanzibar", "retries")  # bench/search.py plants the first in about 0.05% of notes
WARMUP = 2
RULE_NOTE = """---
id: bench-no-force-push
title: Never force-push
created: 2026-11-30
confidence: high
enforce:
  deny:
    - "Bash(git push --force:*)"
---
Force pushes rewrote the team's history twice.
"""


@dataclass
class Install:
    """One installation of reflect-git: its interpreter, console scripts and, once prepared,
    its copy of the KB, environments and the hook commands its installer wrote."""

    name: str
    python: Path
    kb: Path = Path()
    env: dict[str, str] = field(default_factory=dict)  # the 10,000-note KB rows
    search_env: dict[str, str] = field(default_factory=dict)
    hooks: dict[str, list[str]] = field(default_factory=dict)
    mcp: Mcp | None = None

    def script(self, name: str) -> str:
        return str(self.python.parent / name)


def children_cpu() -> float:
    """Seconds of CPU (user and system) the finished child processes used."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


CLOCK = {"now": time.perf_counter}  # ``--cpu``: children_cpu


def _run(cmd: Sequence[str], cwd: Path, env: dict[str, str], stdin: bytes = b"", ok=(0,)) -> float:
    start = CLOCK["now"]()
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True)
    ms = (CLOCK["now"]() - start) * 1000
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()}")
    return ms


def fire(commands: list[str], payload: Path, cwd: Path, env: dict[str, str]) -> float:
    """An event: its commands started together, the payload on the stdin of each, as the
    harness starts them; the time until the last one exits."""
    start = CLOCK["now"]()
    procs = []
    for c in commands:
        argv = ["sh", "-c", c] if set(c) & set("|&;<>$`*?") else shlex.split(c)
        with payload.open("rb") as stdin:
            procs.append(
                subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin, stdout=PIPE, stderr=PIPE)
            )
    outs = [p.communicate() for p in procs]
    ms = (CLOCK["now"]() - start) * 1000
    for c, p, (_out, err) in zip(commands, procs, outs, strict=True):
        if p.returncode != 0:
            raise SystemExit(f"{c} failed ({p.returncode}): {err.decode()}")
    return ms


class Mcp:
    """One long-lived `reflect-git mcp` process, spoken to over stdio JSON-RPC."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> None:
        self.log, self.ids = log, 0
        with log.open("wb") as err:
            self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=PIPE, stdout=PIPE, stderr=err)
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        self.call("initialize", {**hello, "clientInfo": {"name": "bench", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, object]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict[str, object]) -> float:
        """Milliseconds from the request written to its reply read."""
        assert self.proc.stdout is not None
        self.ids += 1
        start = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        reply: dict = {}
        while reply.get("id") != self.ids:  # skip the server's notifications
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"the MCP server exited: {self.log.read_text()[-800:]}")
            reply = json.loads(line)
        ms = (time.perf_counter() - start) * 1000
        if "error" in reply or reply["result"].get("isError"):
            raise SystemExit(f"MCP {method} failed: {line[:500]!r}")
        return ms

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


Timer = Callable[[Install, int], float]


def interleave(installs: Sequence[Install], anchor: Timer, ours: Timer, runs: int):
    """Per install: the medians (ours, anchor) of ``runs`` rounds; a round times the anchor
    and then ours, for every install in turn."""
    times: dict[str, tuple[list[float], list[float]]] = {i.name: ([], []) for i in installs}
    for run in range(runs + WARMUP):
        for inst in installs:
            a, b = anchor(inst, run), ours(inst, run)
            if run >= WARMUP:
                times[inst.name][0].append(b)
                times[inst.name][1].append(a)
    return {k: (statistics.median(o), statistics.median(a)) for k, (o, a) in times.items()}


def report(label: str, results, anchor: str, goal: float, faster: bool = False) -> None:
    """A row: at most ``goal`` x the anchor, or (``faster``) at least ``goal`` x faster."""
    print(f"{label} (goal {'>=' if faster else '<='} {goal}x{' faster' if faster else ''})")
    for name, (ours, base) in results.items():
        ratio = base / ours if faster else ours / base
        met = ratio >= goal if faster else ratio <= goal
        verdict = (
            "met" if met else f"NOT met (needs <= {base / goal if faster else base * goal:.1f} ms)"
        )
        print(
            f"  {name:<18} {ours:8.1f} ms | {anchor:<22} {base:8.1f} ms | "
            f"{ratio:5.2f}x{' faster' if faster else ''}  {verdict}"
        )


def release_install(tmp: Path, keep: Path | None, name: str = "release") -> Install:
    """A wheel built from this checkout, pip-installed (byte-compiled) into its own venv."""
    venv = keep or tmp / "release"
    python = venv / "bin" / "python"
    if keep is not None and python.exists():
        print(f"(reusing the release venv {venv})")
        return Install(name, python)
    dist = tmp / "dist"
    started = time.perf_counter()
    build = [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)]
    subprocess.run(build, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheel = next(dist.glob("reflect_git-*.whl"))
    # with the MCP extra: the `mcp` row serves search from `reflect-git mcp`
    pip = [str(python), "-m", "pip", "install", "-q", "--compile", f"{wheel}[mcp]"]
    subprocess.run(pip, check=True, capture_output=True)
    print(f"(built and installed {wheel.name} in {time.perf_counter() - started:.0f} s)")
    return Install(name, python)


def agent_session(tmp: Path) -> tuple[Path, dict[str, Path], str]:
    """The agent's project (a repository with one commit), the SessionStart, PreToolUse and
    PostToolUse payloads as files, and where they came from."""
    project = tmp / "project"
    project.mkdir()
    (project / "README.md").write_text("A project.\n")
    for cmd in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *cmd], cwd=project, env=git_env(), check=True)
    real = DATA / REAL_EVENTS
    events = json.loads((real if REAL else OWN_EVENTS).read_text())
    posts = [e for e in events if e.get("hook_event_name") == "PostToolUse"]
    post = sorted(posts, key=lambda e: len(json.dumps(e)))[len(posts) // 2]  # the median size
    pre = {k: v for k, v in post.items() if k != "tool_response"}  # the call before it ran
    start = next(e for e in events if e.get("hook_event_name") == "SessionStart")
    source = (
        f"real Claude Code events ({REAL_EVENTS}): its median-size PostToolUse "
        f"({post['tool_name']}), the PreToolUse of the same call, its SessionStart"
        if REAL
        else f"NOT real: {OWN_EVENTS.relative_to(ROOT)}, written for this bench in the shape "
        f"of Claude Code's documented payloads ({real} was not found)"
    )
    transcript = tmp / "transcript.jsonl"  # a copy of the session's transcript, if it is there
    given = str(post.get("transcript_path", ""))
    for prefix, folder in (("REAL/", "real/transcripts/"), ("TRANSCRIPTS/", "transcripts/")):
        if given.startswith(prefix) and (DATA / folder / given[len(prefix) :]).is_file():
            shutil.copyfile(DATA / folder / given[len(prefix) :], transcript)
    transcript.touch()
    files = {}
    for event, body in (("SessionStart", start), ("PreToolUse", pre), ("PostToolUse", post)):
        files[event] = tmp / f"{event}.json"
        fixed = {"hook_event_name": event, "cwd": str(project), "transcript_path": str(transcript)}
        files[event].write_text(json.dumps({**body, **fixed}))
    # The same call made a shell command: a tool the KB's rule names, a command it does not match.
    ruled = json.loads(files["PreToolUse"].read_text())
    ruled.update(tool_name="Bash", tool_input={"command": "git status", "description": "Status"})
    files[RULED] = tmp / "PreToolUse-ruled.json"
    files[RULED].write_text(json.dumps(ruled))
    return project, files, source


def build_kbs(where: Path, args: argparse.Namespace) -> dict[str, Path]:
    """The KBs the rows need, generated unless ``where`` (``--kb-dir``) has them."""
    rows, kbs = set(args.rows), {}
    if rows & {*HOOK_ROWS, "pretooluse-ruled", "pretooluse-changed", "add"}:
        kbs["notes"] = where / f"kb-notes-{args.notes}"  # ours, with one enforced rule
    if "add" in rows:
        kbs["git"] = where / f"kb-git-{args.notes}"
    if rows & {"search", "mcp"}:
        kbs["search"] = where / f"kb-search-{args.search_notes}"
    for key, kb in kbs.items():
        if (kb / ".git").is_dir():
            continue
        shutil.rmtree(kb, ignore_errors=True)  # a build cut short
        if key == "search":
            from search import generate_kb  # bench/search.py: its vocabulary, planted words

            generate_kb(kb, args.search_notes)
            continue
        make_kb(kb, args.notes)
        if key == "notes":
            (kb / "documents" / "bench-no-force-push.md").write_text(RULE_NOTE)
            for cmd in (["git", "add", "documents"], ["git", "commit", "-q", "-m", "a rule"]):
                subprocess.run(cmd, cwd=kb, env=git_env(), check=True)
    return kbs


def prepare(inst: Install, tmp: Path, kbs: dict[str, Path], project: Path, rows) -> None:
    """Its own HOME, state directories and copy of the KB; indexes built; hooks installed."""
    slug = inst.name.replace(" ", "-")
    inst.kb = tmp / f"kb-{slug}"
    if "notes" in kbs:  # its own copy: its adds land there
        shutil.copytree(kbs["notes"], inst.kb, symlinks=True)
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=inst.kb, env=git_env())
    home = tmp / f"home-{slug}"
    home.mkdir()
    (home / ".gitconfig").write_text("[commit]\n\tgpgsign = false\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "REFLECT_"))}
    for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH"):  # an install has its bytecode
        env.pop(name, None)
    env.update(git_env(), HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"))
    env.update(REFLECT_GIT_KB=str(inst.kb), REFLECT_STATE_DIR=str(tmp / f"state-{slug}"))
    if inst.name == "dev":  # a source checkout: its bytecode goes to the scratch folder
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    inst.env = env
    inst.search_env = dict(env, REFLECT_STATE_DIR=str(tmp / f"search-state-{slug}"))
    # Indexes built outside the timings, each install its own (their schemas may differ).
    for key, kb, e in (("notes", inst.kb, env), ("search", kbs.get("search"), inst.search_env)):
        if key in kbs:
            cmd = [inst.script("reflect-git"), "--kb", str(kb), "reindex"]
            subprocess.run(cmd, env=e, cwd=project, capture_output=True)
    if not {*HOOK_ROWS, "pretooluse-ruled", "pretooluse-changed"} & set(rows):
        return
    cmd = [inst.script("reflect-git"), "--json", "hooks", "install", "--agent", "claude"]
    out = subprocess.run(
        cmd, cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {out.stderr}")
    settings = json.loads(Path(json.loads(out.stdout)["settings"]).read_text())
    inst.hooks = {
        event: [hook["command"] for group in groups for hook in group.get("hooks", [])]
        for event, groups in settings.get("hooks", {}).items()
    }
    for event in ("PostToolUse", "PreToolUse", "SessionStart"):
        print(f"  {inst.name} {event}: {' & '.join(inst.hooks.get(event, ['(none)']))}")


def bench(installs: Sequence[Install], tmp: Path, kbs, project: Path, payloads, args) -> None:
    runs, rows, notes = args.runs, args.rows, f"{args.notes:,} notes"
    payload = "real payload" if REAL else "NOT real payload"
    one = tmp / "one.md"  # a note as the generated KBs hold them
    one.write_bytes(note_bytes(1)[1])
    tag = str(time.time_ns())  # new names each run, also in KBs kept with --kb-dir

    def passing(inst: Install, _run_no: int) -> float:
        return _run([str(inst.python), "-c", "pass"], tmp, inst.env)

    def hook(event: str, payload: str | None = None) -> Timer:
        body = payloads[payload or event]
        return lambda inst, _run_no: fire(inst.hooks[event], body, project, inst.env)

    def validate(inst: Install, _run_no: int) -> float:
        return _run([inst.script("reflect-git-validate"), str(one)], tmp, inst.env)

    def our_add(inst: Install, run: int) -> float:
        cmd = [inst.script("reflect-git"), "--kb", str(inst.kb), "add", "--confidence", "high"]
        title = f"Bench {tag} {inst.name} note {run}"
        return _run([*cmd, "--title", title, "--insight", "x"], inst.kb, inst.env)

    def git_add(inst: Install, run: int) -> float:
        note = f"documents/git-{tag}-{inst.name.replace(' ', '-')}-{run}.md"
        body = f"---\ntitle: Git note {run}\ncreated: 2026-03-04\nconfidence: high\n---\nx\n"
        script = f"cat > {note} && git add {note} && git commit -q -m 'add {run}'"
        return _run(["sh", "-c", script], kbs["git"], inst.env, body.encode())

    def changed(inst: Install, run: int) -> float:
        our_add(inst, 1000 + run)  # the KB changed (not timed), and then the next tool call
        return hook("PreToolUse")(inst, run)

    budgets = {  # row: (label, ours, goal against python -c pass)
        "posttooluse": (f"PostToolUse hook, {payload}, {notes}", hook("PostToolUse"), 1.5),
        "pretooluse": (f"PreToolUse hook, {payload}, {notes}", hook("PreToolUse"), 1.5),
        "pretooluse-ruled": (
            f"PreToolUse hook, a Bash call no rule matches, {notes}",
            hook("PreToolUse", RULED),
            1.5,
        ),
        "sessionstart": (f"SessionStart hooks (recall), {notes}", hook("SessionStart"), 4),
        "validate-hook": ("reflect-git-validate ONE.md (pre-commit)", validate, 2.5),
        "pretooluse-changed": (f"PreToolUse, first call after an add, {notes}", changed, 3),
    }
    for row, (label, ours, goal) in budgets.items():
        if row not in rows:
            continue
        if row in ("pretooluse", "pretooluse-ruled"):  # compiled and current, as after a call
            for inst in installs:
                cmd = [inst.script("reflect-git"), "--kb", str(inst.kb), "rules", "list"]
                subprocess.run(cmd, cwd=project, env=inst.env, capture_output=True)
        report(label, interleave(installs, passing, ours, runs), "python -c pass", goal)

    if "add" in rows:
        results = interleave(installs, git_add, our_add, runs)
        report(f"add, {notes}", results, "git add && git commit", 3)
        for kb in (kbs["git"], *(inst.kb for inst in installs)):
            status = subprocess.run(["git", "status", "--porcelain"], cwd=kb, capture_output=True)
            assert status.stdout == b"", f"{kb} is not clean: {status.stdout!r}"

    big = kbs.get("search", tmp)
    for inst in installs if "mcp" in rows else ():
        cmd = [inst.script("reflect-git"), "--kb", str(big), "mcp"]
        inst.mcp = Mcp(cmd, big, inst.search_env, tmp / f"mcp-{inst.kb.name}.log")
    for word in WORDS if {"search", "mcp"} & set(rows) else ():

        def grep(inst: Install, _run_no: int, w: str = word) -> float:
            return _run(["git", "grep", "-i", w], big, inst.search_env, ok=(0, 1))

        def cli(inst: Install, _run_no: int, w: str = word) -> float:
            cmd = [inst.script("reflect-git"), "--kb", str(big), "search", w]
            return _run(cmd, big, inst.search_env, ok=(0, 1))

        def mcp(inst: Install, _run_no: int, w: str = word) -> float:
            assert inst.mcp is not None
            return inst.mcp.call("tools/call", {"name": "search", "arguments": {"query": w}})

        label = f"search {word!r}, {args.search_notes:,} notes"
        if "search" in rows:
            report(f"{label}, CLI", interleave(installs, grep, cli, runs), "git grep -i", 4, True)
        if "mcp" in rows:
            results = interleave(installs, grep, mcp, runs)
            report(f"{label}, one MCP server, per query", results, "git grep -i", 20, True)
    for inst in installs:
        if inst.mcp is not None:
            inst.mcp.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--search-notes", type=int, default=100_000)
    parser.add_argument("--release-venv", type=Path, action="append", default=None)
    parser.add_argument("--kb-dir", type=Path, default=None, help="keep and reuse the KBs here")
    parser.add_argument("--no-release", action="store_true", help="no wheel install")
    parser.add_argument("--dev", action="store_true", help="also time the editable venv")
    parser.add_argument("--cpu", action="store_true", help="CPU time, not the wall clock")
    parser.add_argument(
        "--rows",
        type=lambda text: [r.strip() for r in text.split(",") if r.strip()],
        default=list(ROWS),
        help=f"the rows to time, comma-separated (default: all of {','.join(ROWS)})",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.rows) - set(ROWS))
    if unknown:
        parser.error(f"unknown rows: {', '.join(unknown)} (known: {', '.join(ROWS)})")
    if args.no_release and not args.dev:
        parser.error("nothing to time: --no-release without --dev")
    if args.cpu:  # the MCP server answers many queries: its CPU is no finished child's
        CLOCK["now"] = children_cpu
        args.rows = [r for r in args.rows if r != "mcp"]
    # Detached background passes may still write in the scratch folder as it goes.
    with tempfile.TemporaryDirectory(
        prefix="reflect-git-startup-", ignore_cleanup_errors=True
    ) as t:
        tmp = Path(t)
        where = args.kb_dir.resolve() if args.kb_dir else tmp
        where.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        kbs = build_kbs(where, args)
        project, payloads, source = agent_session(tmp)
        installs = [Install("dev", Path(sys.executable))] if args.dev else []
        venvs = [] if args.no_release else args.release_venv or [None]
        for keep in venvs:
            installs.append(release_install(tmp, keep, keep.name if len(venvs) > 1 else "release"))
        for inst in installs:
            prepare(inst, tmp, kbs, project, args.rows)
        print(
            f"ready in {time.perf_counter() - started:.0f} s; {args.runs} runs per row, medians, "
            f"every install in each run; {'CPU time' if args.cpu else 'wall clock'}; "
            f"load average {os.getloadavg()[0]:.1f}; "
            f"{os.cpu_count()} cores"
        )
        print(f"payloads: {source}\n")
        bench(installs, tmp, kbs, project, payloads, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
