"""No note from what holds no lesson out of its session (issue 34, precision): a person's
directive on how to reason that names nothing; a cause that only says there is one; the
assistant's point that is a quotation of its source; a fix naming an option without its
command; the checkout's declared dependencies installed; the code brought in line with what a
test expects; a person's rule whose thing is only a pronoun. Each case is a Claude Code transcript in tmp_path run through the real cascade
and ``heuristic.write``, with the same shape stating a lesson as its negative."""

from __future__ import annotations

import pytest

from reflectgit.notes.signals import LOW
from reflectgit.workflows.drain.heuristic import commands, note
from tests.workflows.drain.test_heuristic import CHALLENGE, DONE_FULLSCHEMA, GREEN, RED, _actions
from tests.workflows.drain.test_heuristic import _diagnosed as _tests_across
from tests.workflows.drain.test_heuristic_linked import _actions as _linked_actions
from tests.workflows.drain.test_heuristic_linked import _edit, _run, _tests


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("do not make assumptions", False),
        ("Explore the options thoroughly. Do not assume any details", False),
        ("don't guess, be careful", False),
        # what to decide from instead, a belief corrected with its thing, an act on the project
        ("Do not guess: read the schema in `db/schema.sql` before writing a migration", True),
        ("Never assume the cache is per host, it is per process", True),
        ("Never force-push to main", True),
    ],
    ids=["assumptions", "after-request", "guess-careful", "instead", "belief", "act"],
)
def test_a_directive_on_how_to_reason_that_names_nothing_is_no_rule(tmp_path, reply, kept):
    done = ("assistant", "I picked the text module: it looked like the simpler option.")
    actions = _actions(tmp_path, [("user", "pick a module"), done, ("user", reply)])
    assert len(actions) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("## LiveView suite: 3 failing — most of it is one root cause.", False),
        ("The root cause is that the LiveView process can't access the test sandbox.", True),
    ],
    ids=["heading", "stated"],
)
def test_a_cause_that_only_says_there_is_one_is_no_note(tmp_path, said, kept):
    """Tests red to green across the statement either way: what the cause is must be said."""
    actions = _actions(tmp_path, _tests_across(said, RED, GREEN))
    assert len(actions) == (1 if kept else 0)


def test_the_assistants_point_that_is_a_quotation_is_no_note(tmp_path):
    """A point the assistant grants by quoting its source (a document the person pasted) is
    the source's words; the same point in the assistant's own words is kept (low)."""
    quoted = (
        "assistant",
        "Good catch — I was too broad earlier. Re-reading the spec, `FullSchema` has an explicit "
        'path: *"If the dedicated migration creates the table, the full schema must not create '
        'it again."*',
    )
    turns = [("user", "fix the gap"), DONE_FULLSCHEMA, CHALLENGE, quoted]
    assert _actions(tmp_path, turns) == []
    own = (
        "assistant",
        "Good catch — `FullSchema` must not create the table again when the dedicated migration "
        'creates it: the "full schema" only lists what no migration makes.',
    )
    [action] = _actions(tmp_path, [("user", "fix the gap"), DONE_FULLSCHEMA, CHALLENGE, own])
    assert action["title"].startswith("`FullSchema` must not create the table again")


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "The pack step failed. This is the issue I just fixed by removing the `--resource` flag",
            False,
        ),
        (
            "The pack step failed. This is the issue I just fixed by removing the `--resource` "
            "flag from `charmcraft pack`",
            True,
        ),
    ],
    ids=["option-alone", "with-command"],
)
def test_a_fix_naming_an_option_without_its_command_is_no_note(tmp_path, said, kept):
    turns = [("user", "why does the integration job fail?"), ("assistant", said)]
    assert len(_actions(tmp_path, turns)) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("said", "options"),
    [
        ("Remove the `--resource` flag", True),
        ("Pass `-w`, not `--write=false`", True),
        ("Use `./gradlew build --configuration-cache`", False),
        ("Pass `--frozen` to `uv sync`", False),
        ("Drop --resource from charm/pack.sh", False),  # a path named in prose
        ("Spinner output corrupted the go test -json stream", False),  # no code span
    ],
)
def test_options_only_reads_a_fix_whose_every_name_is_an_option(said, options):
    action = {"learning_type": "bug-fix", "title": said, "root_cause": "", "fix": said}
    assert note.options_only(action) == options
    assert not note.options_only({**action, "learning_type": "correction"})


STALE = (
    "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  Command failed\n"
    " WARN  Local package.json exists, but node_modules missing or out of date with the lockfile"
)
SAID = "The `node_modules` is out of sync with the lockfile, so pnpm refuses to run scripts."


@pytest.mark.parametrize(
    ("change", "kept"),
    [
        ("corepack pnpm install --frozen-lockfile", False),
        ("pnpm install", False),
        # a package named: which one is the lesson
        ("corepack pnpm add -D typescript@5.6.3", True),
    ],
    ids=["install-lockfile", "install", "add-named"],
)
def test_the_checkouts_declared_dependencies_installed_is_no_fix(tmp_path, change, kept):
    turns = [
        ("user", "run the typecheck"),
        *_run("c0", STALE, "corepack pnpm run typecheck", error=True),
        ("assistant", SAID),
        *_run("c1", "Done in 2.1s", change),
        *_run("c2", "Done in 4.2s", "corepack pnpm run typecheck"),
        ("assistant", "Done."),
    ]
    assert len(_linked_actions(tmp_path, turns)) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("command", "declared"),
    [
        ("corepack pnpm install --frozen-lockfile", True),
        ("npm ci", True),
        ("uv sync", True),
        ("bundle install --jobs 4", False),  # an option's value reads as an operand: kept
        ("go install golang.org/x/vuln/cmd/govulncheck@latest", False),
        ("pip install -r requirements-dev.txt", False),
        ("npm install lodash", False),
        ("cargo update", False),
    ],
)
def test_installs_declared_reads_an_install_that_names_nothing(command, declared):
    assert commands.installs_declared(command) == declared


HEADING_RED = "E   AssertionError: assert has_heading(report, 'Summary')\n=== 1 failed, 11 passed in 0.40s ==="
TEMPLATE_FIX = _edit("e1", "templates/report.md", "# Summary", "## Summary")


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("The test expects a `## Summary` heading. Let me update the template to match.", False),
        (
            "The test expects a `## Summary` heading, but the report template renders the summary "
            "as a level-one heading. Let me update the template to match.",
            True,
        ),
    ],
    ids=["expects-only", "and-why"],
)
def test_code_brought_in_line_with_what_a_test_expects_is_no_note(tmp_path, said, kept):
    """The tests go red to green across an edit of the template either way: a lesson only
    when the cause says why the code and the test differ."""
    actions = _linked_actions(tmp_path, _tests(said, TEMPLATE_FIX, red=HEADING_RED))
    assert len(actions) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        (
            "when i press d it deletes the row and the table correctly moves to the next one but "
            "the detail pane always goes back to showing me the first row",
            False,
        ),
        (
            "First, let's split the failures into flaky and real ones, since we must handle "
            "those differently",
            False,
        ),
        ("we should have an intro that explains how the numbers were measured", False),
        (
            "that is already listed as a known failure in the runbook but must have been missed",
            False,
        ),
        # the same shapes stating a rule for later
        ("the detail pane must always follow the selected row, never reset it on reload", True),
        ("Flaky tests must be quarantined, never retried in the same run", True),
    ],
    ids=["symptom", "step", "spec", "pointer", "rule", "rule-2"],
)
def test_a_persons_symptom_step_spec_or_pointer_is_no_rule(tmp_path, reply, kept):
    """The person's bug report, a step of the task, the specification of this session's work
    and a statement about a bare pointer speak of this task; a rule for later is kept."""
    done = ("assistant", "I reworked the table view: the rows now reload after every change.")
    actions = _actions(tmp_path, [("user", "fix the table view"), done, ("user", reply)])
    assert len(actions) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("title", "who", "kind", "dropped"),
    [
        ("## Sandbox Audit: Findings", "assistant", "bug-fix", True),
        ("## Context you must read first", "person", "correction", True),
        ("The LiveView process can't access the test sandbox", "assistant", "bug-fix", False),
        ("Never force-push to main", "person", "correction", False),
    ],
    ids=["assistant-heading", "person-heading", "stated", "rule"],
)
def test_a_heading_is_no_note_whoever_wrote_it(title, who, kind, dropped):
    """The writer's gate (``no_lesson``, which every path to a note passes): a markdown
    heading labels the section after it, and is no statement; the same note titled by a
    statement passes. (The held-apart-13 heading reached it through the person's go-ahead.)"""
    action = {
        "title": title,
        "root_cause": title if kind == "bug-fix" else "",
        "fix": "",
        "learning_type": kind,
        "body": f"Said by the {who}: “{title}”",
    }
    assert bool(note.no_lesson(action)) == dropped


@pytest.mark.parametrize(
    ("cause", "dropped"),
    [
        ("3 remaining failures are in the *integration* tests.", True),
        ("The 10 CI failures are now fixed.", True),
        ("3 remaining failures are in the e2e tests: the sandbox can't be shared", False),
        ("The LiveView process can't access the test sandbox", False),
    ],
    ids=["remaining", "fixed", "with-cause", "cause"],
)
def test_a_count_of_what_remains_is_no_cause(cause, dropped):
    """The writer's gate (``no_lesson``, which every path to a note passes): a progress report
    ("3 remaining failures are in ...", held-apart-14, read by a structural cause reader)
    counts how the work stands and names no cause; what goes wrong said with it passes."""
    action = {
        "title": cause,
        "root_cause": cause,
        "fix": "",
        "learning_type": "bug-fix",
        "body": f"Said by the assistant: “{cause}”",
    }
    assert bool(note.no_lesson(action)) == dropped


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("### 3. `refactor(cli): use one default_output_dir, stop defaulting to cwd`", False),
        # the same matter said as a rule for later
        ("Never default the output directory to the current directory", True),
    ],
    ids=["plan-step", "rule"],
)
def test_a_commit_title_of_the_persons_plan_is_no_rule(tmp_path, reply, kept):
    """A conventional-commit title or a numbered step of the person's plan names one change
    of this task (held-apart-14); a rule for later is kept."""
    done = ("assistant", "I reworked the table view: the rows now reload after every change.")
    actions = _actions(tmp_path, [("user", "fix the table view"), done, ("user", reply)])
    assert len(actions) == (1 if kept else 0)


@pytest.mark.parametrize(
    ("cause", "kept"),
    [("## Root Cause", ""), ("Keycloak puts role claims only in the ID token", "Keycloak")],
    ids=["heading", "sentence"],
)
def test_a_heading_is_never_a_fields_value(cause, kept):
    """A report's section heading a reader took for the cause ("## Root Cause", held-apart-14)
    labels what follows; the note keeps its other fields and no heading as a value."""
    action = note._action(
        title="The fix is to extract role claims from `idToken.Claims()` instead",
        rule="",
        quote="The fix is to extract role claims from `idToken.Claims()` instead.",
        before="",
        who="assistant",
        confidence=LOW,
        learning_type="bug-fix",
        category="general",
        cause=cause,
        fix="## Fix" if not kept else "Read them from `idToken.Claims()`.",
    )
    assert action["root_cause"].startswith(kept) and not action["root_cause"].startswith("#")
    assert bool(action["fix"]) == bool(kept)


_SHIM = (
    "assistant",
    "I recorded the shim in the dotfiles memory store rather than in ~/AGENTS.md, which "
    "chezmoi manages and rewrites on every apply.",
)


@pytest.mark.parametrize(
    "reply",
    [
        "Propagate. Don't let chezmoi overwrite this.",
        "Never do that again!",
        "ok, you must never touch them",
    ],
    ids=["chezmoi", "again", "them"],
)
def test_a_rule_whose_thing_is_only_a_pronoun_is_no_note(tmp_path, reply):
    """held-apart-25's "Don't let chezmoi overwrite this": what "this" is, only the
    assistant's turn says; the note's title cannot tell a teammate what to keep."""
    assert _actions(tmp_path, [("user", "where did the shim go?"), _SHIM, ("user", reply)]) == []


@pytest.mark.parametrize(
    ("reply", "title"),
    [
        # the demonstrative's thing named in the same sentence, or the thing named instead
        ("this flag breaks the build: never pass --fast", "Never pass --fast"),
        ("Don't let chezmoi overwrite `~/AGENTS.md`", "Don't let chezmoi overwrite `~/AGENTS.md`"),
        # a condition or a reason around the pronoun names it
        (
            "if the shim is only a symlink, don't let chezmoi overwrite it",
            "If the shim is only a symlink, don't let chezmoi overwrite it",
        ),
        # a short rule keeps the sentence before it, which names its thing
        ("The lock file is generated. Don't edit it.", "The lock file is generated; don't edit it"),
    ],
    ids=["same-sentence", "named", "condition", "sentence-before"],
)
def test_a_rule_naming_its_thing_is_still_a_note(tmp_path, reply, title):
    [action] = _actions(tmp_path, [("user", "where did the shim go?"), _SHIM, ("user", reply)])
    assert action["title"] == title


_REVIEWED = (
    "assistant",
    "The review ran; its findings are below. Want me to act on them?",
)
_FENCED_REVIEW = (
    "here's the review output:\n"
    "```\n"
    "## Recommendation\n"
    "1. Don't let the hooks stay in limbo. Either commit .githooks/ or unset core.hooksPath.\n"
    "Recommend: never --commit in post-rewrite (append-only ledger, or skip\n"
    "during rebase).\n"
    "```"
)
# held-apart-27 (flits-76f60b7a): another agent's recommendation, pasted as a 4-space block
_INDENTED_ADVICE = (
    "    Commit it now — pathspec-only, on a new branch. The work is done, verified, and\n"
    "    handed off; leaving it dirty just risks the next session tangling the two lanes.\n"
    "\n"
    "    Concretely:\n"
    "    git switch -c fix/issue-37-per-band-dt-min\n"
    "    git add scattering/scat_analysis/burstfit_joint.py tests/test_joint_prior_ordered.py\n"
    "    Never git add -A — galaxies/v2_0/*, analysis/burst_energies/, scratch/codetection/"
    " belong to the\n"
    "    other session."
)
# held-apart-27 (flits-ac2a9913): a `>` prompt of another agent's session, between box rules
_QUOTED_PROMPT = (
    "here's the output from one of the agents:\n"
    "────────────────────────────────────────────────────────────\n"
    "> Hence, setting the same upper limit on the impact parameter that is relevant for both"
    " is wrong.\n"
    "\n"
    "  Correct. Using a single DEFAULT_IMPACT_KPC = 100.0 in config.py is physically"
    " incorrect.\n"
    "────────────────────────────────────────────────────────────"
)
_HANDED_OFF = ("assistant", "The handoff is written to .agents/handoff-dt-min-per-band.md.")


@pytest.mark.parametrize(
    "pasted",
    [_FENCED_REVIEW, _INDENTED_ADVICE, _QUOTED_PROMPT],
    ids=["fenced", "indented", "quoted"],
)
def test_a_rule_inside_a_block_the_person_pasted_is_no_note(tmp_path, pasted):
    """held-apart-25's pasted `entire review` output (a fence), held-apart-27's agent advice
    (an indented block) and another agent's prompt (a block quote): their rules are the other
    writer's, not the person's words."""
    turns = [("user", "run the review"), _REVIEWED, ("user", pasted)]
    assert _actions(tmp_path, turns) == []


@pytest.mark.parametrize(
    "pasted",
    [_FENCED_REVIEW, _INDENTED_ADVICE, _QUOTED_PROMPT],
    ids=["fenced", "indented", "quoted"],
)
def test_a_rule_typed_after_a_pasted_block_is_still_a_note(tmp_path, pasted):
    typed = pasted + "\n\nNever pass `--commit` to entire_checkpoint.py from a git hook."
    actions = _actions(tmp_path, [("user", "run the review"), _HANDED_OFF, ("user", typed)])
    titles = [a["title"] for a in actions]
    assert titles == ["Never pass `--commit` to entire_checkpoint.py from a git hook"]


def test_an_indented_list_continuation_is_the_persons_own_words(tmp_path):
    """A list item's indented lines are the item's paragraph, not a code block."""
    typed = (
        "two things:\n"
        "- the tests first\n"
        "\n"
        "    Never pass `--commit` to entire_checkpoint.py from a git hook."
    )
    actions = _actions(tmp_path, [("user", "run the review"), _HANDED_OFF, ("user", typed)])
    titles = [a["title"] for a in actions]
    assert titles == ["Never pass `--commit` to entire_checkpoint.py from a git hook"]


def test_a_log_fenced_under_a_list_item_is_pasted(tmp_path):
    """A fence inside a list item is still a pasted block (CommonMark's blocks at any depth);
    the item's own words stay the person's."""
    typed = (
        "two things:\n"
        "- the reviewer said:\n"
        "  ```\n"
        "  Never pass `--commit` to entire_checkpoint.py from a git hook.\n"
        "  ```\n"
        "- Always run `make check` before pushing."
    )
    actions = _actions(tmp_path, [("user", "run the review"), _HANDED_OFF, ("user", typed)])
    titles = [a["title"] for a in actions]
    assert not any("entire_checkpoint" in t for t in titles), titles


def test_an_indented_line_running_on_a_paragraph_is_the_persons_own_words(tmp_path):
    """An indented line cannot interrupt a paragraph: it runs on the person's sentence."""
    typed = (
        "one more thing, and keep it:\n"
        "    Never pass `--commit` to entire_checkpoint.py from a git hook."
    )
    actions = _actions(tmp_path, [("user", "run the review"), _HANDED_OFF, ("user", typed)])
    assert [a["title"] for a in actions] == [
        "Never pass `--commit` to entire_checkpoint.py from a git hook"
    ]


def test_a_persons_rule_quoted_back_is_written_once_from_where_they_typed_it(tmp_path):
    """No judged note of the sets comes from a ``>`` line of the person's own: a rule they
    quote back is read where they first typed it, the quote adds nothing."""
    rule = "Never pass `--commit` to entire_checkpoint.py from a git hook."
    turns = [
        ("user", "run the review"),
        _HANDED_OFF,
        ("user", rule),
        ("assistant", "Understood, the hook no longer passes it."),
        ("user", f"> {rule}\n\nI said this already, check the hook again."),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert titles == ["Never pass `--commit` to entire_checkpoint.py from a git hook"]
