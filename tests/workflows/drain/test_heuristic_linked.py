"""A cause read from the session's structure (issue 34.3): between a failure and the edit that
acts on it, the assistant's statement naming something of both, confirmed by a green run, the
failing command succeeding again or the person's report of success. Each case is a Claude Code
transcript in tmp_path run through the real cascade; every shape has its negatives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.commandruns import commands_run
from reflectgit.notes.signals import says_how_it_lands
from reflectgit.notes.transcripts import Transcript
from reflectgit.workflows.drain import cascade, heuristic
from reflectgit.workflows.drain.heuristic import commands, confirmation, linked
from tests.support.dialogue import session_file, tool_call

RED = "E   KeyError: 'tenant_id'\n=== 1 failed, 11 passed in 0.40s ==="
GREEN = "12 passed in 0.40s"
CAUSE = "The CSV export drops the `tenant_id` column when the header row is quoted."
TITLE = "The CSV export drops the `tenant_id` column when the header row is quoted"


# The drain's gate passes a session with a signal only: this one writes nothing by itself.
PRELUDE = [("user", "tidy the importer"), ("assistant", "Done."), ("user", "no, that is wrong")]


def _actions(tmp_path: Path, turns: list) -> list[dict]:
    path = session_file(tmp_path, [*PRELUDE, *turns])
    prepared = cascade.prepare(str(path))
    return heuristic.write(prepared)["actions"] if prepared.skip is None else []


def _run(call: str, output: str, command: str = "pytest -q", error: bool = False) -> list:
    return tool_call(call, "Bash", {"command": command}, output, error)


def _edit(call: str, path: str, old: str, new: str) -> list:
    edit = {"file_path": path, "old_string": old, "new_string": new}
    return tool_call(call, "Edit", edit, "The file has been updated.")


EXPORT_FIX = _edit("e1", "app/csv_export.py", "csv.reader(f)", "csv.reader(f, quotechar='\"')")


def _tests(
    said: str, edit: list, after: str = GREEN, before: list | None = None, red: str = RED
) -> list:
    return [
        ("user", "the nightly import fails on the staging data"),
        *(before or []),
        *_run("t0", red),
        ("assistant", said),
        *edit,
        *_run("t1", after),
        ("assistant", "Done."),
    ]


def test_a_statement_linking_the_failure_to_the_edit_a_green_run_confirms_is_a_note(tmp_path):
    """No cause word: the statement names the error's `tenant_id` and the edited export."""
    said = CAUSE + " I need to pass `quotechar` to the reader."
    [action] = _actions(tmp_path, _tests(said, EXPORT_FIX))
    assert action["title"] == TITLE + ": pass `quotechar` to the reader"
    assert action["root_cause"] == TITLE + "."
    assert action["fix"] == "Pass `quotechar` to the reader."
    assert action["confidence"] == "medium" and action["learning_type"] == "bug-fix"
    assert "Confirmed by a green test run" in action["body"]


DEPLOY_CAUSE = (
    "The health check runs too early - the deploy script only waits 3 seconds after restart."
)


def _deploy(rerun: str, rerun_error: bool = False, said: str = DEPLOY_CAUSE) -> list:
    return [
        ("user", "make deploy fails again"),
        *_run("d0", "Health check failed (HTTP 503)", "make deploy", error=True),
        ("assistant", said),
        *_edit("e1", "scripts/deploy.sh", "sleep 3  # wait for the restart", "sleep 10"),
        *_run("d1", rerun, "make deploy", error=rerun_error),
        ("assistant", "Deployed."),
    ]


def test_a_statement_the_failing_command_confirms_when_run_again_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _deploy("Deployed: health check OK"))
    assert action["title"] == (
        "The health check runs too early - the deploy script only waits 3 seconds after restart"
    )
    assert "the failing command run again after the edit: `make deploy`" in action["body"]


def test_the_persons_complaint_is_a_failure_the_statement_links(tmp_path):
    turns = [
        ("user", "The recalculated score is not updated after a reload"),
        ("assistant", "Looking at the repository."),
        *tool_call("r1", "Read", {"file_path": "src/db/evaluations.ts"}, "export function ..."),
        (
            "assistant",
            "The reload reads the score from `result_json`, which the update never patches.",
        ),
        *_edit("e1", "src/db/evaluations.ts", "SET score = ?", "SET score = ?, result_json = ?"),
        *_run("t1", GREEN),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == (
        "The reload reads the score from `result_json`, which the update never patches"
    )


@pytest.mark.parametrize(
    "turns",
    [
        # narration between the failure and the edit that links nothing
        _tests("The export module has two readers and one writer.", EXPORT_FIX),
        # a hedge
        _tests("The CSV export might drop the `tenant_id` column when quoted.", EXPORT_FIX),
        # an intent, not a statement
        _tests("Let me make the CSV export keep the `tenant_id` column.", EXPORT_FIX),
        # a question
        _tests("Does the CSV export drop the `tenant_id` column when quoted?", EXPORT_FIX),
        # a plan's list item
        _tests("Next steps:\n1. The CSV export drops the `tenant_id` column.", EXPORT_FIX),
        # the subject is only the session's
        _tests("That's the CSV export dropping the `tenant_id` column when quoted.", EXPORT_FIX),
        # no confirmation: the run after the edit is still red
        _tests(CAUSE, EXPORT_FIX, after=RED),
        # linked to an unrelated edit
        _tests(CAUSE, _edit("e1", "README.md", "## Install", "## Setup")),
        # the statement names the failure but not the edit
        _tests("The `tenant_id` column is gone from the rows.", EXPORT_FIX),
        # it names only what the session itself wrote in an earlier edit: its own slip
        _tests(
            "The `quoted_reader` helper drops the `tenant_id` column.",
            _edit("e1", "app/util.py", "def quoted_reader(f):", "def quoted_reader(f, q):"),
            before=_edit("e0", "app/util.py", "", "def quoted_reader(f):"),
        ),
        # a linter's warning, which names its fix itself
        _tests(
            "The linter wants `tenant_id` sorted in the CSV export.",
            _edit("e1", "app/csv_export.py", "tenant_id, name", "name, tenant_id"),
        ),
    ],
    ids=[
        "narration",
        "hedge",
        "intent",
        "question",
        "list-item",
        "vague-subject",
        "still-red",
        "unrelated-edit",
        "one-side-only",
        "own-slip",
        "linter",
    ],
)
def test_a_statement_that_links_nothing_confirmed_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    "turns",
    [
        _deploy("Health check failed (HTTP 503)", rerun_error=True),  # the rerun still fails
        # the account after a run that still fails
        [
            *_deploy("Health check failed (HTTP 503)", rerun_error=True, said="Retrying."),
            ("assistant", DEPLOY_CAUSE),
        ],
        # no failure before the statement: a change asked for, not a cause
        [
            ("user", "make deploy wait longer after the restart"),
            ("assistant", DEPLOY_CAUSE),
            *_edit("e1", "scripts/deploy.sh", "sleep 3  # wait for the restart", "sleep 10"),
            *_run("d1", "Deployed: health check OK", "make deploy"),
        ],
    ],
    ids=["rerun-fails", "account-of-a-red-run", "no-failure"],
)
def test_a_cause_nothing_confirmed_or_that_follows_no_failure_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


def _reported(*between: list) -> list:
    turns: list = [
        ("user", "make deploy fails again"),
        *_run("d0", "Health check failed (HTTP 503)", "make deploy", error=True),
        ("assistant", DEPLOY_CAUSE),
        *_edit("e1", "scripts/deploy.sh", "sleep 3  # wait for the restart", "sleep 10"),
        ("assistant", "I raised the wait to 10 seconds."),
    ]
    for part in between:
        turns += part
    return [*turns, ("user", "OK. Deploy works now!!")]


QUESTION = [("user", "Did you commit that?"), ("assistant", "No, nothing is committed.")]


def test_the_persons_success_a_turn_later_confirms_when_nothing_else_was_edited(tmp_path):
    """A question about something else first, then the report: the edit is still the last."""
    [action] = _actions(tmp_path, _reported(QUESTION))
    assert action["title"] == DEPLOY_CAUSE.rstrip(".")
    assert (
        "a success the person reported after the edit: “OK. Deploy works now!!”" in (action["body"])
    )


@pytest.mark.parametrize(
    "between",
    [
        # the assistant changed something else before the report
        [
            ("user", "Did you commit that?"),
            ("assistant", "Not yet; I also bumped the timeout."),
            *_edit("e2", "scripts/deploy.sh", "timeout 30", "timeout 60"),
        ],
        # the person said it still fails before the report
        [("user", "the deploy still fails"), ("assistant", "Try again in a minute.")],
    ],
    ids=["another-edit", "still-fails"],
)
def test_a_later_success_after_another_edit_or_a_failure_confirms_nothing(tmp_path, between):
    assert _actions(tmp_path, _reported(between)) == []


def test_a_cause_the_writer_reads_by_its_phrasing_is_one_note_not_two(tmp_path):
    """The structural reading finds the same sentence; it never adds a twin nor takes the
    place of the note read otherwise."""
    said = "The root cause is that " + CAUSE[0].lower() + CAUSE[1:]
    [action] = _actions(tmp_path, _tests(said, EXPORT_FIX))
    assert "tenant_id" in action["title"]
    assert action["root_cause"].startswith("The CSV export drops")


def test_a_secret_in_the_statement_never_reaches_the_note(tmp_path):
    said = CAUSE + " The staging password Tr0ub4dor&3 did not work either."
    [action] = _actions(tmp_path, _tests(said, EXPORT_FIX))
    assert "Tr0ub4dor&3" not in json.dumps(action)


# What failed, as the run showed it: a statement naming only this says nothing of why.
RED_NAMED = (
    "FAILED tests/test_csv_export.py::test_tenant_column - KeyError: 'tenant_id'\n"
    "=== 1 failed, 11 passed in 0.40s ==="
)


def test_a_statement_that_only_restates_what_failed_is_no_cause(tmp_path):
    """The failing test's names, linked to the edited export only through them: no cause."""
    said = "Failing: `tests/test_csv_export.py::test_tenant_column` with `KeyError` on `tenant_id`."
    assert _actions(tmp_path, _tests(said, EXPORT_FIX, red=RED_NAMED)) == []
    # the same red run, and a statement that says why: a cause
    [action] = _actions(tmp_path, _tests(CAUSE, EXPORT_FIX, red=RED_NAMED))
    assert action["root_cause"] == TITLE + "."


def test_a_statement_of_the_change_being_made_is_no_cause(tmp_path):
    said = "The change is small but targeted: pass `quotechar` to the CSV export reader for `tenant_id`."
    assert _actions(tmp_path, _tests(said, EXPORT_FIX)) == []
    # a change the statement blames (not the one being made) is a cause
    said = (
        "The change to the CSV export in v2 drops the `tenant_id` column when the header is quoted."
    )
    [action] = _actions(tmp_path, _tests(said, EXPORT_FIX))
    assert action["root_cause"] == said


# A cause reported after the fact: the assistant looks, edits, the run goes green, and only its
# closing words say why it failed.
def _after_the_fact(report: str, after: str = GREEN, red: bool = True) -> list:
    return [
        ("user", "the nightly import fails on the staging data"),
        *_run("t0", RED if red else GREEN),
        ("assistant", "Let me look at the export."),
        *EXPORT_FIX,
        *_run("t1", after),
        ("assistant", report),
    ]


REPORTED = "Done. The root cause: " + CAUSE[0].lower() + CAUSE[1:]


def test_a_cause_reported_after_the_fix_and_the_green_run_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _after_the_fact(REPORTED))
    assert action["title"] == TITLE and action["root_cause"] == TITLE + "."
    assert "Confirmed by a green test run after the edits" in action["body"]


@pytest.mark.parametrize(
    ("report", "after", "red"),
    [
        (REPORTED, RED, True),  # the last run after the edit still fails
        (REPORTED, GREEN, False),  # no failure before the edit: nothing to explain
        # a report narrating what was done, not said as the cause
        (
            "Done. The CSV export now keeps the `tenant_id` column when the header row is quoted.",
            GREEN,
            True,
        ),
        # a pronoun subject is only the session's
        (
            "Done. These failed because the CSV export drops `tenant_id` for quoted headers.",
            GREEN,
            True,
        ),
    ],
)
def test_a_report_unconfirmed_with_no_failure_or_not_said_as_cause_is_no_note(
    tmp_path, report, after, red
):
    assert _actions(tmp_path, _after_the_fact(report, after, red)) == []


# The assistant's progress report: what the runs did, then its own next step (a real Codex
# session's shape: "The new regression passed, and the pre-existing ... test exposed that it was
# missing the ... setup. I'm updating that test fixture ...").
RUN_REPORT = (
    "The new export test passed, and the older quoted-header test exposed that it was missing "
    "the `tenant_id` column setup."
)


@pytest.mark.parametrize(
    "next_step",
    ["I’m updating that test fixture.", "Let me update the fixture.", "Now I'll fix the fixture."],
)
def test_a_runs_result_then_the_assistants_next_step_is_narration_not_a_cause(tmp_path, next_step):
    assert _actions(tmp_path, _tests(f"{RUN_REPORT} {next_step}", EXPORT_FIX)) == []


@pytest.mark.parametrize(
    ("said", "title"),
    [
        # the same report with no next step after it: the finding stands as said
        (RUN_REPORT + " The reader is fixed.", RUN_REPORT.rstrip(".")),
        # a run's result with its reason, then the next step: a cause
        (
            "The export test failed because the CSV export drops the `tenant_id` column when "
            "quoted. I'm passing `quotechar` to the reader.",
            "The export test failed because the CSV export drops the `tenant_id` column when quoted",
        ),
        (
            "The export test failed: the CSV export drops the `tenant_id` column when the header "
            "row is quoted. I'm passing `quotechar` to the reader.",
            "The export test failed: the CSV export drops the `tenant_id` column when the header "
            "row is quoted",
        ),
        # a cause whose subject is the code, then the next step
        (CAUSE + " I'll pass `quotechar` to the reader.", TITLE),
    ],
    ids=["no-next-step", "because", "colon-reason", "code-subject"],
)
def test_a_runs_result_with_its_reason_or_without_a_next_step_is_still_a_cause(
    tmp_path, said, title
):
    [action] = _actions(tmp_path, _tests(said, EXPORT_FIX))
    assert action["title"].startswith(title)


def test_narrates_a_run_needs_every_clause_a_run_and_no_reason():
    step = "I'm updating the fixture."
    assert linked.narrates_a_run("CI is green.", step)
    assert linked.narrates_a_run("The suite passed, but the lint job failed.", step)
    assert not linked.narrates_a_run("CI is green.", "The fixture is wrong.")
    assert not linked.narrates_a_run("The build failed because `foo` moved.", step)
    assert not linked.narrates_a_run("The build failed: `foo` was removed in v2.", step)
    assert not linked.narrates_a_run("The parser drops the last row.", step)


# A cause whose fix is a command, not a file edit (a real Claude Code session's shape: the
# check fails in govulncheck, the assistant says why, rebuilds it with the newer Go, and the
# check passes when run again). The check's output says it failed; its exit code was piped away.
CHECK_RED = (
    "[lint:govulncheck] tokenmanager/seams.go:1:1: package requires newer Go version go1.26 "
    "(application built with go1.25)\n[lint:govulncheck] ERROR task failed"
)
TOOLCHAIN = (
    "govulncheck is failing because its binary was built with go1.25 and the module needs go1.26."
)
REBUILD = "go install golang.org/x/vuln/cmd/govulncheck@latest 2>&1 | tail -5"


def _rebuilt(
    said: str | None = TOOLCHAIN, change: str = REBUILD, rerun: str = "All checks passed."
) -> list:
    return [
        ("user", "rebase on main and run the checks"),
        *_run("c0", CHECK_RED, "mise run check 2>&1 | tail -40"),
        *([("assistant", said)] if said else []),
        *_run("c1", "go: downloading golang.org/x/vuln v1.3.0", change),
        *_run("c2", rerun, "mise run check 2>&1 | tail -25"),
        ("assistant", "Done."),
    ]


def test_a_cause_fixed_by_a_command_the_rerun_confirms_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _rebuilt())
    assert action["root_cause"] == (
        "Govulncheck is failing because its binary was built with go1.25 and the module needs "
        "go1.26."
    )
    assert action["fix"] == "Run `go install golang.org/x/vuln/cmd/govulncheck@latest`."
    assert "the failing command run again after `go install" in action["body"]
    assert "`mise run check`" in action["body"]


@pytest.mark.parametrize(
    "turns",
    [
        # only a read-only command between the failure and the rerun
        _rebuilt(change="which govulncheck && govulncheck -version"),
        # the rerun still fails
        _rebuilt(rerun=CHECK_RED),
        # no cause stated
        _rebuilt(said=None),
        # a statement naming nothing of the failure
        _rebuilt(said="Rebuilding the toolchain pieces now."),
        # a statement that hedges
        _rebuilt(said=TOOLCHAIN.replace("is failing", "might be failing")),
    ],
    ids=["read-only", "still-fails", "never-stated", "names-nothing", "hedge"],
)
def test_a_command_fix_read_only_still_failing_or_never_explained_is_no_note(tmp_path, turns):
    assert _actions(tmp_path, turns) == []


def test_a_command_fix_whose_rerun_is_left_running_in_the_background_is_no_note(tmp_path):
    """A rerun launched in the background says nothing of how it ends until it is read to its
    end: one still running where the transcript stops reading it confirms no fix
    (``Ran.ended``), as for ``rerun_fixes``."""
    launched = "Command running in background with ID: b7f3a1. Output is being written to: x"
    again = {"command": "mise run check 2>&1 | tail -25", "run_in_background": True}
    turns = _rebuilt()
    turns[-3:-1] = tool_call("c2", "Bash", again, launched)  # the rerun, in the background
    assert _actions(tmp_path, turns) == []
    # read to its end, green, the same rerun confirms the fix
    done = "<exit_code>0</exit_code>\n\n<output>\nAll checks passed.\n"
    turns[-1:-1] = _task("p1", "b7f3a1", "completed", done)
    [action] = _actions(tmp_path, turns)
    assert action["fix"] == "Run `go install golang.org/x/vuln/cmd/govulncheck@latest`."


def test_a_disclaimer_after_the_cause_is_neither_a_hedge_nor_in_the_title(tmp_path):
    said = TOOLCHAIN.rstrip(".") + " — not introduced by my rebase."
    [action] = _actions(tmp_path, _rebuilt(said=said))
    assert "rebase" not in action["title"] and "rebase" not in action["root_cause"]
    # the assistant's own doing, not disowned, is still no cause
    assert _actions(tmp_path, _rebuilt(said=TOOLCHAIN.rstrip(".") + " since my rebase.")) == []


@pytest.mark.parametrize(
    ("command", "changing"),
    [
        (REBUILD, "go install golang.org/x/vuln/cmd/govulncheck@latest"),
        ("gofmt -w client_test.go && gofmt -l client_test.go", "gofmt -w client_test.go"),
        ("cd web && npm ci", "npm ci"),
        ("which govulncheck; govulncheck -version", ""),
        ("git status && git log --oneline -5", ""),
        ("cat go.mod | grep toolchain", ""),
    ],
)
def test_a_changing_command_is_told_from_one_that_reads(command, changing):
    assert commands.changing_command(command) == changing


def _drained(tmp_path: Path, turns: list, after_line: int = 0) -> list[dict]:
    lines = []
    for i, turn in enumerate(turns):
        record = (
            turn
            if isinstance(turn, dict)
            else {
                "type": turn[0],
                "message": {"role": turn[0], "content": turn[1]},
            }
        )
        record.update(sessionId="s-1", uuid=f"u{i}")
        lines.append(json.dumps(record))
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    prepared = cascade.prepare(str(path), after_line=after_line)
    return heuristic.write(prepared)["actions"] if prepared.skip is None else []


def test_a_command_fix_before_the_first_signal_is_read_unless_an_earlier_drain_read_it(tmp_path):
    """The signal that lets the drain in comes after the fix; a later drain of the grown
    session starts past what the earlier one read, and does not read the fix again."""
    turns = [*_rebuilt(), ("user", "thanks"), ("assistant", "Pushed."), *PRELUDE]
    [action] = _drained(tmp_path, turns)
    assert action["fix"] == "Run `go install golang.org/x/vuln/cmd/govulncheck@latest`."
    assert _drained(tmp_path, turns, after_line=5) == []


# A cause diagnosed in one stretch and fixed in the next: the assistant investigates a failure
# and reports why, editing nothing; the person asks for the fix; the assistant edits and runs
# the tests. Neither stretch alone holds both the cause and its confirmation.
DIAGNOSIS = (
    "I reproduced it. The CSV export drops the `tenant_id` column when the header row is "
    "quoted, because the reader is built without `quotechar`."
)


def _diagnosed(
    go_ahead: str = "ok make a pr to fix",
    said: str = DIAGNOSIS,
    after: str = GREEN,
    edit_first: bool = False,
    red: str = RED,
) -> list:
    return [
        ("user", "investigate the nightly import on the staging data"),
        *_run("t0", red),
        *(EXPORT_FIX if edit_first else []),
        ("assistant", said),
        ("user", go_ahead),
        *(
            _edit("e2", "app/csv_export.py", "delimiter=','", "delimiter=',', strict=True")
            if edit_first
            else EXPORT_FIX
        ),
        *_run("t1", after),
        ("assistant", "Fixed and pushed."),
    ]


@pytest.mark.parametrize(
    "go_ahead",
    [
        "ok make a pr to fix",
        "yep, add the minimal fix in one commit, then its test in another",
        "could we prevent this from happening in the future?",
    ],
)
def test_a_diagnosis_the_person_has_fixed_and_a_green_run_confirms_is_a_note(tmp_path, go_ahead):
    actions = _actions(tmp_path, _diagnosed(go_ahead))
    [action] = [a for a in actions if a["learning_type"] == "bug-fix"]
    # a go-ahead that says how the work lands is a rule of its own besides (signals.LANDS_BY)
    assert len(actions) == 1 + says_how_it_lands(go_ahead)
    assert action["title"].startswith(TITLE)
    assert action["confidence"] == "medium" and action["learning_type"] == "bug-fix"
    assert "the person's go-ahead" in action["body"]
    assert "passing test run after the fix" in action["body"]


@pytest.mark.parametrize(
    ("go_ahead", "after", "edit_first", "red"),
    [
        ("why does it drop the column?", GREEN, False, RED),  # a question of why
        ("no, that's not it", GREEN, False, RED),  # the diagnosis denied
        ("fix it, but it still fails on the other file", GREEN, False, RED),  # a new failure
        ("I don't want that fixed here, revert the reader", GREEN, False, RED),  # turned down
        ("never make draft prs", GREEN, False, RED),  # a standing rule, not a go-ahead
        ("ok make a pr to fix", RED, False, RED),  # the run after the fix still fails
        ("ok make a pr to fix", GREEN, True, RED),  # the diagnosis's stretch already edited
        ("ok make a pr to fix", GREEN, False, GREEN),  # nothing failed before the diagnosis
    ],
    ids=["why", "denied", "still", "turned-down", "never", "red-after", "edited", "no-failure"],
)
def test_a_diagnosis_not_gone_ahead_with_or_not_confirmed_is_no_note(
    tmp_path, go_ahead, after, edit_first, red
):
    actions = _actions(tmp_path, _diagnosed(go_ahead, after=after, edit_first=edit_first, red=red))
    assert not [a for a in actions if "go-ahead" in a["body"]]


def test_a_diagnosis_the_fix_does_not_act_on_is_no_note(tmp_path):
    """The edit after the go-ahead touches nothing the diagnosis named."""
    turns = _diagnosed()
    at = turns.index(EXPORT_FIX[0])
    turns[at : at + 2] = _edit(
        "e3", "docs/changelog.md", "## Unreleased", "## Unreleased\n- staging import"
    )
    assert not [a for a in _actions(tmp_path, turns) if "go-ahead" in a["body"]]


@pytest.mark.parametrize(
    ("reply", "ahead"),
    [
        ("ok make a pr to fix", True),
        ("ok fix it in a new branch and reply to the discussion", True),
        ("yeah, let's add a fix to prevent this earlier", True),
        ("go ahead", True),
        ("why does it do that?", False),
        ("no, fix the other one", False),
        ("it still fails", False),
        ("never make draft prs", False),
        ("ok i don't want that, remove it", False),
        ("thanks", False),
    ],
)
def test_goes_ahead_is_a_request_for_the_fix(reply, ahead):
    assert confirmation.goes_ahead(reply) is ahead


# Codex's unified exec: a test command still running when its call returns goes on in the
# results of later ``write_stdin`` calls naming its session; read together, where it ended.
def _codex_lines(*items: dict) -> list[str]:
    return [json.dumps({"type": "response_item", "payload": item}) for item in items]


def _codex_call(call: str, name: str, args: dict) -> dict:
    return {"type": "function_call", "name": name, "call_id": call, "arguments": json.dumps(args)}


def _codex_out(call: str, header: str, output: str) -> dict:
    text = f"Chunk ID: 0a1b2c\nWall time: 1.0 seconds\n{header}\nOriginal token count: 9\nOutput:\n"
    return {"type": "function_call_output", "call_id": call, "output": text + output}


def _polled(ending: str, code: int) -> Transcript:
    from reflectgit.notes.transcripts import parse_lines

    return parse_lines(
        _codex_lines(
            _codex_call("c1", "exec_command", {"cmd": "pytest -q"}),
            _codex_out("c1", "Process running with session ID 92114", "collecting ...\n"),
            _codex_call("c2", "write_stdin", {"session_id": 92114, "chars": ""}),
            _codex_out("c2", f"Process exited with code {code}", ending),
        )
    )


def test_a_codex_test_run_polled_to_its_end_is_read_whole_where_it_ended():
    t = _polled("12 passed in 3.2s\n", 0)
    [ran] = commands_run(t)
    assert ran.command == "pytest -q" and ran.result == t.tool_results[-1].record
    assert ran.run is not None and ran.run.green and not ran.is_error


def test_a_codex_test_run_that_fails_after_polling_is_red_and_an_error():
    [ran] = commands_run(_polled("=== 1 failed, 11 passed in 3.2s ===\n", 1))
    assert ran.run is not None and not ran.run.green and ran.is_error


def test_a_poll_of_another_session_or_a_command_never_polled_stays_apart():
    from reflectgit.notes.transcripts import parse_lines

    t = parse_lines(
        _codex_lines(
            _codex_call("c1", "exec_command", {"cmd": "pytest -q"}),
            _codex_out("c1", "Process running with session ID 1", "collecting ...\n"),
            _codex_call("c2", "write_stdin", {"session_id": 2, "chars": ""}),
            _codex_out("c2", "Process exited with code 0", "12 passed in 3.2s\n"),
        )
    )
    [ran] = commands_run(t)  # the poll of session 2 continues no command read here
    assert ran.output.endswith("collecting ...\n") and ran.run is None


def test_a_diagnosis_is_read_past_where_the_failure_was_told_and_past_a_fenced_block(tmp_path):
    """The first sentence names where it was reported, then a config is shown: neither is the
    cause; the sentence after them is."""
    said = (
        "[Issue #12](https://example.org/issues/12) is reporting a bug in the `tenant_id` export.\n"
        "```\ncsv.reader(f)  # tenant_id\n```\n" + DIAGNOSIS
    )
    [action] = _actions(tmp_path, _diagnosed(said=said))
    assert action["title"].startswith(TITLE)


@pytest.mark.parametrize(
    "sentence",
    [
        "[Issue #12](https://example.org/issues/12) is reporting a bug in the export",
        "The issue describes the `tenant_id` column going missing",
        "This log says the reader failed",
    ],
)
def test_a_sentence_telling_where_a_failure_was_reported_relays_it(sentence):
    assert linked._RELAYS.match(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The reader drops the `tenant_id` column",
        "The issue was that the reader drops the column",  # a cause, said as one
        "Reports with quoted headers lose the `tenant_id` column",
    ],
)
def test_a_cause_is_no_relayed_report(sentence):
    assert not linked._RELAYS.match(sentence)


# A constraint of where a command runs (the agent's sandbox, a missing option the environment
# needs): the command fails, the assistant states why, and the same command run again outside
# the sandbox or with an option added passes, nothing edited or installed in between.
PORT_RED = (
    "E   PermissionError: [Errno 1] Operation not permitted: bind 127.0.0.1:5432\n"
    "=== 3 failed in 0.40s ==="
)
PORT_CAUSE = "The integration tests bind a local port, which the sandbox does not allow."


def _sandboxed(
    said: str | None = PORT_CAUSE,
    rerun: dict | None = None,
    after: str = "3 passed in 0.40s",
    between: list | None = None,
) -> list:
    again = {"command": "pytest -q tests/integration", "dangerouslyDisableSandbox": True}
    return [
        ("user", "run the integration tests"),
        *_run("s0", PORT_RED, "pytest -q tests/integration", error=True),
        *([("assistant", said)] if said else []),
        *(between or []),
        *tool_call("s1", "Bash", rerun or again, after),
        ("assistant", "Done."),
    ]


def test_a_cause_worked_around_outside_the_sandbox_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _sandboxed())
    assert action["root_cause"] == (
        "The integration tests bind a local port, which the sandbox does not allow."
    )
    assert action["fix"] == "Run `pytest -q tests/integration` outside the sandbox."
    assert "the failing command run again outside the sandbox" in action["body"]


GH_RED = "none of the git remotes configured for this repository point to a known GitHub host"
GH_CAUSE = "The `origin` remote is a proxy URL, so `gh` finds no GitHub host and needs `--repo`."


def _optioned(rerun: str = "gh pr view 12 --repo acme/widgets", said: str = GH_CAUSE) -> list:
    return [
        ("user", "look at the open PR"),
        *_run("g0", GH_RED, "gh pr view 12", error=True),
        ("assistant", said),
        *_run("g1", "title: Fix the flaky upload\nstate: OPEN", rerun),
        ("assistant", "Done."),
    ]


def test_a_cause_worked_around_with_an_option_added_is_a_note(tmp_path):
    [action] = _actions(tmp_path, _optioned())
    assert action["title"].startswith("The `origin` remote is a proxy URL")
    assert action["fix"] == "Run `gh pr view 12 --repo acme/widgets`."
    assert (
        "run again with `--repo acme/widgets`: `gh pr view 12 --repo acme/widgets`"
        in (action["body"])
    )


@pytest.mark.parametrize(
    "turns",
    [
        # run again unchanged: a retry, not a workaround
        _sandboxed(rerun={"command": "pytest -q tests/integration"}),
        # still failing outside the sandbox
        _sandboxed(after=PORT_RED),
        # a narrower run: a name filter the failing run had not
        _sandboxed(
            rerun={"command": "pytest -q tests/integration -k upload"}, after="1 passed in 0.1s"
        ),
        # nothing said of why
        _sandboxed(said=None),
        # a statement naming nothing of the change
        _sandboxed(said="The integration tests failed with a permission error on the bind."),
        # something installed in between: the command fix's reading, not this one's
        _sandboxed(between=_run("s9", "added 1 package", "npm install portfinder")),
        # only an operand added: it reads more, it runs no differently
        _optioned(rerun="gh pr view 12 13"),
        # a word dropped: another target
        _optioned(rerun="gh pr view --repo acme/widgets"),
    ],
    ids=[
        "unchanged",
        "still-fails",
        "narrower",
        "never-stated",
        "names-nothing",
        "installed",
        "operand",
        "dropped",
    ],
)
def test_a_rerun_unchanged_failing_narrower_or_unexplained_is_no_note(tmp_path, turns):
    # the sandbox's refusal passing outside it is a note in the tool's words (``traps``)
    # however little the assistant said: no note in the assistant's words here
    assert [
        a for a in _actions(tmp_path, turns) if not a["body"].startswith("Said by the tool")
    ] == []


def test_a_file_edited_before_the_rerun_leaves_it_to_the_edits_reading(tmp_path):
    edit = _edit("e1", "tests/conftest.py", "port=5432", "port=0")
    actions = _actions(tmp_path, _sandboxed(between=edit))
    assert not any("outside the sandbox" in a["body"] for a in actions)


@pytest.mark.parametrize(
    ("failed", "again", "added"),
    [
        ("cargo test", "cargo +1.96.0 test", ("+1.96.0",)),
        ("gh pr view 12", "gh pr view 12 --repo acme/widgets", ("--repo", "acme/widgets")),
        ("make deploy", "make -j1 deploy", ("-j1",)),
        ("gh pr view 12", "gh pr view 12", ()),  # unchanged
        ("gh pr view 12", "gh pr view 12 13", ()),  # an operand only
        ("git push origin main", "git push -u https://h/o/r.git main", ()),  # a word dropped
        ("cargo test", "npm test --silent", ()),  # another program
        ("pytest", "pytest -x", ()),  # one word: no command run again, only a program
    ],
)
def test_run_differently_is_the_same_command_with_an_option_added(failed, again, added):
    assert commands.run_differently(failed.split(), again.split()) == added


@pytest.mark.parametrize(
    ("tool_input", "outside"),
    [
        ({"cmd": "cargo test", "sandbox_permissions": "require_escalated"}, True),
        ({"command": "npm test", "dangerouslyDisableSandbox": True}, True),
        ({"cmd": "cargo test", "sandbox_permissions": "use_default"}, False),
        ({"command": "npm test", "dangerouslyDisableSandbox": "yes"}, False),
        ({"command": "npm test"}, False),
        ("npm test", False),
    ],
)
def test_outside_sandbox_reads_the_calls_own_field(tool_input, outside):
    assert commands.outside_sandbox(tool_input) is outside


BIND_RED = "error: mock server could not bind local port 127.0.0.1:0: Operation not permitted"


def test_a_codex_command_escalated_out_of_the_sandbox_is_read_with_its_justification():
    from reflectgit.notes.transcripts import parse_lines

    said = {
        "type": "message",
        "role": "assistant",
        "content": [
            {
                "type": "output_text",
                "text": "The mock servers cannot bind local ports inside the sandbox, so I'm "
                "rerunning the suite with escalation.",
            }
        ],
    }
    escalated = {
        "cmd": "cargo test",
        "sandbox_permissions": "require_escalated",
        "justification": "Allow the tests to bind local mock-server ports?",
    }
    t = parse_lines(
        _codex_lines(
            _codex_call("c1", "exec_command", {"cmd": "cargo test"}),
            _codex_out("c1", "Process exited with code 101", BIND_RED),
            said,
            _codex_call("c2", "exec_command", escalated),
            _codex_out("c2", "Process exited with code 0", "test result: ok. 9 passed; 0 failed"),
        )
    )
    [action] = commands.rerun_fixes(t, commands_run(t))
    # the assistant's next step after the cause is no part of it
    assert action["root_cause"] == "The mock servers cannot bind local ports inside the sandbox."
    assert action["fix"] == "Run `cargo test` outside the sandbox."


@pytest.mark.parametrize(
    ("sentence", "cause"),
    [
        ("X blocks Y, so I'm rerunning it with Z.", "X blocks Y"),
        ("X blocks Y — and I'll pin it.", "X blocks Y"),
        ("X fails because Y, not my change.", "X fails because Y"),
        ("X blocks Y, so Z breaks.", "X blocks Y, so Z breaks."),  # a consequence, no step
    ],
)
def test_the_cause_part_leaves_out_a_disclaimer_and_the_next_step(sentence, cause):
    assert linked.cause_part(sentence) == cause


# Claude Code's background command: the Bash call returns only a task id; its output, status
# and exit code come in the results of later ``TaskOutput`` calls naming it, read together where
# it ended, as Codex's polled commands are.
def _task(call: str, task: str, status: str, ending: str) -> list:
    content = (
        f"<retrieval_status>{'timeout' if status == 'running' else 'success'}</retrieval_status>"
        f"\n\n<task_id>{task}</task_id>\n\n<task_type>local_bash</task_type>\n\n"
        f"<status>{status}</status>\n\n{ending}"
    )
    return tool_call(call, "TaskOutput", {"task_id": task, "block": True}, content)


def _in_background(*polls: list) -> Transcript:
    from reflectgit.notes.transcripts import parse_lines

    launched = "Command running in background with ID: b7f3a1. Output is being written to: x"
    turns = [
        *tool_call("b0", "Bash", {"command": "pytest -q", "run_in_background": True}, launched)
    ]
    for poll in polls:
        turns += poll
    lines = []
    for i, record in enumerate(turns):
        record.update(sessionId="s-1", uuid=f"u{i}")
        lines.append(json.dumps(record))
    return parse_lines(lines)


def test_a_background_test_run_is_read_whole_where_it_ended():
    t = _in_background(
        _task("p1", "b7f3a1", "running", "<output>\ncollecting ...\n</output>"),
        _task(
            "p2", "b7f3a1", "completed", "<exit_code>0</exit_code>\n\n<output>\n12 passed in 3.2s\n"
        ),
    )
    [ran] = commands_run(t)
    assert ran.command == "pytest -q" and ran.result == t.tool_results[-1].record
    assert ran.run is not None and ran.run.green and not ran.is_error and ran.ended


def test_a_background_run_that_exits_non_zero_failed():
    ending = "<exit_code>1</exit_code>\n\n<output>\n=== 1 failed, 11 passed in 3.2s ===\n"
    [ran] = commands_run(_in_background(_task("p1", "b7f3a1", "completed", ending)))
    assert ran.is_error and ran.run is not None and not ran.run.green


def test_a_background_run_never_read_to_its_end_has_not_ended():
    [ran] = commands_run(
        _in_background(_task("p1", "b7f3a1", "running", "<output>\ncollecting ...\n</output>"))
    )
    assert not ran.ended and ran.run is None
    # a poll of another task continues nothing read here
    [ran] = commands_run(
        _in_background(_task("p1", "c0ffee1", "completed", "<exit_code>0</exit_code>\n"))
    )
    assert not ran.ended and "12 passed" not in ran.output


def test_a_rerun_left_running_in_the_background_confirms_no_workaround(tmp_path):
    launched = "Command running in background with ID: b7f3a1. Output is being written to: x"
    again = {
        "command": "pytest -q tests/integration",
        "dangerouslyDisableSandbox": True,
        "run_in_background": True,
    }
    assert _actions(tmp_path, _sandboxed(rerun=again, after=launched)) == []
