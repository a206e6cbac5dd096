"""Is a cause grounded in the session's evidence? (issue 34, precision on first runs)

Every transcript of the judged sets is run through the cascade and the heuristic writer
in-process (as ``bench/recall_misses.py`` does), and each cause note it writes (a ``bug-fix``
note with a ``root_cause``, whoever's reader) is put back at the line its quote came from. Its
cause's code tokens (what its code spans hold, and the code-shaped words of its prose: a path,
a dotted or snake or camel name, an option, a number with a dot, an upper-case error word) are
compared, folded, with the code tokens of the session's evidence around that line:

- (a) ``edits``: what the assistant's tool calls did after the line, up to the person's next
  turn: the text its edits wrote and replaced (old/new strings, patch hunks) and the commands
  it ran;
- (b) ``fail``: the failing output before the line, since the person last spoke: every command
  that failed (an error, a red test run) with its output, every tool result that was an error;
- (c) ``either``.

A variant keeps a cause when one of its tokens is there. The table counts, per variant, the
judged-useful cause notes it keeps and loses and the junk ones it drops (and the sets those are
in). ``--first-runs`` does the same for the junk notes each set's first run wrote (the judged
notes of the run before the set was tuned on), where a title is found in an assistant's turn
of its session: the title read as the cause, at that turn.

``--pooled VARIANT`` runs ``bench/quality.py --pooled`` with the writer's cause notes
grounded so (the variant applied to the writer's answer), for its precision and recall.

Run: ``.venv/bin/python bench/grounded_causes.py [--list] [--first-runs] [--pooled VARIANT]``
(every set).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.quality import JUDGEMENTS, load, named_sets, normalise, sets, unpacked  # noqa: E402
from bench.recall_misses import _transcripts, judged_as  # noqa: E402
from reflectgit.notes.commandruns import Ran, commands_run  # noqa: E402
from reflectgit.notes.policy import EDIT_TOOLS  # noqa: E402
from reflectgit.notes.tokens import KEYWORDS  # noqa: E402
from reflectgit.notes.transcripts import ASSISTANT, PERSON, Transcript  # noqa: E402
from reflectgit.workflows.drain.cascade import prepare  # noqa: E402
from reflectgit.workflows.drain.heuristic import answer  # noqa: E402
from reflectgit.workflows.drain.heuristic.note import _EVIDENCE, said_by  # noqa: E402
from reflectgit.workflows.drain.heuristic.session import _call_text, _edited_text  # noqa: E402
from reflectgit.workflows.drain.heuristic.wording import _terms  # noqa: E402

VARIANTS = ("edits", "fail", "either", "edits_wide", "fail_wide", "either_wide", "words_wide")

_SPAN = re.compile(r"`([^`\n]+)`")
# code-shaped words of prose: a path or dotted name, an option, snake or camel case, a call,
# a number with a dot, an upper-case error word
_SHAPED = re.compile(
    r"(?<![\w`])(?:\S*[./]\w[\w./-]*|--?[A-Za-z][\w-]+|\w+_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*"
    r"|\w+\(\)|\d+\.\d[\w.]*|[A-Z][A-Z0-9_]{2,})"
)
_NAME = re.compile(r"[A-Za-z_$][\w$]*|\d[\w.]*\d|\d")


def code_tokens(text: str) -> set[str]:
    """The code tokens a cause names, folded: every name of its code spans, and of the
    code-shaped words of its prose; a language's keywords and names under three characters
    out, numbers kept when they hold a dot."""
    pieces = _SPAN.findall(text) + _SHAPED.findall(_SPAN.sub(" ", text))
    out: set[str] = set()
    for piece in pieces:
        for name in _NAME.findall(piece):
            folded = name.casefold()
            if folded in KEYWORDS:
                continue
            if name[0].isdigit() and "." not in name:
                continue
            if len(name) < 3 and not name[0].isdigit():
                continue
            out.add(folded)
    return out


def evidence_tokens(text: str) -> set[str]:
    return {n.casefold() for n in _NAME.findall(text)}


def record_of(transcript: Transcript, quote: str) -> int | None:
    """The record of the turn whose words a note quotes (its first words found there)."""
    key = " ".join(quote.split())[:80]
    if not key:
        return None
    for turn in transcript.turns:
        if key in " ".join(turn.text.split()):
            return turn.record
    return None


def evidence(
    transcript: Transcript, ran: Sequence[Ran], record: int, wide: bool = False
) -> tuple[str, str]:
    """(what was edited or run after ``record`` to the person's next turn, the failing output
    before it since the person last spoke); ``wide``: to the session's end, from its start."""
    persons = [t.record for t in transcript.turns if t.speaker == PERSON]
    start = -1 if wide else max((r for r in persons if r <= record), default=-1)
    end = None if wide else min((r for r in persons if r > record), default=None)
    after: list[str] = []
    for call in transcript.tool_calls:
        if call.record <= record or (end is not None and call.record > end):
            continue
        text = _call_text(call.input)
        if call.name in EDIT_TOOLS or "*** Begin Patch" in text:
            added, removed = _edited_text(call)
            after.append(f"{added}\n{removed}" if added or removed else text)
    after += [
        r.command for r in ran if r.call.record > record and (end is None or r.call.record < end)
    ]
    failed: list[str] = []
    by_call = {r.call.call_id: r for r in ran}
    for result in transcript.tool_results:
        if not (start < result.record <= record):
            continue
        r = by_call.get(result.call_id)
        red = r is not None and r.run is not None and not r.run.green
        if result.is_error or red or (r is not None and r.is_error):
            failed.append(f"{r.command if r else ''}\n{result.content}")
    return "\n".join(after), "\n".join(failed)


def grounding(cause: str, at: tuple[str, str], wide: tuple[str, str]) -> dict[str, list[str]]:
    """The cause's code tokens, and those of them in the evidence: the edits after it and the
    failing output before it in the turn (``edits``, ``fail``) and in the whole session
    (``edits_wide``, ``fail_wide``)."""
    tokens = code_tokens(cause)
    out = {"tokens": sorted(tokens)}
    for suffix, (edits, failed) in (("", at), ("_wide", wide)):
        out["edits" + suffix] = sorted(tokens & evidence_tokens(edits))
        out["fail" + suffix] = sorted(tokens & evidence_tokens(failed))
    # the control: the cause's words as prose (``_terms``: stemmed, generic ones out), in
    # either evidence of the whole session
    out["words_wide"] = sorted(_terms(cause) & _terms("\n".join(wide)))
    return out


def grounded(g: Mapping[str, Sequence[str]], variant: str) -> bool:
    if variant.startswith("either"):
        suffix = variant.removeprefix("either")
        return bool(g["edits" + suffix]) or bool(g["fail" + suffix])
    return bool(g[variant])


def is_cause(action: Mapping[str, Any]) -> bool:
    return action.get("learning_type") == "bug-fix" and bool(str(action.get("root_cause") or ""))


def written_causes(real: Path, judgements: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """One row per cause note the writer writes in one set, with its grounding."""
    rows = []
    for sid, session in judgements["sessions"].items():
        for path in _transcripts(real, session):
            prepared = prepare(str(path))
            if prepared.skip or prepared.transcript is None:
                continue
            transcript = prepared.transcript
            ran = commands_run(transcript)
            for action in answer.write(prepared)["actions"]:
                if not is_cause(action):
                    continue
                m = _EVIDENCE.match(str(action.get("body") or ""))
                record = record_of(transcript, m["quote"]) if m else None
                at = evidence(transcript, ran, record) if record is not None else ("", "")
                wide = evidence(transcript, ran, record, True) if record is not None else ("", "")
                v = judged_as(judgements, sid, str(action["title"]))
                rows.append(
                    {
                        "set": name,
                        "session": sid,
                        "title": str(action["title"]),
                        "who": said_by(action),
                        "verdict": v["verdict"] if v else "unjudged",
                        "record": record,
                        **grounding(str(action["root_cause"]), at, wide),
                    }
                )
    return rows


_COUNT = re.compile(r"(?:their|its) (\w+) drain notes? (?:were|was) judged")
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}


def grounded_only(variant: str) -> Any:
    """The heuristic writer with the ``variant`` reading applied to its answer: each cause
    note not grounded so is dropped (for ``bench/quality.py --pooled`` run with it)."""
    real = answer.write

    def write(prepared: Any) -> dict[str, Any]:
        out = real(prepared)
        transcript = prepared.transcript
        if transcript is None:
            return out
        ran = commands_run(transcript)
        kept = []
        for action in out["actions"]:
            m = _EVIDENCE.match(str(action.get("body") or ""))
            record = record_of(transcript, m["quote"]) if m else None
            if is_cause(action) and record is not None:
                at = evidence(transcript, ran, record)
                wide = evidence(transcript, ran, record, True)
                if not grounded(grounding(str(action["root_cause"]), at, wide), variant):
                    continue
            kept.append(action)
        return {**out, "actions": kept}

    return write


def first_run_notes(judgements: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    """The drain notes judged at the set's first run: the first N of the judgement file,
    N as its ``measured_at`` says ("their 4 drain notes were judged then", "its five drain
    notes were judged"); in a set run once, those "judged by the lead after the set's one run";
    held-apart's first writer's 14."""
    drain = [n for n in judgements["notes"] if n["channel"] == "drain"]
    about = str(judgements.get("measured_at") or "")
    if "the one held-out run" in about:
        return [
            n for n in drain if n["reason"].startswith("judged by the lead after the set's one run")
        ]
    if name == "held-apart":
        return drain[:14]
    m = _COUNT.search(about)
    if m is None:
        return []
    count = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS.get(m.group(1), 0)
    return drain[:count]


def _keys(title: str) -> list[str]:
    """What of a title to look for in a turn: the title, then each part of it between
    colons (a note's title is "cause: fix", or a label before its point)."""
    parts = [title, *title.split(": ")]
    return [normalise(p.rstrip(".… "))[:60] for p in parts if len(p.strip()) >= 15]


def first_run_causes(real: Path, judgements: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """The first run's junk notes whose title is found in an assistant's turn of their
    session, the title read as the cause at that turn."""
    rows = []
    notes = [n for n in first_run_notes(judgements, name) if n["verdict"] == "junk"]
    for note in notes:
        session = judgements["sessions"].get(note["session"], {})
        title = str(note["title"]).rstrip(".… ")
        row: dict[str, Any] = {"set": name, "session": note["session"], "title": note["title"]}
        row.update(verdict="junk", who="?", record=None, tokens=[])
        row.update(edits=[], fail=[], edits_wide=[], fail_wide=[], words_wide=[])
        for path in _transcripts(real, session):
            prepared = prepare(str(path))
            transcript = prepared.transcript
            if transcript is None:
                continue
            turn = next(
                (
                    t
                    for t in transcript.turns
                    if t.speaker == ASSISTANT and any(k in normalise(t.text) for k in _keys(title))
                ),
                None,
            )
            if turn is None:
                continue
            ran = commands_run(transcript)
            at = evidence(transcript, ran, turn.record)
            wide = evidence(transcript, ran, turn.record, True)
            row.update(who="assistant", record=turn.record, **grounding(title, at, wide))
            break
        row["reason"] = note["reason"][:140]
        rows.append(row)
    return rows


def table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    out = [
        "variant     useful kept/lost  junk dropped/kept  unjudged dropped/kept  junk sets dropped"
    ]
    for variant in VARIANTS:

        def count(verdict: str, keep: bool, variant: str = variant) -> int:
            return sum(1 for r in rows if r["verdict"] == verdict and grounded(r, variant) == keep)

        sets_ = sorted(
            {r["set"] for r in rows if r["verdict"] == "junk" and not grounded(r, variant)}
        )
        out.append(
            f"{variant:<11} {count('useful', True):6d}/{count('useful', False):<4d}"
            f"       {count('junk', False):6d}/{count('junk', True):<4d}"
            f"         {count('unjudged', False):6d}/{count('unjudged', True):<4d}"
            f"    {len(sets_)}: {', '.join(sets_)}"
        )
    return out


def line(row: Mapping[str, Any]) -> str:
    flags = "".join("x" if grounded(row, v) else "." for v in VARIANTS)
    return (
        f"{flags} [{row['verdict']}] {row['set']}/{row['session']} ({row['who'][:9]}, "
        f"r{row['record']}) {row['title'][:90]} | edits {row['edits'][:4]} fail {row['fail'][:4]}"
        f" wide {row['edits_wide'][:4]} {row['fail_wide'][:4]} of {row['tokens'][:6]}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="one line per cause note")
    parser.add_argument("--first-runs", action="store_true", help="the first runs' junk, too")
    parser.add_argument(
        "--held-apart", type=Path, action="append", default=[], help="these sets only (repeatable)"
    )
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument(
        "--pooled", choices=VARIANTS, help="bench/quality.py --pooled with this variant applied"
    )
    args = parser.parse_args(argv)
    if args.pooled:
        from bench import quality
        from reflectgit.workflows.drain import heuristic

        heuristic.write = grounded_only(args.pooled)  # type: ignore[attr-defined]
        return quality.pooled()
    rows: list[dict[str, Any]] = []
    first: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        chosen = named_sets(args.held_apart) if args.held_apart else sets()
        for n, (real, judged) in enumerate(chosen):
            name = "shared" if judged == JUDGEMENTS else real.name
            folder = unpacked(real, Path(tmp) / str(n))
            judgements = load(judged)
            rows += written_causes(folder, judgements, name)
            if args.first_runs:
                first += first_run_causes(folder, judgements, name)
    if args.json:
        args.json.write_text(json.dumps({"written": rows, "first": first}, indent=1))
    if args.list:
        print(*(line(r) for r in rows), sep="\n")
    print("cause notes the writer writes now (folded code tokens of the root cause):")
    print(*table(rows), sep="\n")
    if args.first_runs:
        found = [r for r in first if r["record"] is not None]
        print(f"first runs' junk notes: {len(first)}, found in an assistant's turn: {len(found)}")
        if args.list:
            print(*(line(r) + f"\n      {r['reason']}" for r in found), sep="\n")
        print(*table(found), sep="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
