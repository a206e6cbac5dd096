"""The heuristic writer's notes (issue 12.8, 19.3): a rule with its subject, the rule and the
evidence; observations without a rule dropped; twins within one answer removed; injected text
never a note. Each case is a Claude Code transcript in tmp_path run through the real cascade."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes import transcripts
from reflectgit.notes.signals import Signal
from reflectgit.workflows.drain import cascade, heuristic
from reflectgit.workflows.drain.heuristic import (
    causes,
    confirmation,
    conventions,
    note,
    rules,
    session,
    wording,
    written,
)


def _session(tmp_path: Path, turns: list[tuple[str, str] | dict]) -> str:
    lines = []
    for i, turn in enumerate(turns):
        if isinstance(turn, dict):
            record = turn
        else:
            role, text = turn
            record = {"type": role, "message": {"role": role, "content": text}}
        record.setdefault("sessionId", "s-1")
        record.setdefault("uuid", f"u{i}")
        lines.append(json.dumps(record))
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _actions(tmp_path: Path, turns: list) -> list[dict]:
    prepared = cascade.prepare(_session(tmp_path, turns))
    return heuristic.write(prepared)["actions"] if prepared.skip is None else []


def test_a_persons_rule_is_the_title_with_its_subject(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "implement the exporter"),
            ("assistant", "Done. I left a TODO for the retry path."),
            ("user", "TODO is not acceptable, implementation must be full"),
        ],
    )
    assert action["title"] == "TODO is not acceptable, implementation must be full"
    assert action["confidence"] == "medium" and action["learning_type"] == "correction"
    assert "TODO is not acceptable" in action["body"], "the evidence: the person's words"
    assert "I left a TODO" in action["problem"], "the evidence: what the assistant had done"


def test_chatter_before_the_rule_is_not_the_title(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "plan the session tracker"),
            ("assistant", "Here is a plan with an orchestrator per agent."),
            ("user", "the main idea is fine, however the orchestrator must not be agent specific"),
        ],
    )
    assert action["title"] == "The orchestrator must not be agent specific"


def test_reworded_twins_are_one_note(tmp_path):
    actions = _actions(
        tmp_path,
        [
            ("user", "build it"),
            ("assistant", "Running gradle build."),
            ("user", "Use `./gradlew build --configuration-cache` instead of `gradle build`."),
            ("assistant", "Switching."),
            ("user", "ok"),
            ("assistant", "Running gradle build in the other module."),
            ("user", "thanks"),
            ("assistant", "Anything else?"),
            ("user", "Instead of `gradle build`, use `./gradlew build --configuration-cache`."),
        ],
    )
    assert len(actions) == 1
    assert "./gradlew build --configuration-cache" in actions[0]["title"]


def test_different_rules_are_two_notes(tmp_path):
    actions = _actions(
        tmp_path,
        [
            ("user", "set it up"),
            ("assistant", "Installing with pip."),
            ("user", "Use `uv pip sync requirements.lock` instead of `pip install`."),
            ("assistant", "Pushing to main."),
            ("user", "Never push to `main` directly, open a pull request."),
        ],
    )
    assert len(actions) == 2


def test_a_rule_said_again_in_other_words_is_one_note(tmp_path):
    # the same act (not to open a pr or an issue) said three times, sharing few words
    actions = _actions(
        tmp_path,
        [
            (
                "user",
                "review the findings one at a time. do not create any pr or issue without my explicit approval.",
            ),
            ("assistant", "Shall I group the findings into issues per repository?"),
            (
                "user",
                "i don't want to open issues or prs directly or have you do it. draft a write-up per team.",
            ),
            ("assistant", "Here is the write-up template."),
            (
                "user",
                "great. now a branch per security finding with the fix. do not open an issues or prs or commit.",
            ),
        ],
    )
    titles = [a["title"] for a in actions]
    assert titles == ["Do not create any pr or issue without my explicit approval"], titles


def test_two_rules_sharing_all_words_but_the_verb_are_two_notes(tmp_path):
    actions = _actions(
        tmp_path,
        [
            ("user", "ship the fix"),
            ("assistant", "Pushing the fix to main."),
            ("user", "Never push to main."),
            ("assistant", "Opened a branch; merging it to main now."),
            ("user", "Never merge to main."),
        ],
    )
    assert sorted(a["title"] for a in actions) == ["Never merge to main", "Never push to main"]


@pytest.mark.parametrize(
    "turns",
    [
        # an observation: a cause without anything to do
        [
            ("user", "why is it flaky?"),
            ("assistant", "Turns out the worker ran before the row was committed."),
        ],
        # the assistant's decision without a subject ("Go with exponential backoff capped at 30 s")
        [
            ("user", "add retries"),
            ("assistant", "We decided to go with exponential backoff capped at 30 s."),
        ],
        # a bare rejection teaches nothing by itself
        [
            ("user", "write the parser"),
            ("assistant", "I wrote a regex parser."),
            ("user", "not like this"),
        ],
        # a reply that scopes a permission is no rule
        [
            ("user", "run it"),
            ("assistant", "May I run the migration?"),
            ("user", "only for this repo"),
        ],
        # "No, don't worry, that's fine." is no correction
        [
            ("user", "fix the test"),
            ("assistant", "Should I also update the snapshot?"),
            ("user", "No, don't worry, that's fine."),
        ],
    ],
    ids=["observation", "decision", "bare-rejection", "permission-scope", "dont-worry"],
)
def test_no_note_without_an_actionable_rule(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


def test_a_plain_rejection_with_its_reason_is_a_low_correction(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "summarise the sessions"),
            ("assistant", "I will send the whole transcript to the model on every Stop."),
            ("user", "it's bad idea, since entire conversation will be processed every time"),
        ],
    )
    assert action["confidence"] == "low" and action["learning_type"] == "correction"
    assert action["title"] == (
        "Don't send the whole transcript to the model on every Stop: entire conversation "
        "will be processed every time"
    )
    assert "I will send the whole transcript to the model" in action["problem"]


def test_the_assistants_fix_is_low_with_its_subject(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "why does the app crash at boot?"),
            (
                "assistant",
                "- **`:opentelemetry.set_text_map_propagators/1` undefined**: The function "
                "doesn't exist. Fixed by configuring propagators via application environment "
                "config (`text_map_propagators: [:trace_context, :baggage]`).",
            ),
        ],
    )
    assert action["confidence"] == "low" and action["learning_type"] == "bug-fix"
    assert action["title"].startswith(
        "`:opentelemetry.set_text_map_propagators/1` undefined: configure propagators"
    )
    assert action["fix"].startswith("Configure propagators via application environment")


def test_injected_text_is_never_a_note(tmp_path):
    skill = (
        "Base directory for this skill: /home/u/.claude/skills/beads\n\n"
        "You must always run `bd prime` first. Never edit files directly."
    )
    caveat = (
        "<local-command-caveat>Caveat: The messages below were generated by the user while "
        "running local commands. DO NOT respond to these messages or otherwise consider them "
        "in your response unless the user explicitly asks you to.</local-command-caveat>"
    )
    summary = (
        "This session is being continued from a previous conversation. Always use `uv` "
        "instead of `pip`; the fix was to never run `pip install`."
    )
    turns = [
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": skill}},
        ("user", caveat),
        {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": summary}},
        ("user", "continue"),
    ]
    prepared = cascade.prepare(_session(tmp_path, turns))
    assert prepared.skip == "no-signal"


def test_twins_helper_has_negative_cases():
    assert note.twins(
        "Use `./gradlew build` instead of `gradle build`",
        "Instead of `gradle build`, use `./gradlew build`",
    )
    assert not note.twins("Use `npm ci` in CI", "Never push to `main` directly")
    assert not note.twins("Pin numpy below 2", "Pin pandas below 3 for the reports job")


def test_the_title_is_the_rule_not_who_was_told(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "deploy it"),
            ("assistant", "Deleting the pods one by one."),
            ("user", "That's wrong. You must use `kubectl rollout restart deployment/api`."),
        ],
    )
    assert action["title"] == "Use `kubectl rollout restart deployment/api`"


def test_a_long_plain_rejection_is_a_low_note_and_a_short_one_none(tmp_path):
    long_reply = "it's not jsonl file, it is the plain text log that the CLI writes on exit"
    [action] = _actions(
        tmp_path,
        [
            ("user", "parse the session log"),
            ("assistant", "I'll parse it line by line as JSON."),
            ("user", long_reply),
        ],
    )
    assert action["confidence"] == "low"
    assert action["title"].startswith("It's not jsonl file")
    short = [
        ("user", "parse the session log"),
        ("assistant", "I'll parse it line by line as JSON."),
        ("user", "it's not jsonl file"),
    ]
    assert _actions(tmp_path, short) == []


# Issue 34.3: the lessons people state, titled by what to do; root causes once confirmed.


def test_a_short_rule_keeps_the_sentence_it_belongs_to(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "add caching"),
            ("assistant", "I wrote a new caching layer with an LRU, a TTL and a refresher."),
            ("user", "Please check the existing implementation first. Don't overcomplicate."),
        ],
    )
    assert action["title"] == "Check the existing implementation first; don't overcomplicate"
    assert action["rule"] == "Check the existing implementation first; don't overcomplicate."


def test_a_short_rule_alone_or_next_to_a_question_is_no_note(tmp_path):
    turns = [
        ("user", "add caching"),
        ("assistant", "I wrote a new caching layer."),
        ("user", "Why a new layer? Don't overcomplicate."),
    ]
    assert _actions(tmp_path, turns) == []


def test_a_short_rule_that_names_a_thing_is_a_note(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "build it"),
            ("assistant", "Running gradle build."),
            ("user", "no, use ./gradlew"),
        ],
    )
    assert action["title"] == "Use ./gradlew" and action["confidence"] == "medium"
    vague = [("user", "build it"), ("assistant", "Running gradle build."), ("user", "no, use that")]
    assert _actions(tmp_path, vague) == []


def test_a_bad_idea_is_titled_by_what_to_do_naming_the_idea(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "add retries"),
            ("assistant", "I'll add a retry decorator in a new module."),
            ("user", "It's bad idea to add a new module for that, put it in http.py"),
        ],
    )
    assert action["title"] == "Don't add a new module for that; put it in http.py"


def test_a_bad_idea_nobody_named_is_no_note(tmp_path):
    turns = [
        ("user", "set up the cache"),
        ("assistant", "Here is the design with Redis in front of the API."),
        ("user", "it's a bad idea, since the box has no Redis and never will have it"),
    ]
    assert all(not a["title"].lower().startswith("it's") for a in _actions(tmp_path, turns))
    assert _actions(tmp_path, turns) == []


CAUSE = (
    "The root cause is that the `tmp_dir` fixture is session-scoped, so the second test sees "
    "stale files. I changed it to use tmp_path."
)


def test_a_root_cause_the_person_confirms_is_a_medium_note(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "why does the second test run fail?"),
            ("assistant", CAUSE),
            ("user", "yes, that fixed it, thanks"),
        ],
    )
    assert action["title"] == (
        "The `tmp_dir` fixture is session-scoped, so the second test sees stale files: use tmp_path"
    )
    assert action["confidence"] == "medium" and action["learning_type"] == "bug-fix"
    assert action["root_cause"].startswith("The `tmp_dir` fixture is session-scoped")
    assert action["fix"] == "Use tmp_path."
    assert "Confirmed by the person" in action["body"]


@pytest.mark.parametrize(
    "cause",
    [
        "The issue might be that the `tmp_dir` fixture is session-scoped.",  # a hunch
        "The issue is that I'm calling `load_config()` twice in the test.",  # its own doing
        "The issue is that the function doesn't exist with that name.",  # names nothing
    ],
)
def test_a_confirmed_hunch_or_a_cause_that_names_nothing_is_no_note(tmp_path, cause):
    turns = [("user", "why does it fail?"), ("assistant", cause), ("user", "yes, that fixed it")]
    assert _actions(tmp_path, turns) == []


def _run(call: str, output: str) -> list:
    return [
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": call,
                        "name": "Bash",
                        "input": {"command": "pytest -q"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call, "content": output}],
            },
        },
    ]


def _edit(call: str) -> list:
    return [
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": call,
                        "name": "Edit",
                        "input": {"file_path": "app/jobs.py", "old_string": "a", "new_string": "b"},
                    }
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call, "content": "ok"}],
            },
        },
    ]


def _edit_to(call: str, new: str, old: str = "Sandbox.checkout(Repo)") -> list:
    [use, result] = _edit(call)
    use["message"]["content"][0]["input"].update(old_string=old, new_string=new)
    return [use, result]


RED = "=== 1 failed, 11 passed in 0.40s ==="
GREEN = "12 passed in 0.40s"


def _with_runs(before: str | None, after: str) -> list:
    return [
        ("user", "why does the second test run fail?"),
        *(_run("t0", before) if before else []),
        ("assistant", CAUSE),
        *_run("t1", after),
        ("assistant", "Done."),
    ]


def test_a_root_cause_the_tests_confirm_red_to_green_is_a_medium_note(tmp_path):
    [action] = _actions(tmp_path, _with_runs(RED, GREEN))
    assert action["confidence"] == "medium" and action["fix"] == "Use tmp_path."
    assert "Confirmed by a green test run" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        _with_runs(RED, RED),  # still red: nothing confirmed
        _with_runs(None, GREEN),  # green, but never seen red: nothing was fixed
        [("user", "why does it fail?"), ("assistant", CAUSE)],  # nobody confirmed it
        [
            ("user", "why does it fail?"),
            ("assistant", CAUSE),
            ("user", "no, that's not it, the files are fresh"),
        ],
    ],
    ids=["red-run", "never-red", "unconfirmed", "denied"],
)
def test_a_root_cause_nobody_confirmed_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


# Issue 34.3, the kinds of lesson the shared real sessions showed missed: what to reuse, a
# reminder, "important not to", what is not ours to change, an anaphoric root cause.


@pytest.mark.parametrize(
    ("reply", "title"),
    [
        (
            "great, but there is existing logic for scanning history",
            "Reuse the existing logic for scanning history",
        ),
        (
            "ok. important not to commit changes until the final step. go on",
            "Don't commit changes until the final step",
        ),
        (
            "we don't control the payment gateway - it's a vendor service we call",
            "We don't control the payment gateway - it's a vendor service we call",
        ),
        (
            "keep in mind that the cache is per process, not per host",
            "Keep in mind that the cache is per process, not per host",
        ),
    ],
)
def test_a_persons_rule_of_these_kinds_is_a_medium_note(tmp_path, reply, title):
    [action] = _actions(
        tmp_path,
        [
            ("user", "plan the tracker"),
            ("assistant", "Here is the plan: a new history scanner, then commits per step."),
            ("user", reply),
        ],
    )
    assert action["title"] == title and action["confidence"] == "medium"


@pytest.mark.parametrize(
    "reply",
    [
        "there is existing code that crashes when it starts",  # a report, not what to reuse
        "we don't control it",  # names nothing
        "it was important to me that it ran",  # no rule
    ],
)
def test_the_same_words_without_a_rule_are_no_note(tmp_path, reply):
    turns = [("user", "plan it"), ("assistant", "Here is the plan."), ("user", reply)]
    assert _actions(tmp_path, turns) == []


def test_among_rule_sentences_one_naming_a_thing_beats_a_vague_one(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "handle /clear"),
            ("assistant", "Option 1: ignore it."),
            (
                "user",
                "the issue must be addressed, option 1 is not acceptable. hitting /clear "
                "always creates the file in the same directory.",
            ),
        ],
    )
    assert action["title"] == "Hitting /clear always creates the file in the same directory"


@pytest.mark.parametrize(
    ("request_", "title"),
    [
        (
            "first, let's see if any of the findings would be security issues, because we "
            "should handle those differently. help me work through things one at a time. do "
            "not create any pr or issue without my explicit approval.",
            "Do not create any pr or issue without my explicit approval",
        ),
        (
            "i don't want to open issues or prs directly or have you do it. let's design a "
            "write-up we can provide to each team. we should have an intro that explains how "
            "these came to be, linking to the acme/charming-notes repo.",
            "I don't want to open issues or prs directly or have you do it",
        ),
    ],
)
def test_inside_a_long_request_the_refusal_is_the_rule_not_the_tasks_work(
    tmp_path, request_, title
):
    actions = _actions(
        tmp_path,
        [
            ("user", "review the findings"),
            ("assistant", "I found 40 findings across 12 repositories."),
            ("user", request_),
        ],
    )
    assert [a["title"] for a in actions] == [title]
    assert all(not note.no_lesson(a) for a in actions)


def test_a_request_without_a_refusal_keeps_its_named_sentence(tmp_path):
    actions = _actions(
        tmp_path,
        [
            ("user", "review the findings"),
            ("assistant", "I found 40 findings across 12 repositories."),
            (
                "user",
                "let's design a write-up we can provide to each team. we should have an intro "
                "that explains how these came to be, linking to the acme/charming-notes repo.",
            ),
        ],
    )
    assert not any(a["title"].lower().startswith(("let's", "don't", "do not")) for a in actions)


def test_a_refusal_outranks_a_should_and_an_i_dont_know_does_not():
    assert wording._rank("do not create any pr without my approval.") < wording._rank(
        "we should have an intro linking to acme/notes."
    )
    assert wording._rank("I don't know why, we should use a queue here.") == wording._rank(
        "we should have an intro linking to acme/notes."
    )
    assert wording._rank("never push to main") < wording._rank("don't push to main")


ANAPHORIC = (
    "So `current_span_ctx()` returns the span context itself (not `{:ok, ctx}`). That's the "
    "bug - the helper matched on a tuple. Let me fix `get_current_trace_id()`."
)


def test_an_anaphoric_root_cause_the_tests_confirm_is_the_sentence_before_it(tmp_path):
    turns = [
        ("user", "why does the trace id test fail?"),
        *_run("t0", RED),
        ("assistant", ANAPHORIC),
        *_edit_to("e1", "def get_current_trace_id do", old="def get_current_trace_id() do"),
        *_run("t1", GREEN),
        ("assistant", "Done."),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == (
        "`current_span_ctx()` returns the span context itself (not `{:ok, ctx}`): "
        "fix `get_current_trace_id()`"
    )
    assert action["confidence"] == "medium" and "Confirmed by a green test run" in action["body"]
    unconfirmed = [("user", "why does it fail?"), ("assistant", ANAPHORIC)]
    assert _actions(tmp_path, unconfirmed) == []
    opening = [
        ("user", "why?"),
        *_run("t0", RED),
        ("assistant", "That's the bug."),
        *_run("t1", GREEN),
    ]
    assert _actions(tmp_path, opening) == []  # nothing said before it: no cause to name


@pytest.mark.parametrize(
    ("fix", "imperative"),
    [
        ("Fixed it by adding the missing index", "Add the missing index"),
        ("Fixed by pinning the version", "Pin the version"),
        ("Fixed by configuring propagators", "Configure propagators"),
        ("Fixed by stopping the worker first", "Stop the worker first"),
    ],
)
def test_a_fix_is_said_as_what_to_do_with_its_verb_whole(fix, imperative):
    assert wording._imperative(fix) == imperative


def test_a_summarys_routine_fixes_are_no_notes_its_root_causes_are(tmp_path):
    """A compaction summary's "Errors and fixes" list: lint warnings, a module not written yet
    and a reference the session's own rename left behind are dropped; a library's trap is
    kept, titled by what to do."""
    summary = "\n".join(
        [
            "4. Errors and fixes:",
            "   - **Credo nesting depth (max 2, was 3)**: Fixed by extracting `list_dirs/1` helper.",
            "   - **Compile errors for missing AnnotationRef**: Fixed by creating the module file.",
            "   - **Unused import Web.Components**: Fixed by updating the template to use "
            "`<.panel>`.",
            "   - **Renderer.render/2 undefined**: Removed the alias after `load_transcript` was "
            "renamed, but it was still referenced. Fixed by renaming `load_transcript` to "
            "`load_data`.",
            "   - **BadMapError in OTEL processor config**: The nested format was wrong. Fixed by "
            "using flat `traces_exporter: :stdout` config per the README.",
        ]
    )
    actions = _actions(tmp_path, [("user", "continue"), ("assistant", summary)])
    assert [a["title"] for a in actions] == [
        "BadMapError in OTEL processor config: use flat `traces_exporter: :stdout` config per "
        "the README"
    ]


@pytest.mark.parametrize(
    ("done", "title"),
    [
        ("renaming `load_transcript` to `load_data`", "Rename `load_transcript` to `load_data`"),
        ("adding `uuid` fields to the test JSONL", "Add `uuid` fields to the test JSONL"),
        ("configuring `text_map_propagators` in config", "Configure `text_map_propagators`"),
        ("pinning `lazy_html` to 0.1", "Pin `lazy_html` to 0.1"),
        ("moving the `require` out of the quote block", "Move the `require` out of the quote"),
        ("editing `config/test.exs` for the endpoint", "Edit `config/test.exs` for the endpoint"),
    ],
)
def test_a_fix_said_with_ing_is_titled_by_its_verb(tmp_path, done, title):
    said = f"- **Session sync retried forever**: Fixed by {done}."
    [action] = _actions(tmp_path, [("user", "continue"), ("assistant", said)])
    head, _, fix = action["title"].partition(": ")
    assert head == "Session sync retried forever"
    assert fix.split()[0] == title.split()[0].lower(), action["title"]


@pytest.mark.parametrize(
    ("said", "title"),
    [
        (
            "The issue is clear — the LiveView process can't access the `Repo` sandbox. "
            "I need to use shared sandbox mode. Let me fix the test setup.",
            "The LiveView process can't access the `Repo` sandbox: use shared sandbox mode",
        ),
        (
            "The problem is simple: the `worker_pool` is started before the `Repo`. "
            "Let me move the `worker_pool` after the `Repo` in the supervisor.",
            "The `worker_pool` is started before the `Repo`: move the `worker_pool` after the "
            "`Repo` in the supervisor",
        ),
    ],
)
def test_a_confirmed_cause_said_as_clear_is_titled_by_the_cause_and_the_fix_said(
    tmp_path, said, title
):
    """ "The issue is clear — X": X is the cause; "I need to use Y" before "let me fix the
    setup" is the fix (the first one said)."""
    turns = [("user", "why does it fail?"), ("assistant", said), ("user", "yes, that fixed it")]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == title


def test_the_issue_being_clear_is_no_cause_by_itself(tmp_path):
    """ "The issue is clear now, thanks" names nothing: no note, confirmed or not."""
    turns = [
        ("user", "why does it fail?"),
        ("assistant", "The issue is clear now. Let me fix the test setup."),
        ("user", "yes, that fixed it"),
    ]
    assert _actions(tmp_path, turns) == []


def _diagnosed(said: str, before: str | None, after: str, made: bool = True) -> list:
    return [
        ("user", "make the LiveView tests pass"),
        *(_run("t0", before) if before else []),
        ("assistant", said),
        # the fix it names, made
        *(_edit_to("e1", "Sandbox.mode(Repo, {:shared, self()})") if made else []),
        *_run("t1", after),
        ("assistant", "Done."),
    ]


@pytest.mark.parametrize(
    ("said", "title"),
    [
        (
            "The LiveView runs in a separate process that can't access the test sandbox. "
            "I need to use `Sandbox.mode(Repo, {:shared, self()})`.",
            "The LiveView runs in a separate process that can't access the test sandbox: use "
            "`Sandbox.mode(Repo, {:shared, self()})`",
        ),
        (
            "The test config is missing `secret_key_base` for the Endpoint. I need to add it.",
            "The test config is missing `secret_key_base` for the Endpoint",
        ),
        ("Need `lazy_html` as a test dependency.", "Need `lazy_html` as a test dependency"),
    ],
    ids=["cant-access", "missing", "need"],
)
def test_a_cause_said_plainly_that_the_tests_confirm_is_a_note(tmp_path, said, title):
    """No cause word ("the issue is"), but a plain statement of what is missing or out of
    reach, and the tests went red to green across it; "add it" names nothing, so no fix."""
    [action] = _actions(tmp_path, _diagnosed(said, RED, GREEN))
    assert action["title"] == title
    assert "Confirmed by a green test run" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        _diagnosed("The test config is missing `secret_key_base`.", RED, RED),  # still red
        # never red, nothing edited
        _diagnosed("The test config is missing `secret_key_base`.", None, GREEN, made=False),
        _diagnosed("I can't access the `priv/repo` folder from here.", RED, GREEN),  # its own
        _diagnosed("Is the test config missing `secret_key_base`?", RED, GREEN),  # a question
        _diagnosed("The endpoint isn't configured for the test env.", RED, GREEN),  # no name
    ],
    ids=["still-red", "never-red", "own-doing", "question", "names-nothing"],
)
def test_a_cause_said_plainly_and_unconfirmed_or_naming_nothing_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    ("said", "title"),
    [
        # held-apart-10 (nomos): the verdict of the check that reproduced CI's condition, its
        # cause said in the turn before; a verification report is no cause
        (
            "**Reproduced CI's exact condition and confirmed the fix.** A depth-1 clone where "
            "`5c66bc7` genuinely doesn't exist — all 17 tests pass.",
            None,
        ),
        # the same verdict after a cause that says why: the cause
        (
            "CI's depth-1 clone doesn't include `5c66bc7`, so `commit_is_ancestor` returns "
            "`None` — all 17 tests pass.",
            "CI's depth-1 clone doesn't include `5c66bc7`, so `commit_is_ancestor` returns "
            "`None` — all 17 tests pass",
        ),
    ],
    ids=["verdict", "cause-then-verdict"],
)
def test_a_diagnosis_that_ends_in_a_checks_verdict_is_no_cause(tmp_path, said, title):
    titles = [a["title"] for a in _actions(tmp_path, _diagnosed(said, RED, GREEN))]
    assert titles == ([title] if title else [])


def _two_causes(first: str, second: str) -> list:
    return [
        ("user", "why does the sync test fail?"),
        ("assistant", first),
        ("user", "yes, that's it"),
        ("assistant", second),
        ("user", "yes, that fixed it"),
    ]


def test_two_causes_naming_the_same_code_thing_are_one_note_the_one_with_a_fix(tmp_path):
    actions = _actions(
        tmp_path,
        _two_causes(
            "The issue is that the `uuid` field is auto-generated for every synced message.",
            "The issue is that the test JSONL has no `uuid` fields. I changed the helper to "
            "write stable uuids.",
        ),
    )
    assert [a["title"] for a in actions] == [
        "The test JSONL has no `uuid` fields: change the helper to write stable uuids"
    ]


def test_two_causes_naming_different_code_things_are_two_notes(tmp_path):
    actions = _actions(
        tmp_path,
        _two_causes(
            "The issue is that the test config is missing `secret_key_base` for the endpoint.",
            "The issue is that `lazy_html` is not in the test dependencies. I added `lazy_html`"
            " to the deps.",
        ),
    )
    assert len(actions) == 2


def test_a_persons_rules_naming_one_code_thing_are_never_merged_as_one_cause(tmp_path):
    actions = _actions(
        tmp_path,
        [
            ("user", "set it up"),
            ("assistant", "Installing with pip."),
            ("user", "Always run `make lock` before committing the requirements."),
            ("assistant", "Editing the lock by hand."),
            ("user", "Never edit the lock file by hand, `make lock` writes it."),
        ],
    )
    assert len(actions) == 2


RED_KEY = "E       KeyError: 'secret_key_base'\n=== 1 failed, 11 passed in 0.40s ==="
RED_LAZY = (
    "E       ModuleNotFoundError: No module named 'lazy_html'\n=== 1 failed, 11 passed in 0.4s ==="
)
MISSING_KEY = "The test config is missing `secret_key_base` for the endpoint."


def _stepwise(*outputs: str) -> list:
    """A cause stated after the first run; then the runs that follow it, in order."""
    return [
        ("user", "make the LiveView tests pass"),
        *_run("t0", outputs[0]),
        ("assistant", MISSING_KEY),
        *[turn for i, out in enumerate(outputs[1:], 1) for turn in _run(f"t{i}", out)],
        ("assistant", "Done."),
    ]


def test_a_cause_the_next_run_gets_past_on_the_way_to_green_is_a_note(tmp_path):
    """One of several causes fixed in turn: the next run fails with another error, a later
    one passes."""
    [action] = _actions(tmp_path, _stepwise(RED_KEY, RED_LAZY, GREEN))
    assert action["title"] == "The test config is missing `secret_key_base` for the endpoint"
    assert "getting past the error" in action["body"]


@pytest.mark.parametrize(
    "outputs",
    [
        (RED_KEY, RED_KEY, GREEN),  # the next run fails the same way: not past it
        (RED_KEY, RED_LAZY, RED_LAZY),  # never green after it
        (RED, RED_LAZY, GREEN),  # the run before it named no error to get past
    ],
    ids=["same-error", "never-green", "no-error-before"],
)
def test_a_cause_the_next_run_does_not_get_past_is_no_note(tmp_path, outputs):
    assert _actions(tmp_path, _stepwise(*outputs)) == []


def test_an_offer_declined_is_no_rule(tmp_path):
    offer = ("assistant", "Done. Want me to also set `gc.auto 0` on your repo now?")
    assert (
        _actions(
            tmp_path,
            [
                ("user", "document it"),
                offer,
                ("user", "no don't set it, let's see if it keeps happening"),
            ],
        )
        == []
    )
    [action] = _actions(
        tmp_path,
        [
            ("user", "document it"),
            offer,
            ("user", "no, don't set `gc.auto` on shared repos, it hides corruption"),
        ],
    )
    assert action["title"].startswith("Don't set `gc.auto` on shared repos")


def test_a_pronoun_rule_that_answers_no_offer_is_still_a_rule(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "clean up"),
            ("assistant", "I reset the staging database to clear the rows."),
            ("user", "never do that again, the staging data belongs to QA"),
        ],
    )
    assert action["learning_type"] == "correction"


def test_a_persons_wish_for_the_task_is_no_rule_a_stated_way_is(tmp_path):
    done = ("assistant", "I added an API key gateway to docker-compose and a placeholder key.")
    wish = ("user", "No, I want to use claude login because I have a subscription")
    assert _actions(tmp_path, [("user", "set up the assistant"), done, wish]) == []
    rule = ("user", "No, use claude login instead of an API key: the team has a subscription")
    [action] = _actions(tmp_path, [("user", "set up the assistant"), done, rule])
    assert "claude login" in action["title"]


def test_a_setting_the_person_points_at_is_no_cause_a_cause_with_its_lesson_is(tmp_path):
    said = ("assistant", "Open the MLflow UI and the Assistant connects to your local CLI.")
    pointed = ("user", "The issue is we are using mlflow in a docker")
    assert _actions(tmp_path, [("user", "set up the assistant"), said, pointed]) == []
    lesson = (
        "user",
        "The issue is we are using mlflow in a docker. The Assistant needs a local server, "
        "run it on the host.",
    )
    [action] = _actions(tmp_path, [("user", "set up the assistant"), said, lesson])
    assert action["title"].startswith("We are using mlflow in a docker: the Assistant needs")


def test_a_verdict_on_a_fix_is_no_note_and_a_fix_keeps_one_lead(tmp_path):
    verdict = ("assistant", "**Bottom line**: The fix is sound. Shadow branches aren't affected.")
    assert _actions(tmp_path, [("user", "review the change"), verdict]) == []
    fix = (
        "assistant",
        "**Bottom line**: the fix is to use `git ls-files` instead of go-git's status.",
    )
    [action] = _actions(tmp_path, [("user", "review the change"), fix])
    # a summary label is no subject (notes/generality): the title is the fix alone
    assert action["title"] == "The fix is to use `git ls-files` instead of go-git's status"


def test_a_fix_the_person_turns_down_for_another_is_no_note(tmp_path):
    nolint = (
        "assistant",
        "The fix is to add `//nolint:staticcheck` comments since `t.Fatal` does terminate.",
    )
    redirect = ("user", "is the fix not to make the local run match CI?")
    assert _actions(tmp_path, [("user", "why is lint failing?"), nolint, redirect]) == []
    correction = ("user", "no, add a `return` after `t.Fatal()` instead of a nolint comment")
    actions = _actions(tmp_path, [("user", "why is lint failing?"), nolint, correction])
    assert [a["learning_type"] for a in actions] == ["correction"]


def test_a_fix_the_person_accepts_or_leaves_alone_is_still_a_note(tmp_path):
    fix = (
        "assistant",
        "The fix is to use `--diff-filter=A` in `GetCheckpointAuthor` instead of walking the tree.",
    )
    for turns in (
        [("user", "why is the author wrong?"), fix],
        [("user", "why is the author wrong?"), fix, ("user", "yes, that works")],
        [("user", "why is the author wrong?"), fix, ("user", "thanks, now update the docs")],
    ):
        [action] = _actions(tmp_path, turns)
        assert action["learning_type"] == "bug-fix"


PLAN = (
    "user",
    "Implement the following plan:\n# Plan: schema protocol\n## Key content points\n"
    "- FullSchema baseline must always reflect the complete current schema\n"
    "- Every `@Entity()` MUST have a `CREATE TABLE` migration, synchronize cannot be relied upon",
)


def test_a_rule_the_person_later_challenges_on_its_name_is_no_note(tmp_path):
    challenge = (
        "user",
        "but the fresh install will always run all the migrations, why would you repeat "
        "creating the table in the full schema if the dedicated migration creates it?",
    )
    actions = _actions(
        tmp_path,
        [PLAN, ("assistant", "I added the table to FullSchema and to its migration."), challenge],
    )
    titles = [a["title"] for a in actions]
    assert not any("FullSchema" in t for t in titles)
    assert any("@Entity()" in t for t in titles), "the rule naming another thing stays"


def test_a_rule_the_person_mentions_later_without_challenging_it_stays(tmp_path):
    later = ("user", "great, the full schema looks right now. push it")
    actions = _actions(tmp_path, [PLAN, ("assistant", "Done, FullSchema updated."), later])
    assert any("FullSchema" in a["title"] for a in actions)


def test_a_rule_the_person_later_rejects_plainly_on_its_name_is_no_note(tmp_path):
    rejected = ("user", "that's wrong, FullSchema is a snapshot baseline and stays as it is")
    actions = _actions(
        tmp_path, [PLAN, ("assistant", "I added the table to FullSchema."), rejected]
    )
    assert not any(a["title"].startswith("FullSchema baseline must") for a in actions)


def test_a_hedged_design_rule_is_titled_without_its_hedge(tmp_path):
    said = ("assistant", "Unknown hook types are dropped by the typed `ClaudeHooks` struct.")
    rule = ("user", "I think we don't want to model the hooks strictly, keep unknown hook types")
    [action] = _actions(tmp_path, [("user", "review the settings code"), said, rule])
    assert action["title"].startswith("We don't want to model the hooks strictly")


DONE_FULLSCHEMA = ("assistant", "I added the `device_approvals` table to FullSchema as table 10.")
CHALLENGE = (
    "user",
    "but the fresh install will always run all the migrations, why would you repeat creating "
    "the table in the full schema if the dedicated migration creates it?",
)


def test_a_challenge_the_assistant_grants_is_a_low_note_titled_by_what_it_grants(tmp_path):
    granted = (
        "assistant",
        "You're right — that's unnecessary duplication. The incremental migration already uses "
        "`CREATE TABLE IF NOT EXISTS` and will always run after FullSchema. Let me revert.",
    )
    [action] = _actions(tmp_path, [("user", "fix the gap"), DONE_FULLSCHEMA, CHALLENGE, granted])
    assert action["title"] == (
        "The incremental migration already uses `CREATE TABLE IF NOT EXISTS` and will always run "
        "after FullSchema"
    )
    assert action["confidence"] == "low"
    assert action["problem"].startswith("Right after the person asked: “but the fresh install")
    assert "Let me revert" not in action["rule"]


@pytest.mark.parametrize(
    "turns",
    [
        # a concession that only promises to look
        [("user", "why is lint failing?"), CHALLENGE, ("assistant", "Good point. Let me check.")],
        # "you're right to be skeptical": no point granted
        [
            ("user", "why is lint failing?"),
            CHALLENGE,
            ("assistant", "You're right to be skeptical. The `StageFiles` helper is dead code."),
        ],
        # granting a request, not a challenge
        [
            ("user", "rename `getUser` to `fetchUser` everywhere"),
            ("assistant", "You're right. The `getUser` name is used in 12 files across the API."),
        ],
        # a hunch granted is still a hunch
        [
            ("user", "fix it"),
            CHALLENGE,
            ("assistant", "Good catch - the `FullSchema` table is probably duplicated there."),
        ],
    ],
    ids=["let-me", "right-to", "request", "hunch"],
)
def test_a_concession_that_grants_nothing_named_or_answers_no_challenge_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


GRANTED = (
    "assistant",
    "You're right — that's unnecessary duplication. The incremental migration already uses "
    "`CREATE TABLE IF NOT EXISTS` and will always run after FullSchema.",
)


def test_a_concession_after_the_assistant_looked_still_answers_the_challenge(tmp_path):
    looked = ("assistant", "Fair question. Let me look at the migration in context.")
    turns = [("user", "fix the gap"), DONE_FULLSCHEMA, CHALLENGE, looked, GRANTED]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The incremental migration already uses")
    assert action["problem"].startswith("Right after the person asked: “but the fresh install")


def test_only_the_first_concession_of_a_turn_answers_the_persons_challenge(tmp_path):
    # the turn granted the person's point already ("Good point. Let me check."); a later
    # concession grants something else the turn met on the way (a reviewer, a tool's finding)
    first = ("assistant", "Good point. Let me check.")
    turns = [("user", "fix the gap"), DONE_FULLSCHEMA, CHALLENGE, first, GRANTED]
    assert _actions(tmp_path, turns) == []


def test_a_concession_is_titled_past_the_assistants_own_doing(tmp_path):
    # "mine" is the assistant's own, as "my" is: what it did, not what holds later
    challenge = ("user", "Why the comment in `.gitignore`? Delete it if it tells a reader nothing.")
    granted = (
        "assistant",
        "You're right — it's noise. The sibling entries carry no comments, and mine explains "
        "what `CLAUDE.md` is, not the ignore rule. A reader of `.gitignore` only needs to know "
        "the path is un-ignored.",
    )
    turns = [
        ("user", "track the symlink"),
        ("assistant", "Added `!CLAUDE.md`."),
        challenge,
        granted,
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == "A reader of `.gitignore` only needs to know the path is un-ignored"


PUSHED = [("user", "push the exporter fix"), ("assistant", "Pushed to `main`.")]


@pytest.mark.parametrize(
    ("reproach", "conceded"),
    [
        (
            "you didnt lint before you pushed, where in the skill did that fail",
            [
                'You\'re right — CLAUDE.md says "ALWAYS run `make format` before commit". '
                "Let me check now."
            ],
        ),
        (
            "doesnt your CLAUDE.md say to format before pushing? why didnt you?",
            [
                "You're right, the CLAUDE.md says:\n"
                "> ALWAYS run `make format` before commit.\n"
                "Let me run it now."
            ],
        ),
    ],
    ids=["quoted-on-its-line", "quoted-on-the-next-line"],
)
def test_an_instruction_file_the_assistant_quotes_when_held_to_it_is_the_rule(
    tmp_path, reproach, conceded
):
    turns = [*PUSHED, ("user", reproach), *[("assistant", c) for c in conceded]]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == "ALWAYS run `make format` before commit"
    assert action["confidence"] == "medium"
    assert note.said_by(action).startswith("project's CLAUDE.md")
    assert note.no_lesson(action) == ""


@pytest.mark.parametrize(
    "conceded",
    [
        # another source than the project's instructions: the docs' words are not its rule
        'You\'re right — the upstream docs say "ALWAYS run the formatter before commit".',
        # the file named, nothing quoted from it
        "You're right, CLAUDE.md says so.",
    ],
    ids=["not-an-instruction-file", "nothing-quoted"],
)
def test_a_concession_citing_no_instruction_files_words_is_no_rule_of_the_project(conceded):
    sig = Signal(0, "low", "concession", "workflow", conceded, speaker="assistant")
    assert rules.cited_rule(conceded, "", "you didnt lint before you pushed", sig) is None


def test_a_reproach_is_a_challenge_for_a_concession_but_no_rule_withdrawn(tmp_path):
    # "you didnt run `make lint`" holds the assistant to the rule: it does not challenge it
    turns = [
        ("user", "always run `make lint` before you push anything to the remote"),
        ("assistant", "Understood. Pushed to `main`."),
        ("user", "you didnt run `make lint` before you pushed"),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert any(t.startswith("Always run `make lint` before you push") for t in titles)


GUESS = (
    "assistant",
    "The go-git fix was probably a misdiagnosis. The actual issue was the branch restriction.\n"
    "Do you know if the other dev was on a feature branch or main?",
)
RESTATED = (
    "assistant",
    'So the "go-git caching bug fix" was a misdiagnosis. The actual issue was:\n'
    "**Developer on `main` branch + `auto-commit` strategy = silent skip**\n"
    "Do you want me to revert the go-git changes?",
)


def test_a_cause_restated_after_the_person_says_that_was_it_is_a_note(tmp_path):
    turns = [("user", "why no auto-commit?"), GUESS, ("user", "yes, that was it"), RESTATED]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == "Developer on `main` branch + `auto-commit` strategy = silent skip"
    assert "yes, that was it" in action["body"]


@pytest.mark.parametrize(
    "reply", ["yes", "ok, go on", "no, it was on a feature branch", "that was it? check again"]
)
def test_a_cause_restated_after_anything_else_is_no_note(tmp_path, reply):
    assert (
        _actions(tmp_path, [("user", "why no auto-commit?"), GUESS, ("user", reply), RESTATED])
        == []
    )


def test_a_granted_point_may_name_what_the_person_raised_instead_of_code(tmp_path):
    guess = ("assistant", "The Stop hook failed reading the index, so the Stop hook corrupts it.")
    said = ("user", "I mean, we _see_ it on the stop hook; it doesn't mean the stop hook caused it")
    granted = (
        "assistant",
        "You're absolutely right. The stop hook is just the first thing that tried to use the "
        "index and saw it was already broken.",
    )
    [action] = _actions(tmp_path, [("user", "why is the index broken?"), guess, said, granted])
    assert action["title"].startswith("The stop hook is just the first thing")
    jargon = ("user", "not sure if checkpoints is a meaningful word. alternatives?")
    quoted = ("assistant", 'Good point - "checkpoints" is internal jargon. Some alternatives:')
    [action] = _actions(tmp_path, [("user", "word the warning"), guess, jargon, quoted])
    assert action["title"] == '"checkpoints" is internal jargon'
    assert action["rule"] == '"checkpoints" is internal jargon.'
    unrelated = ("assistant", "Good point - the build is green on every platform now.")
    assert _actions(tmp_path, [("user", "word the warning"), guess, jargon, unrelated]) == []


FOUND = (
    "assistant",
    "**Found the actual bug!**\nThe hook uses `os.Getwd()`, the agent's working directory, "
    "not the repository root.\nWant me to fix it?",
)


def test_a_bug_announced_then_said_on_the_next_line_is_the_cause_once_confirmed(tmp_path):
    turns = [("user", "why are the api files not committed?"), FOUND, ("user", "yes, that was it")]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The hook uses `os.Getwd()`")
    assert not action["title"].startswith("Found")
    unconfirmed = [("user", "why are the api files not committed?"), FOUND, ("user", "not sure")]
    assert _actions(tmp_path, unconfirmed) == []


# Issue 34, recall: the kinds of lesson all three sets still missed (a cause and its fix in the
# assistant's account of verified work; a confirmation or a fix past the chunk's context).


ACCOUNT = (
    "assistant",
    "Both fixes verified.\n"
    "**Root cause:** `enqueue_report` published the job before the upload committed, so the "
    "worker read a row that did not exist yet.\n"
    "**Fix:** Moved the `publish` call into `confirm_upload`, after the commit.",
)


def test_a_labelled_cause_and_fix_after_edits_and_a_passing_run_is_a_note(tmp_path):
    turns = [("user", "uploads fail, why?"), *_edit("e1"), *_run("t1", GREEN), ACCOUNT]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("`enqueue_report` published the job before the upload")
    assert action["fix"] == "Move the `publish` call into `confirm_upload`, after the commit."
    assert "Confirmed by a passing test run after the session's edits" in action["body"]


PROPOSED = (
    "assistant",
    "**Root cause:** `enqueue_report` published the job before the upload committed.\n"
    "**Fix:** Move the `publish` call into `confirm_upload`. Want me to do it?",
)
UNLABELLED = (
    "assistant",
    "**Root cause:** `enqueue_report` published the job before the upload committed.\n"
    "I moved things around and the suite passes.",
)


@pytest.mark.parametrize(
    "turns",
    [
        # a proposal: nothing edited, nothing run
        [("user", "uploads fail, why?"), PROPOSED],
        # tests passed, but nothing was edited before them
        [("user", "uploads fail, why?"), *_run("t1", GREEN), ACCOUNT],
        # edited, but the last run after the edit is red
        [("user", "uploads fail, why?"), *_edit("e1"), *_run("t1", RED), ACCOUNT],
        # edited after the last run: the run tested something else
        [("user", "uploads fail, why?"), *_run("t1", GREEN), *_edit("e1"), ACCOUNT],
        # a labelled cause with no labelled fix next to it
        [("user", "uploads fail, why?"), *_edit("e1"), *_run("t1", GREEN), UNLABELLED],
    ],
    ids=["proposal", "no-edit", "red-after-edit", "edit-after-run", "no-labelled-fix"],
)
def test_a_labelled_cause_without_verified_edits_or_a_labelled_fix_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


LONG_FIND = (
    "assistant",
    "**Found the actual bug!**\nThe hook uses `os.Getwd()`, the agent's working directory.\n"
    "- file: api/src/github.ts\n- cwd: frontend\n- relative path: ../api/src/github.ts\n"
    "- filtered out\n- never committed\n- silently\n"
    "**The fix for issue #2**: `ToRelativePath` should compute paths from the repository root.\n"
    "Should I implement it?",
)


def test_a_reply_past_the_chunks_context_confirms_and_a_labelled_fix_past_it_is_kept(tmp_path):
    turns = [("user", "why are the api files not committed?"), LONG_FIND, ("user", "yeah, fix it")]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The hook uses `os.Getwd()`")
    assert action["fix"] == ("`ToRelativePath` should compute paths from the repository root.")
    assert "yeah, fix it" in action["body"]


@pytest.mark.parametrize("reply", ["no, the hook runs from the root", "hmm, check the logs"])
def test_a_reply_past_the_context_that_denies_or_does_not_confirm_is_no_note(tmp_path, reply):
    turns = [("user", "why are the api files not committed?"), LONG_FIND, ("user", reply)]
    assert _actions(tmp_path, turns) == []


def test_past_the_context_only_a_fix_named_as_one_is_kept(tmp_path):
    chatter = (
        LONG_FIND[0],
        LONG_FIND[1].replace(
            "**The fix for issue #2**: `ToRelativePath` should compute paths from the repository "
            "root.",
            "I made excellent progress on the epic today.",
        ),
    )
    turns = [("user", "why are the api files not committed?"), chatter, ("user", "yeah, fix it")]
    [action] = _actions(tmp_path, turns)
    assert action["fix"] == "" and "progress" not in action["title"]


READ_CAUSE = (
    "assistant",
    "The generated migration uses `ALTER TABLE ... MODIFY`, which SQLite does not support. "
    "I need to rewrite it as a table copy.",
)


def test_a_cause_caught_by_reading_then_edited_and_passing_is_a_note(tmp_path):
    turns = [("user", "add the column"), READ_CAUSE, *_edit("e1"), *_run("t1", GREEN)]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The generated migration uses `ALTER TABLE ... MODIFY`")
    assert action["fix"] == "Rewrite it as a table copy."
    assert "the assistant's edit right after it" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # the next run after the edit fails
        [("user", "add the column"), READ_CAUSE, *_edit("e1"), *_run("t1", RED)],
        # no test run after the edit
        [("user", "add the column"), READ_CAUSE, *_edit("e1")],
        # a test ran before anything was edited: not acted on first
        [("user", "add the column"), READ_CAUSE, *_run("t0", GREEN), *_edit("e1")],
        # the person spoke before the run
        [("user", "add"), READ_CAUSE, *_edit("e1"), ("user", "wait"), *_run("t1", GREEN)],
        # a failure the test written first expected: no lesson
        [
            ("user", "add the resource"),
            ("assistant", "Expected — the `InvoiceLine` module doesn't exist yet. Let me add it."),
            *_edit("e1"),
            *_run("t1", GREEN),
        ],
    ],
    ids=["red-after", "no-run", "run-first", "person-between", "expected-failure"],
)
def test_a_cause_not_acted_on_and_checked_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


# Issue 34, generalisation: a run confirms the fix that was made, not the one that was said.


SAID_FIX = (
    "assistant",
    "The LiveView runs in a separate process that can't access the test sandbox. "
    "I need to use `:auto` mode.",
)


def test_a_run_confirms_a_cause_whose_named_fix_was_the_edit(tmp_path):
    made = _edit_to("e1", "Sandbox.mode(Repo, :auto)")
    turns = [("user", "add the live test"), *_run("t0", RED), SAID_FIX, *made, *_run("t1", GREEN)]
    [action] = _actions(tmp_path, turns)
    assert action["fix"] == "Use `:auto` mode."
    assert "Confirmed by a green test run" in action["body"]


@pytest.mark.parametrize(
    "made",
    [
        # the edit made another fix than the one named: the run checked that one
        _edit_to("e1", "Sandbox.mode(Repo, {:shared, self()})"),
        # nothing edited at all between the cause and the passing run
        [],
    ],
    ids=["another-fix", "nothing-edited"],
)
def test_a_run_does_not_confirm_a_cause_whose_named_fix_was_not_made(tmp_path, made):
    turns = [("user", "add the live test"), *_run("t0", RED), SAID_FIX, *made, *_run("t1", GREEN)]
    assert _actions(tmp_path, turns) == []


def test_the_named_fix_made_after_the_confirming_run_does_not_count(tmp_path):
    later = _edit_to("e2", "Sandbox.mode(Repo, :auto)")
    other = _edit_to("e1", "Sandbox.mode(Repo, {:shared, self()})")
    turns = [("user", "add it"), *_run("t0", RED), SAID_FIX, *other, *_run("t1", GREEN), *later]
    assert _actions(tmp_path, turns) == []


def test_the_person_confirms_the_fix_that_was_said_whatever_was_edited(tmp_path):
    made = _edit_to("e1", "Sandbox.mode(Repo, {:shared, self()})")
    turns = [("user", "add the live test"), SAID_FIX, *made, ("user", "yes, that was it")]
    [action] = _actions(tmp_path, turns)
    assert action["fix"] == "Use `:auto` mode." and "the person" in action["body"]


@pytest.mark.parametrize(
    ("fix", "done", "expected"),
    [
        ("Use `:auto` mode", "Sandbox.mode(Repo, :auto)", True),
        ("Use `:auto` mode", "Sandbox.mode(Repo, {:shared, self()})\noverflow-x: automatic", False),
        ("Move `publish` into `confirm_upload`", "def confirm_upload():\n    publish(x)", True),
        ("Move `publish` into `confirm_upload`", "def confirm_upload():\n    pass", False),
        ("Use shared sandbox mode", "anything at all", True),  # nothing named in code
    ],
)
def test_fix_was_done_asks_every_named_thing_of_the_fix(fix, done, expected):
    assert session.fix_was_done(fix, done) is expected


# A fact the person points out ("keep in mind that ...") is a rule only when it states one or
# names a thing out of the session.

DESIGN_ASKED = (
    "assistant",
    "**Total: ~165 LOC** (much cleaner!) Does this match what you had in mind?",
)


@pytest.mark.parametrize(
    "reply",
    [
        "great, but keep in mind that new file will be at the same folder as old one",
        "ok, remember that the other one goes first",
        "note that these run in the same tab",
    ],
)
def test_a_fact_pointed_out_about_the_tasks_own_things_is_no_rule(tmp_path, reply):
    turns = [("user", "design the session tracker"), DESIGN_ASKED, ("user", reply)]
    assert [a["title"] for a in _actions(tmp_path, turns)] == []


@pytest.mark.parametrize(
    ("reply", "title"),
    [
        (
            "great, but keep in mind that `make lock` rewrites the lock file",
            "Keep in mind that `make lock` rewrites the lock file",
        ),
        (
            "keep in mind that you must never push to main directly",
            "Keep in mind that you must never push to main directly",
        ),
        (
            "remember that the session files live in ~/.claude/projects",
            "Remember that the session files live in ~/.claude/projects",
        ),
    ],
    ids=["names-a-command", "states-a-rule", "names-a-path"],
)
def test_a_fact_pointed_out_that_names_a_thing_or_states_a_rule_is_kept(tmp_path, reply, title):
    turns = [("user", "design the session tracker"), DESIGN_ASKED, ("user", reply)]
    assert [a["title"] for a in _actions(tmp_path, turns)] == [title]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("Keep in mind that new file will be at the same folder as old one", True),
        ("Remember to run the migrations first", False),  # an instruction
        ("Keep in mind that the `uuid` field is generated", False),
        ("Keep in mind that the cache is per process, not per host", False),  # corrects a belief
        ("Use pnpm in this repo", False),  # no lead at all
    ],
)
def test_pointed_out(rule, expected):
    assert rules.pointed_out(rule) is expected


_OPEN_QUESTIONS = (
    "Open questions before building:\n"
    "- Scope: all nine shells, or the big five first?\n"
    "- Should the harness live in `src/` (same module) or a separate `e2e/` module so its "
    "deps don't touch the main go.mod?\n"
    "- Wait for the replay to land, or start with env-driven segments (don't couple the two)?\n"
    "Give me a go and your answers."
)


def test_a_terse_answer_is_read_with_the_questions_it_answers(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "what are the options for shell end-to-end tests?"),
            ("assistant", _OPEN_QUESTIONS),
            ("user", "big five, separate and don't couple."),
        ],
    )
    assert action["title"].startswith("The big five first; a separate `e2e/` module")
    assert "Asked “Should the harness live in `src/`" in action["rule"]
    assert "the person answered “separate”" in action["rule"]


def test_a_terse_answer_no_alternative_holds_writes_nothing(tmp_path):
    # "don't mock" names no alternative of the questions: its rule is unknown, so nothing
    assert not _actions(
        tmp_path,
        [
            ("user", "what are the options for shell end-to-end tests?"),
            ("assistant", _OPEN_QUESTIONS),
            ("user", "big five, and don't mock."),
        ],
    )


def test_a_full_rule_after_questions_is_not_a_terse_answer(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "what are the options for shell end-to-end tests?"),
            ("assistant", _OPEN_QUESTIONS),
            ("user", "never put test harness dependencies into the main go.mod file"),
        ],
    )
    assert action["title"] == "Never put test harness dependencies into the main go.mod file"


def test_a_fix_under_a_condition_is_not_a_fix(tmp_path):
    # a step of a checklist for what the person may find is not a fix that was made
    assert not causes.made_fix("If it's empty, the fix is moving the count out of it")
    assert not causes.made_fix("Check `jobs`; if it's empty, the fix is moving the count out")
    assert not causes.made_fix("Otherwise the fix would be pinning `zsh` to 5.8")
    assert causes.made_fix("The fix is plain single quotes for yash")
    assert causes.made_fix("Fixed by quoting the path when yash sources it")


def test_a_checklist_step_with_a_conditional_fix_writes_no_fix_note(tmp_path):
    checklist = (
        "Manual checks for you:\n"
        "1. `sleep 30 &` — the job count reaches the segment (if it's empty, the fix is "
        "moving the `jobs` count out of the command substitution)"
    )
    actions = _actions(
        tmp_path,
        [("user", "add yash support"), ("assistant", checklist), ("user", "ok, checking")],
    )
    assert not [a for a in actions if "if it's empty" in a["title"].lower()]


def _why_not(then: list) -> list:
    return [
        ("user", "add tests for the palette templates, and never push to main directly"),
        ("assistant", "Added four tests for the palette templates."),
        ("user", "Why aren't we using table-driven tests for these palette cases?"),
        ("assistant", "No good reason. Folding them into one table."),
        *then,
        ("assistant", "Done."),
    ]


def test_a_why_not_the_assistant_acts_on_and_a_run_passes_is_a_rule(tmp_path):
    actions = _actions(tmp_path, _why_not([*_edit("e1"), *_run("r1", GREEN)]))
    [action] = [a for a in actions if "table-driven" in a["title"]]
    assert action["title"] == "Use table-driven tests for these palette cases"
    assert action["confidence"] == "medium"
    assert "passing test run" in action["body"]


@pytest.mark.parametrize(
    "then",
    [
        [],  # answered in words only: a question, not a rule
        [*_run("r1", GREEN)],  # a run with no edit: nothing was changed for it
        [*_edit("e1"), *_run("r1", RED)],  # changed, but the run after it failed
    ],
)
def test_a_why_not_not_acted_on_and_checked_is_no_rule(tmp_path, then):
    actions = _actions(tmp_path, _why_not(then))
    assert not [a for a in actions if "table-driven" in a["title"]]


def test_why_not_rule_reads_only_the_why_not_form():
    assert rules.why_not_rule("why don't we pin the zsh version in CI?") == (
        "Pin the zsh version in CI"
    )
    assert rules.why_not_rule("why did you remove the lock file?") == ""
    assert rules.why_not_rule("why aren't we done yet?") == ""  # too short to be a rule
    assert rules.why_not_rule("Why aren't we using uv? It is faster.") == ""


def _read(call: str) -> list:
    [use, result] = _edit(call)
    use["message"]["content"][0].update(name="Read", input={"file_path": "app/jobs.py"})
    return [use, result]


def test_a_cause_read_around_then_edited_and_passing_is_a_note(tmp_path):
    # reading the code before the edit is still acting on the cause
    turns = [("user", "add the column"), READ_CAUSE, *_read("r0"), *_edit("e1"), *_run("t1", GREEN)]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The generated migration uses `ALTER TABLE ... MODIFY`")


def test_a_test_run_between_the_reading_and_the_edit_is_not_acting_on_it(tmp_path):
    turns = [
        ("user", "add the column"),
        READ_CAUSE,
        *_read("r0"),
        *_run("t0", GREEN),
        *_edit("e1"),
        *_run("t1", GREEN),
    ]
    assert _actions(tmp_path, turns) == []


def test_a_named_thing_is_touched_by_an_edit_of_the_file_named_for_it():
    done = "frontend/src/lib/build-context-tree.ts\nconst seen = new Set<string>();"
    assert session.fix_was_done("Deduplicate in `buildContextTree` with a `Set`", done)
    assert not session.fix_was_done("Deduplicate in `buildTree` with a `Set`", done)
    assert not session.fix_was_done("Deduplicate in `contextTree`", done)  # part of a name


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("The issue is that the upload handler publishes `ProtocolUploaded` too early.", True),
        ("What if the issue is that the upload handler publishes `ProtocolUploaded` early?", False),
    ],
    ids=["stated", "asked"],
)
def test_a_cause_asked_as_a_question_is_a_guess(tmp_path, said, kept):
    turns = [("user", "the upload hangs"), ("assistant", said), *_edit("e1"), *_run("t1", GREEN)]
    found = [a for a in _actions(tmp_path, turns) if "ProtocolUploaded" in a["title"]]
    assert bool(found) == kept


# Issue 34, the fourth held-apart set: the junk kinds that came back on sessions never seen,
# each read from the session's structure. (A question is read as a rule at all only where a
# dotted name breaks its question form: "... like assistant.safecast.org?")


def _edit_file(call: str, path: str) -> list:
    [use, result] = _edit(call)
    use["message"]["content"][0]["input"].update(file_path=path)
    return [use, result]


FEATURE_ASK = (
    "user",
    "Much better. Can we have always a table with links to the sensors like assistant.safecast.org?",
)


def test_a_question_asking_for_a_feature_of_the_output_is_no_rule(tmp_path):
    turns = [
        ("user", "the answers are poor"),
        ("assistant", "I widened the search radius to 50 km."),
        FEATURE_ASK,
        ("assistant", "Now every time `sensor_current` returns data, the result asks for links."),
        *_edit("e1"),
    ]
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    ("adoption", "kept"),
    [
        ([("assistant", "Understood. From now on I'll always run `ruff check .` first.")], True),
        ([("assistant", "Added to the instructions."), *_edit_file("e1", "repo/CLAUDE.md")], True),
        ([("assistant", "Done, the hook runs it now."), *_edit_file("e1", "repo/hooks.py")], False),
        ([("assistant", "Sure, running it now: `ruff check .` is clean.")], False),
    ],
    ids=["commits-itself", "edits-the-instructions", "builds-it", "does-it-once"],
)
def test_a_question_asking_for_a_way_of_working_the_assistant_adopts_is_a_rule(
    tmp_path, adoption, kept
):
    turns = [
        ("user", "fix the lint errors"),
        ("assistant", "Fixed, and committed."),
        ("user", "Can you always run `ruff check .` before you commit from now on?"),
        *adoption,
    ]
    found = [a for a in _actions(tmp_path, turns) if "ruff check" in a["title"]]
    assert bool(found) == kept


def test_asked_for_reads_only_a_request_in_a_questions_form():
    assert written.asked_for("Can we have always a table with links?")
    assert written.asked_for("could you always run the linter?")
    assert not written.asked_for("Always run the linter before committing")
    assert not written.asked_for("Can we have always a table with links.")  # not asked


def test_a_correction_of_one_action_writes_no_note(tmp_path):
    turns = [
        ("user", "move the two lines to the right section"),
        ("assistant", "I reverted the edits to the search section."),
        (
            "user",
            "I didn't tell you to undo your changes. I told you that the two lines under the "
            "### search section belonged to a different skill.",
        ),
    ]
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    ("said", "report"),
    [
        (
            "nope I don't see it in cursor. ~/Projects $ ln -s ~/src/skills ~/.cursor/plugins/x",
            True,
        ),
        ("it doesn't work:\n$ make deploy\nerror: no target", True),
        ("no, never symlink it, copy it instead: $ cp -r plugins/entire ~/.cursor/plugins/", False),
        (
            "nope I don't see it in cursor, the symlink under plugins is not loaded",
            False,
        ),  # no paste
        ("it costs $ 5 a month, use the free tier instead", False),  # a price, not a prompt
    ],
)
def test_reports_a_try_is_a_pasted_command_with_no_rule(said, report):
    assert rules.reports_a_try(said) == report


def test_a_report_of_a_failed_try_writes_no_note(tmp_path):
    turns = [
        ("user", "how do I test the cursor plugin"),
        ("assistant", "Symlink the plugin folder into ~/.cursor/plugins and restart Cursor."),
        (
            "user",
            "nope I don't see it in cursor. ~/Projects  $ ln -s ~/src/entire-skills/plugins/entire "
            "~/.cursor/plugins/entire\n~/Projects  $ ls ~/.cursor/plugins\nlocal",
        ),
    ]
    assert _actions(tmp_path, turns) == []


POINTED = (
    "assistant",
    "The installer source confirms it: it ignores any `SKILL.md` whose frontmatter does not "
    "include both `name` and `description`. That means the fix is structural rather than "
    "behavioral, so I'm adding explicit skill names to the missing files and then I'll rerun "
    "the exact installer repro.",
)


def test_a_cause_a_lead_points_to_is_the_title_and_root_cause(tmp_path):
    turns = [("user", "lets fix the installer issue"), POINTED]
    [action] = _actions(tmp_path, turns)
    cause = (
        "The installer ignores any `SKILL.md` whose frontmatter does not include both `name` "
        "and `description`"
    )
    assert action["title"] == f"{cause}: add explicit skill names to the missing files"
    assert action["root_cause"] == cause + "."
    assert action["fix"] == "Add explicit skill names to the missing files."


def test_confirmed_statement_needs_a_lead_and_a_named_thing():
    fix = "So the fix is to add `name`."
    assert causes.confirmed_statement(f"The log shows it: `uv` is missing. {fix}", fix) == (
        "`uv` is missing"
    )
    # no lead pointing at evidence, a cause naming nothing, the lead after the fix
    assert causes.confirmed_statement(f"It ignores `SKILL.md`. {fix}", fix) == ""
    assert causes.confirmed_statement(f"The log shows it: it is slow. {fix}", fix) == ""
    assert causes.confirmed_statement(f"{fix} The log shows it: `uv` is missing.", fix) == ""


# Issue 34: a person's rule for the repository given as a plain instruction. Read from its
# structure: a way of working said with a lasting scope (or as a correction of how the
# assistant did it), and the assistant's reply taking it on for later steps.


def _standing(tmp_path: Path, said: str, reply: str) -> list[dict]:
    turns = [
        ("user", "update the deploy docs"),
        ("assistant", "Updated the deploy docs and committed them."),
        ("user", said),
        ("assistant", reply),
    ]
    transcript = transcripts.parse_lines(Path(_session(tmp_path, turns)).read_text().splitlines())
    return conventions.standing_instructions(transcript)


@pytest.mark.parametrize(
    ("said", "reply", "title"),
    [
        (
            "Next time you make changes to the code, let me commit.",
            "Understood! I won't commit the changes for you.",
            "Next time you make changes to the code, let me commit",
        ),
        (
            "That's not what I asked you to do. What I said was run `git add ... && git commit "
            "...` so I'll only have to approve it once.",
            "Understood. I'll use `git add <paths> && git commit` for future commit steps.",
            "What I said was run `git add ... && git commit ...` so I'll only have to approve "
            "it once",
        ),
        (
            "`rg` might not be on every machine. We should default to `grep` instead of `rg`.",
            "I'll use portable `grep -n -F` by default instead of assuming `rg` exists.",
            "We should default to `grep` instead of `rg`",
        ),
    ],
    ids=["next-time", "what-i-said-was", "default-to"],
)
def test_an_instruction_beyond_the_task_the_assistant_takes_on_is_a_rule(
    tmp_path, said, reply, title
):
    [action] = _standing(tmp_path, said, reply)
    assert action["title"] == title
    assert action["confidence"] == "medium"


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        # requests for this task's output: no lasting scope, whatever the reply says
        ("commit and continue", "Committed. I won't push until you say so."),
        ("Add a table with links to the sensors.", "Done; from now on the answer has a table."),
        ("fix the test", "Fixed. I won't touch the fixtures."),
        # a lasting scope the assistant carries out once, and does not take on
        ("Use pnpm instead of npm here, it is always faster for me.", "Running `pnpm i` now."),
        ("fix the test, it always fails for me on CI", "Fixed: the test waits for the server."),
        # a question, a pasted notice, "never mind", a pasted plan
        ("Should we dry-run by default?", "Yes, I'll make it dry-run by default from now on."),
        ("To hide this notice in the future, set NO_NOTICE=1", "I won't show it again."),
        ("never mind, add the column to the table", "Sure, I won't change the schema then."),
        ("Plan: " + "we always keep the API stable. " * 25, "I'll follow it from now on."),
    ],
    ids=[
        "commit-and-continue",
        "add-a-table",
        "fix-the-test",
        "done-once",
        "not-taken-on",
        "a-question",
        "a-pasted-notice",
        "never-mind",
        "a-pasted-plan",
    ],
)
def test_a_request_for_this_task_or_an_instruction_not_taken_on_is_no_rule(tmp_path, said, reply):
    assert _standing(tmp_path, said, reply) == []


def test_an_instruction_taken_on_is_written_by_the_drain(tmp_path):
    turns = [
        ("user", "fix the lint errors"),
        ("assistant", "Fixed, and committed."),
        ("user", "Next time you make changes to the code, let me commit."),
        ("assistant", "Understood! I won't commit the changes for you."),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert "Next time you make changes to the code, let me commit" in titles


def test_an_instruction_beside_a_question_is_read_part_by_part(tmp_path):
    said = "* Next time you make changes to the code, let me commit.\n* does it run on CI?"
    [action] = _standing(tmp_path, said, "Understood! I won't commit the changes for you.")
    assert action["title"] == "Next time you make changes to the code, let me commit"
    assert conventions.stated_parts(said) == [
        "Next time you make changes to the code, let me commit."
    ]


# Issue 34: a person's convention for a kind of thing, said as a plain request, that the
# assistant's work then applies beyond one edit.


@pytest.mark.parametrize(
    ("part", "convention"),
    [
        (
            "add the two gaps as well, use table driven tests where possible",
            ("use table driven tests where possible", "table driven"),
        ),
        (
            "Avoid global variables in the handlers",
            ("Avoid global variables in the handlers", "global"),
        ),
        ("prefer dataclasses", ("prefer dataclasses", "dataclasse")),
        (
            "Design documents go in the /specs folder",
            ("Design documents go in the /specs folder", "design"),
        ),
        # one artefact of this task, a tool, a creation, a singular
        ("use the existing helpers", ("", "")),
        ("fix the tests", ("", "")),
        ("add tests for the parser", ("", "")),
        ("use pnpm", ("", "")),
        ("use this class", ("", "")),
        ("the tests go green now", ("", "")),
    ],
)
def test_convention_is_a_way_of_doing_a_kind_of_thing(part, convention):
    assert conventions.convention(part) == convention


def _delegate(call: str, prompt: str) -> list:
    [use, result] = _edit(call)
    use["message"]["content"][0].update(name="Agent", input={"prompt": prompt})
    return [use, result]


def _edit_text(call: str, path: str, new: str) -> list:
    [use, result] = _edit_file(call, path)
    use["message"]["content"][0]["input"]["new_string"] = new
    return [use, result]


CONVENTION = "add the missing case, use table driven tests where possible"
TWO_TABLES = [
    *_edit_text("e1", "e2e/smoke_test.go", "// table-driven: one row per shell"),
    *_edit_text("e2", "e2e/features_test.go", "// table driven scenarios"),
]


@pytest.mark.parametrize(
    ("said", "work", "kept"),
    [
        (CONVENTION, TWO_TABLES, True),
        (CONVENTION, _delegate("a1", "Refactor the e2e tests to be table-driven."), True),
        # carried out once, not applied, or applied by edits that do not carry it
        (CONVENTION, _edit_text("e1", "e2e/smoke_test.go", "// table-driven"), False),
        (CONVENTION, [("assistant", "I'd rather keep them as they are.")], False),
        (CONVENTION, [*_edit_file("e1", "a.go"), *_edit_file("e2", "b.go")], False),
        # a request for this task's output, and a question
        ("fix the tests, they fail on CI", TWO_TABLES, False),
        ("should we use table driven tests?", TWO_TABLES, False),
    ],
    ids=["two-edits", "delegated", "one-edit", "refused", "not-carried", "task", "question"],
)
def test_a_convention_applied_beyond_one_edit_is_a_rule(tmp_path, said, work, kept):
    turns = [
        ("user", "update the e2e suite"),
        ("assistant", "Updated the e2e suite."),
        ("user", said),
        *work,
        ("assistant", "Done."),
    ]
    transcript = transcripts.parse_lines(Path(_session(tmp_path, turns)).read_text().splitlines())
    found = conventions.standing_instructions(transcript)
    assert [a["title"] for a in found] == (
        ["Use table driven tests where possible"] if kept else []
    )


# Issue 34: a person's guidance the assistant saved to its memory as feedback.

MEMORY = "/Users/me/.claude/projects/-Users-me-skills/memory/feedback_frontmatter.md"


def _memory(kind: str, path: str = MEMORY) -> list:
    content = (
        "---\nname: SKILL.md frontmatter must stay cross-agent compatible\n"
        "description: Shared SKILL.md files are read by every agent. Do not add a field one "
        f"agent needs without checking the others.\ntype: {kind}\n---\n\nWhy: the person said so.\n"
    )
    [use, result] = _edit_file("m1", path)
    use["message"]["content"][0].update(name="Write", input={"file_path": path, "content": content})
    return [use, result]


@pytest.mark.parametrize(
    ("saved", "kept"),
    [
        (_memory("feedback"), True),
        (_memory("project"), False),  # the assistant's own note of the project
        (_memory("feedback", "docs/feedback_frontmatter.md"), False),  # not its memory
        ([], False),
    ],
    ids=["feedback", "project", "not-memory", "not-saved"],
)
def test_guidance_the_assistant_saves_to_its_memory_as_feedback_is_a_rule(tmp_path, saved, kept):
    turns = [
        ("user", "add the name field to each SKILL.md"),
        ("assistant", "Adding `name:` to the three skills."),
        ("user", "the name will cause issues with the other agent"),
        ("assistant", "Good catch. I'll save that constraint."),
        *saved,
    ]
    found = [a for a in _actions(tmp_path, turns) if "cross-agent" in a["title"]]
    assert bool(found) == kept
    if kept:
        assert found[0]["rule"].startswith("Shared SKILL.md files are read by every agent.")
        assert "the name will cause issues with the other agent" in found[0]["body"]


@pytest.mark.parametrize("same_turn", [True, False], ids=["same-turn", "another-turn"])
def test_a_rule_the_assistant_saves_from_a_turn_replaces_the_note_read_from_its_words(
    tmp_path, same_turn
):
    """One turn of the person's, one note: when the assistant writes the turn's guidance into
    its memory, that rule takes the place of the note read from the turn's raw sentence; a
    memory saved after another turn leaves the first turn's note as it was."""
    rule = ("user", "Never add a field to SKILL.md that only one agent understands.")
    later = [("assistant", "Understood."), ("user", "ok, carry on with the skills")]
    turns = [
        ("user", "add the name field to each SKILL.md"),
        ("assistant", "Adding `name:` to the three skills."),
        rule,
        *([] if same_turn else later),
        ("assistant", "Good catch. I'll save that constraint."),
        *_memory("feedback"),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    saved = "SKILL.md frontmatter must stay cross-agent compatible"
    raw = "Never add a field to SKILL.md that only one agent understands"
    # (after another turn the memory's words are a twin of the kept note's: not told twice)
    assert titles == ([saved] if same_turn else [raw])


# Issue 34: a cause acted on and confirmed by something other than a test run: the failing
# command run again with another outcome, or the person's report that it works now.


def _cmd(call: str, command: str, output: str, error: bool = False) -> list:
    [use, result] = _run(call, output)
    use["message"]["content"][0]["input"]["command"] = command
    result["message"]["content"][0]["is_error"] = error
    return [use, result]


MIGRATE_FAILS = _cmd("m0", "make migrate", "Error: near MODIFY: syntax error", error=True)


def _rerun(*after: list) -> list:
    turns: list = [("user", "add the column"), *MIGRATE_FAILS, READ_CAUSE, *_edit("e1")]
    for part in after:
        turns += part
    return turns


def test_a_cause_whose_failing_command_passes_when_run_again_is_a_note(tmp_path):
    turns = _rerun(_cmd("m1", "make migrate", "Applied 1 migration: 0042_add_column"))
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("The generated migration uses `ALTER TABLE ... MODIFY`")
    assert action["fix"] == "Rewrite it as a table copy."
    assert "the failing command run again after the edit: `make migrate`" in action["body"]


DEPLOY_FAILS = ("user", "The deploy fails: the health check gets HTTP 503 after the restart.")


def _reported(reply: str, edit_first: bool = True) -> list:
    edited = _edit("e1") if edit_first else []
    return [
        DEPLOY_FAILS,
        READ_CAUSE,
        *edited,
        ("user", reply),
        *([] if edit_first else _edit("e1")),
    ]


def test_a_cause_the_person_reports_working_after_the_edit_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _reported("OK. Deploy works now!!"))
    assert action["fix"] == "Rewrite it as a table copy."
    assert (
        "a success the person reported after the edit: “OK. Deploy works now!!”" in action["body"]
    )


@pytest.mark.parametrize(
    "turns",
    [
        # the command run again still fails
        _rerun(_cmd("m1", "make migrate", "Error: table copy failed", error=True)),
        # another command passing after the edit is no rerun of the failing one
        _rerun(_cmd("m1", "make lint", "All checks passed")),
        # the command passed before the edit, and was not run again after it
        [
            ("user", "add the column"),
            *MIGRATE_FAILS,
            READ_CAUSE,
            *_cmd("m1", "make migrate", "Applied 1 migration"),
            *_edit("e1"),
        ],
        # "works now" about something else
        _reported("The login page works now."),
        # the person's thanks with a new complaint
        _reported("Thanks, deploy works now. But the tables are gone?"),
        _reported("Deploy works now, still slow though"),
        # a success reported before the edit
        _reported("Deploy works now.", edit_first=False),
        # nothing edited at all
        [DEPLOY_FAILS, READ_CAUSE, ("user", "Deploy works now.")],
    ],
    ids=[
        "rerun-still-fails",
        "another-command",
        "success-before-edit",
        "works-about-something-else",
        "thanks-with-complaint",
        "still",
        "reported-before-edit",
        "no-edit",
    ],
)
def test_a_cause_not_confirmed_by_a_rerun_or_the_person_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("OK. Deploy works now!!", True),
        ("works now", True),
        ("Great, the health check passes now.", True),
        ("The login page works now.", False),  # names a thing the failure did not
        (
            "Tables are good now. Bu seems Mistral still does not get the realtime data first?",
            False,
        ),
        ("Deploy works now, but slowly", False),
        ("Why does the deploy work now?", False),
        ("Deploy is slow", False),  # no success word
        ("Deploy works now. " + "Thanks a lot for all the help today, really " * 2, False),  # long
    ],
)
def test_reports_success_reads_a_short_report_about_what_failed(reply, expected):
    failed = "The deploy fails: the health check gets HTTP 503 after the restart."
    assert confirmation.reports_success(reply, failed) is expected


LIVE_FAILS = ("user", "The live test fails with a sandbox ownership error.")


def test_a_success_the_person_reports_confirms_the_fix_that_was_made(tmp_path):
    made = _edit_to("e1", "Sandbox.mode(Repo, :auto)")
    [action] = _actions(tmp_path, [LIVE_FAILS, SAID_FIX, *made, ("user", "live test works now")])
    assert action["fix"] == "Use `:auto` mode."


def test_a_success_the_person_reports_after_another_fix_confirms_nothing(tmp_path):
    made = _edit_to("e1", "Sandbox.mode(Repo, {:shared, self()})")
    assert _actions(tmp_path, [LIVE_FAILS, SAID_FIX, *made, ("user", "live test works now")]) == []


@pytest.mark.parametrize(
    "said",
    [
        "**Bottom line:** Legit in principle (`select` picks at random among ready cases), but "
        "barely reachable here — and the fix is trivial.",
        "**Bottom line: real mechanism, overstated severity.** I'd fix it anyway because the fix "
        "is small and the current `first-wins` order is arbitrary about which result it keeps.",
    ],
)
def test_a_verdict_on_a_fixs_size_is_no_fix(tmp_path, said):
    """The assistant's assessment of a review finding: "the fix is trivial" names no fix."""
    assert _actions(tmp_path, [("user", "is the bot's finding real?"), ("assistant", said)]) == []


def test_a_fix_said_is_still_a_fix(tmp_path):
    said = "**Result channel**: the fix is to read `resultCh` without blocking in both branches."
    [action] = _actions(tmp_path, [("user", "is the bot's finding real?"), ("assistant", said)])
    assert "read `resultCh` without blocking in both branches" in action["fix"]
    # a size said before the fix itself
    assert causes.made_fix("the fix is simple: read `resultCh` without blocking")
    assert causes.made_fix("the fix is `select` with a default case")
    assert not causes.made_fix("the fix is trivial.")
    assert not causes.made_fix("I'd fix it anyway because the fix is small and cheap.")


# A review remark the person hard-wrapped over lines: each line is read alone, and a line that
# goes on from the one before it (or whose rule word is only in what it quotes) is no rule.
WRAPPED = (
    '- The stated reason is an unbacked assertion. README.md:203 says "CLIs almost never need '
    "code flow.\" That's an opinion, not a documented analysis. It happens to be defensible (the\n"
    "headless/SSH portability argument from before is real), but your colleague never wrote "
    "that argument down."
)


def test_a_piece_of_a_wrapped_remark_or_a_quoted_never_is_no_rule(tmp_path):
    turns = [
        ("user", "review the README's auth section"),
        ("assistant", "Here is the section with the device flow as the only flow."),
        ("user", WRAPPED),
    ]
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    "said, title",
    [
        # the line before ends its sentence: a new line, though it opens in lower case
        (
            "The stated reason is an unbacked assertion.\n"
            "never state a reason in the README that nobody wrote down",
            "Never state a reason in the README that nobody wrote down",
        ),
        # an unpunctuated line before it: the person ends no sentences, so none was left open
        (
            "thanks for the review\nnever state a reason in the README that nobody wrote down",
            "Never state a reason in the README that nobody wrote down",
        ),
        # a list's next item
        (
            "- The stated reason is an unbacked assertion. Nobody wrote it down\n"
            "- never state a reason in the README that nobody wrote down",
            "Never state a reason in the README that nobody wrote down",
        ),
        # a rule word outside the quotes
        (
            'The README says "CLIs need code flow". Never state reasons nobody wrote down.',
            "Never state reasons nobody wrote down",
        ),
    ],
)
def test_a_rule_on_its_own_line_or_beside_a_quote_is_still_a_rule(tmp_path, said, title):
    turns = [
        ("user", "review the README's auth section"),
        ("assistant", "Here is the section with the device flow as the only flow."),
        ("user", said),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == title


# Issue 34: a rule the assistant writes into a file of standing instructions the person named.

RELEASING = (
    "## Unreleased\n\n"
    "## Releasing\n\n"
    "Every user-visible change **must** land with a `CHANGELOG.md` entry in the same PR.\n"
    "Bullets under Unreleased describe what changed since the last tag.\n\n"
    "You must tag a release like this:\n\n"
    "```sh\ngit tag -a vX.Y.Z -m 'never mind this'\n```\n"
)


def _written(call: str, path: str, new: str, old: str = "") -> list:
    [use, result] = _edit_file(call, path)
    use["message"]["content"][0]["input"].update(old_string=old, new_string=new)
    return [use, result]


def _guidance(tmp_path: Path, turns: list) -> list[dict]:
    transcript = transcripts.parse_lines(Path(_session(tmp_path, turns)).read_text().splitlines())
    return written.written_guidance(transcript)


ASK_CLAUDE_MD = ("user", "We missed the changelog. Add this to the CLAUDE.md so we don't miss it.")


def test_a_rule_written_into_the_instruction_file_the_person_named_is_a_note(tmp_path):
    turns = [
        ("user", "tag the release"),
        ("assistant", "Tagging v0.3.4."),
        ASK_CLAUDE_MD,
        *_written("w1", "/repo/CLAUDE.md", "# Project notes\n\n" + RELEASING, "# Project notes\n"),
        ("assistant", "Added a Releasing section to CLAUDE.md."),
    ]
    [action] = _guidance(tmp_path, turns)
    title = "Every user-visible change must land with a `CHANGELOG.md` entry in the same PR"
    assert action["title"] == title
    # the one sentence with a rule word; one ending in a colon introduces the code left out
    assert action["rule"] == title + "."
    assert action["confidence"] == "medium"
    # the body quotes the written prose: the tagging sentence too, the code block left out
    assert "Written into CLAUDE.md: “Every user-visible change" in action["body"]
    assert "since the last tag" in action["body"]
    assert "git tag" not in action["body"]
    assert "Add this to the CLAUDE.md" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # a one-off request naming the file: what is written only describes, it states no rule
        [
            ("user", "document the new build target in CLAUDE.md"),
            *_written("w1", "/repo/CLAUDE.md", "## Build\n\n`make build` builds the binary."),
        ],
        # the assistant edits the instruction file unasked
        [
            ("user", "fix the flaky release test"),
            *_written("w1", "/repo/CLAUDE.md", RELEASING),
        ],
        # a request for the file itself: the file is the task's output
        [
            ("user", "create a CLAUDE.md for this repo"),
            *_written("w1", "/repo/CLAUDE.md", RELEASING),
        ],
        # the person named the file, the assistant wrote another one
        [ASK_CLAUDE_MD, *_written("w1", "/repo/README.md", RELEASING)],
        # a file the person named that is no file of standing instructions
        [
            ("user", "add this to the README so we don't miss it"),
            *_written("w1", "/repo/README.md", RELEASING),
        ],
        # written after the person spoke again, about something else
        [
            ASK_CLAUDE_MD,
            ("user", "actually, not now"),
            *_written("w1", "/repo/CLAUDE.md", RELEASING),
        ],
        # text already there (the edit's old text) is not what was written now
        [ASK_CLAUDE_MD, *_written("w1", "/repo/CLAUDE.md", RELEASING + "\nSee above.", RELEASING)],
    ],
    ids=["describes", "unasked", "create", "other-file", "readme", "later", "already-there"],
)
def test_no_rule_is_read_from_an_instruction_file_edit_the_person_did_not_ask_for(tmp_path, turns):
    assert _guidance(tmp_path, turns) == []


@pytest.mark.parametrize(
    ("asked", "kept"),
    [
        # the file brought in line with another source: the assistant copies its lines
        ("make sure your CLAUDE.md is consistent workflow wise with ../punt-kit/", False),
        # the person names the rule's matter
        ("We missed the changelog. Add this to the CLAUDE.md so we don't miss it.", True),
        # "this" with nothing of its own points back at what was said before
        ("Can you add this to CLAUDE.md?", True),
    ],
    ids=["other-source", "names-it", "points-back"],
)
def test_a_written_rule_is_the_persons_only_when_the_person_asked_for_it(tmp_path, asked, kept):
    """Held-apart-14: "All must pass with zero violations", copied into CLAUDE.md from another
    project's file at a request to make the file consistent with it, is no rule the person
    gave; through ``write()``, the person's earlier rule a signal so the session is read."""
    turns = [
        ("user", "tag the release"),
        ("assistant", "Tagged v0.3.4 and pushed it with --force."),
        ("user", "Never force-push to main, ever"),
        ("assistant", "Understood."),
        ("user", asked),
        *_written("w1", "/repo/CLAUDE.md", "# Project notes\n\n" + RELEASING, "# Project notes\n"),
        ("assistant", "Updated CLAUDE.md."),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert any("force-push" in t for t in titles)
    assert any("`CHANGELOG.md` entry" in t for t in titles) == kept


def test_a_written_rule_that_restates_a_kept_note_by_its_code_is_not_a_second_note(tmp_path):
    root = "Always resolve file lists against the checkout's top level: `os.Getwd()` breaks them."
    turns = [
        ("user", "no, don't use `os.Getwd()` for git paths, use the repo root instead"),
        ("assistant", "Switching to the repo root."),
        ("user", "Can you add this to CLAUDE.md?"),
        *_written("w1", "/repo/CLAUDE.md", f"## Paths\n\n{root}\n"),
        ("assistant", "Added."),
    ]
    assert [a["title"] for a in _guidance(tmp_path, turns)] == [root.rstrip(".")]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert len(titles) == 1 and "os.Getwd()" in titles[0] and titles[0] != root.rstrip(".")


def test_a_memory_whose_type_is_nested_under_metadata_is_feedback_too(tmp_path):
    content = (
        "---\nname: vale-scope-agent-docs-only\ndescription: Vale lints agent instruction files "
        "only; never run it on website docs\nmetadata:\n  type: feedback\n---\n\nWhy: asked.\n"
    )
    project = content.replace("type: feedback", "type: project")
    found = []
    for body in (content, project):
        [use, result] = _edit_file("m1", MEMORY)
        use["message"]["content"][0].update(
            name="Write", input={"file_path": MEMORY, "content": body}
        )
        turns = [("user", "why are you still using vale?"), ("assistant", "Noting it."), use]
        found.append([a["title"] for a in _guidance(tmp_path, [*turns, result])])
    # a name that is a file's slug gives way to the description as the title
    assert found == [["Vale lints agent instruction files only; never run it on website docs"], []]


@pytest.mark.parametrize(
    ("said", "named"),
    [
        ("can we add this to the README as well as the CLAUDE.md so we don't miss it?", True),
        ("Can you add this to CLAUDE.md?", True),
        ("note it in claude.md.", True),
        ("write it into /repo/CLAUDE.md please", True),
        ("create a CLAUDE.md for this repo", False),  # the file itself is the task
        ("generate the project CLAUDE.md", False),
        ("read the CLAUDE.md.bak", False),
        ("add this to the notes", False),
    ],
)
def test_the_person_names_the_instruction_file_as_where_to_put_it(said, named):
    assert written._names_file(said, "/repo/CLAUDE.md") is named


# Codex writes an instruction file with `apply_patch`: a custom tool call whose input is the
# patch itself, answered by a JSON output (the shape of its real rollouts).


def _codex_session(tmp_path: Path, said: str, patch: str) -> str:
    def item(payload: dict) -> str:
        return json.dumps({"timestamp": "2026-05-11T08:41:53.855Z", "type": "response_item",
                           "payload": payload})  # fmt: skip

    def message(role: str, text: str) -> str:
        kind = "input_text" if role == "user" else "output_text"
        return item({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})

    done = {"output": "Success. Updated the following files:\nM AGENTS.md\n",
            "metadata": {"exit_code": 0, "duration_seconds": 0.1}}  # fmt: skip
    lines = [
        json.dumps({"timestamp": "2026-05-11T08:26:55Z", "type": "session_meta",
                    "payload": {"id": "rollout-1", "cwd": "/repo", "cli_version": "0.125.0"}}),
        message("user", "wire the release script"),
        message("assistant", "Wired; the release runs `npm run release`."),
        message("user", said),
        item({"type": "custom_tool_call", "status": "completed", "call_id": "call_1",
              "name": "apply_patch", "input": patch}),
        item({"type": "custom_tool_call_output", "call_id": "call_1",
              "output": json.dumps(done)}),
        message("assistant", "Updated AGENTS.md."),
    ]  # fmt: skip
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


ASK_AGENTS_MD = "CI went red on lint again. Put it in AGENTS.md so it doesn't happen next time."
LINT_PATCH = (
    "*** Begin Patch\n*** Update File: AGENTS.md\n@@ ## Testing\n"
    " Run `npm test` for the unit tests.\n"
    "-Lint is optional.\n"
    "+Always run `npm run lint` before you commit. CI rejects lint errors.\n"
    "+\n"
    "+```sh\n+npm run lint -- --fix\n+```\n"
    "*** End Patch\n"
)


def test_a_rule_codex_patches_into_agents_md_at_the_persons_word_is_a_note(tmp_path):
    path = _codex_session(tmp_path, ASK_AGENTS_MD, LINT_PATCH)
    transcript = transcripts.parse_lines(Path(path).read_text().splitlines())
    [action] = written.written_guidance(transcript)
    # the patch's added lines are the written text: not its context line, nor the removed one
    assert action["title"] == "Always run `npm run lint` before you commit"
    assert action["rule"] == "Always run `npm run lint` before you commit."
    assert "Written into AGENTS.md: “Always run `npm run lint`" in action["body"]
    for left_out in ("npm test", "optional", "--fix"):
        assert left_out not in action["body"]
    assert "Put it in AGENTS.md" in action["body"]
    # and the writer's answer for the session holds it
    assert action["title"] in [
        a["title"] for a in heuristic.write(cascade.prepare(path))["actions"]
    ]


@pytest.mark.parametrize(
    ("said", "patch"),
    [
        # the patch adds only a description of the project (a layout, a command list)
        (
            ASK_AGENTS_MD,
            "*** Begin Patch\n*** Update File: AGENTS.md\n@@\n+## Layout\n+\n"
            "+The CLI lives in `cmd/`, the library in `pkg/`.\n+`npm run lint` lints the code.\n"
            "*** End Patch\n",
        ),
        # the rule sentence is only context of the patch: already there, not written now
        (
            ASK_AGENTS_MD,
            "*** Begin Patch\n*** Update File: AGENTS.md\n@@\n"
            " Always run `npm run lint` before you commit. CI rejects lint errors.\n"
            "+See the README for the release steps.\n*** End Patch\n",
        ),
        # the person did not name the file: Codex patched it unasked
        ("fix the lint errors", LINT_PATCH),
    ],
    ids=["describes", "context-only", "unasked"],
)
def test_no_rule_is_read_from_a_codex_patch_of_agents_md_that_writes_none(tmp_path, said, patch):
    path = _codex_session(tmp_path, said, patch)
    transcript = transcripts.parse_lines(Path(path).read_text().splitlines())
    assert written.written_guidance(transcript) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("src/app.py:40 must never call the network", False),  # a line of this turn's output
        ("The app module must never call the network", True),
        ("I never asked you to delete the fixtures in this folder", False),  # a recount
        ("Never delete fixtures you did not create", True),
        # where a thing is now, with nothing to do about it; then with a directive clause
        (
            "The fixture file lives at `tests/data/net.json` and the loader will never load it",
            False,
        ),
        ("The fixture file lives at `tests/data/net.json`: never load it from app code", True),
        # a directive bound only to a pronoun nothing names; then with its party named
        ("The only thing it must never do is call the network from the fixtures", False),
        ("The app module must never call the network from the fixtures", True),
    ],
)
def test_a_remark_on_this_turn_is_no_rule_a_rule_for_later_is(tmp_path, said, kept):
    turns = [
        ("user", "tidy the test suite"),
        ("assistant", "I removed the old fixtures and moved the network call into app.py."),
        ("user", said),
    ]
    found = _actions(tmp_path, turns)
    assert bool(found) == kept
    assert all(note.no_lesson(a) == "" for a in found)


@pytest.mark.parametrize(
    ("cause", "kept"),
    [
        ("The root cause: the loader reads the host's `~/.gitconfig` at init time.", True),
        # what failed, listed under the cause's label: no why
        ("The root cause: failing modules: `core`, `cli/run`, and `plugins/git`.", False),
    ],
)
def test_the_assistants_account_of_its_work_is_no_cause(tmp_path, cause, kept):
    turns = [
        ("user", "the config tests fail on CI"),
        ("assistant", cause),
        ("user", "yes, that was it"),
    ]
    found = [a for a in _actions(tmp_path, turns) if a["learning_type"] == "bug-fix"]
    assert bool(found) == kept


def _pasted_spec(rule: str) -> str:
    section = "The pipeline grades every skill and writes a report. " * 25
    return "".join(f"## Stage {n}\n\n- {rule}\n\n{section}\n\n" for n in range(4))


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        # a specification pasted for the agent to build: its rules are the system's, not the team's
        (
            "can you build this? " + _pasted_spec("Never modify scripts; flag them for review."),
            False,
        ),
        # the person's own words before the paste still count
        (
            "Never push to main, open a PR instead. Now build this:\n"
            + _pasted_spec("Grade each skill from A to F."),
            True,
        ),
    ],
)
def test_a_pasted_document_is_no_rule_of_the_persons(tmp_path, said, kept):
    turns = [
        ("user", "let's start the skill fixer"),
        ("assistant", "Ready. What should it do?"),
        ("user", said),
    ]
    found = [a for a in _actions(tmp_path, turns) if a["learning_type"] == "correction"]
    assert bool(found) == kept
    assert all("modify scripts" not in a["title"] for a in found)


@pytest.mark.parametrize(
    ("said", "title"),
    [
        # a short skill document pasted after the person's question: no rule of theirs
        (
            "can we say that no auth is needed? # Skill: Implement Auth\n\n## Requirements\n\n"
            "- Serve `/auth.md` from the root.\n\n## Notes\n\n"
            "Do not probe `POST /agent/auth` during passive scans.",
            None,
        ),
        # a copied registry form and the validator's messages on it
        (
            "the registry says:\nREGISTER_AGENT\nAGENT_URI\nhttps://x.test/agent.json\n"
            "Must end with /.well-known/agent.json\nERROR\n"
            "Failed to fetch agent card: Agent card validation failed: "
            "Field 'capabilities' must be an object.",
            None,
        ),
        # the person's own rule that quotes the error is still theirs
        (
            "when you see `Agent card validation failed: Field 'capabilities': ...`, "
            "never publish the card by hand; regenerate it with make card",
            "never publish the card by hand",
        ),
    ],
)
def test_what_the_person_pastes_is_no_rule_of_theirs(tmp_path, said, title):
    turns = [
        ("user", "publish the agent card"),
        ("assistant", "Published it at /.well-known/agent.json."),
        ("user", said),
    ]
    found = [a["title"] for a in _actions(tmp_path, turns) if a["learning_type"] == "correction"]
    if title is None:
        assert found == []
    else:
        [kept] = found
        assert title in kept


@pytest.mark.parametrize(
    ("reply", "title"),
    [
        # a modal prohibition is a directive however short ("should not" as "don't")
        ("We should not hardcode timeouts", "We should not hardcode timeouts"),
        # a standard stated of every thing of a kind, the words that lead up to it left out
        (
            "oh, before I forget: Code standard: every new module needs to have a docstring "
            "naming its owner.",
            "Every new module needs to have a docstring naming its owner",
        ),
        # what the assistant needs to do, with its reason
        (
            "youll need to be on the vpn so the staging calls go through",
            "Youll need to be on the vpn so the staging calls go through",
        ),
    ],
)
def test_a_modal_directive_is_a_persons_rule(tmp_path, reply, title):
    [action] = _actions(
        tmp_path,
        [
            ("user", "add the exporter module"),
            ("assistant", "Added exporter.py with the CSV writer."),
            ("user", reply),
        ],
    )
    assert action["title"] == title and action["confidence"] == "medium"
    assert action["learning_type"] == "correction"
    assert action["rule"] == title + ".", "one period, whether or not the person ended with one"


@pytest.mark.parametrize(
    "reply",
    [
        "we need to fix the login bug next",  # this task's next step
        "if you need to restart the server, do it",  # a hypothesis
        "do we need to add a docstring to every module?",  # a question
        "No, don't worry, that's fine.",  # reassurance
    ],
)
def test_need_to_as_a_step_a_hypothesis_a_question_or_reassurance_is_no_note(tmp_path, reply):
    turns = [
        ("user", "add the exporter module"),
        ("assistant", "Added exporter.py with the CSV writer."),
        ("user", reply),
    ]
    assert _actions(tmp_path, turns) == []


# Issue 34: the person keeping the edit ("commit the changes", "ok make a pr") confirms a cause
# the assistant stated in words, as "that worked" does; and a cause announced on its line
# ("Found it! X", "I found the issue - X", "Found it: X") is what follows the announcement.


def test_a_cause_the_person_keeps_the_edit_of_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _reported("commit the changes"))
    assert action["title"].startswith("The generated migration uses `ALTER TABLE ... MODIFY`")
    assert action["fix"] == "Rewrite it as a table copy."
    assert (
        "a request of the person's to keep the edit, next: “commit the changes”" in action["body"]
    )


@pytest.mark.parametrize(
    "turns",
    [
        # asked before anything was edited: a go-ahead, not a fix that held
        _reported("commit the changes", edit_first=False),
        # nothing edited at all
        [DEPLOY_FAILS, READ_CAUSE, ("user", "ok make a pr")],
        # a complaint with it
        _reported("commit, but the health check still fails?"),
        # a new task that opens with a commit
        _reported(
            "commit this and then add a retry to the deploy script, a health check on the "
            "worker, and a dashboard for the queue"
        ),
        # the person's next turn is something else; a later "commit" keeps later work
        [*_reported("why MODIFY?"), ("assistant", "SQLite has no MODIFY."), ("user", "commit")],
    ],
    ids=["before-edit", "no-edit", "complaint", "long-brief", "not-the-next-turn"],
)
def test_a_request_to_keep_work_that_confirms_nothing_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("commit the changes", True),
        ("commit and push", True),
        ("ok make a pr", True),
        ("Great, open a PR", True),
        ("push it", True),
        ("that worked. commit, push, and open a pr", False),  # a success report: its own reading
        ("commit, but the tables are gone?", False),
        ("don't commit yet", False),
        ("can you commit?", False),
        ("the commit message is wrong", False),
        ("commit " + "and then write the docs for every module " * 2, False),  # long: a brief
    ],
)
def test_ships_reads_a_short_request_to_keep_the_work(reply, expected):
    assert confirmation.ships(reply) is expected


def test_only_a_cause_stated_in_words_is_confirmed_by_the_person_keeping_the_edit(tmp_path):
    prepared = cascade.prepare(_session(tmp_path, _reported("commit the changes")))
    transcript = prepared.transcript
    assert transcript is not None
    said = next(t.record for t in transcript.turns if "MODIFY" in t.text)
    # the structural readers' confirmation leaves the request out; the stated cause's reads it
    assert confirmation.confirmed_otherwise(transcript)(said) is None
    how = confirmation.confirmed_otherwise(transcript, shipped=True)(said)
    assert how is not None and how.kind is confirmation.Confirmed.AFTER
    assert how.text.startswith("a request of the person's to keep the edit")


SYMLINK = (
    "Found it! The venv's `python3` symlink points to `/root/parts/app/install/usr/bin/python3`, "
    "a build-time path. Let me check the rockcraft.yaml to fix this:"
)


def _found(said: str, reply: str = "commit the changes") -> list:
    return [
        ("user", "The service fails to start in the container."),
        ("assistant", said),
        *_edit_to("e1", "PYTHONPATH=/opt/lib python3 -m app", old="/opt/venv/bin/python3 -m app"),
        (
            "assistant",
            "I switched the service to the system `python3` with the dependencies on `PYTHONPATH`.",
        ),
        ("user", reply),
    ]


@pytest.mark.parametrize(
    ("said", "cause"),
    [
        (
            SYMLINK,
            "The venv's `python3` symlink points to `/root/parts/app/install/usr/bin/python3`",
        ),
        (
            "Perfect! I found the issue - the venv's `python3` symlink points to a build-time path.",
            "The venv's `python3` symlink points to a build-time path",
        ),
        (
            "Found it: the venv's `python3` symlink points to a build-time path.",
            "The venv's `python3` symlink points to a build-time path",
        ),
    ],
    ids=["found-it-then-cause", "found-the-issue-dash", "found-it-colon"],
)
def test_a_cause_announced_on_its_line_and_confirmed_is_what_follows(tmp_path, said, cause):
    [action] = _actions(tmp_path, _found(said))
    assert action["title"].startswith(cause)
    assert action["learning_type"] == "bug-fix"


@pytest.mark.parametrize(
    "turns",
    [
        # a pointer to what follows, not the cause
        _found("Found it! Look at `ToRelativePath`:"),
        _found("Found it! See `start.sh` in the image, it runs the service."),
        _found("Found it. Line 62 of `hooks.go` is the smoking gun:"),
        # an intent after the announcement
        _found("Found it! Let me check the `rockcraft.yaml` to fix this."),
        # announced and stated, but nobody confirmed it (the person turns to something else)
        _found(SYMLINK, reply="what about the README?"),
    ],
    ids=["pointer", "pointer-see", "lead-in", "intent", "unconfirmed"],
)
def test_an_announcement_without_a_confirmed_cause_after_it_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


# Issue 34 (recall): a cause the assistant states in the account that closes a stretch of
# edits ("Found the issue. X" after the edit, nothing edited after it) is confirmed by the
# person's next turn keeping those edits ("commit and push", "pushed"), the fix checked
# against the edits before it; a diagnosis line of the account (a caveat, a next step) is not.

CLOSING_CAUSE = (
    "Perfect! I found the issue. The generated migration uses `ALTER TABLE ... MODIFY`, which "
    "SQLite does not support. I changed the migration to a table copy."
)


def _closing(said: str, reply: str, edit_first: bool = True) -> list:
    edited = _edit_to("e1", "CREATE TABLE new_jobs AS SELECT * FROM jobs", old="MODIFY")
    return [
        DEPLOY_FAILS,
        *(edited if edit_first else []),
        ("assistant", said),
        ("user", reply),
    ]


@pytest.mark.parametrize("reply", ["pushed", "commit and push", "I committed and pushed!!"])
def test_a_cause_stated_after_its_edits_and_kept_by_the_person_is_a_note(tmp_path, reply):
    [action] = _actions(tmp_path, _closing(CLOSING_CAUSE, reply))
    assert action["title"].startswith("The generated migration uses `ALTER TABLE ... MODIFY`")
    assert action["fix"] == "Change the migration to a table copy."
    assert f"{confirmation.CLOSING}: “{reply}”" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # nothing edited before it: a diagnosis, and the person's go-ahead keeps no fix
        _closing(CLOSING_CAUSE, "commit and push", edit_first=False),
        # the person's next turn is something else
        _closing(CLOSING_CAUSE, "why MODIFY?"),
        # a complaint with it
        _closing(CLOSING_CAUSE, "pushed, but the health check still fails"),
        # a caveat of the account, not a line that names itself the cause
        _closing(
            "Alternative: if the `jobs_archive` table doesn't exist, the copy won't error.",
            "pushed",
        ),
        # the fix the account names is not what the edits did
        _closing(
            "Found the issue. The generated migration uses `ALTER TABLE ... MODIFY`, which "
            "SQLite does not support. I changed `schema_version` to 3.",
            "pushed",
        ),
    ],
    ids=["no-edit-before", "not-kept", "complaint", "caveat", "another-fix"],
)
def test_a_closing_account_the_person_does_not_keep_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


def test_only_a_cause_stated_in_words_is_confirmed_by_keeping_the_edits_it_closes(tmp_path):
    prepared = cascade.prepare(_session(tmp_path, _closing(CLOSING_CAUSE, "pushed")))
    transcript = prepared.transcript
    assert transcript is not None
    said = next(t.record for t in transcript.turns if "MODIFY" in t.text)
    assert confirmation.confirmed_otherwise(transcript)(said) is None
    how = confirmation.confirmed_otherwise(transcript, shipped=True)(said)
    assert how is not None and how.kind is confirmation.Confirmed.CLOSING
    assert how.text.startswith(confirmation.CLOSING)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("pushed", True),
        ("I committed and pushed!!", True),
        ("merged it", True),
        ("ok, I've pushed", True),
        ("pushed?", False),
        ("I pushed the wrong branch", False),
        ("pushed, but CI still fails", False),
        ("I pushed " + "the docs and then rewrote every module " * 2, False),
        ("the pushed commit has no tests", False),
    ],
)
def test_ships_reads_the_persons_report_of_having_kept_the_work(reply, expected):
    assert confirmation.ships(reply) is expected


def test_the_fix_a_closing_account_names_is_checked_against_the_edits_before_it(tmp_path):
    said = (
        "Found the issue. The generated migration uses `ALTER TABLE ... MODIFY`, which SQLite "
        "does not support. I replaced it with `CREATE TABLE new_jobs`."
    )
    [action] = _actions(tmp_path, _closing(said, "pushed"))
    assert action["fix"] == "Replace it with `CREATE TABLE new_jobs`."


def test_a_directive_that_draws_its_limit_is_the_rule_of_its_turn(tmp_path):
    # The person's turn asks for this task's work and, in one sentence, says what the work is
    # to stop at: that sentence is the rule, not the sentence of the turn that only mentions a
    # limit ("I agree with only doing ..."), which directs nothing.
    [action] = _actions(
        tmp_path,
        [
            ("user", "look into the prompt glitch"),
            ("assistant", "The job notice comes from the shell's job control, not from us."),
            (
                "user",
                "Okay, you can comment on the issue for me. I agree with only doing the actual "
                "fix for the job that gets printed. Do a proper explanation only of the things "
                "you know, not anything you cannot actually verify, like which settings exist.",
            ),
        ],
    )
    assert action["title"] == (
        "Do a proper explanation only of the things you know, not anything you cannot actually "
        "verify, like which settings exist"
    )
    assert action["confidence"] == "medium" and not note.no_lesson(action)
    assert "comment on the issue" in action["body"], "the evidence: the person's whole turn"


@pytest.mark.parametrize(
    ("reply", "title"),
    [
        (
            "* Add a README into the e2e dir with the detailed information instead of in the "
            "global README.",
            "Add a README into the e2e dir with the detailed information instead of in the "
            "global README",
        ),
        (
            "I authenticated gh for you. **Do not use gh with any repositories other than "
            "acme/sungather**",
            "Do not use gh with any repositories other than acme/sungather",
        ),
        (
            "Not sure it's obvious, but we should de-duplicate the hashes first. We should only "
            "run `entire explain` on unique commits.",
            "We should only run `entire explain` on unique commits",
        ),
    ],
)
def test_a_directive_with_its_limit_is_a_medium_note(tmp_path, reply, title):
    [action] = _actions(
        tmp_path,
        [
            ("user", "set up the e2e suite"),
            ("assistant", "The e2e suite runs every shell; I documented it in the README."),
            ("user", reply),
        ],
    )
    assert action["title"] == title and action["confidence"] == "medium"


@pytest.mark.parametrize(
    ("asked", "reply"),
    [
        # a request, asked
        ("I documented it.", "can you add a README to the e2e dir instead of the global one?"),
        ("I documented it.", "should we only run the e2e suite on linux?"),  # a question
        ("Should I update the global README too?", "no, only the e2e one"),  # a decline
        ("I documented it.", "the e2e tests only fail on windows, not on linux"),  # a report
        # the specification of this task's deliverable
        ("I documented it.", "the README should only cover the e2e suite, not the unit tests"),
        ("I documented it.", "let's only fix the first finding for now, not the others"),
        ("I documented it.", "Add the detail to a README in the e2e dir."),  # no limit
    ],
)
def test_the_persons_words_for_this_task_with_a_limit_word_are_no_note(tmp_path, asked, reply):
    turns = [("user", "set up the e2e suite"), ("assistant", asked), ("user", reply)]
    assert _actions(tmp_path, turns) == []


# Issue 34 (recall): a cause stated in the account that closes edits a passing test run
# checked ("All green. ... **Root cause**: X", nothing edited after it before the person
# speaks) is confirmed by that run, when it names something those edits changed; a cause
# the person then refutes, one no passing run after the last edit checked, a line of the
# account's list (what was run, what was skipped) and one naming nothing edited are not.
# Real snippets: held-apart-14's langlearn session (the account), held-apart-6's fnox (the
# list line).

PUNT_CI = ("user", "CI is red on main since yesterday, can you fix it?")

PUNT_ACCOUNT = (
    "All green. Let me summarize what was done:\n\n## Summary\n\n"
    "### CI Fix (punt-tts 0.8.x compatibility)\n\n"
    "**Root cause**: `uv.lock` pinned `punt-tts==0.1.0` but CI resolved to `0.8.0`. punt-tts "
    "0.8.x introduced `VoiceNotFoundError` (replaces `ValueError`) and switched ElevenLabs "
    "from `.convert()` to `.stream()`.\n\n"
    "**Files changed**:\n- `tests/conftest.py` — mock `.stream` instead of `.convert`"
)

PUNT_EDIT = "with pytest.raises(VoiceNotFoundError):\n    provider.resolve_voice('nope')"


def _account(
    said: str, runs: list[str], edit_after_runs: bool = False, reply: str = "", new: str = PUNT_EDIT
) -> list:
    edited = _edit_to("e1", new, old="with pytest.raises(ValueError, match='Unknown voice'):")
    ran = [turn for i, out in enumerate(runs) for turn in _run(f"t{i}", out)]
    return [
        PUNT_CI,
        *(ran + edited if edit_after_runs else edited + ran),
        ("assistant", said),
        *([("user", reply)] if reply else []),
    ]


def test_a_cause_in_the_account_that_closes_checked_edits_is_a_medium_note(tmp_path):
    [action] = _actions(tmp_path, _account(PUNT_ACCOUNT, [RED, GREEN]))
    assert action["title"].startswith(
        "`uv.lock` pinned `punt-tts==0.1.0` but CI resolved to `0.8.0`"
    )
    assert action["confidence"] == "medium"
    assert f"Confirmed by {confirmation.VERIFIED}." in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # a cause guessed, then refuted by the person's next turn
        _account(PUNT_ACCOUNT, [GREEN], reply="no, that's not it: CI still fails the same way"),
        # stated, but no run after the last edit checked it (nor a red one)
        _account(PUNT_ACCOUNT, [GREEN], edit_after_runs=True),
        _account(PUNT_ACCOUNT, [GREEN, RED]),
        # a summary line: an item of the account's list of what was run
        _account(
            "All green. Verification:\n- `cargo test` passed\n- Direct bats runner executed, "
            "but password-store cases skipped because `pass` is not installed locally",
            [GREEN],
            new='PASSWORD_STORE_DIR="$(resolve_path "$dir")" pass show "$key"',
        ),
        # a cause that names nothing the edits changed: about other work
        _account(
            "All green. **Root cause**: the `ruby_version` pin in `.tool-versions` was stale.",
            [GREEN],
        ),
    ],
    ids=["refuted", "edited-after-the-run", "red-last", "summary-line", "names-nothing-edited"],
)
def test_an_account_cause_refuted_unchecked_or_listed_is_no_note(tmp_path, turns):
    # the person's refusal is a note of its own ("CI still fails the same way"): the account's
    # line is none
    said = [a for a in _actions(tmp_path, turns) if a["body"].startswith("Said by the assistant")]
    assert said == []


# Issue 34 (precision): a cause the assistant finds after the run that checked the stretch's
# edits is a new finding, not the account of that work: "Confirmed a real pre-existing bug:
# ... Let me find it." then "Found it: `open()` appends ...", both after the green run, the
# run confirms neither. Real snippet: held-apart-12's technocore session (lines 1262-1296),
# where the run checked the footer-link edits and the placeholder bug was found after it.

HUMANS_ASK = ("user", "links at the bottom of the human page are not working, can you fix them?")

HUMANS_EDIT = (
    "function render(messages) {\n  // same-origin paths are real anchors\n"
    "  footer.appendChild(anchor('/llms.txt'));\n}\nfunction open(room) { log.textContent = ''; }"
)

FOUND_IT = (
    'Found it: `open()` appends the "No messages yet." placeholder, and `render()` appends '
    "rows without ever removing it."
)


def _found_after_the_run(*said: str) -> list:
    return [
        HUMANS_ASK,
        *_edit_to("e1", HUMANS_EDIT, old="<code>/llms.txt</code>"),
        *_run("t0", GREEN),
        *[("assistant", s) for s in said],
    ]


def test_a_cause_found_after_the_checked_run_is_no_account_of_the_work(tmp_path):
    turns = _found_after_the_run(
        'Page renders. I notice a possible bug: "No messages yet." is showing above a message.',
        "Confirmed a real pre-existing bug: the `.empty` placeholder stays while a message is "
        "displayed. Let me find it.",
        FOUND_IT,
    )
    said = [a for a in _actions(tmp_path, turns) if "open()" in a["title"]]
    assert said == []


def test_the_same_cause_as_the_first_after_the_checked_run_is_its_account(tmp_path):
    # the control: the cause stated first after the run, in the account of the checked edits
    [action] = _actions(tmp_path, _found_after_the_run(FOUND_IT))
    assert action["title"].startswith("`open()` appends the")
    assert f"Confirmed by {confirmation.VERIFIED}." in action["body"]


# A turn that briefs an agent for one task (it sets the agent's role or job, or it is a lead
# line and a numbered task list) states that task's constraints, not the person's standing
# rules (held-apart-26's review brief and `/goal` list, held-apart-2's, -8's, -18's briefs).

REVIEW_BRIEF = (
    "You are reviewing work that another AI agent (Devin) just completed in this repository "
    "(dsa110-FLITS). Your job is to verify the implementation is correct and report any issues. "
    "Do NOT modify any files — read-only review.\n"
    "## Context\n"
    "Devin vendored content from the upstream repo into this FLITS repo and wrote FLITS-aware "
    "command wrappers.\n"
    "Be thorough and skeptical. Read the actual files; do not trust this prompt's assertions."
)

GOAL_LIST = (
    "Implement remaining Ponytail over-engineering audit recommendations in dsa110-FLITS:\n\n"
    "1. Re-route demo/verification scripts to import the canonical kernel from `burstfit.py`.\n"
    "2. Delete the legacy 2-param fitter files: `models.py`, `params.py`, and `sampler.py`.\n"
    "3. Remove the unused diagnostic file `debug_noise.py`.\n"
    "4. Delete the duplicate `fullband_aligned.py` in `scattering-refit-2026-06/`, keeping "
    "only the active one in `scripts/`."
)


@pytest.mark.parametrize("brief", [REVIEW_BRIEF, GOAL_LIST], ids=["role", "task-list"])
def test_a_constraint_of_a_brief_for_one_task_writes_nothing(tmp_path, brief):
    turns = [("user", brief), ("assistant", "I'll start by reading the files.")]
    assert [a["title"] for a in _actions(tmp_path, turns)] == []


def test_a_persons_rule_in_an_ordinary_turn_still_writes_its_note(tmp_path):
    turns = [
        ("user", "add the fit to the figure script"),
        ("assistant", "Done: I edited the shared config to add the fit."),
        ("user", "Do NOT modify the shared config files, copy them into the run folder"),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("Do NOT modify the shared config files")


@pytest.mark.parametrize(
    ("said", "title"),
    [
        ("Always run `make lint` before you commit.", "Always run `make lint` before you commit"),
        (
            "Do not edit the generated `schema.sql` in this repo.",
            "Do not edit the generated `schema.sql` in this repo",
        ),
    ],
    ids=["always", "in-this-repo"],
)
def test_a_rule_of_a_brief_that_reaches_beyond_the_task_still_writes(tmp_path, said, title):
    brief = REVIEW_BRIEF.replace("Be thorough and skeptical.", said)
    turns = [("user", brief), ("assistant", "I'll start by reading the files.")]
    assert title in [a["title"] for a in _actions(tmp_path, turns)]


def test_a_briefs_constraint_the_person_states_again_outside_it_writes(tmp_path):
    turns = [
        ("user", REVIEW_BRIEF),
        ("assistant", "Review done: two wrappers point at the wrong skill path."),
        ("user", "thanks. do not trust this prompt's assertions, read the actual files"),
    ]
    titles = " ".join(a["title"] for a in _actions(tmp_path, turns))
    assert "trust this prompt" in titles.lower()
    transcript = transcripts.parse_lines(Path(_session(tmp_path, turns)).read_text().splitlines())
    briefed = rules.briefed_rules(transcript)
    brief = transcript.turns[0].record
    assert not briefed(brief, "Do not trust this prompt's assertions"), "said again"
    assert briefed(brief, "Do NOT modify any files"), "said only in the brief"


@pytest.mark.parametrize(
    ("turn", "expected"),
    [
        (REVIEW_BRIEF, True),
        (GOAL_LIST, True),
        ("As a reviewer, check the migration files only.", True),
        ("Implement the following plan:\n\n# Plan\n1. one\n2. two\n3. three", False),  # a plan
        ("Do NOT modify the shared config, copy it", False),
        ("you are right, but never push to main", False),
        ("You're a legend, but don't hard-code the build path", False),  # no role: praise
        ("You are an expert code reviewer. Check the diff.", True),
        ("Fix these:\n1. the flaky test\n2. the lint", False),  # two items: a short list
    ],
)
def test_briefs_an_agent(turn, expected):
    assert rules.briefs_an_agent(turn) is expected
