"""What states a lesson for later and what speaks of this turn (notes/generality): each check
by sentence shape, with the shapes that must pass it."""

from __future__ import annotations

import pytest

from reflectgit.notes.generality import (
    a_step_of_this_task,
    about_this_turn,
    announces_a_cause,
    announces_what_follows,
    bare_list,
    counts_a_status,
    directs,
    directs_no_one,
    names_by_pointer,
    narrates_events,
    own_account,
    points_at_a_line,
    quotes_its_point,
    reasoning_only,
    recounts_the_exchange,
    reports_a_check,
    reports_a_symptom,
    specifies_the_deliverable,
    sums_up,
    titles_this_tasks_work,
    without_summary,
)
from reflectgit.notes.memoryfiles import is_heading


@pytest.mark.parametrize(
    ("said", "points"),
    [
        ("docs/setup.md:40 reads as a guess, not a measured figure", True),
        ("The check in src/loader.py:118:5 swallows the error", True),
        ("The retry loop at line 88 never backs off", True),
        ("Lines 3 and 4 of the config repeat the default", True),
        # a host's port, a version, a time: no line of a file
        ("Serve the API on http://localhost.dev:8080 in every environment", False),
        ("Pin the image to python:3.12 in every Dockerfile", False),
        ("Never run migrations at 10:30 during office hours", False),
        ("Keep each line of a commit subject under 72 characters", False),
    ],
)
def test_a_rule_pointing_at_a_line_is_about_this_turns_output(said, points):
    assert points_at_a_line(said) == points
    assert bool(about_this_turn(said)) == points


@pytest.mark.parametrize(
    ("said", "recounts"),
    [
        ("I never asked you to delete the fixtures", True),
        ("I did not ask you to rename the module.", True),
        ("I didn't ask you to squash the commits", True),
        ("I didn’t want you to reformat every file", True),
        ("You removed the wrong fixture", True),
        ("Your script dropped the header row", True),
        ("Your reviewer never wrote that claim down", True),
        # a rule for later, addressed to the assistant: present, future or imperative
        ("Next time you edit the schema, let me run the migration", False),
        ("You should ask before you delete fixtures", False),
        ("Never delete fixtures you did not create", False),
        ("Don't undo my changes.", False),
        # an instruction reported as given restates its rule
        ("I told you to use pnpm, not npm.", False),
        ("What I asked for was one commit per fix", False),
        # past, but not this exchange: nobody addressed
        ("We decided to drop Python 3.8 last year", False),
        ("The cache was rebuilt on every run", False),
        # the past only inside what is quoted
        ("You keep writing “I fixed it” before the tests ran", False),
    ],
)
def test_a_rule_recounting_this_exchange_is_about_this_turn(said, recounts):
    assert recounts_the_exchange(said) == recounts
    assert bool(about_this_turn(said)) == recounts


@pytest.mark.parametrize(
    ("said", "directing"),
    [
        ("Never push to main", True),
        ("Tests must not hit the network", True),
        ("The config lives in ~/.x — always edit that one", True),
        ("Use X, it never fails", True),
        ("Please keep the changelog in order", True),
        ("We prefer small commits over one big one", True),
        ("Make sure the fixtures are rebuilt first", True),
        # a team's habit in the present with always: its convention, said to a newcomer
        ("We always run the linter before commit", True),
        # never/always governing what something else does directs no one
        ("The loader will never see the file", False),
        ("The cache is always rebuilt on start", False),
        ("It turns out the cache is stale", False),
        # a directive only inside what is quoted is not the speaker's
        ("The banner reads `never push to main`", False),
    ],
)
def test_a_sentence_directs_by_obligation_request_habit_or_imperative(said, directing):
    assert directs(said) == directing


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        # where a thing is now, with nothing said to do about it
        ("The fixture lives at `tests/data/a.json` and the loader will never see it", "where"),
        ("The generated schema sits in build/out — nothing reads it", "where"),
        ("The token is stored under ~/.cache/tool", "where"),
        # a directive bound to a pronoun nothing before it names
        ("It shouldn't resolve anything", "pronoun"),
        ("The only thing they must do is send the header", "pronoun"),
        ("What it needs to do is retry once", "pronoun"),
        # rules: a directive clause, a convention of where things go, a named party
        ("The config lives in ~/.x — always edit that one", ""),
        ("The fixture lives in tests/data, so never write there from a test", ""),
        ("Design documents go in the /specs folder", ""),
        ("Never push to main", ""),
        ("Tests must not hit the network", ""),
        ("Use X, it never fails", ""),
        ("We always run the linter before commit", ""),
        ("It should not be changed; only the `--dev` flag should install the wrapper", ""),
        ("The client must retry once it times out", ""),
        # no directive and no place: a fact the person states stays (its kind is judged elsewhere)
        ("The test folder is not deployed on the server", ""),
        ("It turns out the cache is stale", ""),
        ("They fail when the network is down", ""),
    ],
)
def test_a_rule_that_directs_no_one_is_about_this_turn(said, reason):
    why = directs_no_one(said)
    assert (
        "where a thing is" in why
        if reason == "where"
        else "pronoun" in why
        if reason == "pronoun"
        else why == ""
    )
    assert bool(about_this_turn(said)) == bool(reason)


@pytest.mark.parametrize(
    ("said", "summing"),
    [
        ("Overall: the race is real but rare", True),
        ("**In short**, the retry hides the timeout", True),
        ("TL;DR: keep the lock", True),
        ("Verdict - worth merging", True),
        ("Root cause: the loader reads the host config", False),
        ("The issue: the pool is shared with request handlers", False),
        ("Overall latency doubles when the pool is shared", False),  # a noun, not the label
    ],
)
def test_a_summary_label_sums_up_the_assistants_reasoning(said, summing):
    assert sums_up(said) == summing
    assert bool(own_account(said)) == summing


def test_without_summary_keeps_what_the_label_sums_up():
    assert without_summary("**In short**: use the CLI for staging") == "use the CLI for staging"
    assert without_summary("Use the CLI for staging") == "Use the CLI for staging"


@pytest.mark.parametrize(
    ("said", "own"),
    [
        ("The loader is fine, so I'm moving the check into setup", True),
        ("I'd keep the buffered channel anyway", True),
        ("That leaves my stub unused", True),
        # the code's own actors: we, I/O, a name with "my" in it
        ("We call flush before the header is written", False),
        ("The I/O thread blocks on a full pipe", False),
        ("oh-my-zsh rewrites PROMPT after the theme loads", False),
        ("The loader reads the host config at init time", False),
    ],
)
def test_a_cause_in_the_first_person_tells_the_assistants_own_doing(said, own):
    assert bool(own_account(said)) == own


@pytest.mark.parametrize(
    ("said", "names_nothing"),
    [
        ("Its portable path has to be asked of the tool itself", True),
        ("Their cache is keyed by the URL alone", True),
        ("**Its** default port clashes with the proxy", True),
        # a pronoun that is the subject, or a name that opens with the letters
        ("It turns out the loader reads the host config at init time", False),
        ("They fail when the pool is empty", False),
        ("Itsdangerous signs the cookie with the old key", False),
        ("`its` is the name of the Go module's test helper package", False),
        ("The tool's portable path has to be asked of the tool itself", False),
    ],
)
def test_a_cause_naming_its_subject_by_a_possessive_alone_names_nothing(said, names_nothing):
    assert bool(own_account(said)) == names_nothing
    # a fix is said of what the note's title already names ("its" may be the code's own)
    assert own_account(said, cause=False) == ""


def test_a_fix_may_be_said_in_the_first_person():
    # a note titled by its fix alone: the fix is the assistant's own doing, and may say so
    assert own_account("Remove my stale handler for the toggle event", cause=False) == ""
    assert own_account("Remove my stale handler for the toggle event") != ""


@pytest.mark.parametrize(
    ("said", "own"),
    [
        ("The patch is small but it covers both paths", True),
        ("This change will keep the old header", True),
        ("My fixes are in the two adapters", True),
        ("The change to the parser in v2 drops trailing commas", False),
        ("The fixture changed the clock, so the token expired", False),
    ],
)
def test_a_cause_that_says_what_the_change_is_is_no_mechanism(said, own):
    assert bool(own_account(said)) == own
    assert own_account(said, cause=False) == ""  # a fix may say what the change is


@pytest.mark.parametrize(
    ("said", "planned"),
    [
        ("One test will check the parser directly, and one older test will be updated", True),
        ("A second commit will add the regression test", True),
        ("The new integration tests would cover the retry path", True),
        ("Each check is going to run before the upload", True),
        ("The build will fail whenever the cache sits inside the module tree", False),
        ("The retry test fails because the clock is frozen", False),
        ("Tests will flake while the fixture shares one port", False),  # no verb of work
        ("The tests will fail whenever the fixture shares one port", False),
    ],
)
def test_a_cause_that_plans_the_assistants_work_is_no_mechanism(said, planned):
    assert bool(own_account(said)) == planned
    assert own_account(said, cause=False) == ""  # a fix may say what is to be done


@pytest.mark.parametrize(
    ("rule", "points"),
    [
        ("Delete the dir, don't archive", True),
        ("Don't archive, delete the folder", True),
        ("Do not delete it", True),
        # no object, or an object that names which
        ("Never force-push", False),
        ("Always rebase before merging", False),
        ("Delete the finished OpenSpec change folder, don't archive it", False),
        ("Never edit the lockfile", False),
        ("never push to main", False),
    ],
)
def test_a_rule_whose_object_only_points_at_a_thing_of_this_turn_names_nothing(rule, points):
    assert bool(directs_no_one(rule)) == points


@pytest.mark.parametrize(
    ("said", "reported"),
    [
        ("Pulled latest `origin/main` at `c6b258868` and built `mise 2026.7.5-DEBUG`", True),
        ("Restarted the daemon and collected the two failures", True),
        ("**Updated** the lockfile and pushed the branch", True),
        # a participle before a preposition, a sentence going on in the present, a subject
        ("Caused by the retry loop reusing one connection", False),
        ("Introduced in v2, the flag is ignored by the old parser", False),
        ("Removed keys are still read from the cache until it expires", False),
        ("The loader pulled the host's config at init time", False),
        ("Pinned versions break when the registry drops a tag", False),
        ("`enqueue_report` published the job before the upload committed", False),
    ],
)
def test_a_cause_that_reports_the_assistants_steps_without_a_subject_is_no_mechanism(
    said, reported
):
    assert bool(own_account(said)) == reported
    assert own_account(said, cause=False) == ""  # a fix titled by what was done stays one


@pytest.mark.parametrize(
    ("said", "listed"),
    [
        ("Broken modules: `core`, `cli/run`, and `plugins/git`", True),
        ("Failing suites: api, worker (timeouts), ui", True),
        (
            "Root cause: the pool is shared, the queue is unbounded, and the retry never stops",
            False,
        ),
        ("The root cause: `quote` emits `$'...'`, which the old shell reads literally", False),
        ("Missing: `name`, `description`", False),  # two names: too few to be a list
        ("The suites `api`, `worker` and `ui` share one database", False),  # no label
    ],
)
def test_a_list_of_what_failed_says_no_why(said, listed):
    assert bare_list(said) == listed
    assert bool(own_account(said)) == listed


@pytest.mark.parametrize(
    ("said", "placed"),
    [
        ("App selection now lives solely in the normalized token request", True),
        ("The retry helper lives in `net/retry.py`", True),
        ("The parsed rules are stored under ~/.cache/tool", True),
        # where a thing is, with what goes wrong or why: a cause
        ("The config is stored in ~/.x, so the container never sees it", False),
        ("The fixture sits in tests/data, which the loader does not scan", False),
        ("The cache lives in /tmp and is wiped when the runner restarts", False),
        ("The loader reads the host config at init time", False),
    ],
)
def test_a_cause_that_reports_where_a_thing_is_now_is_no_mechanism(said, placed):
    assert bool(own_account(said)) == placed
    assert ("where a thing is now" in own_account(said)) == placed
    assert own_account(said, cause=False) == ""  # a fix may say where a thing is to go


@pytest.mark.parametrize(
    ("said", "running"),
    [
        ("The check suite is still running rather than failing: completed jobs are green", True),
        ("CI jobs are pending on the Windows runners", True),
        ("The nightly build is in progress", True),
        # how a run behaves, or a run still going with a reason: a cause
        ("The health check is running too quickly: it waits only 3 seconds", False),
        ("The deploy job is still running when the next one starts, so they race", False),
        ("The build fails because the cache is stale", False),
    ],
)
def test_a_cause_that_reports_a_run_not_finished_is_no_mechanism(said, running):
    assert ("not finished" in own_account(said)) == running


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        ("PR [#10949](https://github.com/jdx/mise/pull/10949) fixes DMG extraction", True),
        ("PR #12 adds the retry to the uploader", True),
        ("Commit 1a2b3c4d also resolves the flaky port test", True),
        ("[#88](https://example.com/pull/88) bumps the base image", True),
        # a numbered change that broke something, or no number: not a summary of one
        ("PR #12 broke the uploader because it drops the header", False),
        ("The change to the parser in v2 drops trailing commas", False),
        ("Version 1.2.3 fixes nothing for ARM builds", False),
    ],
)
def test_a_cause_that_says_what_a_numbered_change_does_is_no_mechanism(said, summary):
    assert ("what a change does" in own_account(said)) == summary


@pytest.mark.parametrize(
    ("said", "wish"),
    [
        ("What i meant was when i finally release this, i want low friction for updates", True),
        ("I'd like the report to list every sensor", True),
        ("I would like a table with the links", True),
        # a rule said as what anyone is to do, a team's will, or for every time
        ("I want the tests always run with -race", False),
        ("From now on I'd like a changelog entry in every PR", False),
        ("We want the CLI to stay dependency-free", False),
        ("I want it simple, so use the standard library only", False),
        ("You should use pnpm, I want one lockfile", False),
        ("I don't want mocks in the integration tests", False),
    ],
)
def test_a_persons_own_wish_for_the_task_directs_no_one(said, wish):
    assert ("wants from this task" in directs_no_one(said)) == wish
    assert bool(about_this_turn(said)) == wish


def test_a_hash_names_a_change_only_after_its_kind():
    assert own_account("Commit 1a2b3c4 adds the retry to the uploader")
    assert own_account("Defaced adds nothing to the uploader") == ""  # a word of hex letters


@pytest.mark.parametrize(
    ("said", "reasoning"),
    [
        ("Do not make assumptions", True),
        ("do not assume any details.", True),
        ("Don't guess", True),
        ("Please be careful", True),
        ("Don't guess, be thorough", True),
        ("Stop overthinking", True),
        # a manner of working with an object is an act on the project
        ("Don't rush releases", False),
        ("Never overcomplicate the public API", False),
        # a thing named, a belief said, what to do instead, an act on the project
        ("Never assume `tz` is set", False),
        ("Never assume UTC", False),
        ("Don't assume the cache is per host", False),
        ("Do not guess, read the schema first", False),
        ("Never force-push", False),
        ("Never make draft prs", False),
        ("Check the existing implementation first; don't overcomplicate", False),
    ],
)
def test_a_directive_on_how_to_reason_naming_nothing_directs_no_one(said, reasoning):
    assert reasoning_only(said) == reasoning
    assert ("how to reason" in directs_no_one(said)) == reasoning
    assert ("how to reason" in about_this_turn(said)) == reasoning


@pytest.mark.parametrize(
    ("said", "announces"),
    [
        ("## prowl.world: 47/100 — most of it is one root cause.", True),
        ("That's the real issue", True),
        ("Found the culprit!", True),
        ("I found the bug.", True),
        ("All of it comes down to one bug", True),
        # the cause named as the subject, or said after the announcement
        ("The stale cache is the root cause", False),
        ("It is the root cause of the timeout", False),
        ("This is a bug in the parser's escape handling", False),
        ("There are two issues: the cache is per process and the key has no tenant", False),
        # a demonstrative after a clause points back at it: that clause is the cause
        ("**GC prunes loose objects the worktree index depends on** — this is the bug.", False),
        ("`overflow-x-hidden` on the root div blocks scrolling — that was the culprit", False),
    ],
)
def test_a_cause_that_only_says_there_is_one_is_no_mechanism(said, announces):
    assert announces_a_cause(said) == announces
    # (said in the first person, or as a step reported, another check names it first)
    assert bool(own_account(said)) == announces


@pytest.mark.parametrize(
    ("said", "quoted"),
    [
        (
            'Re-reading the spec, it has a path: *"If OAuth metadata is not available, keep '
            '`/auth.md` self-contained and list the supported methods."*',
            True,
        ),
        ("The README says “never run the migrations by hand on a replica”", True),
        # a quoted term or name in the speaker's own sentence; a code span is a name
        ('"checkpoints" is internal jargon', False),
        ('Apple will ask the user for "permission" before sending mail', False),
        ("Set `retry_on_timeout: true and max_retries: 3 in the worker config` there", False),
        ('The spec says "keep it short", so the title is cut at 72 characters', False),
    ],
)
def test_a_statement_that_is_mostly_a_quotation_quotes_its_point(said, quoted):
    assert quotes_its_point(said) == quoted


@pytest.mark.parametrize(
    ("said", "symptom"),
    [
        ("when i click save the dialog closes but the list always shows me the old name", True),
        ("If I reload the page I still see the spinner", True),
        ("when i run the suite it passes but the report is empty again", True),
        ("Nope I don't see it in the sidebar", True),
        ("it keeps showing me yesterday's totals after the sync", True),
        # a fact of a tool in the third person; a condition on the person that directs
        ("Hitting /clear always creates the file in the same directory", False),
        ("When I ask for a review, list the findings by severity", False),
        ("If I push to main, you should rerun the release job", False),
        ("I see we missed the changelog again - can we add a check to the release notes", False),
    ],
)
def test_a_persons_report_of_what_they_did_and_saw_is_a_symptom(said, symptom):
    assert reports_a_symptom(said) == symptom
    assert bool(about_this_turn(said)) == symptom


@pytest.mark.parametrize(
    ("said", "step"),
    [
        ("First, let's check which endpoints are public, because those need a review", True),
        ("then we'll sort the results by date", True),
        ("Now let's design the migration together", True),
        ("To start with, I'll read the config loader", True),
        # said for later: a standing word, or no step of a plan
        ("First, let's always run the linter before a commit", False),
        ("Next time you change the schema, let me run the migration", False),
        ("Let's keep migrations idempotent with IF NOT EXISTS", False),
    ],
)
def test_a_step_of_the_task_at_hand_is_no_rule(said, step):
    assert a_step_of_this_task(said) == step
    assert bool(about_this_turn(said)) == step


@pytest.mark.parametrize(
    ("said", "spec"),
    [
        ("we should have an intro that explains where the data came from", True),
        ("You should include a table of the sensors with their locations", True),
        ("There should be a summary at the top of the report", True),
        # what every such thing has, a standing rule, an act with no thing to have
        ("We should have a regression test for every bug we fix", False),
        ("From now on you should include a changelog entry with the change", False),
        ("Every `@Entity()` must have a `CREATE TABLE` migration", False),
        ("We should not inline prompts", False),
    ],
)
def test_the_specification_of_this_tasks_work_is_no_rule(said, spec):
    assert specifies_the_deliverable(said) == spec
    assert bool(about_this_turn(said)) == spec


@pytest.mark.parametrize(
    ("said", "pointer"),
    [
        ("That is already listed as a known issue in the runbook but must have been missed", True),
        ("this was reported upstream last week", True),
        ("It's wrong again", True),
        # a pointer that directs, a pointer with the thing named in a span, a named subject
        ("This should not be changed, only the `--dev` flag should install the wrapper", False),
        ("That's the `$'...'` quoting: use plain single quotes", False),
        ("Modern ops always sets relation.app", False),
        ("it's not a jsonl file, it is the plain text log the CLI writes on exit", False),
    ],
)
def test_a_statement_about_a_bare_pointer_names_nothing(said, pointer):
    assert names_by_pointer(said) == pointer
    assert bool(about_this_turn(said)) == pointer


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("## Phase 3 Audit: Findings", True),
        ("# Release checklist", True),
        ("### Root Cause 1: the clock is read at import time", True),
        ("#42 broke the build", False),
        ("The `#` in the URL starts its fragment", False),
    ],
)
def test_a_markdown_heading_is_structure(line, heading):
    assert is_heading(line) == heading


@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("3 remaining failures are in the *integration* tests.", True),
        ("The 10 CI failures are now fixed.", True),
        ("All 12 tests pass now", True),
        ("2 errors left in `parser.py`", True),
        # a count with what goes wrong and why, or a cause with no count at all
        ("2 tests fail because the fixture is read before the database starts", False),
        ("3 tests fail when the cache is cold", False),
        ("3 remaining failures are in the e2e tests: the sandbox can't be shared", False),
        ("Both remaining failures are GPG-signing related.", False),
        ("All renderer tests pass, but the LiveView tests need the Endpoint configured", False),
        ("The integration tests share one database, so the third run sees stale rows", False),
        # a share of a run counts its checks itself (held-apart: "10 of 12 pass now")
        ("10 of 12 pass now", True),
        ("17/17 passing", True),
        ("2 of 3 fail when the cache is cold", False),
        ("Both pass the token through unchanged", False),  # no share: what both do
    ],
)
def test_a_count_of_what_remains_or_is_fixed_is_a_status(said, status):
    assert counts_a_status(said) == status
    assert bool(own_account(said)) == status


@pytest.mark.parametrize(
    ("said", "check"),
    [
        # held-apart-10 (nomos, read once CI monitor events are the harness's): the verdict of
        # the check that reproduced CI's condition, taken as the cause found
        ("A depth-1 clone where `5c66bc7` genuinely doesn't exist — all 17 tests pass.", True),
        # held-apart-10 (wakil): a caveat, then the verdict
        ("`ty` isn't available in this environment, but ruff is clean and all 463 tests pass.", True),
        # held-apart-12, -13, held-apart: a report of what was pushed or run, then the verdict
        ("Pushed to **[PR #5](https://example.invalid/pull/5)** — 170 tests pass.", True),
        ("Background task completed successfully — all 15 SessionLive tests pass.", True),
        ("The fixture is rebuilt per test, and 17/17 passing", True),
        ("⚠️ **Tests**: 8/15 passing", True),  # held-apart-8: a label, then the verdict
        # a cause that names a check, with why; a verdict that leads on; a count that fails
        ("The tests fail because the fixture reads the DB before it starts", False),
        ("CI's depth-1 clone lacks `5c66bc7`, so `commit_is_ancestor` returns `None`", False),
        ("The test passed (vitest reports `1 passed`), but the agent reported `success: false` "
         "because it couldn't find the context", False),
        ("The cache is cold on CI — 2 tests fail", False),
        ("All renderer tests pass, but the LiveView tests need the Endpoint configured", False),
        ("`ruff` isn't on PATH directly — needs `uv run`", False),
    ],
)  # fmt: skip
def test_a_cause_that_ends_in_a_checks_verdict_reports_the_check(said, check):
    assert reports_a_check(said) == check
    assert bool(own_account(said)) == check


@pytest.mark.parametrize(
    ("said", "work"),
    [
        ("`refactor(cli): use consolidated default_output_dir, stop defaulting to cwd`", True),
        ("feat: add the export button to the report page", True),
        ("fix(parser)!: reject empty keys", True),
        ("Step 3: move the resolver into output.py", True),
        ("### 3. Move the resolver into output.py", True),
        # how to title every commit, a rule that names a number, a rule with a colon
        ("Use `fix:` for bug fixes and `feat:` for features in every commit title", False),
        ("Never run more than 2 test workers on CI", False),
        ("Note: never upload to PyPI by hand", False),
        ("Fix: check `dmesg | grep seccomp` for the blocked syscall, add it to the profile", False),
    ],
)
def test_a_commit_title_or_a_plans_step_is_this_tasks_work(said, work):
    assert titles_this_tasks_work(said) == work
    assert bool(about_this_turn(said)) == work


@pytest.mark.parametrize(
    ("said", "history"),
    [
        # every clause with a verb an act of the session's people in the past, or of the
        # narrator with its "I" left out; nothing that holds now, no reason, no fault
        ("Someone hardened `_markdown_wanted` with proper q-value handling meanwhile.", True),
        ("The other dev checked out this repo, did run a claude prompt in another repo", True),
        ("Pulled latest `origin/main` at `c6b258868` and built `mise 2026.7.5-DEBUG`", True),
        ("We merged the branch yesterday and the reviewer approved it", True),
        # a past with a reason or a fault, a state, the present, what to do: a mechanism
        ("The processor used the default pool, which FastAPI's sync handlers share", False),
        ("The plan wrote `seccomp:./docker/x.json` — the bug was in the plan", False),
        ("The upload published the event, but the file wasn't there yet", False),
        ("The index was stale after the rebase", False),
        ("The fix was switching from the styled `TreeView` to Ark UI's unstyled one", False),
        ("`sobrietyStartDate` is hardcoded to today", False),
        ("`isFirstTime` uses `||` instead of `&&`", False),
        ("The loader reads the config cached at startup", False),
        ("Unused import `Components` in the session template", False),
        ("Use the expected marker from the hook", False),
        ("The migration added the column without a default", False),
        ("The default `ThreadPoolExecutor` has a limited number of workers", False),
        # a tool, a command, a release or the code acting in the past: what it does
        ("Npm install rewrote package-lock.json with newer transitive versions", False),
        ("punt-tts 0.8.x introduced `VoiceNotFoundError` and switched to `.stream()`", False),
        ("`ReadCommitted`'s signature changed from one result type to another", False),
        # a run or a piece of work as the subject is left to the other checks
        ("the fix cycle converged", False),
    ],
)
def test_a_history_of_the_session_is_no_cause(said, history):
    assert narrates_events(said) == history


@pytest.mark.parametrize(
    ("sentence", "announces"),
    [
        ("Every document must begin with the following front matter block:.", True),
        ("Every document must begin with the following front matter block", True),
        ("The design must satisfy these", True),
        ("Configure the runner as follows", True),
        ("Add the lines below.", True),
        ("**The fix involves:**", True),
        # useful notes' titles and rules: they say what they announce
        ("Use table-driven tests for these test cases", False),
        ("The fix: pin the version.", False),
        ("Use `a:b` as the key.", False),
        ("Run the prettier formatter on the README before committing it", False),
        (
            "PR #10 fixes DMG extraction following `/Applications` symlinks",
            False,
        ),
        ("Fold the items of `these:`", False),  # the colon is inside a code span
        ("", False),
    ],
)
def test_a_sentence_that_leads_in_to_what_follows(sentence, announces):
    assert announces_what_follows(sentence) == announces
