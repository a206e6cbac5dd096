"""The heuristic writer's answer for a prepared entry: every lesson of the slice, as one list of
CREATE actions. Pure.

It binds the readers' questions (``session``) to the entry's transcript, takes the lessons of
each chunk (``chunk``) and those read from the session's structure (``linked``, ``commands``,
``findings``, ``conventions``, ``written``), drops what is no lesson or a twin of a note kept,
and caps the list at the action contract's ``MAX_ACTIONS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reflectgit.notes.commandruns import commands_run
from reflectgit.notes.signals import MEDIUM
from reflectgit.workflows.drain.cascade import Prepared
from reflectgit.workflows.drain.heuristic.choices import chosen_ways
from reflectgit.workflows.drain.heuristic.chunk import chunk_actions
from reflectgit.workflows.drain.heuristic.commands import (
    command_fixes,
    replaced_commands,
    rerun_fixes,
    told_workarounds,
)
from reflectgit.workflows.drain.heuristic.confirmation import confirmed_otherwise
from reflectgit.workflows.drain.heuristic.conventions import standing_instructions
from reflectgit.workflows.drain.heuristic.findings import relayed_findings, review_findings
from reflectgit.workflows.drain.heuristic.linked import (
    checked_causes,
    diagnosed_causes,
    linked_causes,
    reported_causes,
)
from reflectgit.workflows.drain.heuristic.note import (
    _same_code,
    _same_turn,
    no_lesson,
    same_cause,
    told_again,
    twins,
)
from reflectgit.workflows.drain.heuristic.rules import (
    abandoned_fixes,
    briefed_rules,
    challenged_rules,
    challenges_acted_on,
    pasted_lines,
    proposals_granted,
)
from reflectgit.workflows.drain.heuristic.session import (
    acted_on,
    done_after,
    green_around,
    next_reply,
    past_the_error,
    rest_of_turn,
    turn_before,
    verified_edits,
)
from reflectgit.workflows.drain.heuristic.traps import escalated_reruns, told_already
from reflectgit.workflows.drain.heuristic.written import adopted_as_rule, written_guidance

MAX_ACTIONS = 12  # the action contract's cap on CREATEs


def write(prepared: Prepared) -> dict[str, Any]:
    """The heuristic writer's answer for a prepared entry: ``{"actions": [...]}``.

    One CREATE per lesson, reworded twins removed (a person's rule wins over the assistant's
    fix that restates it). Twins of notes already in the KB are the drain's check.
    """
    candidates: list[dict[str, Any]] = []
    transcript = prepared.transcript
    # the gate's reading of the commands when it made one (``notes/toolwork``), else read here
    work = prepared.work if prepared.work is not None and transcript is not None else None
    ran = work.ran if work is not None else commands_run(transcript) if transcript else []
    green = green_around(transcript, ran) if transcript else None
    past = past_the_error(transcript, ran) if transcript else None
    abandoned = abandoned_fixes(prepared.transcript) if prepared.transcript else None
    superseded = challenged_rules(prepared.transcript) if prepared.transcript else None
    verified = verified_edits(transcript, ran) if transcript else None
    reply_after = next_reply(prepared.transcript) if prepared.transcript else None
    rest = rest_of_turn(prepared.transcript) if prepared.transcript else None
    acted = acted_on(transcript, ran) if transcript else None
    done = done_after(transcript, ran) if transcript else None
    asked = turn_before(prepared.transcript) if prepared.transcript else None
    kept_as_rule = adopted_as_rule(prepared.transcript) if prepared.transcript else None
    briefed = briefed_rules(prepared.transcript) if prepared.transcript else None
    pasted = pasted_lines(prepared.transcript) if prepared.transcript else None
    otherwise = confirmed_otherwise(transcript, ran, verified=verified) if transcript else None
    # a cause stated in words is confirmed by the person keeping the edit, too
    stated = (
        confirmed_otherwise(transcript, ran, shipped=True, verified=verified)
        if transcript
        else None
    )
    for chunk in prepared.chunks:
        candidates += chunk_actions(
            chunk,
            chunk.signals,
            green,
            past,
            abandoned,
            superseded,
            verified,
            reply_after,
            rest,
            acted,
            done,
            asked,
            kept_as_rule,
            stated,
            briefed,
            pasted,
        )
    if prepared.transcript and prepared.chunks:
        since = min((r for c in prepared.chunks for r in c.records), default=0)
        candidates += challenges_acted_on(prepared.transcript, since)
        candidates += proposals_granted(prepared.transcript, since)
        candidates += standing_instructions(prepared.transcript, since)
        candidates += chosen_ways(prepared.transcript, since)
    # a remark on this turn, or the assistant's account of its own work, is no lesson: dropped
    # before twins are weighed, so it never stands in for a note that states the lesson
    candidates = [a for a in candidates if not no_lesson(a)]
    # stable: person's rules first, then a cause with its fix before one without
    candidates.sort(key=lambda a: (a["confidence"] != MEDIUM, not a["fix"]))
    kept: list[dict[str, Any]] = []
    for action in candidates:
        text = f"{action['title']} {action['rule']}"
        if not any(
            twins(text, f"{k['title']} {k['rule']}")
            or same_cause(action, k)
            or told_again(action, k)
            for k in kept
        ):
            kept.append(action)
    if transcript and prepared.chunks:
        since = min((r for c in prepared.chunks for r in c.records), default=0)
        # what the assistant wrote down at the person's word restates a lesson the session's
        # other notes may hold already: one naming the same code as a kept note is told twice
        for action in written_guidance(transcript, since):
            text = f"{action['title']} {action['rule']}"
            if no_lesson(action):
                continue
            # one turn of the person's, one note: the rule the assistant wrote down from it
            # (its memory, an instruction file) says it better than the turn's raw sentence,
            # and takes the place of the note read from the same words
            same = [i for i, k in enumerate(kept) if _same_turn(action, k)]
            if same:
                kept[same[0]] = action
            elif not any(
                twins(text, f"{k['title']} {k['rule']}")
                or _same_code(action, k)
                or told_again(action, k)
                for k in kept
            ):
                kept.append(action)

        def new_lesson(action: Mapping[str, Any]) -> bool:
            """Does the note hold a lesson, and one no note kept so far holds?"""
            text = f"{action['title']} {action['rule']}"
            return not no_lesson(action) and not any(
                twins(text, f"{k['title']} {k['rule']}")
                or same_cause(action, k)
                or told_again(action, k)
                for k in kept
            )

        # a finding the person relayed, acted on and confirmed: after what the writer read
        # otherwise, so a note already holding its lesson keeps its place
        for action in relayed_findings(transcript, ran, since):
            if new_lesson(action):
                kept.append(action)
        # a code review's finding (the assistant's review, or one the person pastes), fixed
        # in the file it names and validated by a passing run: a review often comes before
        # the first signal, so read from where this drain's reading starts
        for action in review_findings(transcript, ran, prepared.floor_record):
            if new_lesson(action):
                kept.append(action)
        # a cause read from the session's structure comes after every other note: it never
        # takes the place of one the writer read otherwise
        for action in [
            *linked_causes(transcript, ran, since, green, acted, otherwise, done),
            *reported_causes(transcript, ran, since),
            # a cause stated, checked over turns of its own, then fixed and confirmed
            *checked_causes(transcript, ran, since, otherwise, done),
            # a diagnosis, too, often comes before the first signal (an investigation the
            # person asked for): read from where this drain's reading starts
            *diagnosed_causes(transcript, ran, prepared.floor_record),
            # a fix made by a command may come before the first signal: read from where this
            # drain's reading starts (an earlier drain's part excepted)
            *command_fixes(transcript, ran, prepared.floor_record),
            # and so may a command run again differently (outside the sandbox, with a flag)
            *rerun_fixes(transcript, ran, prepared.floor_record),
            # and so may a limit of the environment worked around by another command
            *replaced_commands(transcript, ran, prepared.floor_record),
            # or one the person says how to get past
            *told_workarounds(transcript, ran, prepared.floor_record),
        ]:
            if new_lesson(action):
                kept.append(action)
        # a trap only the tool results tell (the sandbox refused a command, the same command
        # passed outside it), unless a note above tells the same workaround in words
        for action in escalated_reruns(transcript, ran, prepared.floor_record):
            if new_lesson(action) and not told_already(action, kept):
                kept.append(action)
    return {"actions": kept[:MAX_ACTIONS]}
