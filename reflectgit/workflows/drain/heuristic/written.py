"""Guidance the assistant writes down at the person's word. Pure.

A memory of type feedback, or a rule written into an instruction file the person named: the
written text is the rule. And the other way round: a request asked as a question that the
assistant builds rather than adopts as a way of working (``asked_for``, ``adopted_as_rule``) is
no rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from reflectgit.notes.memoryfiles import fact_from_person
from reflectgit.notes.policy import EDIT_TOOLS, call_from
from reflectgit.notes.privacy import clean
from reflectgit.notes.signals import LASTING, MEDIUM
from reflectgit.notes.transcripts import ASSISTANT, INJECTED, PERSON, ToolCall, Transcript
from reflectgit.workflows.drain.heuristic.note import _action
from reflectgit.workflows.drain.heuristic.session import _edited_text, turn_before
from reflectgit.workflows.drain.heuristic.wording import (
    _FENCE,
    _MARKUP,
    MIN_WORDS,
    _cap,
    _terms,
    sentences,
)

# The frontmatter of a memory file (Claude Code's auto memory): its name, what it says, and
# its type, where ``feedback`` is guidance the person gave on how to work (a newer memory file
# nests the type under ``metadata:``).
_FRONT = re.compile(r"\A---\s*\n(?P<front>.*?)\n---\s*(?:\n|\Z)", re.S)

_FIELD = re.compile(r"^[ \t]*(?P<key>name|description|type):\s*(?P<value>\S.*?)\s*$", re.M)

# What written guidance tells an agent to do or not to do: a sentence of it with a rule word.
_WRITTEN_RULE = re.compile(
    r"\b(?:always|never|must(?:n'?t)?|don'?t|do not|only|instead of|should(?:n'?t)?)\b", re.I
)

WRITTEN_MAX = 1500  # the written text a note's body quotes


def written_guidance(transcript: Transcript, since: int = 0) -> list[dict[str, Any]]:
    """Notes from what the assistant writes down, at the person's word, for its later
    sessions: the written text is the rule. Two shapes, for the person's turns at or after
    record ``since``, written before the person speaks again:

    - a memory file whose frontmatter says ``type: feedback`` (the assistant saved the
      person's guidance as a rule: "the name will cause issues with the other agent" ->
      "SKILL.md frontmatter must stay cross-agent compatible"); the rule is the memory's name
      and description. A memory of the project or of the person (another type) is the
      assistant's own note, not a rule the person gave. GitHub Copilot CLI saves the same
      way through its ``store_memory`` tool (``subject``, ``fact``, ``citations``): a fact
      whose citation is the person's input ("User input: ...") and that states a rule
      (always, never, must, don't ...) is that guidance; a fact it cites from the code, or
      one that only describes ("the shop is no longer credit constrained"), is not;
    - a file of standing instructions (CLAUDE.md, AGENTS.md, ...) the person's turn names ("can
      we add this to the CLAUDE.md so we don't miss this in future?"), whose added text states
      a rule (always, never, must, only, don't ...): the title is its first such sentence, the
      rule its prose (code blocks left out). An instruction file edited unasked, or text that
      only describes (a command list, a layout), is no rule the person gave.
    """
    persons = [t for t in transcript.turns if t.speaker == PERSON]
    before = turn_before(transcript)
    out: list[dict[str, Any]] = []
    for i, turn in enumerate(persons):
        if turn.record < since:
            continue
        end = persons[i + 1].record if i + 1 < len(persons) else None
        said = clean(turn.text).strip()
        # a turn with no term of its own ("yes", "ok, do that") grants what the assistant put
        # to the person just before: that is what the person's word was about
        about = said if _terms(said) else before(turn.record)
        for call in transcript.tool_calls:
            if call.record <= turn.record or (end is not None and call.record > end):
                continue
            fact = fact_from_person(call.name, call.input)
            if fact:
                action = _stored_fact(fact, str(call.input.get("subject") or ""), said, about)
                if action is not None:
                    out.append(action)
                continue
            if call.name not in EDIT_TOOLS or not isinstance(call.input, (Mapping, str)):
                continue  # Codex's apply_patch: the patch itself is the input
            paths = call_from(call.name, call.input).paths
            if _MEMORY.search("\n".join(paths)):
                action = (
                    _memory_feedback(call, said, about) if isinstance(call.input, Mapping) else None
                )
            else:
                named = [p for p in paths if _INSTRUCTIONS.search(p) and _names_file(said, p)]
                action = _written_rule(call, said, named[0]) if named else None
            if action is not None:
                out.append(action)
    return out


def said_of(saved: str, said: str) -> bool:
    """Is what the assistant saved as the person's guidance (a memory's name and description)
    about what the person's turn before it says: one term shared, at least? The assistant also
    saves, after any turn, what it gathered elsewhere (an earlier session, its own reading):
    such a memory is not the person's word at that turn, and the turn it would quote as its
    evidence does not bear it out ("do we need a framework like playwright?" under "the owner
    runs unannounced drills"). A saved rule restates the turn in its own words, but names
    what it is about as the turn did ("the name will cause issues with the other agent" ->
    "SKILL.md frontmatter must stay cross-agent compatible")."""
    return bool(_terms(saved) & _terms(said))


def _memory_feedback(call: ToolCall, said: str, about: str) -> dict[str, Any] | None:
    m = _FRONT.match(str(call.input.get("content") or ""))
    front = {f["key"]: f["value"] for f in _FIELD.finditer(m.group("front"))} if m else {}
    if front.get("type") != "feedback" or not front.get("name"):
        return None
    described = front.get("description", "").rstrip(" .")
    if not said_of(f"{front['name']} {described}", about):
        return None
    # a name that is a file's slug ("vale-scope-agent-docs-only") says less than the description
    title = front["name"] if " " in front["name"] or not described else described
    rule = _cap(described or front["name"]) + "."
    return _saved_rule(title, rule, said, "the assistant saving it to its memory as feedback")


def _saved_rule(title: str, rule: str, said: str, confirmed: str) -> dict[str, Any]:
    """The note of guidance the assistant saved to its memory at the person's word ``said``."""
    return _action(
        title=title,
        rule=rule,
        quote=said,
        before="",
        asked=said,
        who="person, whose guidance the assistant saved to its memory",
        confidence=MEDIUM,
        learning_type="correction",
        category="general",
        confirmed=confirmed,
    )


def _stored_fact(fact: str, subject: str, said: str, about: str) -> dict[str, Any] | None:
    rule = next((s for s in sentences(fact) if _WRITTEN_RULE.search(s)), "")
    if len(rule.split()) < MIN_WORDS or not said_of(f"{subject} {fact}", about):
        return None
    confirmed = "the assistant saving it to its memory, citing the person's words"
    return _saved_rule(rule.rstrip(" ."), _cap(fact), said, confirmed)


# A request for the file itself ("create a CLAUDE.md for this repo", what /init asks): the file
# is the task's output, written by the assistant, not guidance the person gave.
_CREATES = (
    r"\b(?:create|write|generate|draft|init(?:iali[sz]e)?|set\s+up|scaffold|make)\s+"
    r"(?:(?:a|an|the|new|our|my|your|project)\s+){0,3}"
)


def _names_file(said: str, path: str) -> bool:
    """Does the person's turn name the file (its name, any case: "the CLAUDE.md", "claude.md")
    as where to put something, not as a file to create?"""
    name = re.escape(re.split(r"[/\\]", path)[-1])
    end = r"(?![\w-]|\.\w)"  # "CLAUDE.md." ends a sentence, "CLAUDE.md.bak" is another file
    if not re.search(rf"(?<![\w.-]){name}{end}", said, re.I):
        return False
    return not re.search(rf"{_CREATES}{name}{end}", said, re.I)


def written_prose(text: str) -> list[str]:
    """The sentences of written markdown: frontmatter, fenced code, headings and list or
    emphasis markers left out, a paragraph's wrapped lines joined."""
    text = _FENCE.sub("", _FRONT.sub("", text))
    out: list[str] = []
    for para in re.split(r"\n[ \t]*\n", text):
        lines = [ln for ln in para.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        out += sentences(" ".join(_MARKUP.sub("", ln).replace("**", "").strip() for ln in lines))
    return out


def _written_rule(call: ToolCall, said: str, path: str) -> dict[str, Any] | None:
    new, old = _edited_text(call)
    gone = set(old.splitlines())
    prose = written_prose("\n".join(ln for ln in new.splitlines() if ln not in gone))
    # a sentence ending in a colon introduces what follows it (a code block, a list)
    rules = [
        s
        for s in prose
        if _WRITTEN_RULE.search(s) and len(s.split()) >= MIN_WORDS and not s.endswith(":")
    ]
    name = re.split(r"[/\\]", path)[-1]
    # What the assistant writes into the file is the person's rule only when the person asked
    # for that rule: when the turn names what it is about (a term of its own, the file's name
    # aside), the sentence the note is titled by must name it too (one term shared, as a saved
    # memory must, ``said_of``). A request to bring the file in line with another source
    # ("make sure your CLAUDE.md is consistent with ../punt-kit/") has the assistant copy that
    # source's lines, which are not the person's words. A turn with no term of its own ("can
    # you add this to CLAUDE.md?") points back at what was said before, and is not this.
    asked = re.sub(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", " ", said, flags=re.I)
    if not rules or (_terms(asked) and not said_of(rules[0], asked)):
        return None
    written = " ".join(prose)
    if len(written) > WRITTEN_MAX:
        written = written[: WRITTEN_MAX - 1].rstrip() + "…"
    action = _action(
        title=rules[0],
        rule=_cap(" ".join(rules)),
        quote=said,
        before="",
        asked=said,
        who="person, who had the assistant write it into " + name,
        confidence=MEDIUM,
        learning_type="correction",
        category="general",
        confirmed=f"the assistant writing it into {name}",
    )
    action["body"] += f"\n\nWritten into {name}: “{written}”"
    return action


# A sentence asked as a question ("Can we have always a table with links ...?", "could you
# always run X?", "Should the report list every sensor?"): it asks for something in this task;
# a rule only when the assistant takes it as a lasting way of working.
# The assistant adopting a way of working: its own commitment for later turns ("From now on
# I'll ...", "I'll always ...", "Going forward, I will ..."), not what the built thing does now.
_ADOPTS = re.compile(
    rf"\b(?:{LASTING})\b[^.!?\n]*?"
    r"\b(?:i'?ll|i will|i'm going to|i am going to)\b"
    r"|\b(?:i'?ll|i will)\s+(?:always|never|remember|keep|make sure)\b",
    re.I,
)

# Claude Code's memory of a project: files the assistant writes for its later sessions.
_MEMORY = re.compile(r"[/\\]\.claude[/\\]projects[/\\][^/\\\n]+[/\\]memory[/\\][^/\\\n]+\.md\b")

# A file of standing instructions for the agent (its memory too): editing it adopts a rule.
_INSTRUCTIONS = re.compile(
    r"(?:^|[/\\\s])(?:CLAUDE|AGENTS|GEMINI)\.md\b|\.cursorrules\b|\.windsurfrules\b|"
    r"copilot-instructions\.md\b|" + _MEMORY.pattern,
    re.I,
)


def asked_for(rule: str) -> bool:
    """Is ``rule`` asked as a question ("Can we have always a table ...?")? Whatever its
    opening words, a question asks the assistant something in this task."""
    return rule.rstrip(" *_\"'”’)").endswith("?")


def adopted_as_rule(transcript: Transcript) -> Callable[[int], bool]:
    """``adopted(record)``: did the assistant, before the person speaks again, take the
    person's turn at that record as a lasting way of working? It commits itself for later
    turns in its own words ("From now on I'll ...") or edits a file of standing instructions
    (CLAUDE.md, AGENTS.md, ...). Building what was asked is no adoption of a rule."""
    turns = [(t.record, t.speaker, t.text) for t in transcript.turns if t.speaker != INJECTED]
    edits = [
        (c.record, "\n".join(call_from(c.name, c.input).paths))
        for c in transcript.tool_calls
        if c.name in EDIT_TOOLS
    ]
    persons = [r for r, who, _t in turns if who == PERSON]

    def adopted(record: int) -> bool:
        end = min((r for r in persons if r > record), default=None)
        said = [
            t for r, who, t in turns if who == ASSISTANT and r > record and (end is None or r < end)
        ]
        edited = [x for r, x in edits if r > record and (end is None or r < end)]
        return any(_ADOPTS.search(t) for t in said) or any(
            _INSTRUCTIONS.search(paths) for paths in edited
        )

    return adopted
