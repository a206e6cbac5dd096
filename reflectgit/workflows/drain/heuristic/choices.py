"""The person's choice among the ways a question tool offered: a decision, with what it was
chosen over. Pure.

Agents ask through a tool (Claude Code's ``AskUserQuestion``, Copilot CLI's ``ask_user``) and
the person's pick comes back as the tool's result, never as a typed turn, so the readers of
the person's lines never see it. A pick is a lesson only when the question asks *how*
something is to be done ("How should we handle this?", "What should exceeding the warning
budget do?") after saying what stands in the way ("AppArmor ... breaks `docker compose up` on
macOS") and the person picked one of the ways offered: a value asked for ("Which
visibility?"), a go-ahead ("Yes", "Proceed"), words of their own in place of an option and a
question left unanswered are none. Low: a choice in words, not a checked
result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from reflectgit.notes.privacy import clean
from reflectgit.notes.signals import LOW
from reflectgit.notes.transcripts import Transcript
from reflectgit.workflows.drain.heuristic.note import _action

# The question tools whose answers the transcripts keep, by harness: Claude Code, Copilot CLI.
# (Codex's ``request_user_input`` answer is a JSON object the transcript reader keeps no text of.)
QUESTION_TOOLS = frozenset({"AskUserQuestion", "ask_user"})

# A question that asks for a way: "How should we handle this?", "What should X do?",
# "How do you want to handle it?".
_ASKS_A_WAY = re.compile(
    r"\b(?:how|what)\b[^?]*\b(?:should|do you want|would you like)\b[^?]*\?", re.I
)
# What stands in the way, said before the question: the current state fails or cannot do
# something ("AppArmor ... breaks `docker compose up` on macOS", "mise's trust policy blocks
# `npm:renovate`", "users can't access it", "Slate isn't responding").
_IN_THE_WAY = re.compile(
    r"\b(?:breaks?|blocks?|fails?|can'?t|cannot|doesn'?t|does not|isn'?t|won'?t|"
    r"not supported|unsupported)\b",
    re.I,
)
# A pick that is a go-ahead or a step of this session, not a way.
_GO_AHEAD = re.compile(
    r"^\s*(?:yes|no|ok(?:ay)?|proceed|go|continue|approve|skip|dispatch|wait|stop|later)\b", re.I
)
_RECOMMENDED = re.compile(r"\s*\((?:recommended|önerilen|recomendado)[^)]*\)\s*$", re.I)


@dataclass(frozen=True)
class Choice:
    """One question of a question tool, the ways it offered and the one the person picked."""

    question: str
    header: str  # the question's short label, when the tool gives one ("AppArmor fix")
    picked: str
    description: str
    others: tuple[str, ...]
    record: int


def _input(value: Any) -> Mapping[str, Any]:
    """A tool call's input as the transcript reader left it: an object (the reader already
    parsed the JSON text Codex and Copilot send), else nothing to read."""
    return value if isinstance(value, Mapping) else {}


def _questions(call_input: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Each question with its options as ``{"question", "options": [{label, description}]}``."""
    if isinstance(call_input.get("questions"), list):
        out: list[Mapping[str, Any]] = []
        for q in call_input["questions"]:
            if isinstance(q, Mapping) and isinstance(q.get("question"), str):
                options = [o for o in q.get("options") or [] if isinstance(o, Mapping)]
                out.append(
                    {"header": q.get("header"), "question": q["question"], "options": options}
                )
        return out
    if isinstance(call_input.get("question"), str):  # Copilot's ask_user: choices are labels
        choices = [c for c in call_input.get("choices") or [] if isinstance(c, str)]
        return [
            {
                "header": None,
                "question": call_input["question"],
                "options": [{"label": c} for c in choices],
            }
        ]
    return []


def _picks(result: str, question: Mapping[str, Any]) -> list[str]:
    """The labels the result says the person picked for ``question``."""
    text = result.strip()
    if text.startswith("User selected:"):  # Copilot
        return [text.partition(":")[2].strip()]
    # Claude Code: ... "<question>"="<answer>" ...
    m = re.search(re.escape(f'"{question["question"]}"="') + r'(.*?)"(?=[,.\s]|$)', text, re.S)
    return [m.group(1)] if m else []


def question_choices(transcript: Transcript) -> Iterator[Choice]:
    """Every question of a question tool the person answered with one of its options."""
    results = {r.call_id: r for r in transcript.tool_results}
    for call in transcript.tool_calls:
        if call.name not in QUESTION_TOOLS or call.call_id not in results:
            continue
        result = results[call.call_id]
        for question in _questions(_input(call.input)):
            labels = {str(o.get("label") or ""): o for o in question["options"]}
            for picked in _picks(result.content, question):
                if picked not in labels or len(labels) < 2:
                    continue  # words of the person's own, or nothing to choose between
                yield Choice(
                    question=question["question"],
                    header=str(question.get("header") or ""),
                    picked=picked,
                    description=str(labels[picked].get("description") or ""),
                    others=tuple(lab for lab in labels if lab != picked),
                    record=result.record,
                )


def _plain_label(label: str) -> str:
    return _RECOMMENDED.sub("", label).strip()


def chosen_ways(transcript: Transcript, since: int = 0) -> list[dict[str, Any]]:
    """Notes from the ways the person picked among those a question tool offered, answered at
    or after record ``since``: the pick, with what it was chosen over. Low."""
    out: list[dict[str, Any]] = []
    for choice in question_choices(transcript):
        if choice.record < since or _GO_AHEAD.match(choice.picked):
            continue
        asked = _ASKS_A_WAY.search(choice.question)
        if asked is None or not _IN_THE_WAY.search(choice.question[: asked.start()]):
            continue
        picked = _plain_label(clean(choice.picked))
        others = [_plain_label(clean(o)) for o in choice.others]
        over = " or ".join(others)
        how = clean(choice.description).strip()
        rule = f"{picked}: {how}" if how else f"{picked}."
        header = clean(choice.header).strip()
        title = f"{picked}, not {over}"
        out.append(
            _action(
                title=f"{header}: {title}" if header else title,
                rule=rule + f" Chosen over: {'; '.join(others)}.",
                quote=f"{choice.question} — {choice.picked}",
                before=clean(choice.question),
                who="person, choosing among the ways a question tool offered",
                confidence=LOW,
                learning_type="correction",
                category="general",
            )
        )
    return out
