"""SessionStart's recall as the hook prints it: the answer kept for this project when everything
it was computed from still holds, else computed (``workflows/recall``) and kept.

A session start asks git about the project every time (its branch, changed and recent files:
``workflows/project_context``) and reads the memory slots; the rest of the recall (the search
index, the ranking) is what an answer kept in the state directory (``recall-answers.json``, one
per project) saves. It is kept with a stamp taken *before* it was computed, so a change while it
is computed leaves the stamp stale, never the answer:

- the KB's HEAD (``git.headstamp``: a ref moved, a commit made), and no write interrupted;
- the recall's code (the newest ``.py`` of ``workflows/``, ``workflows/search/``, ``notes/``);
- the settings it read (the budget, the synonym file's name and that file's stat), the hint;
- the project (name, branch, changed and recent files, its top folder) and the slots' lines.

It is served only when the stamp taken now is equal, every transcript whose size it counted
(``recall.discovery_cost``) has that size still, and now is before the first instant at which
a note's relationship starts or stops holding. When the files cannot vouch (HEAD or the synonym
file changed within ``headstamp.RACY`` seconds) nothing is served or kept; an answer that read
the code repository (notes anchored to code: the branch's changes, stale labels) is never kept.
A served answer counts in the ranking counters as a computed one does (appended to
``state/recalled.py``'s file, which the counters' database folds in when next opened).

A commit through the KB's door runs ``prepare`` in the detached process it starts for its other
jobs (``background.after_commit``: the rules' compile, once the hooks use it; never a process
of its own, which would cost every ``add``): the answers of the projects whose sessions started
last are computed again for the new HEAD, so the session after a drain's notes is served too.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING

from reflectgit import jsonio

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from reflectgit.config import Config

ANSWERS = "recall-answers.json"
KEEP = 32  # projects whose answer is kept (the least recently computed goes first)
PREPARE = 3  # projects whose answer a commit to the KB computes again, in the background
ROUNDS = 10  # a preparing process's rounds at most, while HEAD keeps moving
FORMAT = 1


def show_hint(mcp: bool, kb: str | os.PathLike[str], argv0: str, python: str) -> str:
    """What a SessionStart recall tells the agent to run for a whole note (``SHOW_HINT``'s
    place): the MCP server's ``show`` tool, or a command line that runs here with the KB named
    (the agent's PATH and folder may not find ours). ``argv0`` and ``python`` say how this
    process started: the ``reflect-git`` script beside a script of ours, else ``python -m
    reflectgit``."""
    if mcp:
        return "the `show` tool of the reflect-git MCP server prints a note in full"
    import shlex

    folder, name = os.path.split(argv0)
    stem, ext = os.path.splitext(name)
    script = os.path.join(folder, "reflect-git" + ext)
    if stem.startswith("reflect-git") and os.path.isfile(script):
        command = shlex.quote(os.path.abspath(script))
    else:
        command = f"{shlex.quote(python)} -m reflectgit"
    return f"`{command} --kb {shlex.quote(os.fspath(kb))} show ID` prints a note in full"


def context_json(text: str, harness: str) -> str:
    """The JSON a SessionStart hook prints for ``text``: Claude Code's and Codex's
    ``hookSpecificOutput`` document, Copilot CLI's ``additionalContext`` (its hooks reference)."""
    if harness == "copilot":
        return jsonio.dumps({"additionalContext": text})
    doc = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return jsonio.dumps(doc)


def session_output(cfg: Config, cwd: Path, hint: str, harness: str) -> tuple[str | None, list[str]]:
    """What the SessionStart hook prints on stdout (None: nothing) and the lines for the person
    (stderr). Never raises a ``ReflectGitError`` (``recall.session_recall``)."""
    text, messages = _answer(cfg, cwd, hint, serve=True)
    return (None if text is None else context_json(text, harness)), messages


def prepare(cfg: Config) -> None:
    """The KB changed (``background.after_commit``): compute and keep again the answers of the
    ``PREPARE`` projects whose sessions started last, so their next session start is served.
    Counts no recall (no agent reads these). One process prepares at a time (the others
    leave it to that one) and goes on while HEAD moves; each round waits first until HEAD's
    files can vouch for a stamp (``headstamp.RACY`` seconds after a commit)."""
    from pathlib import Path

    from reflectgit import flock
    from reflectgit.config import git_dir_of
    from reflectgit.git.headstamp import RACY, head_stamp

    os.makedirs(cfg.state_dir, exist_ok=True)
    fd = os.open(os.path.join(cfg.state_dir, ANSWERS + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if not flock.hold(fd, 0):
            return  # another process is preparing, and sees this commit's HEAD when it ends
        done: Any = None
        for _ in range(ROUNDS):
            time.sleep(RACY + 0.1)
            head = head_stamp(git_dir_of(cfg.kb))
            if head is None:
                continue  # HEAD moved again just now (or its files cannot vouch): wait more
            if head == done:
                return  # HEAD has not moved since the last round
            done = head
            answers = _load(os.path.join(cfg.state_dir, ANSWERS))
            kept = [(key, e.get("hint")) for key, e in answers.items() if isinstance(e, dict)]
            for key, hint in [(k, h) for k, h in kept if isinstance(h, str)][-PREPARE:]:
                cwd = Path(key)
                if cwd.is_dir():
                    _answer(cfg, cwd, hint, serve=False)
    finally:
        os.close(fd)


def _answer(cfg: Config, cwd: Path, hint: str, serve: bool) -> tuple[str | None, list[str]]:
    """The recall's text (None: none) and the lines for the person: the kept answer when
    ``serve`` and it holds, else computed (and counted when ``serve``), and kept. git's
    questions about the project are asked first (``project_context.describing``: the recent
    commits' files only when the project's HEAD moved since the answer kept for it)."""
    from reflectgit.workflows.project_context import describing

    path = os.path.join(cfg.state_dir, ANSWERS)
    answers = _load(path)
    known = {k: e.get("recent") for k, e in answers.items() if isinstance(e, dict)}
    described = describing(cwd, None, cfg.env, known)
    try:  # alongside git's questions: the rest of the stamp, what serving needs
        from reflectgit.state import recalled
        from reflectgit.workflows.capture.slots import recall_lines

        settled = _settled(cfg, hint)
    finally:
        context = described()
    slots = recall_lines(cfg.state_dir, context.name)
    root = None if context.root is None else os.fspath(context.root)
    project = [context.name, context.branch, list(context.files), root]
    stamp = None if settled is None else [*settled, project, slots]
    key = os.fspath(context.root or cwd)
    kept = answers.get(key)
    if serve and stamp is not None and isinstance(kept, dict) and _holds(kept, stamp):
        if kept["ids"]:  # counted by the next process that opens the counters
            with contextlib.suppress(OSError):  # soft state: never the session's failure
                recalled.append(cfg.state_dir, time.time(), kept["ids"])
        return kept["text"], list(kept["messages"])
    from reflectgit.workflows import recall

    said = recall.session_recall(cfg, cwd, hint, context=context, record=serve)
    result = said.result
    if result is None:
        return None, said.messages
    text = result.text()
    if stamp is not None and not result.read_code and result.slots == slots:
        answers = _load(path)  # as it is now: another session may have kept one meanwhile
        answers.pop(key, None)
        answers[key] = {
            "stamp": stamp,
            "hint": hint,
            "text": text,
            "ids": [n.id for n in result.notes],
            "messages": said.messages,
            "transcripts": result.transcripts,
            "holds_until": result.holds_until,
            "recent": None if context.recent is None else list(context.recent),
        }
        _save(path, dict(list(answers.items())[-KEEP:]))
    return text, said.messages


def _holds(kept: dict[str, Any], stamp: list[Any]) -> bool:
    """Whether the answer ``kept`` is still the answer: the same stamp, the transcripts it
    counted the same sizes, and no relationship has started or stopped holding since. A kept
    answer not in the shape this module writes never holds."""
    if kept.get("stamp") != stamp or not isinstance(kept.get("text"), str):
        return False
    if not all(isinstance(kept.get(k), list) for k in ("ids", "messages", "transcripts")):
        return False
    until = kept.get("holds_until")
    if until is not None and not (
        isinstance(until, str) and time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) < until
    ):
        return False
    for read in kept["transcripts"]:
        if not (isinstance(read, list) and len(read) == 2 and isinstance(read[0], str)):
            return False
        try:
            now = os.stat(read[0]).st_size
        except (OSError, ValueError):
            now = None
        if now != read[1]:
            return False
    return True


def _settled(cfg: Config, hint: str) -> list[Any] | None:
    """The stamp's part that is not the project's (see the module's text), as JSON values;
    None when the files cannot vouch for it."""
    from reflectgit.config import git_dir_of
    from reflectgit.git.headstamp import RACY, head_stamp
    from reflectgit.git.pending import JOURNAL_NAME, WRITER_NAME

    git_dir = git_dir_of(cfg.kb)
    head = head_stamp(git_dir)
    if head is None or any(
        os.path.exists(os.path.join(git_dir, name)) for name in (JOURNAL_NAME, WRITER_NAME)
    ):
        return None
    synonyms = cfg.search.synonyms
    table: list[int] | None = None
    if synonyms:
        try:
            st = os.stat(os.path.join(cfg.kb, synonyms))
        except (FileNotFoundError, NotADirectoryError):
            pass
        except (OSError, ValueError):
            return None
        else:
            if st.st_mtime_ns > time.time_ns() - int(RACY * 1e9):
                return None  # changed just now: a second change could keep its stat
            table = [st.st_ino, st.st_size, st.st_mtime_ns]
    return [
        FORMAT,
        _code_version(),
        os.fspath(cfg.kb),
        os.fspath(cfg.state_dir),
        head,
        cfg.recall_budget(),
        synonyms,
        table,
        hint,
    ]


def _code_version() -> int:
    """The newest modification time of the recall's code (``workflows/``, its ``search/``, and
    ``notes/``): an upgrade or an edit of the code computes the answer again."""
    here = os.path.dirname(os.path.abspath(__file__))
    newest = 0
    for folder in (here, os.path.join(here, "search"), os.path.join(here, "..", "notes")):
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    newest = max(newest, entry.stat().st_mtime_ns)
    return newest


def _load(path: str) -> dict[str, Any]:
    """The kept answers by project; {} when there are none or the file is unreadable."""
    try:
        with open(path, "rb") as fh:
            doc = jsonio.loads(fh.read())
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _save(path: str, answers: dict[str, Any]) -> None:
    """Write the kept answers atomically; a state directory that cannot take them keeps none."""
    from reflectgit.state.files import atomic_write

    with contextlib.suppress(OSError):
        atomic_write(path, jsonio.dumps(answers, ensure_ascii=False).encode("utf-8"))
