"""The extract writer's model call and the reading of what comes back.

One call of the model command (``REFLECT_DRAIN_CMD``, default ``claude -p`` with tools off and
one turn), the prompt on stdin, a wall-clock timeout that kills the whole process group. The
answer is one JSON object ``{"actions": [...]}``, found even inside a code fence or stray prose,
and the raw output is classified (valid, prose, idle, poisoned, malformed) so the drain can
score writer health. Nothing here writes anything.
"""

from __future__ import annotations

import bisect
import contextlib
import ctypes
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from reflectgit.config import DRAIN_MODEL_ENV, INTERNAL_ENV, WriterSettings

DEFAULT_MODEL = WriterSettings().model
DEFAULT_COMMAND = (
    "claude",
    "-p",
    "--output-format",
    "json",
    "--allowedTools",
    "",
    "--max-turns",
    "1",
)
TIMEOUT_EXIT = 124  # what coreutils `timeout` reports; used for our own kills too

VALID = "valid"
PROSE = "prose"
IDLE = "idle"
POISONED = "poisoned"
MALFORMED = "malformed"

# The model (or its CLI) says the input itself is too big: quarantine, never retry. Counted
# only in an error report (stderr, a non-zero exit, an error result) or as the whole of a short
# answer: a prose answer that merely talks about a context window is not a size rejection.
SIZE_MARKERS = (
    "prompt is too long",
    "input is too long",
    "context window",
    "maximum context length",
    "context length exceeded",
    "conversation is too long",
    "request too large",
)
# The account cannot make calls now (a subscription's usage limit, no credit, a bad key): the
# quota gate closes and the queue waits; nothing is charged, nothing is dead-lettered.
QUOTA_MARKERS = (
    "usage limit",
    "hit your limit",
    "limit reached",
    "credit balance is too low",
    "out of credits",
    "out of extra usage",
    "insufficient_quota",
    "exceeded your current quota",
    "invalid api key",
    "invalid x-api-key",
    "authentication_error",
    "please run /login",
    "session exhausted",
)
SHORT_ANSWER = 300  # a marker is the answer itself only in an answer shorter than this
MAX_OUTPUT = 8 * 1024 * 1024  # bytes of model stdout read; more is an oversized answer
MAX_STDERR = 1024 * 1024
EXIT_GRACE = 2.0  # seconds a helper may keep the pipes open after the model exited
_RATE_LIMIT = re.compile(r"\b(429|529)\b|rate[ _-]?limit|overloaded_error", re.IGNORECASE)
_RESETS = re.compile(r"limit reached\|(\d{9,11})")


def _answer_pattern(markers: tuple[str, ...]) -> re.Pattern[str]:
    """A short answer that *is* a report: it opens with the marker (after "Error:" and the
    like), e.g. "Prompt is too long" or "Claude AI usage limit reached|1750708800"."""
    alts = "|".join(re.escape(m) for m in markers)
    return re.compile(
        r"^\W*(?:(?:api\s+)?error\W*)?(?:claude(?:\s+ai)?\s+)?(?:you(?:'ve|\s+have)\s+)?"
        r"(?:[\w-]+\s+)?(?:" + alts + ")",
        re.IGNORECASE,
    )


_SIZE_ANSWER = _answer_pattern(SIZE_MARKERS)
_QUOTA_ANSWER = _answer_pattern(QUOTA_MARKERS)
# A JSON object nested deeper than this is not an answer (and would exhaust the recursion).
MAX_DEPTH = 200
MAX_ATTEMPTS = 16  # candidate objects parsed at most, so a hostile answer stays linear


def model_timeout(outer: int) -> int:
    """The model call's share of the per-entry cap: 90 s stay for writing the notes."""
    return 60 if outer <= 150 else outer - 90


def command_for(settings: WriterSettings) -> list[str]:
    """The model command: ``REFLECT_DRAIN_CMD`` (shell words) or ``claude -p ... --model M``."""
    if settings.command:
        return list(settings.command)
    return [settings.claude_bin, *DEFAULT_COMMAND[1:], "--model", settings.model]


def find_command(argv: list[str], env: Mapping[str, str]) -> str | None:
    """The executable the command would run, or None when it is not installed."""
    if not argv:
        return None
    first = argv[0]
    if os.sep in first:
        return first if os.access(first, os.X_OK) and os.path.isfile(first) else None
    return shutil.which(first, path=env.get("PATH"))


def auto_writer(settings: WriterSettings, env: Mapping[str, str]) -> str:
    """The writer an unset ``drain.writer`` picks: ``extract`` when a model command is
    configured or installed, else ``heuristic`` (the embedded one)."""
    found = bool(settings.command) or find_command(command_for(settings), env)
    return "extract" if found else "heuristic"


def require_command(
    settings: WriterSettings, env: Mapping[str, str], *, needed_for: str, without: str
) -> list[str]:
    """The model command, or ``ConfigError`` before any work when it is not installed:
    ``needed_for`` says what needs it ("expanding a query"), ``without`` how to go on without
    it ("search without --expand")."""
    from reflectgit.errors import ConfigError

    argv = command_for(settings)
    if find_command(argv, env) is None:
        raise ConfigError(
            f"{needed_for} needs the drain's model command; {argv[0]!r} is not installed",
            hint="set REFLECT_DRAIN_CMD to a model command (prompt on stdin, answer on stdout),"
            f" or {without}",
        )
    return argv


@dataclass
class WriterRun:
    """What one model call produced, with the accounting the ledger needs."""

    argv: list[str]
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    duration_s: float = 0.0
    text: str = ""  # the model's answer (the envelope's ``result``, else stdout)
    is_error: bool = False
    turns: int | None = None
    model: str | None = None
    cost_usd: float = 0.0
    tokens: dict[str, int] = field(default_factory=dict)
    rate_limit: dict[str, Any] | None = None
    oversized: bool = False  # stdout went past the read cap; the model was stopped there
    launch_error: str | None = None  # the command could not be started at all

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens.values())

    @property
    def no_output(self) -> bool:
        return not self.stdout.strip()


_PR_SET_PDEATHSIG = 1


def _parent_death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the model when the drain dies, or None.

    Linux only (``prctl(PR_SET_PDEATHSIG)``); elsewhere the process group is all there is. libc
    is loaded here, in the parent: the function that runs in the child after ``fork`` only makes
    the one system call, and checks that the drain did not die before it was set.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the drain died between fork and prctl: die as the
            os.kill(os.getpid(), signal.SIGKILL)  # death signal would have had it

    return arm


def _kill_group(pid: int) -> None:
    """SIGKILL the model's whole process group (whatever it spawned, still running)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_model(
    argv: list[str],
    prompt: str,
    *,
    timeout: float,
    cwd: str | None,
    env: Mapping[str, str],
    max_output: int = MAX_OUTPUT,
) -> WriterRun:
    """Run the model command once, prompt on stdin, and read its answer within bounds.

    The command runs in a session of its own, and on Linux with a parent-death signal: a
    ``kill -9`` of the drain takes the model with it. At the deadline, or when stdout passes
    ``max_output`` bytes, its whole process group is killed and the pipes are closed at once:
    a helper that keeps stdout open (in the group or not) never holds the drain, and reading
    stops at the cap however fast the model writes. After the command exits, helpers get
    ``EXIT_GRACE`` seconds to finish writing, then the group is killed too.
    """
    started = time.monotonic()
    deadline = started + max(timeout, 0.0)
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            preexec_fn=_parent_death_signal(),  # one system call in the child, no locks
        )
    except OSError as exc:
        return WriterRun(
            argv=argv,
            exit_code=127,
            stdout="",
            stderr=str(exc),
            launch_error=f"{type(exc).__name__}: {exc.strerror or exc}",
        )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    pending = memoryview(prompt.encode("utf-8"))
    timed_out = oversized = False
    exited_at: float | None = None
    sel = selectors.DefaultSelector()
    pipes = (proc.stdin, proc.stdout, proc.stderr)
    try:
        for pipe in pipes:
            os.set_blocking(pipe.fileno(), False)
        if pending:
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ)
        sel.register(proc.stderr, selectors.EVENT_READ)
        while any(k.fileobj is not proc.stdin for k in sel.get_map().values()):
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if now >= deadline:
                timed_out = exited_at is None
                break
            if exited_at is not None and now - exited_at >= EXIT_GRACE:
                break
            wait = min(deadline - now, 0.05 if exited_at is None else EXIT_GRACE)
            for key, _mask in sel.select(wait):
                source = key.fileobj
                if source is proc.stdin:
                    try:
                        sent = os.write(proc.stdin.fileno(), pending[:65536])
                    except BlockingIOError:
                        continue
                    except OSError:  # the model closed its stdin: it has read what it wants
                        sent = len(pending)
                    pending = pending[sent:]
                    if not pending:
                        sel.unregister(proc.stdin)
                        with contextlib.suppress(OSError):
                            proc.stdin.close()
                    continue
                try:
                    chunk = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    sel.unregister(source)
                elif source is proc.stdout:
                    out += chunk
                elif len(err) < MAX_STDERR:
                    err += chunk[: MAX_STDERR - len(err)]
            if len(out) > max_output:
                oversized = True
                del out[max_output:]
                break
        if not (timed_out or oversized) and proc.poll() is None:
            # Both pipes closed before the command exited: it may still finish in time (with
            # its stdin closed, so it never waits for the rest of a prompt nobody reads).
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                timed_out = True
    finally:
        sel.close()
        _kill_group(proc.pid)
        for pipe in pipes:
            with contextlib.suppress(OSError):
                pipe.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
    code = proc.returncode if proc.returncode is not None else TIMEOUT_EXIT
    if timed_out:
        code = TIMEOUT_EXIT
    run = WriterRun(
        argv=argv,
        exit_code=code,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        oversized=oversized,
    )
    read_envelope(run)
    return run


@dataclass
class Answer:
    """One short question's answer (``ask``): the model's text, or why there is none."""

    text: str = ""
    error: str | None = None


def ask(
    writer: WriterSettings,
    prompt: str,
    *,
    env: Mapping[str, str],
    timeout: float,
    max_output: int,
) -> Answer:
    """Ask the drain's model command one question outside the drain (``search --expand``,
    ``stale --ask-model``): run in no folder of ours, its own session told it is ours (so it
    fires no capture hook), within ``timeout`` seconds and ``max_output`` bytes. A command that
    cannot start, times out, fails or reports an error gives no text and says why."""
    child = dict(env)
    child[DRAIN_MODEL_ENV] = writer.model
    child[INTERNAL_ENV] = "1"  # the model's own session must not fire our capture hooks
    run = run_model(
        command_for(writer), prompt, timeout=timeout, cwd=None, env=child, max_output=max_output
    )
    if run.launch_error:
        return Answer(error=f"the model command could not start: {run.launch_error}")
    if run.timed_out:
        return Answer(error=f"the model gave no answer within {timeout:g} s")
    if run.exit_code != 0 or run.is_error:
        return Answer(error=f"the model command failed (exit {run.exit_code})")
    return Answer(run.text)


def read_envelope(run: WriterRun) -> None:
    """Fill text, turns, tokens, cost and rate-limit info from ``claude -p --output-format json``."""
    run.text = run.stdout
    stripped = run.stdout.strip()
    if not stripped.startswith("{"):
        return
    try:
        doc = json.loads(stripped)
    except (ValueError, RecursionError):  # not an envelope (or one nested past all reason)
        return
    if not isinstance(doc, dict) or doc.get("type") != "result":
        return
    result = doc.get("result")
    run.text = result if isinstance(result, str) else ""
    run.is_error = bool(doc.get("is_error")) or str(doc.get("subtype", "")).startswith("error")
    turns = doc.get("num_turns")
    run.turns = turns if isinstance(turns, int) else None
    cost = doc.get("total_cost_usd", doc.get("cost_usd"))
    run.cost_usd = float(cost) if isinstance(cost, (int, float)) else 0.0
    usage = doc.get("usage")
    if isinstance(usage, dict):
        for key in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = usage.get(key)
            if isinstance(value, int):
                run.tokens[key] = value
    model_usage = doc.get("modelUsage")
    if isinstance(model_usage, dict) and model_usage:
        run.model = sorted(model_usage)[0]
    elif isinstance(doc.get("model"), str):
        run.model = doc["model"]
    info = doc.get("rate_limit_info")
    if isinstance(info, dict):
        run.rate_limit = info


def rate_limited(run: WriterRun) -> bool:
    """A 429/529 or rate-limit error reported by the writer (stderr or an error result)."""
    if run.exit_code == 0 and not run.is_error:
        return False
    return bool(_RATE_LIMIT.search(run.stderr) or (run.is_error and _RATE_LIMIT.search(run.text)))


def _reports(run: WriterRun, markers: tuple[str, ...], answer: re.Pattern[str]) -> bool:
    """Does the run report one of ``markers``?

    In an error (non-zero exit, an error result, or no answer at all) the marker may stand
    anywhere in stderr or the answer. A run that answered normally reports it only when the
    answer is short and *is* the report (it opens with the marker): a prose answer that
    mentions a context window or a usage limit is an invalid answer, retried, not a report.
    """
    text = run.text.strip()
    if run.exit_code != 0 or run.is_error or not text:
        haystack = f"{run.text[:8192]}\n{run.stderr[-8192:]}".lower()
        return any(m in haystack for m in markers)
    return len(text) < SHORT_ANSWER and bool(answer.match(text))


def size_rejected(run: WriterRun) -> bool:
    """The model (or its CLI) refused the input as too big for its context."""
    return _reports(run, SIZE_MARKERS, _SIZE_ANSWER)


def quota_exhausted(run: WriterRun) -> bool:
    """The account cannot make calls now: usage limit, no credit, a rejected key."""
    return _reports(run, QUOTA_MARKERS, _QUOTA_ANSWER)


def resets_at(run: WriterRun) -> float | None:
    """The reset time a usage-limit report carries (``usage limit reached|<epoch>``)."""
    m = _RESETS.search(f"{run.text[:8192]}\n{run.stderr[-8192:]}")
    return float(m.group(1)) if m else None


def _fenced(text: str) -> list[str]:
    """The insides of the closed code fences of ``text`` (the language tag line dropped)."""
    parts = text.split("```")
    out = []
    for inner in parts[1 : len(parts) - 1 : 2]:
        first, nl, rest = inner.partition("\n")
        out.append(rest if nl and (not first.strip() or first.strip().isalnum()) else inner)
    return out


_BRACES = re.compile(r'[{}"\\\n]')


def _object_spans(chunk: str, key: str, strict: bool = True) -> list[tuple[int, int]]:
    """Balanced ``{...}`` spans (at every depth) that hold a ``"key"``: those that open with
    it first, then outermost first. One pass over the text: braces inside JSON strings do not
    count and, ``strict``, a string never runs past a newline (JSON strings cannot hold one),
    so stray quotes in code or prose cannot derail the scan for long; not ``strict``, a raw
    line break inside a string is read as part of it (a short answer's ``why``)."""
    quoted = json.dumps(key)
    marks = [m.start() for m in re.finditer(re.escape(quoted), chunk)]
    if not marks:
        return []
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    in_string = False
    escaped_at = -1  # the position a backslash escapes
    for m in _BRACES.finditer(chunk):
        ch, pos = m.group(), m.start()
        if in_string:
            if ch == "\n":
                in_string = not strict
            elif pos == escaped_at:
                pass
            elif ch == "\\":
                escaped_at = pos + 1
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch == "{":
            stack.append(pos)
        elif ch == "}" and stack:
            start = stack.pop()
            i = bisect.bisect_left(marks, start)
            if i < len(marks) and marks[i] < pos:
                spans.append((start, pos + 1))
    # An object that opens with its key (what a model answers) before any other, so code full
    # of objects that merely mention the key cannot use up the attempts.
    opens = re.compile(r"\{\s*" + re.escape(quoted) + r"\s*:")
    spans.sort(key=lambda span: (opens.match(chunk, span[0]) is None, span[0]))
    return spans


def find_object(
    text: str, key: str, accept: Callable[[dict[str, Any]], bool], *, strict: bool = True
) -> dict[str, Any] | None:
    """The first JSON object holding ``key`` that ``accept`` takes, in a fence, bare, or amid
    prose (a model's answer). ``strict=False`` also reads a raw line break inside a string.

    Linear in the size of the answer: one scan finds the balanced objects that mention
    ``key``, and at most ``MAX_ATTEMPTS`` of them are parsed. An object nested past what the
    JSON parser can take is not an answer.
    """
    decoder = json.JSONDecoder(strict=strict)
    attempts = 0
    for chunk in [*_fenced(text), text]:
        for start, end in _object_spans(chunk, key, strict):
            if attempts >= MAX_ATTEMPTS:
                return None
            attempts += 1
            try:
                value = decoder.decode(chunk[start:end])
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict) and accept(value):
                return value
    return None


def find_actions(text: str) -> dict[str, Any] | None:
    """The first JSON object with an ``actions`` list in the writer's answer (``find_object``)."""
    return find_object(text, "actions", lambda value: isinstance(value.get("actions"), list))


def classify(text: str) -> tuple[str, dict[str, Any] | None]:
    """(writer class, parsed object or None) for the model's answer."""
    if not text.strip():
        return IDLE, None
    found = find_actions(text)
    if found is not None:
        return VALID, found
    head = text.strip()
    if len(head) < SHORT_ANSWER and (_SIZE_ANSWER.match(head) or _QUOTA_ANSWER.match(head)):
        return POISONED, None
    if "{" in text or "```" in text or '"actions"' in text:
        return MALFORMED, None
    return PROSE, None
