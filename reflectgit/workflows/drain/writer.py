"""The extract writer's model call and the reading of what comes back.

One call of the model command (``REFLECT_DRAIN_CMD``, default ``claude -p`` with tools off and
one turn), the prompt on stdin, a wall-clock timeout that kills the whole process group. The
answer is one JSON object ``{"actions": [...]}``, found even inside a code fence or stray prose,
and the raw output is classified (valid, prose, idle, poisoned, malformed) so the drain can
score writer health. Nothing here writes anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reflectgit.config import WriterSettings

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

# The model (or its CLI) says the input itself is too big: quarantine, never retry.
SIZE_MARKERS = (
    "prompt is too long",
    "context window",
    "maximum context length",
    "context length exceeded",
    "conversation is too long",
)
# The account or the writer cannot go on: archive, charged to the budget.
POISON_MARKERS = (
    "session exhausted",
    "credit balance is too low",
    "usage limit reached",
    "invalid api key",
)
_RATE_LIMIT = re.compile(r"\b(429|529)\b|rate[ _-]?limit|overloaded_error", re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)


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

    @property
    def total_tokens(self) -> int:
        return sum(self.tokens.values())

    @property
    def no_output(self) -> bool:
        return not self.stdout.strip()


def run_model(
    argv: list[str],
    prompt: str,
    *,
    timeout: float,
    cwd: str | None,
    env: Mapping[str, str],
) -> WriterRun:
    """Run the model command once, prompt on stdin; kill its process group at the timeout."""
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,  # so a timeout kills the model and whatever it spawned
    )
    timed_out = False
    try:
        out, err = proc.communicate(prompt.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    code = TIMEOUT_EXIT if timed_out else proc.returncode
    run = WriterRun(
        argv=argv,
        exit_code=code,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
    )
    read_envelope(run)
    return run


def read_envelope(run: WriterRun) -> None:
    """Fill text, turns, tokens, cost and rate-limit info from ``claude -p --output-format json``."""
    run.text = run.stdout
    stripped = run.stdout.strip()
    if not stripped.startswith("{"):
        return
    try:
        doc = json.loads(stripped)
    except json.JSONDecodeError:
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


def has_marker(run: WriterRun, markers: tuple[str, ...]) -> bool:
    haystack = f"{run.text}\n{run.stderr}".lower()
    if run.exit_code == 0 and not run.is_error and len(run.text) > 300:
        # A long answer that merely mentions a marker is prose, not a failure report.
        haystack = run.stderr.lower()
    return any(m in haystack for m in markers)


def find_actions(text: str) -> dict[str, Any] | None:
    """The first JSON object with an ``actions`` list, in a fence, bare, or amid prose."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        pos = chunk.find("{")
        while pos != -1:
            try:
                value, _end = decoder.raw_decode(chunk, pos)
            except json.JSONDecodeError:
                pos = chunk.find("{", pos + 1)
                continue
            if isinstance(value, dict) and isinstance(value.get("actions"), list):
                return value
            pos = chunk.find("{", pos + 1)
    return None


def classify(text: str) -> tuple[str, dict[str, Any] | None]:
    """(writer class, parsed object or None) for the model's answer."""
    if not text.strip():
        return IDLE, None
    lowered = text.lower()
    found = find_actions(text)
    if found is not None:
        return VALID, found
    if any(m in lowered for m in SIZE_MARKERS + POISON_MARKERS):
        return POISONED, None
    if "{" in text or "```" in text or '"actions"' in text:
        return MALFORMED, None
    return PROSE, None
