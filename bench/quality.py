"""Notes a teammate is glad to read (issue 34): precision and recall of capture and the drain,
judged by hand on the shared real sessions.

Everything is replayed from scratch: every hook-events file of ``../shared/data/real`` through
real ``reflect-git hook`` processes into a fresh KB each (``REFLECT_GIT_HOOK_SYNC=1``, then the
capture pass over what no Stop passed, as the drain does), and the heuristic drain over every
real transcript into one more KB. Each note written is looked up in the judgement file
(``bench/data/quality/judgements.json``) by its channel, its session and its normalised title:

- precision = notes judged useful / notes written (an unjudged note counts as not useful, and
  the number of unjudged notes is printed: a changed writer shows up there, never silently);
- recall = lessons kept / lessons a careful reader finds in those sessions, where a lesson is
  kept when a note judged useful, of the same channel and session, keeps it (its judgement
  names it). Each lesson has term groups (every term of a group in a note's text, case
  folded): an unjudged note matching them is counted in the "at most" figure, and a judged
  note whose terms miss a lesson its judge named is reported (the terms are too narrow).

``--unjudged`` prints the notes no judgement names yet, as entries ready to be judged.
``--writer extract`` measures the drain's model writer instead of the heuristic one, through
the drain's own run (one call of the model command a session: ``--writer-cmd CMD``, else the
one the drain finds, ``REFLECT_DRAIN_CMD`` or ``claude -p``; none installed is an error). A
model's notes are new to the judges: each is listed as UNJUDGED (session, title, the body's
first line) for a person to judge, precision counts judged notes only, and a lesson is kept
when a judged useful note names it or an unjudged note of its session matches its terms.
``--held-apart DIR`` adds sessions kept out of the shared corpus (same layout and judgement
file format). Without ``../shared`` (``REFLECT_SHARED_DIR``) it says so and exits 0.

Run: ``.venv/bin/python bench/quality.py``
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = Path(os.environ.get("REFLECT_SHARED_DIR", ROOT.parent / "shared")).resolve()
REAL = SHARED / "data" / "real"
JUDGEMENTS = ROOT / "bench" / "data" / "quality" / "judgements.json"
CHANNELS = ("capture", "drain")


@dataclass(frozen=True)
class Written:
    """One note a channel wrote, and where it came from."""

    channel: str
    session: str
    title: str
    text: str  # title, fields and body, for the lesson terms
    tier: str
    origin: str  # the hook-events file or transcript it came from
    first_line: str = ""  # the body's first line (what an UNJUDGED listing shows)

    @property
    def key(self) -> str:
        return note_key(self.channel, self.session, self.title)


def normalise(title: str) -> str:
    """A title as judgements name it: case folded, spacing collapsed, the ellipsis a long
    title is cut with dropped."""
    return " ".join(title.replace("…", " ").casefold().split())


def note_key(channel: str, session: str, title: str) -> str:
    return f"{channel}|{session}|{normalise(title)}"


# ------------------------------------------------------------------ replaying


def _env(tmp: Path, kb: Path) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "REFLECT_")) or k == "REFLECT_SHARED_DIR"
    }
    env.update(
        HOME=str(home),
        CODEX_HOME=str(home / ".codex"),
        REFLECT_GIT_KB=str(kb),
        REFLECT_GIT_HOOK_SYNC="1",
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.invalid",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.invalid",
    )
    return env


def _new_kb(path: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    (path / "README.md").write_text("knowledge\n")
    subprocess.run(["git", "-C", str(path), "add", "README.md"], check=True)
    who = ["-c", "user.name=bench", "-c", "user.email=b@x.invalid"]
    subprocess.run(["git", "-C", str(path), *who, "commit", "-qm", "init"], check=True)
    (path / "documents").mkdir()


def load(path: Path = JUDGEMENTS) -> dict[str, Any]:
    """The judgement file (the one reader of it: this bench, bench/drain.py and the tests)."""
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _notes(kb: Path) -> list[tuple[dict[str, Any], str, str]]:
    """Each note of ``kb``: its frontmatter, its whole text and its body's first line."""
    from reflectgit.notes.note import parse_note

    out = []
    for path in sorted((kb / "documents").glob("*.md")) if (kb / "documents").is_dir() else []:
        note = parse_note(path.read_bytes(), str(path))
        first = next((line.strip() for line in note.body.splitlines() if line.strip()), "")
        out.append((note.frontmatter, path.read_text(encoding="utf-8"), first))
    return out


def _home_files(real: Path, env: Mapping[str, str], manifest: Mapping[str, Any]) -> None:
    """What two files name outside the corpus: the tilde path's session at home, and the
    Codex rollout that ``notify`` names only by its thread."""
    home = Path(env["HOME"])
    tilde = real / "hook-events" / "doc-claude-stop-tilde-path.json"
    if tilde.is_file():
        first = json.loads(tilde.read_text())[0]
        at_home = home / first["transcript_path"].removeprefix("~/")
        at_home.parent.mkdir(parents=True, exist_ok=True)
        source = real / "transcripts/claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
        if source.is_file():
            shutil.copy(source, at_home)
    rollout = manifest.get("codex-notify.json", {}).get("codex_rollout")
    if rollout and (real / rollout).is_file():
        day = home / ".codex" / "sessions" / "2026" / "05" / "11"
        day.mkdir(parents=True, exist_ok=True)
        shutil.copy(real / rollout, day / Path(rollout).name.removeprefix("codemie__"))


def replay_capture(real: Path, name: str, tmp: Path, sessions: Mapping[str, str]) -> list[Written]:
    """Deliver one hook-events file as its manifest says, one process per event, into a
    fresh KB; then the capture pass over what no Stop passed. The notes it wrote."""
    manifest = json.loads((real / "hook-events" / "MANIFEST.json").read_text())
    spec = manifest.get(name, {})
    kb = tmp / f"capture-{Path(name).stem}"
    _new_kb(kb)
    env = _env(tmp / f"env-{Path(name).stem}", kb)
    _home_files(real, env, manifest)
    events = json.loads((real / "hook-events" / name).read_text())
    names = spec.get("events") if isinstance(spec.get("events"), list) else None
    harness = (
        "codex" if name.startswith("codex") else "copilot" if name.startswith("copilot") else None
    )
    for i, event in enumerate(events):
        text = json.dumps(event)
        for prefix in ('"REAL/', '"TRANSCRIPTS/'):
            text = text.replace(prefix, f'"{real / "transcripts"}/')
        word = names[i] if names else spec.get("event") or event.get("hook_event_name")
        argv = [sys.executable, "-m", "reflectgit", "hook", str(word)]
        argv += ["--harness", harness] if harness else []
        if spec.get("delivery") == "argv":
            subprocess.run([*argv, text], capture_output=True, text=True, env=env, check=False)
        else:
            subprocess.run(argv, input=text, capture_output=True, text=True, env=env, check=False)
    subprocess.run(
        [sys.executable, "-m", "reflectgit.hooks.background", "pass"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    session = sessions.get(f"hook-events/{name}", Path(name).stem)
    return [
        _written("capture", session, front, text, name, first) for front, text, first in _notes(kb)
    ]


@dataclass(frozen=True)
class DrainWriter:
    """The drain writer a run measures: ``heuristic`` (no model), or ``extract`` with the
    model command (shell words) given, else the one the drain would find (configured or
    installed)."""

    name: str = "heuristic"
    command: str | None = None

    @property
    def model(self) -> bool:
        return self.name == "extract"


HEURISTIC = DrainWriter()
# The user's settings a model call needs (which command, which model, how long it may take);
# every other drain setting is the bench's, so each run is measured alike.
WRITER_VARIABLES = (
    "REFLECT_DRAIN_CMD",
    "REFLECT_DRAIN_MODEL",
    "REFLECT_DRAIN_CLAUDE_BIN",
    "REFLECT_DRAIN_TIMEOUT",
    "REFLECT_DRAIN_MODEL_TIMEOUT",
)


def drain_env(tmp: Path, writer: DrainWriter, entries: int = 0) -> dict[str, str]:
    """The environment of a measured drain run over ``entries`` transcripts."""
    env = {
        "HOME": str(tmp),
        "PATH": os.environ.get("PATH", ""),
        "REFLECT_DRAIN_WRITER": writer.name,
        "REFLECT_DRAIN_DEBOUNCE_SEC": "0",
        "REFLECT_DRAIN_MAX": str(max(100, entries)),
        "REFLECT_DRAIN_DAILY_MAX": str(max(100, entries)),
    }
    if not writer.model:
        return env
    # The model command runs as the user's own drain would run it (their HOME, where its
    # login lives, and their keys), in an empty folder, without git's or our variables.
    cwd = tmp / "model-cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    user = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "REFLECT_")) or k in WRITER_VARIABLES
    }
    env = {**user, **env, "HOME": os.environ.get("HOME", str(tmp))}
    env["REFLECT_DRAIN_CWD"] = str(cwd)
    if writer.command is not None:
        env["REFLECT_DRAIN_CMD"] = writer.command
    return env


def model_missing(writer: DrainWriter) -> tuple[str, str] | None:
    """(error, hint) when the extract writer has no model command to run here, else None.

    Asked of the drain itself (its settings and its command lookup), so the bench finds the
    command the drain would run."""
    from reflectgit.config import Config
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.drain import writer as wr
    from reflectgit.workflows.drain.loop import Settings

    hint = (
        "install Claude Code (`claude` on PATH), set REFLECT_DRAIN_CMD, or pass "
        '--writer-cmd "my-model --json" (prompt on stdin, answer on stdout)'
    )
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Config.resolve(Path(tmp), drain_env(Path(tmp), writer))
        try:
            settings = Settings.from_config(cfg, writer="extract")
        except ReflectGitError as exc:
            return exc.message, exc.hint or hint
        if wr.find_command(list(settings.command), cfg.env) is None:
            shown = settings.command[0] if settings.command else "(empty)"
            return f"no model command for the extract writer: {shown} is not installed", hint
    return None


def replay_drain(
    real: Path,
    tmp: Path,
    sessions: Mapping[str, str],
    writer: DrainWriter = HEURISTIC,
    outcomes: dict[str, int] | None = None,
) -> list[Written]:
    """The drain, with ``writer``, over every real transcript, into one fresh KB; each entry's
    outcome counted into ``outcomes`` (a model's failures show there)."""
    from reflectgit.config import Config
    from reflectgit.state.queue import Queue
    from reflectgit.workflows.drain.loop import run_drain
    from reflectgit.workflows.transcript_file import read_transcript

    kb = tmp / "drain-kb"
    subprocess.run(["git", "init", "-q", "-b", "main", str(kb)], check=True)
    files = sorted((real / "transcripts").rglob("*.jsonl"))
    cfg = Config.resolve(kb, drain_env(tmp, writer, len(files)))
    queue = Queue(cfg.state_dir)
    for path in files:
        t = read_transcript(path)
        queue.add(str(path), "stop", t.parent_session_id or t.session_id or path.stem)
    report = run_drain(cfg)
    if outcomes is not None:
        if report.status != "ran":
            outcomes[f"run {report.status}"] = outcomes.get(f"run {report.status}", 0) + 1
        for row in report.rows:
            outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
    return drained(kb, real, sessions)


def drained(kb: Path, real: Path, sessions: Mapping[str, str]) -> list[Written]:
    """The notes a drain wrote into ``kb`` from transcripts under ``real``, each with the
    judged session its transcript belongs to (the drain's real-session test reads its KB
    through this too)."""
    out = []
    for front, text, first in _notes(kb):
        prov = front.get("provenance") or {}
        source = Path(str(prov.get("source_path") or ""))
        try:
            rel = source.resolve().relative_to(real.resolve()).as_posix()
        except ValueError:
            rel = source.name
        out.append(_written("drain", sessions.get(rel, rel), front, text, rel, first))
    return out


def _written(
    channel: str, session: str, front: Mapping[str, Any], text: str, origin: str, first: str
) -> Written:
    from reflectgit.notes.note import tier_of

    title = str(front.get("title") or "")
    return Written(channel, session, title, text, tier_of(front) or "medium", origin, first)


# ------------------------------------------------------------------ judging


@dataclass
class Figures:
    notes: int = 0
    useful: int = 0
    junk: int = 0
    unjudged: int = 0
    lessons: int = 0
    kept: int = 0
    kept_if_unjudged_useful: int = 0
    # Useful notes whose lesson terms miss a lesson their judge named (the terms are too
    # narrow: a rewritten note holding that lesson would not be matched to it).
    disagree: list[str] = field(default_factory=list)
    # Lessons no useful note keeps and no unjudged note's text matches.
    unmatched: list[str] = field(default_factory=list)

    def precision(self) -> str:
        return _ratio(self.useful, self.notes)

    def judged_precision(self) -> str:
        """Useful notes over the judged ones: a model's new notes wait for a person."""
        return _ratio(self.useful, self.useful + self.junk)

    def add(self, other: Figures) -> None:
        for name in ("notes", "useful", "junk", "unjudged", "lessons", "kept"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.kept_if_unjudged_useful += other.kept_if_unjudged_useful

    def recall(self) -> str:
        return _ratio(self.kept, self.lessons)


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {a / b:.0%}" if b else f"{a}/{b} = -"


def matches(lesson: Mapping[str, Any], text: str) -> bool:
    """Does the note's text hold every term of one of the lesson's term groups?"""
    folded = text.casefold()
    return any(all(term.casefold() in folded for term in group) for group in lesson["match"])


def sessions_of(judgements: Mapping[str, Any]) -> dict[str, str]:
    """file (``hook-events/NAME`` or ``transcripts/...``) -> the session it belongs to."""
    out = {}
    for session, spec in judgements["sessions"].items():
        for rel in spec.get("hook_events", []):
            out[f"hook-events/{rel}"] = session
        for rel in spec.get("transcripts", []):
            out[f"transcripts/{rel}"] = session
    return out


def problems(judgements: Mapping[str, Any]) -> list[str]:
    """What is wrong with a judgement file: unknown sessions or lessons, a verdict that is
    neither useful nor junk, no reason, two entries for one key, a useful note whose terms do
    not hold the lessons its judge named (the terms would not count what the judge saw)."""
    out: list[str] = []
    sessions = judgements["sessions"]
    seen: set[str] = set()
    for session, spec in sessions.items():
        ids = [lesson["id"] for lesson in spec.get("lessons", [])]
        if len(ids) != len(set(ids)):
            out.append(f"{session}: two lessons with one id")
        for lesson in spec.get("lessons", []):
            groups = lesson.get("match")
            if not groups or not all(isinstance(g, list) and g for g in groups):
                out.append(f"{session}/{lesson['id']}: no match terms")
    for entry in judgements["notes"]:
        key = note_key(entry["channel"], entry["session"], entry["title"])
        if key in seen:
            out.append(f"{key}: judged twice")
        seen.add(key)
        if entry["channel"] not in CHANNELS or entry["session"] not in sessions:
            out.append(f"{key}: unknown channel or session")
            continue
        if entry.get("verdict") not in ("useful", "junk") or not entry.get("reason", "").strip():
            out.append(f"{key}: a verdict needs useful or junk, and a reason")
        known = {lesson["id"] for lesson in sessions[entry["session"]].get("lessons", [])}
        for lesson_id in entry.get("lessons", []):
            if lesson_id not in known:
                out.append(f"{key}: names an unknown lesson {lesson_id}")
            elif entry.get("verdict") != "useful":
                out.append(f"{key}: a junk note keeps no lesson ({lesson_id})")
    return out


def judge(
    written: Iterable[Written], judgements: Mapping[str, Any], channel: str
) -> tuple[Figures, list[Written], list[str]]:
    """Figures for one channel, its unjudged notes, and the lessons it missed."""
    verdicts = {note_key(j["channel"], j["session"], j["title"]): j for j in judgements["notes"]}
    figures = Figures()
    unjudged: list[Written] = []
    notes = [w for w in written if w.channel == channel]
    useful: dict[str, list[Written]] = {}
    maybe: dict[str, list[Written]] = {}
    lessons = {s: spec.get("lessons", []) for s, spec in judgements["sessions"].items()}
    kept_by: dict[str, set[str]] = {}  # session -> the lessons its useful notes keep
    for note in notes:
        figures.notes += 1
        entry = verdicts.get(note.key, {})
        verdict = entry.get("verdict")
        if verdict == "useful":
            figures.useful += 1
            useful.setdefault(note.session, []).append(note)
            named = set(entry.get("lessons", []))
            kept_by.setdefault(note.session, set()).update(named)
            found = {x["id"] for x in lessons.get(note.session, []) if matches(x, note.text)}
            if not named <= found:
                figures.disagree.append(
                    f"{note.key}: the judge named {sorted(named)}, the terms find {sorted(found)}"
                )
        elif verdict == "junk":
            figures.junk += 1
        else:
            figures.unjudged += 1
            unjudged.append(note)
            maybe.setdefault(note.session, []).append(note)
    missed = []
    for session, spec in judgements["sessions"].items():
        if not spec.get("hook_events" if channel == "capture" else "transcripts"):
            continue
        for lesson in spec.get("lessons", []):
            figures.lessons += 1
            if lesson["id"] in kept_by.get(session, set()):
                figures.kept += 1
                figures.kept_if_unjudged_useful += 1
                continue
            if any(matches(lesson, n.text) for n in maybe.get(session, [])):
                figures.kept_if_unjudged_useful += 1
            else:
                figures.unmatched.append(f"{session}: {lesson['lesson']}")
            missed.append(f"{session}: {lesson['lesson']}")
    return figures, unjudged, missed


# ------------------------------------------------------------------ the run


def unpacked(real: Path, into: Path) -> Path:
    """``real`` itself, or, when it holds gzip-compressed sessions (the held-apart folder),
    a copy of it with every ``*.gz`` decompressed."""
    if not any(real.rglob("*.gz")):
        return real
    for path in sorted(real.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(real)
        dest = into / (rel.with_suffix("") if path.suffix == ".gz" else rel)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as src, dest.open("wb") as out:
                shutil.copyfileobj(src, out)
        else:
            shutil.copyfile(path, dest)
    return into


def run(
    real: Path,
    judgements: Mapping[str, Any],
    tmp: Path,
    writer: DrainWriter = HEURISTIC,
    outcomes: dict[str, int] | None = None,
) -> list[Written]:
    """Every channel's notes on one set; with a model writer, the drain's alone (capture
    has no writer to measure)."""
    sessions = sessions_of(judgements)
    written: list[Written] = []
    names = sorted(
        p.name for p in (real / "hook-events").glob("*.json") if p.name != "MANIFEST.json"
    )
    for name in names if not writer.model else []:
        written += replay_capture(real, name, tmp, sessions)
    if (real / "transcripts").is_dir():
        written += replay_drain(real, tmp, sessions, writer, outcomes)
    return written


def _size(path: Path, judgements: Mapping[str, Any]) -> str:
    lessons = sum(len(s.get("lessons", [])) for s in judgements["sessions"].values())
    return (
        f"{path.name}: {len(judgements['sessions'])} sessions, {lessons} lessons, "
        f"{len(judgements['notes'])} judged notes, {path.stat().st_size:,} bytes"
    )


def report(written: list[Written], judgements: Mapping[str, Any], path: Path, show: bool) -> None:
    import subprocess as sp

    commit = sp.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    where = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
    print(f"notes written at commit {commit or '?'}, judged by hand in {where}")
    print(f"judgement file: {_size(path, judgements)}")
    keys = {note.key for note in written}
    stale = [
        j
        for j in judgements["notes"]
        if note_key(j["channel"], j["session"], j["title"]) not in keys
    ]
    print(f"judgements no note matches now (an older writer's notes): {len(stale)}")
    for channel in CHANNELS:
        figures, unjudged, missed = judge(written, judgements, channel)
        print(
            f"{channel:>8}: notes {figures.notes} (useful {figures.useful}, junk {figures.junk}, "
            f"unjudged {figures.unjudged}); precision {figures.precision()}; "
            f"recall {figures.recall()} "
            f"(at most {_ratio(figures.kept_if_unjudged_useful, figures.lessons)} if every "
            "unjudged note were useful)"
        )
        for line in missed:
            print(f"          missed  {line}")
        for line in figures.disagree:
            print(f"          terms disagree  {line}")
        if show:
            for note in unjudged:
                entry = {
                    "channel": note.channel,
                    "session": note.session,
                    "title": note.title,
                    "tier": note.tier,
                    "verdict": "?",
                    "reason": "",
                    "origin": note.origin,
                }
                print("          unjudged " + json.dumps(entry, ensure_ascii=False))


def model_figures(figures: Figures) -> str:
    """A model writer's figures: precision over the judged notes only, and the lessons its
    notes keep by their term groups (a judged note by its judge's word)."""
    return (
        f"notes {figures.notes}; precision {figures.judged_precision()} over judged notes "
        f"({figures.unjudged} unjudged, not counted); lessons kept by their terms "
        f"{_ratio(figures.kept_if_unjudged_useful, figures.lessons)}"
    )


def unjudged_line(note: Written) -> str:
    """One note no judgement names, for a person to judge."""
    return f"UNJUDGED {note.session} | {note.title} | {note.first_line}"


def outcome_line(outcomes: Mapping[str, int]) -> str:
    counted = ", ".join(f"{name} {n}" for name, n in sorted(outcomes.items()))
    return f"drain entries by outcome: {counted or 'none'}"


def report_model(
    written: list[Written], judgements: Mapping[str, Any], path: Path, outcomes: Mapping[str, int]
) -> None:
    """The drain's figures with a model writer on one set, its missed lessons and every
    unjudged note."""
    figures, unjudged, _missed = judge(written, judgements, "drain")
    print(f"extract writer, judged by hand in {path}")
    print(f"judgement file: {_size(path, judgements)}")
    print(f"   drain: {model_figures(figures)}")
    for line in figures.unmatched:
        print(f"          missed  {line}")
    for note in unjudged:
        print(f"          {unjudged_line(note)}")
    print(outcome_line(outcomes))


def named_sets(held_apart: Iterable[Path]) -> list[tuple[Path, Path]]:
    """The judged sets a measuring script is given, as (sessions, judgement file): the shared
    real sessions (when ``../shared`` is there), then each held-apart folder named."""
    out = [(REAL, JUDGEMENTS)] if REAL.is_dir() else []
    return out + [(Path(h), Path(h) / "judgements.json") for h in held_apart]


def measured_sets(
    held_apart: Iterable[Path], measure: Callable[[Path, Mapping[str, Any], str], list[Any]]
) -> list[Any]:
    """``measure(sessions folder, judgements, set name)`` over every set ``named_sets`` gives,
    each unpacked into a folder of its own: the rows of all of them, in order."""
    rows: list[Any] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (real, judged) in enumerate(named_sets(held_apart)):
            name = "shared" if judged == JUDGEMENTS else real.name
            rows += measure(unpacked(real, Path(tmp) / str(n)), load(judged), name)
    return rows


def listing_main(
    argv: list[str] | None,
    description: str,
    measure: Callable[[Path, Mapping[str, Any], str], list[Any]],
    line: Callable[[Any], str],
    table: Callable[[Sequence[Any]], list[str]],
    list_help: str,
) -> int:
    """The command line of a bench that measures a reading over the judged sets:
    ``--held-apart DIR`` (repeatable) and ``--list`` (one ``line`` per row), then ``table``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--held-apart", type=Path, action="append", default=[])
    parser.add_argument("--list", action="store_true", help=list_help)
    args = parser.parse_args(argv)
    rows = measured_sets(args.held_apart, measure)
    if args.list:
        for row in rows:
            print(line(row))
    print(*table(rows), sep="\n")
    return 0


def sets() -> list[tuple[Path, Path]]:
    """Every judged set this checkout holds, as (sessions, judgement file): the shared real
    sessions (when ``../shared`` is there) and each ``bench/data/quality/held-apart*`` folder."""
    out = [(REAL, JUDGEMENTS)] if (REAL / "transcripts").is_dir() else []
    held = sorted(
        JUDGEMENTS.parent.glob("held-apart*"),
        key=lambda p: int(p.name.rpartition("-")[2]) if p.name[-1].isdigit() else 1,
    )
    return out + [(folder, folder / "judgements.json") for folder in held if folder.is_dir()]


def pooled(writer: DrainWriter = HEURISTIC) -> int:
    """Each judged set's figures on a line, and their sums: the tune figures the docs quote.
    With a model writer, the drain's figures as ``model_figures`` gives them and every
    unjudged note."""
    totals = {channel: Figures() for channel in CHANNELS}
    outcomes: dict[str, int] = {}
    for real, path in sets():
        judgements = load(path)
        wrong = problems(judgements)
        if wrong:
            print(f"{path}: the judgement file is not well formed:", *wrong, sep="\n  ")
            return 1
        with tempfile.TemporaryDirectory() as tmp:
            sessions = unpacked(real, Path(tmp) / "sessions")
            written = run(sessions, judgements, Path(tmp), writer, outcomes)
        name = "shared" if path == JUDGEMENTS else real.name
        if writer.model:
            figures, unjudged, _ = judge(written, judgements, "drain")
            totals["drain"].add(figures)
            print(f"{name:>14}    drain: {model_figures(figures)}")
            for note in unjudged:
                print(f"{'':>14}   {unjudged_line(note)}")
            continue
        for channel in CHANNELS:
            figures, _, _ = judge(written, judgements, channel)
            totals[channel].add(figures)
            if figures.notes or figures.lessons:
                print(
                    f"{name:>14} {channel:>8}: precision {figures.precision()}; "
                    f"recall {figures.recall()}; unjudged {figures.unjudged}"
                )
    if writer.model:
        print(f"{'pooled':>14}    drain: {model_figures(totals['drain'])}")
        print(outcome_line(outcomes))
        return 0
    for channel, total in totals.items():
        print(
            f"{'pooled':>14} {channel:>8}: precision {total.precision()}; "
            f"recall {total.recall()}; unjudged {total.unjudged}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgements", type=Path, default=JUDGEMENTS)
    parser.add_argument("--unjudged", action="store_true", help="print the unjudged notes")
    parser.add_argument("--held-apart", type=Path, help="a folder of sessions held apart")
    parser.add_argument(
        "--pooled",
        action="store_true",
        help="every judged set (shared, then each bench/data/quality/held-apart*) and the sums",
    )
    parser.add_argument(
        "--writer",
        choices=("heuristic", "extract"),
        default="heuristic",
        help="the drain's writer: heuristic (no model), or extract (one model call a session)",
    )
    parser.add_argument(
        "--writer-cmd",
        metavar="CMD",
        help="the extract writer's model command (shell words, as REFLECT_DRAIN_CMD); "
        "default: the one the drain finds (REFLECT_DRAIN_CMD, else claude -p)",
    )
    args = parser.parse_args(argv)
    if args.writer_cmd is not None and args.writer != "extract":
        parser.error("--writer-cmd needs --writer extract")
    if args.writer_cmd is not None and not args.writer_cmd.strip():
        parser.error("--writer-cmd needs a command")
    writer = DrainWriter(args.writer, args.writer_cmd)
    if writer.model:
        missing = model_missing(writer)
        if missing:
            print(f"error: {missing[0]}\nhint: {missing[1]}", file=sys.stderr)
            return 1
    if args.pooled:
        return pooled(writer)
    real = args.held_apart or REAL
    path = args.judgements
    if args.held_apart and path == JUDGEMENTS:
        path = args.held_apart / "judgements.json"
    if not (real / "hook-events").is_dir() and not (real / "transcripts").is_dir():
        print(f"skipped: no real sessions at {real} (set REFLECT_SHARED_DIR)")
        return 0
    judgements = load(path)
    wrong = problems(judgements)
    if wrong:
        print("the judgement file is not well formed:", *wrong, sep="\n  ")
        return 1
    outcomes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sessions = unpacked(real, Path(tmp) / "sessions")
        written = run(sessions, judgements, Path(tmp), writer, outcomes)
    if writer.model:
        report_model(written, judgements, path, outcomes)
    else:
        report(written, judgements, path, args.unjudged)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
