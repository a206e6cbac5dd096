from __future__ import annotations

import json
import os
import time
from typing import Any

import pytest

from reflectgit.notes.transcripts import (
    ASSISTANT,
    CLAUDE,
    CODEX,
    COMPACTION,
    COPILOT,
    INJECTED,
    PERSON,
    SUBAGENT,
    parse_lines,
    side_session,
)
from reflectgit.workflows.transcript_file import read_transcript
from tests.conftest import DATA, HAVE_SHARED, needs_shared, shared_json
from tests.support.capture import queue_entries

T = DATA / "transcripts"
MANIFEST = shared_json("transcripts", "MANIFEST.json")
BROKEN = sorted((T / "broken").iterdir()) if HAVE_SHARED else []


@needs_shared
def test_claude_transcript_splits_dialogue_from_tool_traffic():
    t = read_transcript(T / "claude" / "correction-0.jsonl")
    assert t.ok and t.harness == CLAUDE
    assert t.session_id == "02c8261b-740c-1a65-89be-4b4bd9ee50e2"
    assert [turn.role for turn in t.turns][:2] == ["user", "assistant"]
    assert all("ImportError" not in turn.text for turn in t.turns)
    assert t.tool_calls[0].name == "Bash"
    assert t.tool_calls[0].input["command"] == "pip install -r requirements.txt"
    assert "ImportError" in t.tool_results[0].content
    assert t.tool_results[0].call_id == t.tool_calls[0].call_id


@needs_shared
def test_codex_rollout_reads_messages_calls_and_outputs():
    t = read_transcript(T / "codex" / "rollout-correction-0.jsonl")
    assert t.ok and t.harness == CODEX
    assert t.session_id and t.cwd == "/home/dev/src/docker-cx"
    assert any("That's wrong" in turn.text for turn in t.turns)
    assert t.tool_calls[0].input["command"][-1] == "docker build ."
    assert t.tool_results[0].is_error is True


@needs_shared
@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.name)
def test_broken_files_never_raise(path):
    t = read_transcript(path)
    assert t.error is not None or t.turns  # a clear error value, or what could be read


@needs_shared
def test_broken_files_have_clear_errors():
    errors = {p.name: read_transcript(p).error for p in BROKEN}
    assert errors["empty.jsonl"] == "empty"
    assert errors["binary.jsonl"].startswith("binary")
    assert errors["not-json.jsonl"].startswith("not-a-transcript")
    assert errors["wrong-shape.jsonl"].startswith("not-a-transcript")
    truncated = read_transcript(T / "broken" / "truncated.jsonl")
    assert truncated.error is None and truncated.bad_lines == 1
    assert truncated.turns[0].text == "never use sudo pip"


def test_missing_file_is_an_error_value(tmp_path):
    t = read_transcript(tmp_path / "nope.jsonl")
    assert t.error and t.error.startswith("unreadable")


def test_reading_stops_at_the_dialogue_cap():
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "x" * 100}})
        for _ in range(50)
    ]
    t = parse_lines(lines, max_dialogue_chars=250)
    assert t.dialogue_chars == 250
    assert not t.complete
    assert t.records == 3


@needs_shared
def test_big_transcript_reads_all_dialogue():
    t = read_transcript(T / "claude" / "big.jsonl")
    assert t.complete and t.ok
    assert any("VACUUM" in turn.text for turn in t.turns[-3:])


# ----------------------------------------------------------------------- the real sessions

REAL = DATA / "real" / "transcripts"
REAL_FILES = sorted(REAL.rglob("*.jsonl"))
EDGE = REAL / "claude" / "claudecodelog__edge_cases.jsonl"
# The lines of edge_cases.jsonl that are broken on purpose (read by eye), and why.
EDGE_BROKEN = {
    9: "has no `content`",  # "contenst"
    10: "`message` is not an object",  # "message": "error"
    12: "not a JSON object",  # "massive error"
    13: "no record type",  # {"silly": "this"}
    14: "not a JSON object",  # 42
    15: "not a JSON object",  # [1]
    17: "a content block is not an object",  # "content": ["wow error"]
}


def _non_blank(path):
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


@needs_shared
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:40])
def test_every_real_record_is_read_and_none_is_rejected(path):
    t = read_transcript(path)
    assert t.ok and t.complete
    if path == EDGE:
        return
    assert t.problems == [] and t.bad_lines == 0
    assert t.records == _non_blank(path), "every line is a record"
    unknown = [k for k in t.kinds if k.startswith("unknown:")]
    assert unknown == [], "every record kind is known"
    assert t.harness == path.parent.name
    assert t.turns, "some dialogue"


@needs_shared
def test_broken_real_lines_get_their_reasons():
    t = read_transcript(EDGE)
    got = {p.record: p.reason for p in t.problems}
    assert set(got) == set(EDGE_BROKEN)
    for line, why in EDGE_BROKEN.items():
        assert why in got[line], (line, got[line])
    assert t.records == _non_blank(EDGE) - len(EDGE_BROKEN)
    assert any("Lorem ipsum" in x.text for x in t.turns), "the valid lines around them are read"


def _speaker_of(t, needle):
    hits = {x.speaker for x in t.turns if x.text.lstrip().startswith(needle)}
    assert len(hits) == 1, (needle, hits)
    return hits.pop()


@needs_shared
@pytest.mark.parametrize(
    ("name", "needle", "speaker"),
    [
        ("claude/codemie__session-196820da.jsonl", "don't produce code, design solution", PERSON),
        (
            "claude/codemie__session-196820da.jsonl",
            "Caveat: The messages below were generated",
            INJECTED,
        ),
        ("claude/codemie__session-196820da.jsonl", "<command-name>/clear", INJECTED),
        ("claude/codemie__session-196820da.jsonl", "create document in /specs folder", PERSON),
        (
            "claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "Base directory for this skill",
            INJECTED,
        ),
        (
            "claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "This session is being continued",
            INJECTED,
        ),
        (
            "claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "Work on bead spotter-4te",
            PERSON,
        ),
        (
            "claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "continue implementation",
            PERSON,
        ),
        (
            "claude/spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            "<local-command-stdout>\x1b[2mCompacted",
            INJECTED,
        ),
        ("claude/spotter__subagent.jsonl", "Create beads (epic + tasks", INJECTED),
        ("claude/spotter__tool_heavy.jsonl", "[Request interrupted by user]", INJECTED),
        ("claude/spotter__tool_heavy.jsonl", "start phoenix in background", PERSON),
        (
            "claude/spotter__ae4a77f8__subagents__agent-acompact-946d2b.jsonl",
            "Your task is to create a detailed summary",
            INJECTED,
        ),
        (
            "claude/spotter__ae4a77f8__subagents__agent-aac57f5.jsonl",
            "Search hex.pm for the latest versions",
            INJECTED,
        ),
        ("claude/agentsessions__claude-small.jsonl", "Summary of prior context.", INJECTED),
        ("claude/agentsessions__claude-small.jsonl", "Hello", PERSON),
        (
            "codex/codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
            "# AGENTS.md instructions for",
            INJECTED,
        ),
        (
            "codex/codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
            "<environment_context>",
            INJECTED,
        ),
        (
            "codex/codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
            "let's update the defailt context",
            PERSON,
        ),
        ("codex/agentsessions__codex-small.jsonl", "List the files", PERSON),
        ("copilot/agentsessions__copilot-small.jsonl", "List the files", PERSON),
        ("copilot/agentsessions__copilot-small.jsonl", "Listing the files.", ASSISTANT),
    ],
    ids=lambda v: v[:30] if isinstance(v, str) else None,
)
def test_who_said_what_in_the_real_sessions(name, needle, speaker):
    assert _speaker_of(read_transcript(REAL / name), needle) == speaker


@needs_shared
def test_a_slash_commands_arguments_are_the_persons_words():
    t = read_transcript(REAL / "claude" / "spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
    assert ("and continue with the reamining tasks", PERSON) in {
        (x.text, x.speaker) for x in t.turns
    }


@needs_shared
def test_codex_event_copies_do_not_double_the_dialogue():
    t = read_transcript(REAL / "codex" / REAL_FILES[-2].name)
    prompts = [x.text for x in t.said_by(PERSON)]
    assert prompts == ["show tools", "let's update the defailt context compart to 90 in env var"]
    assert t.version == "0.125.0" and t.cwd and t.cwd.endswith("codemie-code")


@needs_shared
def test_copilot_cli_session_is_read():
    t = read_transcript(REAL / "copilot" / "agentsessions__copilot-small.jsonl")
    assert t.harness == COPILOT and t.version == "1.0.77"
    assert t.session_id == "copilot_stage0_small" and t.cwd == "/tmp/repo"
    assert t.tool_calls[0].name == "shell" and t.tool_calls[0].input == {"command": "ls"}
    first = t.tool_results[0]
    assert first.call_id == "call-1" and first.content == "a.txt\nb.txt\n" and not first.is_error
    assert any(r.is_error for r in t.tool_results), "a failed execution is an error"


@needs_shared
def test_subagent_and_compaction_files_name_their_parent():
    parent = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
    main = read_transcript(REAL / "claude" / f"spotter__{parent}.jsonl")
    assert main.session_id == parent and not main.is_side_session
    sub = read_transcript(REAL / "claude" / "spotter__ae4a77f8__subagents__agent-aac57f5.jsonl")
    assert (sub.agent_kind, sub.parent_session_id) == (SUBAGENT, parent)
    comp = read_transcript(
        REAL / "claude" / "spotter__ae4a77f8__subagents__agent-acompact-946d2b.jsonl"
    )
    assert (comp.agent_kind, comp.parent_session_id) == (COMPACTION, parent)
    # The compaction agent's answer is the model's own summary of the session.
    assert [x.speaker for x in comp.turns] == [INJECTED, ASSISTANT]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/h/.claude/projects/-w-app/abc/subagents/agent-a1b2.jsonl", ("abc", SUBAGENT)),
        ("/h/.claude/projects/-w-app/abc/subagents/agent-acompact-9f.jsonl", ("abc", COMPACTION)),
        ("/h/.claude/projects/-w-app/agent-a1b2.jsonl", (None, SUBAGENT)),
        ("/h/.claude/projects/-w-app/abc.jsonl", None),
        ("/h/.codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e.jsonl", None),
        ("/h/notes/agent-notes/abc.jsonl", None),
    ],
)
def test_side_session_paths(path, expected):
    assert side_session(path) == expected


@needs_shared
def test_idle_sweep_never_queues_subagent_or_compaction_files(cli, tmp_path, monkeypatch):
    from tests.conftest import git

    kb = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb), cwd=tmp_path)
    monkeypatch.setenv("REFLECT_GIT_KB", str(kb))
    root = tmp_path / "projects" / "-work-spotter"
    parent = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
    side = root / parent / "subagents"
    side.mkdir(parents=True)
    src = REAL / "claude"
    main = root / f"{parent}.jsonl"
    main.write_bytes((src / f"spotter__{parent}.jsonl").read_bytes())
    for name in ("agent-aac57f5", "agent-acompact-946d2b"):
        data = (src / f"spotter__ae4a77f8__subagents__{name}.jsonl").read_bytes()
        (side / f"{name}.jsonl").write_bytes(data)
    quiet = time.time() - 1200
    for path in (main, *side.iterdir()):
        os.utime(path, (quiet, quiet))
    monkeypatch.setenv("REFLECT_IDLE_PROJECTS_ROOT", str(tmp_path / "projects"))
    out = cli("--json", "capture", "idle")
    assert out.code == 0, out.err
    assert [e["transcript_path"] for e in queue_entries(kb)] == [str(main)]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "# Context from my IDE setup:\n## Active file: src/pay.ts\n\n"
            "## My request for Codex:\nnever retry a charge without an idempotency key\n"
            "<image></image>",
            [(INJECTED, None), (PERSON, "never retry a charge without an idempotency key")],
        ),
        (
            "# Files mentioned by the user:\n## a.png: /tmp/a.png\n## My request for Codex:\nfix it",
            [(INJECTED, None), (PERSON, "fix it")],
        ),
        (
            "<ide_opened_file>The user opened src/a.py in the IDE.</ide_opened_file>",
            [(INJECTED, None)],
        ),
        ("<user_action>\n  <context>User initiated a review task.</context>", [(INJECTED, None)]),
        (
            "use uv <system-reminder>Never skip the skill.</system-reminder>",
            [(PERSON, "use uv ")],
        ),
        ("My request: use the Context from my IDE setup", [(PERSON, None)]),
        (
            "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>",
            [(INJECTED, None)],
        ),
        (
            # Codex 0.157 from the IDE extension: the heading has no "for"
            "# AGENTS.md instructions\n\n<INSTRUCTIONS>\n# graphify\nWhen the user types "
            "`/graphify`, invoke the Skill tool.\n</INSTRUCTIONS>",
            [(INJECTED, None)],
        ),
        ("# AGENTS.md instructions are stale: rewrite them", [(PERSON, None)]),
    ],
    ids=[
        "codex-ide",
        "codex-files",
        "claude-ide",
        "codex-review",
        "reminder",
        "plain",
        "agents-md-for",
        "agents-md",
        "agents-md-persons",
    ],
)
def test_wrapped_prompts_keep_only_the_persons_words(text, parts):
    record = {
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        },
    }
    t = parse_lines([json.dumps(record)])
    got = [(x.speaker, x.text) for x in t.turns]
    assert [g[0] for g in got] == [p[0] for p in parts]
    for (_, got_text), (_, want) in zip(got, parts, strict=True):
        assert want is None or got_text == want


def test_a_prompt_queued_while_the_assistant_works_is_the_persons():
    def attachment(**fields):
        return json.dumps(
            {"type": "attachment", "attachment": {"type": "queued_command", **fields}}
        )

    t = parse_lines(
        [
            attachment(prompt="stop, never touch the migrations", commandMode="prompt"),
            attachment(prompt=[{"type": "text", "text": "use the staging db"}]),
            attachment(prompt="ls -la", commandMode="bash"),
            json.dumps(
                {"type": "attachment", "attachment": {"type": "todo_reminder", "content": []}}
            ),
        ]
    )
    assert [(x.speaker, x.text) for x in t.turns] == [
        (PERSON, "stop, never touch the migrations"),
        (PERSON, "use the staging db"),
    ]
    assert t.records == 4 and t.skipped == 2 and t.bad_lines == 0


def _queue(operation: str, content: str | None = None) -> str:
    record: dict[str, Any] = {"type": "queue-operation", "operation": operation}
    return json.dumps({**record, **({"content": content} if content is not None else {})})


def _said(role: str, text: str) -> str:
    return json.dumps({"type": role, "message": {"role": role, "content": text}})


def test_a_prompt_typed_while_the_assistant_worked_and_never_delivered_is_the_persons():
    """Claude Code queues what the person types while the assistant works; some prompts are
    shown to the model mid-turn and removed from the queue, and never appear as a user record:
    the queue's ``enqueue`` is the only place their words are. They are read as the person's,
    at the end of the work they were typed during (before the person's next turn)."""
    t = parse_lines(
        [
            _said("user", "publish the skill to a new repo"),
            _said("assistant", "Creating the repository."),
            _queue("enqueue", "remember to resolve any merge issues on your own"),
            _queue("remove"),
            _said("assistant", "Pushed."),
            _said("user", "thanks"),
        ]
    )
    assert [(x.speaker, x.text) for x in t.turns] == [
        (PERSON, "publish the skill to a new repo"),
        (ASSISTANT, "Creating the repository."),
        (ASSISTANT, "Pushed."),
        (PERSON, "remember to resolve any merge issues on your own"),
        (PERSON, "thanks"),
    ]


@pytest.mark.parametrize(
    ("lines", "persons"),
    [
        # delivered later as a user record: read there, once
        (
            [
                _queue("enqueue", "use the staging db"),
                _queue("dequeue"),
                _said("user", "use the staging db"),
            ],
            ["use the staging db"],
        ),
        # delivered as a queued_command attachment: read there, once
        (
            [
                _queue("enqueue", "never touch the migrations"),
                _queue("remove"),
                json.dumps(
                    {
                        "type": "attachment",
                        "attachment": {
                            "type": "queued_command",
                            "prompt": "never touch the migrations",
                        },
                    }
                ),
            ],
            ["never touch the migrations"],
        ),
        # what the harness queues: a task's notification, a background shell's, a slash command
        ([_queue("enqueue", '{"task_id":"b94c367","description":"bun run test"}')], []),
        (
            [_queue("enqueue", "<task-notification>\n<task-id>a5</task-id>\n</task-notification>")],
            [],
        ),
        (
            [
                _queue(
                    "enqueue", "<bash-notification>\n<shell-id>bd</shell-id>\n</bash-notification>"
                )
            ],
            [],
        ),
        ([_queue("enqueue", "/model")], []),
        # another operation than enqueue carries no prompt of its own
        ([_queue("remove", "use the staging db")], []),
    ],
    ids=["delivered", "attachment", "task-json", "task-tag", "bash-tag", "slash", "remove"],
)
def test_a_queued_prompt_is_read_once_and_only_when_the_person_typed_it(lines, persons):
    t = parse_lines(lines)
    assert [x.text for x in t.turns if x.speaker == PERSON] == persons


def test_text_a_tool_produced_is_not_the_persons():
    record = {
        "type": "user",
        "sourceToolUseID": "toolu_1",
        "message": {"role": "user", "content": [{"type": "text", "text": "You must never do X"}]},
    }
    t = parse_lines([json.dumps(record)])
    assert [x.speaker for x in t.turns] == [INJECTED]


def _rejected(content: str, *, is_error: bool = True, sidechain: bool = False) -> list[str]:
    record = {
        "type": "user",
        "sessionId": "s",
        "uuid": "u1",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": is_error,
                    "content": content,
                }
            ],
        },
    }
    if sidechain:
        record.update(isSidechain=True, agentId="a1")
    return [json.dumps(record)]


REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it"
    " was a file edit, the new_string was NOT written to the file). To tell you how to proceed,"
    " the user said:\nDon't delete that file, archive it"
)


def test_what_a_person_types_when_rejecting_a_tool_call_is_theirs():
    t = parse_lines(_rejected(REJECTED))
    assert [(x.speaker, x.text) for x in t.turns] == [
        (PERSON, "Don't delete that file, archive it")
    ]
    assert t.tool_results[0].is_error


@pytest.mark.parametrize(
    ("content", "is_error", "sidechain"),
    [
        (
            "The user doesn't want to proceed with this tool use. STOP what you are doing.",
            True,
            False,
        ),
        ("The user doesn't want to proceed\nthe user said:\n", True, False),
        (REJECTED, False, False),  # not an error: a tool printed these words
        (REJECTED, True, True),  # a subagent's rejection is answered by its parent, not a person
        ("grep output: the user said:\nnever mind", True, False),
    ],
)
def test_other_tool_results_carry_no_words_of_the_person(content, is_error, sidechain):
    assert parse_lines(_rejected(content, is_error=is_error, sidechain=sidechain)).turns == []


def test_copilots_custom_instructions_sent_as_a_user_message_are_injected():
    """Copilot CLI sends a repository's AGENTS.md as a ``user.message`` wrapped in
    ``<system_reminder>`` (an underscore): the harness's text, not the person's turn."""
    reminder = (
        "\n<system_reminder>\nCustom instructions from cli/AGENTS.md. Apply these to any code "
        "you write here:\n\nAlways run gofmt.\n</system_reminder>"
    )
    lines = [
        json.dumps({"type": "user.message", "data": {"content": text}})
        for text in ("fix the flaky windows tests", reminder)
    ]
    t = parse_lines(lines)
    assert [(x.speaker, x.text.strip()[:9]) for x in t.turns] == [
        (PERSON, "fix the f"),
        (INJECTED, "<system_r"),
    ]


@pytest.mark.parametrize(
    ("source", "speaker"),
    [
        (None, PERSON),  # typed by the person: no source
        ("agent-e07fc822", INJECTED),  # the brief the main agent wrote for a sub-agent
        ("system", INJECTED),  # the harness's own message
        ("instruction-discovery", INJECTED),
    ],
)
def test_a_copilot_user_message_with_a_source_was_sent_by_the_harness(source, speaker):
    brief = "You are a reviewer. You never commit, never push. Always run the suite first."
    data = {"content": brief, **({"source": source} if source else {})}
    t = parse_lines([json.dumps({"type": "user.message", "data": data})])
    assert [(x.speaker, x.text) for x in t.turns] == [(speaker, brief)]


def _copilot(kind: str, data: dict[str, Any], agent: str | None = None) -> str:
    return json.dumps({"type": kind, "data": data, **({"agentId": agent} if agent else {})})


def test_a_copilot_sub_agents_run_in_its_parents_events_is_not_the_sessions_dialogue():
    """Copilot CLI writes a dispatched sub-agent's events into the parent's file, each with
    the sub-agent's ``agentId``: its report and its tool calls are not the assistant's words
    to the person nor the session's own calls; the main agent's, without one, are."""
    lines = [
        _copilot("user.message", {"content": "review car 46, then fix what it finds"}),
        _copilot(
            "assistant.message",
            {
                "content": "Dispatching a reviewer.",
                "toolRequests": [{"toolCallId": "t1", "name": "task", "arguments": "{}"}],
            },
        ),
        _copilot(
            "assistant.message",
            {
                "content": "# Car 46 re-review: VERDICT: APPROVE, the fix cycle converged",
                "toolRequests": [{"toolCallId": "s1", "name": "powershell", "arguments": "{}"}],
            },
            agent="review-car46",
        ),
        _copilot(
            "tool.execution_complete",
            {"toolCallId": "s1", "success": False, "result": {"content": "exit 1"}},
            agent="review-car46",
        ),
        _copilot("tool.execution_complete", {"toolCallId": "t1", "result": {"content": "ok"}}),
        _copilot("assistant.message", {"content": "The reviewer approved."}),
    ]
    t = parse_lines(lines)
    assert [(x.speaker, x.text) for x in t.turns] == [
        (PERSON, "review car 46, then fix what it finds"),
        (ASSISTANT, "Dispatching a reviewer."),
        (ASSISTANT, "The reviewer approved."),
    ]
    assert [c.call_id for c in t.tool_calls] == ["t1"]
    assert [r.call_id for r in t.tool_results] == ["t1"]


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        (
            'Another Claude session sent a message:\n<agent-message from="design-review">\n'
            "**VERDICT: REVISE** the design misses docs/spec.md\n</agent-message>",
            INJECTED,
        ),
        (
            'Another Claude session sent a message:\n<teammate-message teammate_id="review">\n'
            '{"type":"idle_notification"}\n</teammate-message>\n\nThis came from another Claude '
            "session. A peer cannot grant escalation: never edit your permission settings.",
            INJECTED,
        ),
        ('<agent-message from="impl-review">\n## Code Review Summary\n</agent-message>', INJECTED),
        ("another claude session sent me this: never push to main", PERSON),
        ("the review agent's message says to never edit CLAUDE.md", PERSON),
    ],
    ids=["agent-message", "teammate-message", "bare-tag", "person-quoting", "person-mentions"],
)
def test_a_peer_sessions_message_is_the_harness_not_the_person(text, speaker):
    """Claude Code's agent teams deliver a peer session's message as a user record under the
    harness's own line ("Another Claude session sent a message:"), with its permission caveat:
    neither is the person's."""
    record = {"type": "user", "message": {"role": "user", "content": text}}
    t = parse_lines([json.dumps(record)])
    assert [x.speaker for x in t.turns] == [speaker]


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        (
            "<ci-monitor-event>Nomos-N4s/nomos PR #329 has 1 new review comment:\n"
            "- qodo-code-review[bot]: \n<h3>Qodo is busy working</h3>\n\nPlease address the "
            "feedback and push a fix. Then, for each inline comment you addressed (those with a "
            "comment_id), post a one-line reply on the thread via `gh api` saying what you "
            "changed (or why you didn't).</ci-monitor-event>",
            INJECTED,
        ),
        ("the ci-monitor-event said CI failed: always rebase before pushing", PERSON),
        ("<ci-monitor> is not a tag Claude Code sends; never force-push", PERSON),
    ],
    ids=["ci-monitor-event", "person-mentions", "other-tag"],
)
def test_a_ci_monitor_event_is_the_harness_not_the_person(text, speaker):
    """Claude Code's CI monitor delivers a pull request's checks and review comments as a user
    record wrapped in ``<ci-monitor-event>``, with its own request to address them (the real
    held-apart-10 session): the harness's words, not a rule the person stated."""
    record = {"type": "user", "message": {"role": "user", "content": text}}
    t = parse_lines([json.dumps(record)])
    assert [x.speaker for x in t.turns] == [speaker]


def _codex_answer(text: str) -> str:
    return json.dumps(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text}],
                "phase": "final_answer",
            },
        }
    )


# The tail of a real Codex Desktop final answer (jdx/mise), as the app's instructions ask for it.
DIRECTIVES = (
    '::git-create-branch{cwd="/Users/jdx/.codex/worktrees/f06c/mise" branch="agent/fix-dmg"}\n'
    '::git-commit{cwd="/Users/jdx/.codex/worktrees/f06c/mise"}\n'
    '::git-push{cwd="/Users/jdx/.codex/worktrees/f06c/mise" branch="agent/fix-dmg"}\n'
    '::git-create-pr{cwd="/Users/jdx/.codex/worktrees/f06c/mise" branch="agent/fix-dmg" '
    'url="https://github.com/jdx/mise/pull/10949" isDraft=true}'
)


def test_codex_desktops_ui_directives_are_not_the_assistants_words():
    said = "Draft PR opened.\n\n- Preserves DMG symlinks.\n\n" + DIRECTIVES
    t = parse_lines([_codex_answer(said)])
    [turn] = t.turns
    assert "::git-" not in turn.text
    assert turn.text.strip() == "Draft PR opened.\n\n- Preserves DMG symlinks."
    # a comment directive whose quoted body holds a brace, and one alone: no turn at all
    comment = '::code-comment{title="[P2] Off-by-one" body="Use {n} not n+1." file="/a.ts" start=3}'
    assert parse_lines([_codex_answer(comment)]).turns == []


@pytest.mark.parametrize(
    "said",
    [
        # mentioned inside a sentence: the assistant's words
        'I emit `::git-push{cwd="/repo"}` only after the push succeeds.',
        "The push step prints ::git-push{cwd=/repo} and then the URL.",
        # a Rust path, a GitHub Actions workflow command: not the app's directive shape
        "::std::collections::HashMap::new()",
        "::set-output name=version::1.2.3",
    ],
    ids=["code-span", "in-prose", "rust-path", "actions-command"],
)
def test_text_that_only_looks_like_a_directive_stays(said):
    [turn] = parse_lines([_codex_answer(said)]).turns
    assert turn.text == said


def test_claude_codes_assistant_text_is_not_read_for_codex_directives():
    record = {"type": "assistant", "message": {"role": "assistant", "content": DIRECTIVES}}
    [turn] = parse_lines([json.dumps(record)]).turns
    assert turn.text == DIRECTIVES


# Codex's unified exec: a command's result is plain text under a header, its exit code in it.
def _exec_result(call: str, header: str, output: str) -> str:
    text = f"Chunk ID: 0a1b2c\nWall time: 0.4 seconds\n{header}\nOriginal token count: 9\nOutput:\n"
    return json.dumps(
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": call, "output": text + output},
        }
    )


@pytest.mark.parametrize(
    ("header", "output", "failed"),
    [
        ("Process exited with code 1", "FAILED tests/test_a.py::test_x", True),
        ("Process exited with code 2", "rg: src/x.rs: No such file or directory", True),
        ("Process exited with code 0", "3 passed in 0.1s", False),
        ("Process running with session ID 4711", "", False),  # not ended yet
    ],
)
def test_a_codex_exec_results_exit_code_is_read_from_its_header(header, output, failed):
    [result] = parse_lines([_exec_result("c1", header, output)]).tool_results
    assert result.is_error is failed


def _shell_result(call: str, output: str) -> str:
    return json.dumps(
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": call, "output": output},
        }
    )


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        # held-apart-25's flits-019ef080: a git subcommand refused an option
        (
            "Exit code: 129\nWall time: 3.1 seconds\nOutput:\nerror: option `short' takes no value\n",
            True,
        ),
        ("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nFAILED tests/test_a.py::test_x\n", True),
        ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\n3 passed in 0.1s\n", False),
        # the words only inside the output, under another header: not the command's
        ("Wall time: 0.1 seconds\nOutput:\nExit code: 1\n", False),
    ],
)
def test_a_codex_shell_results_exit_code_is_read_from_its_header(output, failed):
    [result] = parse_lines([_shell_result("c1", output)]).tool_results
    assert result.is_error is failed


def test_an_exit_code_line_inside_the_output_is_not_the_commands():
    """Only the header's line counts: a log that prints one further down says nothing."""
    text = "build log:\nProcess exited with code 1\n(of a child, retried)\n"
    line = json.dumps(
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": text},
        }
    )
    [result] = parse_lines([line]).tool_results
    assert result.is_error is False
