from __future__ import annotations

import pytest

from reflectgit.notes.signals import (
    HIGH,
    LOW,
    MEDIUM,
    Correction,
    categorize,
    classify,
    correction,
    detect,
    dialogue_lines,
    draws_a_limit,
    own_words,
    says_how_it_lands,
    scan,
)
from reflectgit.notes.transcripts import ASSISTANT, INJECTED, PERSON, Turn, parse_lines
from reflectgit.workflows.transcript_file import read_transcript
from tests.conftest import DATA, needs_shared


@pytest.mark.parametrize(
    ("line", "tier", "kind"),
    [
        ("No, don't use pip here.", HIGH, "correction"),
        ("No, use the staging database.", HIGH, "correction"),
        ("Use uv instead of pip.", HIGH, "correction"),
        ("You should have run the linter first", HIGH, "correction"),
        ("Stop using print for logging", HIGH, "correction"),
        ("Never push to main directly", HIGH, "prohibition"),
        ("don't produce code, design solution first", HIGH, "prohibition"),
        ("Please don't touch the lock file.", HIGH, "prohibition"),
        ("We must pin the version", HIGH, "requirement"),
        ("TODO is not acceptable, implementation must be full", HIGH, "requirement"),
        ("I already told you last week", HIGH, "frustration"),
        ("The rule is: one commit per change", HIGH, "explicit-rule"),
        ("only for this repo", HIGH, "explicit-rule"),
        ("The root cause was a stale cache", HIGH, "root-cause"),
        ("Fixed by pinning numpy", HIGH, "fix-confirmed"),
        ("We decided to go with WAL", HIGH, "decision"),
        ("Turns out the lock is exclusive", HIGH, "breakthrough"),
        ("Perfect, the retry helper is what I wanted", MEDIUM, "approval"),
        ("Great job on the retry helper", MEDIUM, "positive-feedback"),
        ("Keep doing it this way", MEDIUM, "continuation"),
        ("I spent 3 hours on this", MEDIUM, "time-investment"),
        ("That flag is undocumented", MEDIUM, "docs-vs-reality"),
        ("Make sure to export the PATH", MEDIUM, "env-gotcha"),
        ("Maybe try the other flag", LOW, "suggestion"),
        ("Interesting, the retry runs twice", LOW, "observation"),
        ("It seems like a race in the pool", LOW, "tentative"),
        ("That worked once the cache was cleared", LOW, "implicit-success"),
        ("I discovered a flag for this", LOW, "tool-discovery"),
        ("Spinner output should honor injected writers", LOW, "expected"),
    ],
)
def test_classify(line, tier, kind):
    assert classify(line) == (tier, kind)


# Issue 12.2: corrections with dotted, versioned and path-like names.
CORRECTIONS = [
    ("use python3.11 instead of python3.9", "correction"),
    ("use ./gradlew instead of gradle", "correction"),
    ("Use `./gradlew build --configuration-cache` instead of `gradle build`", "correction"),
    ("instead of setup.py, use pyproject.toml", "correction"),
    ("Instead of `gradle build`, use `./gradlew build --configuration-cache`", "correction"),
    ("try uv instead", "correction"),
    ("try `pnpm install --frozen-lockfile` instead", "correction"),
    ("No, use node@20.11 from .nvmrc", "correction"),
    ("the bug was the stale cache in src/cache.py", "root-cause"),
    ("the problem was that requests 2.32 dropped the old adapter", "root-cause"),
    ("The issue is `asyncpg.Pool` closing early", "root-cause"),
]
NOT_CORRECTIONS = [
    "No, don't worry, that's fine.",
    "What should have happened here?",
    "no problem, carry on",
    "I don't know what the test does",
    "I've never seen this error",
    "What's wrong with the build?",
    "the problem is now fixed",
    "Instead of guessing, can you print the path?",
    "We should look at the logs",
]


@pytest.mark.parametrize(("line", "kind"), CORRECTIONS, ids=[c[0][:40] for c in CORRECTIONS])
def test_corrections_with_dotted_versioned_and_path_names(line, kind):
    assert classify(line) == (HIGH, kind)


@pytest.mark.parametrize("line", NOT_CORRECTIONS)
def test_lines_that_look_like_corrections_stay_silent(line):
    assert classify(line) is None
    assert classify(line, follows_assistant=True) is None


# Issue 19.3: plain corrections right after an assistant turn, no signal word.
PLAIN = [
    "it's bad idea, since entire conversation will be processed every time",
    "not like this",
    "that's wrong, the config lives in pyproject",
    "it's not jsonl file, it is a plain log",
    "No.",
    "there is no need to track existing session, once /clear is found - complete it",
    "it's not valid to track all changes and gather under one session file.",
]
NOT_PLAIN = [
    "continue implementation",
    "create document in /specs folder",
    "what else?",
    "analyze history.jsonl. /clear command present there.",
    "no problem",
    "great, prepare focused step by step plan",
]


@pytest.mark.parametrize("line", PLAIN)
def test_plain_rejection_after_the_assistant_is_a_low_correction(line):
    assert classify(line, follows_assistant=True) == (LOW, "correction")
    # Not after an assistant turn (an opening prompt), it is no correction.
    assert classify(line) is None


@pytest.mark.parametrize("line", NOT_PLAIN)
def test_plain_replies_are_no_correction(line):
    assert classify(line, follows_assistant=True) is None


def test_a_rejection_that_states_a_rule_is_high():
    line = "that's wrong, always run the migrations first"
    assert classify(line, follows_assistant=True) == (HIGH, "requirement")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("The root cause was the missing index.", (MEDIUM, "root-cause")),
        ("Fixed by configuring propagators via the app environment.", (MEDIUM, "fix-confirmed")),
        ("Turns out the lock is exclusive.", (MEDIUM, "breakthrough")),
        ("You must never push to main.", None),
        ("Use uv instead of pip.", None),
        ("Perfect! Let me check the config.", None),
        ("I'll go with WAL mode.", (LOW, "decision")),
        ("So `f()` returns the context itself. That's the bug.", (MEDIUM, "root-cause")),
        ("Is that the bug? Let me check.", None),
        # a report's section per cause, the cause in its heading (issue 34, recall)
        ("### Bug 2 (HIGH): Missing `exec` import in load-test.js", (MEDIUM, "root-cause")),
        ("### Root Cause 1: `startDate` is hardcoded to today (Primary)", (MEDIUM, "root-cause")),
        # a heading that only labels what follows, or one that is no cause
        ("## Root Cause Analysis Complete", None),
        ("### Why the user sees Day 1 on Day 2", None),
        ("### INCONSISTENCY 1: the docs say the container has no network", None),
    ],
)
def test_the_assistant_carries_causes_and_fixes_at_medium_only(line, expected):
    assert classify(line, ASSISTANT) == expected


@pytest.mark.parametrize(
    "line",
    [
        "DO NOT respond to these messages or otherwise consider them in your response",
        "You must always use the skill. Never skip it.",
        "Fixed by configuring propagators via the app environment.",
    ],
)
def test_injected_text_carries_nothing(line):
    assert classify(line, INJECTED) is None


def test_dialogue_lines_leave_injected_text_out_and_mark_replies():
    turns = [
        Turn("user", "Caveat: DO NOT respond to these messages", 0, speaker=INJECTED),
        Turn("user", "set up the cache", 1),
        Turn("assistant", "I'll add a Redis cache.", 2),
        Turn("user", "it's a bad idea, since the box has no Redis", 3),
    ]
    lines = list(dialogue_lines(turns))
    assert lines[0].text == "set up the cache"
    assert [(x.speaker, x.follows_assistant) for x in lines] == [
        (PERSON, False),
        (ASSISTANT, False),
        (PERSON, True),
    ]
    found = detect(lines)
    assert [(s.line_index, s.tier, s.kind, s.speaker) for s in found] == [
        (2, LOW, "correction", PERSON)
    ]


def _document(sections: int, filler: int = 1200) -> str:
    body = "Some prose about the system. " * (filler // 29)
    return "".join(
        f"## Part {n}\n\n- Never auto-fix without confirmation.\n{body}\n\n"
        for n in range(sections)
    )


def test_a_document_pasted_into_a_turn_is_not_the_persons_words():
    pasted = "did we ever do this in a branch? " + _document(4)
    assert own_words(pasted) == "did we ever do this in a branch? "
    turns = [Turn("assistant", "Here is the plan.", 0), Turn("user", pasted, 1)]
    lines = list(dialogue_lines(turns))
    assert [x.text for x in lines] == ["Here is the plan.", "did we ever do this in a branch? "]
    assert detect(lines) == []


@pytest.mark.parametrize(
    "text",
    [
        "## Steps\n\nNever push to main.\n## Why\n\nCI runs there.\n## Then\n\nopen a PR",  # short
        "Never push to main. " + "It breaks the release train for everyone on the team. " * 80,
        "Never push to main.\n" + _document(2),  # two sections: a long message, not a document
    ],
)
def test_a_turn_that_is_no_pasted_document_is_read_whole(text):
    assert own_words(text) == text
    assert scan_text(text)  # its "Never push to main" is read as the person's


def scan_text(text: str):
    return detect(dialogue_lines([Turn("user", text, 0)]))


_SKILL = (
    "# Skill: Implement Token Refresh\n\n## What This Skill Does\n\nHelps a service rotate"
    " tokens.\n\n## Notes\n\n- Do not retry a refresh more than once.\n"
)


@pytest.mark.parametrize(
    ("text", "own"),
    [
        # a short document pasted after the person's question: its title glued to their line
        ("can we say that no auth is needed? " + _SKILL, "can we say that no auth is needed? "),
        ("yes. also " + _SKILL, "yes. also "),
        # a copied form: its labels in capitals on lines of their own, then its messages
        (
            "the registry says:\nREGISTER_AGENT\nSubmit your URI.\nAGENT_URI\nhttps://x.test/a"
            "\nMust end with /agent.json\nERROR\nNever mind the cache.",
            "the registry says:\n",
        ),
        # a program's error chain, or an exception named by its class, pasted on a line of its own
        (
            "Failed to load config: Config validation failed: Field 'port' must be a number.\n"
            "what does this mean?",
            "what does this mean?",
        ),
        ("it says\nerror: could not lock ref: File exists", "it says\n"),
        ("ValueError: port must never be negative\nhow come?", "how come?"),
    ],
)
def test_what_a_person_pastes_is_not_their_words(text, own):
    assert own_words(text) == own


@pytest.mark.parametrize(
    "text",
    [
        # the person's own short markdown list of rules
        "## Rules\n- Never push to main.\n- Always run ruff first.",
        # one heading of their own, on its own line, and sections: their structured message
        "Never push to main.\n# Why\n## CI\nit runs there",
        # a heading-like mark in mid-line that no section follows, or that starts no title
        "Never push to main # seriously",
        "never push while make test  # all\n## Why\nCI runs there",
        # a rule that quotes an error in the person's own sentence
        "when you see `Build failed: lockfile: out of date`, never push; run uv lock",
        "if you get Build failed: lockfile: out of date, never push and run uv lock",
        # "error" in the person's own words before a colon, not heading the line
        "On deploy error: roll back first: never hotfix on the box.",
        # a rule that starts "Must", and one word in capitals of the person's own
        "Must end every commit message with the ticket id, never push without it.",
        "NOTE\nNever push to main.",
    ],
)
def test_a_persons_own_structured_words_are_read_whole(text):
    assert own_words(text) == text
    assert scan_text(text)  # its rule is read as the person's


def test_a_pasted_error_is_no_signal_but_the_persons_line_is():
    pasted = "Failed to fetch card: Card validation failed: Field 'caps' must be an object."
    assert scan_text(pasted) == []
    [signal] = scan_text(pasted + "\nno, never publish a card without caps")
    assert signal.text == "no, never publish a card without caps"


def test_plain_lines_have_no_signal():
    for line in (
        "What files are in this directory?",
        "There is a README, a setup.cfg, and the src and tests folders.",
        "Thanks.",
        "No tests ran in this module.",
        "Know your tools",
    ):
        assert classify(line) is None, line


def test_highest_tier_wins_within_a_line():
    assert classify("Perfect, but never do that again")[0] == HIGH


def test_detect_reports_line_index_and_category():
    found = detect(["hello", "never store the password in the repo", "ok"])
    assert len(found) == 1
    assert found[0].line_index == 1 and found[0].category == "Security"
    assert categorize("nothing special here") == "Unknown"


@needs_shared
def test_scan_reads_dialogue_never_tool_output():
    t = read_transcript(DATA / "transcripts" / "claude" / "no-signal-0.jsonl")
    assert scan(t) == []
    lines = [
        '{"type":"user","message":{"role":"user","content":"list files"}}',
        '{"type":"user","message":{"role":"user","content":[{"type":"tool_result",'
        '"tool_use_id":"t","content":"error: never fixed by always wrong root cause"}]}}',
    ]
    assert scan(parse_lines(lines)) == []


def test_scan_never_reads_meta_or_caveats():
    lines = [
        '{"type":"user","isMeta":true,"message":{"role":"user","content":"You must never skip'
        ' this skill."}}',
        '{"type":"user","message":{"role":"user","content":"<local-command-caveat>Caveat: The '
        "messages below were generated by the user while running local commands. DO NOT respond"
        ' to these messages</local-command-caveat>"}}',
        '{"type":"user","message":{"role":"user","content":"never push to main"}}',
    ]
    found = scan(parse_lines(lines))
    assert [(s.text, s.speaker) for s in found] == [("never push to main", PERSON)]


def test_scan_ignores_private_spans_and_respects_the_cap():
    lines = [
        '{"type":"user","message":{"role":"user","content":"<private>never do X</private> hi"}}',
    ]
    assert scan(parse_lines(lines)) == []
    long = '{"type":"user","message":{"role":"user","content":"' + "a " * 400 + 'never"}}'
    t = parse_lines([long])
    assert scan(t, cap=100) == []
    assert scan(t)


@needs_shared
def test_big_transcript_signals_near_the_end_are_found():
    t = read_transcript(DATA / "transcripts" / "claude" / "big.jsonl")
    found = {(s.kind, s.speaker, s.tier) for s in scan(t)}
    # The assistant's "Turns out ..." is a cause at MEDIUM; its "Decided to go with" is LOW.
    assert ("breakthrough", ASSISTANT, MEDIUM) in found
    assert ("decision", ASSISTANT, LOW) in found


# Issue 34: the shapes of a correction the original tool's own cases hold, each with negatives.
STATED = [
    ("no python, use typescript", HIGH, "correction"),
    ("no classes — use functions", HIGH, "correction"),
    ("use pnpm, not npm", HIGH, "correction"),
    ("/etc/hosts is wrong, use 127.0.0.1 not localhost", HIGH, "correction"),
    ("actually npm, not pnpm", HIGH, "correction"),
    ("stop refactoring unrelated code", HIGH, "correction"),
    ("Now let's stop refactoring unrelated code, please.", HIGH, "correction"),
    ("leave the existing code alone", HIGH, "prohibition"),
    ("only change what I asked you to change", HIGH, "explicit-rule"),
    ("remember: keep answers short", HIGH, "explicit-rule"),
    ("you should use type hints", HIGH, "requirement"),
    ("I meant the other one", HIGH, "frustration"),
    ("Why did you break it again?", HIGH, "frustration"),
    ("non, utilise les fonctions async", HIGH, "correction"),
    ("нет, используй pnpm", HIGH, "correction"),
    ("mapじゃなくてforEachにして", HIGH, "correction"),
    ("それ間違ってる、型が違う", HIGH, "correction"),
    ("错了，这个逻辑有问题", HIGH, "correction"),
    ("아니, 그게 아니라 이거를 수정해", HIGH, "correction"),
    ("answer in english please", HIGH, "explicit-rule"),
    ("great, but there is existing logic for scanning history", HIGH, "correction"),
    ("we already have an existing helper for that", HIGH, "correction"),
    ("we don't control the payment gateway - it's a vendor service", HIGH, "correction"),
    ("keep in mind that the cache is per process", HIGH, "explicit-rule"),
    ("important not to commit changes until the final step", HIGH, "explicit-rule"),
    ("love it, keep the tables compact like that in future reports", MEDIUM, "approval"),
    ("Perfect, that's the GDU approach. Now I understand why it fails.", MEDIUM, "approval"),
]
NOT_STATED = [
    "нет, спасибо",
    "non, merci",
    "それは間違っていない",
    "没错了",
    "이것뿐만 아니라 저것도 좋아요",
    "これじゃない？",
    "write in the README what it does",
    "there is existing code that crashes when it starts",
    "we don't control it",
    "this is an important feature",
    "it was important to me",
    "I use vim, not sure why",
    "we use it not because it's fast",
    "the tests stop running when the db is down",
    "I'll leave you alone with the logs now",
    "it only changes the header",
    "do you remember what we did",
    "should we use uv here?",
    "What should have happened here?",
    "I meant to say thanks",
    "/loop use the artifact URL not the run URL",
    "/reflect --dry-run perfect! check the queue",
    "Perfect!",
    "excellent",
    "nailed it",
    "Perfect! Now let's add the new column",
    "Nailed it! Can you also update the README with the new flags?",
    "no it works now thanks",
    "no this looks good",
    "no you can go ahead",
    "no i think we're done for today",
    "maybe tabs?",
    "we need to add the column next",
]


@pytest.mark.parametrize(("line", "tier", "kind"), STATED, ids=[c[0][:40] for c in STATED])
def test_the_ways_people_state_a_rule(line, tier, kind):
    assert classify(line, follows_assistant=True) == (tier, kind)


@pytest.mark.parametrize("line", NOT_STATED)
def test_questions_reactions_slash_commands_and_reports_state_no_rule(line):
    assert classify(line, follows_assistant=True) is None


BARE_NO = [
    "no semicolons in this codebase",
    "no with venv",
    "no you got that wrong",
    "no bun use npm",
]
BENIGN_NO = ["no dialog appeared", "no results came back", "no changes were applied", "no idea"]


@pytest.mark.parametrize("line", BARE_NO)
def test_a_bare_no_refusing_a_thing_is_a_low_correction(line):
    assert classify(line, follows_assistant=True) == (LOW, "correction")


@pytest.mark.parametrize("line", BENIGN_NO)
def test_a_bare_no_that_reports_or_pleasantly_declines_is_none(line):
    assert classify(line, follows_assistant=True) is None


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (
            "use python3.11 instead of python3.9",
            Correction("correction", "python3.11", "python3.9"),
        ),
        ("no, use ./gradlew", Correction("correction", "./gradlew")),
        (
            "instead of setup.py, use pyproject.toml",
            Correction("correction", "pyproject.toml", "setup.py"),
        ),
        (
            "Stop doing that, use ruff check instead of make lint.",
            Correction("correction", "ruff check", "make lint"),
        ),
        (
            "use `./gradlew build` instead of `gradle build`.",
            Correction("correction", "./gradlew build", "gradle build"),
        ),
        ("use pnpm, not npm", Correction("correction", "pnpm", "npm")),
        ("try uv instead", Correction("correction", "uv")),
        ("don't edit setup.py.", Correction("prohibition")),
    ],
)
def test_a_correction_names_the_way_to_go_dotted_names_and_all(line, found):
    assert correction(line) == found


@pytest.mark.parametrize(
    "line",
    [
        "No, don't worry, that's fine.",
        "What should have happened here?",
        "Perfect, that worked!",
        "ok, what next?",
        "the build uses setup.py",
    ],
)
def test_reassurance_questions_and_reactions_are_no_correction(line):
    assert correction(line) is None


def test_a_hunch_may_be_asked_a_rule_may_not():
    asked = "scrolling in xterm.js still does not work (maybe because the outer page catches it)?"
    assert classify(asked) == (LOW, "suggestion")
    assert classify("should we always pin numpy here?") is None


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        # a question asked without its mark: the verb before its subject
        ("Is it implemented already I meant.", False),
        ("do we always run the migrations before the tests", False),
        ("Should we never push to main. I wonder", False),
        # statements and imperatives that open with the same words
        ("It is never safe to push to main directly.", True),
        ("Do not push to main directly.", True),
        ("Is it ok? Never push to main directly.", True),
    ],
)
def test_a_question_without_its_mark_states_no_rule(line, rule):
    assert (classify(line) is not None) == rule


def test_a_plain_rejection_is_a_lesson_only_when_it_says_more_than_no():
    assert correction("use python3.11 instead of python3.9").lesson
    assert correction("that's wrong, the config lives in pyproject.toml").lesson
    assert not correction("not like this").lesson
    assert not correction("no with venv").lesson


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("The test config is missing `secret_key_base`.", (LOW, "diagnosis")),
        ("The LiveView runs in a process that can't access the test sandbox.", (LOW, "diagnosis")),
        ("Need `lazy_html` as a test dependency.", (LOW, "diagnosis")),
        ("SQLite doesn't support ALTER COLUMN.", (LOW, "diagnosis")),
        ("The endpoint isn't configured for the test env.", (LOW, "diagnosis")),
        # its own doing, a question, a plan: no cause stated
        ("I can't access the folder from here.", None),
        ("Let me check what is missing.", None),
        ("Is the config missing `secret_key_base`?", None),
        ("Now add the tests for the new state behavior.", None),
    ],
)
def test_the_assistant_stating_a_cause_plainly_is_a_low_diagnosis(line, expected):
    assert classify(line, ASSISTANT) == expected
    assert classify(line, PERSON) != (LOW, "diagnosis")


# A request or a question to the assistant asks for work; its words are no rule, unless it asks
# for one that lasts.
@pytest.mark.parametrize(
    "line",
    [
        "can you review the change in this branch, I'm mostly concerned about branches where we "
        "use `git add` but don't change the local folder tree",
        "Help me diagnose, root cause analysis and solve: INFO: Started server process [57596]",
        "Can you diagnose, root cause analyze then plan a solution to these warnings and errors:",
        "could you run the tests, but don't touch the fixtures",
        "ok can you find the root cause of this and fix it",
    ],
)
def test_a_request_to_the_assistant_states_no_rule(line):
    assert classify(line, follows_assistant=True) is None


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("please always run the linter before pushing", "requirement"),
        ("can you always run `make lint` before you commit", "requirement"),
        ("could you never push to main from now on", "prohibition"),
        ("Please don't touch the lock file.", "prohibition"),
        ("The root cause is a stale cache in the pool.", "root-cause"),
        ("can you rerun it. Never push to `main` directly", "prohibition"),
    ],
)
def test_a_request_that_asks_for_a_lasting_rule_or_a_rule_beside_it_is_one(line, kind):
    assert classify(line, follows_assistant=True) == (HIGH, kind)


def test_the_problem_a_person_asks_about_is_no_root_cause_a_stated_one_is():
    asked = (
        "taking a step back: the issue was that the other dev ran a prompt and no auto-commit "
        "happened. can you double check if there is any issue in the code that would explain this?"
    )
    assert classify(asked, follows_assistant=True) is None
    stated = "the issue was that the cache key ignored the locale; put the locale in the key"
    assert classify(stated, follows_assistant=True) == (HIGH, "root-cause")


@pytest.mark.parametrize(
    "line",
    [
        "1. Unused variable stopHookCount at line 485 - incremented but never asserted",
        "the retry helper has never been called",
        "that branch was never merged",
    ],
)
def test_never_reporting_what_was_not_done_is_no_prohibition(line):
    assert classify(line, follows_assistant=True) is None


@pytest.mark.parametrize(
    "line",
    ["never use print for logging", "we never need the cache here", "never embed secrets in code"],
)
def test_never_before_what_to_do_is_a_prohibition(line):
    assert classify(line, follows_assistant=True) == (HIGH, "prohibition")


@pytest.mark.parametrize(
    "line",
    ["**Bottom line**: The fix is sound.", "The fix is correct regardless.", "the fix is in place"],
)
def test_a_verdict_on_a_fix_names_no_fix(line):
    assert classify(line, ASSISTANT) is None


@pytest.mark.parametrize(
    "line",
    [
        "The fix is to use `--diff-filter=A` instead of walking the tree.",
        "The fix is still the same: replace `getStagedFiles` with a git CLI call.",
        "The fix was simpler than it looked: pin `numpy<2`.",
    ],
)
def test_a_fix_said_is_a_fix(line):
    assert classify(line, ASSISTANT) == (MEDIUM, "fix-confirmed")


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (
            "ok, I think we should change that to not be strict, we don't want to play catch up "
            "and add new hook types constantly",
            (HIGH, "prohibition"),
        ),
        ("we don't want any network calls in the unit tests", (HIGH, "prohibition")),
        ("do we want to cache it?", None),
        ("we don't want to wait for CI?", None),
        ("I don't want to wait for the build", None),
    ],
)
def test_a_design_the_team_does_not_want_is_a_rule_a_question_or_a_wish_is_not(line, found):
    assert classify(line, follows_assistant=True) == found


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (
            "i don't want to open issues or prs directly or have you do it. let's design a "
            "write-up we can provide to each team.",
            (HIGH, "prohibition"),
        ),
        (
            "ok i don't want `cargo update`, remove that from release-plz in a new pr",
            (HIGH, "prohibition"),
        ),
        ("I don't want you to push to main.", (HIGH, "prohibition")),
        ("I don't want to wait for the build", None),
        ("I don't want it.", None),
        ("i don't want you to push?", None),
        ("I don't want to lose my progress, so take your time.", None),
    ],
)
def test_the_persons_refusal_of_what_the_assistant_does_is_a_rule_their_own_wish_is_not(
    line, found
):
    assert classify(line, follows_assistant=True) == found


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("You're right — that's unnecessary duplication.", (LOW, "concession")),
        ("Good point. If we fix ENT-242, GC pruning is harmless.", (LOW, "concession")),
        ("**Good catch** - the subtests only read shared state.", (LOW, "concession")),
        ("You're right to be skeptical. Looking at the evidence:", None),
        ("If you're right about the cache, the test should pass.", None),
        ("Good point about the cache; I kept it.", None),
    ],
)
def test_the_assistant_granting_a_point_is_a_low_concession(line, found):
    assert classify(line, ASSISTANT) == found
    assert classify(line, PERSON) != (LOW, "concession")


def test_the_actual_bug_found_is_a_breakthrough_a_file_found_is_not():
    assert classify("**Found the actual bug!**", ASSISTANT) == (MEDIUM, "breakthrough")
    assert classify("I found the actual file it reads.", ASSISTANT) is None


@pytest.mark.parametrize(
    ("line", "found"),
    [
        (
            "This should not be changed, only the `--local-dev` flag should install the wrapper",
            (HIGH, "prohibition"),
        ),
        ("migrations should not run at boot", (HIGH, "prohibition")),
        ("should this not be cached?", None),
        ("I should not have said that", (HIGH, "correction")),
    ],
)
def test_should_not_spelled_out_is_a_prohibition_as_shouldnt_is(line, found):
    assert classify(line, follows_assistant=True) == found


@pytest.mark.parametrize("line", ["it should be fine", "that should be it", "should I rerun it?"])
def test_a_should_that_states_no_behaviour_is_no_signal(line):
    assert classify(line) is None


@pytest.mark.parametrize(
    "line",
    [
        "you'll need to run the migrations in a transaction",
        "youll need to be on the vpn so the staging calls go through",
        "ok. You need to sign every commit",
        "Convention: every new module needs to have a docstring naming its owner.",
        "each handler needs to log its request id",
        "all fixtures need to clean up their temp folders",
    ],
)
def test_need_to_said_to_the_assistant_or_of_every_thing_is_a_requirement(line):
    assert classify(line, follows_assistant=True) == (HIGH, "requirement")


@pytest.mark.parametrize(
    "line",
    [
        "we need to fix the login bug",  # this task's next step
        "okay we need to commit both files first",
        "if you need to restart the server, do it",  # a hypothesis
        "you might need to restart it",
        "you'd need to check your profile on the website",
        "I need to be on main for the release",  # the speaker's own errand
        "you don't need to publish it",  # a negation
        "These .go files need to be formatted:",  # a report on one thing (pasted output)
        "do we need to run read-tree first?",  # a question
        "does every test need to clean up?",
        "can you check whether all jobs need to run?",  # a request
    ],
)
def test_need_to_as_a_step_a_hypothesis_or_a_question_is_no_requirement(line):
    assert classify(line, follows_assistant=True) != (HIGH, "requirement")


# A directive that draws its own limit (issue 34, recall): an imperative or "we should", with
# what it stops at or refuses. The negatives are the person's words for this task that the
# junk notes of ten sets were made of: a request, a question, a decline, a report, a spec of
# the deliverable, a joint next step, a pasted line.
@pytest.mark.parametrize(
    "line",
    [
        "* Add a README into the e2e dir with the detailed information instead of in the global README.",
        "Okay, you can comment on the issue for me. Do a proper explanation only of the things "
        "you know, not anything you cannot actually verify.",
        "I authenticated gh for you. **Do not use it with any repositories other than acme/api**",
        "Not sure it's obvious, but we should only run entire explain on unique commits.",
        "Make the AGENTS.md extremely concise since we only want the instruction and no explanation.",
        "ok, also commit the script but not the generated files.",
        "Write the migration rather than relying on synchronize.",
        "Keep the firewall, without the yolo mode.",
    ],
)
def test_a_directive_that_draws_its_limit_is_a_rule(line):
    assert draws_a_limit(line)
    assert classify(line, follows_assistant=True) == (HIGH, "explicit-rule")


@pytest.mark.parametrize(
    "line",
    [
        "Add a README to the e2e dir.",  # a request: this task's next step, no limit
        "can you add a README to the e2e dir instead of the global README?",  # asked
        "should we only run the e2e suite on linux?",  # a question
        "do you only run it on linux?",  # the verb's subject follows it: a question
        "no thanks, only that one for now",  # a decline
        "the e2e tests only fail on windows, not on linux",  # a report
        "It only logs the score but it's not updated in DB",  # a report
        "the README should only cover the e2e suite, not the unit tests",  # the deliverable
        "let's only fix the first finding for now, not the others",  # a joint next step
        "Let's pause, we can just change it without any wrapper script",
        "> Validate recorded digests instead of checking metadata presence.",  # pasted
        "Make it shorter, without the intro.",  # its object only points at this turn's thing
        "I'd like to commit the script but not the generated files.",  # a wish
    ],
)
def test_the_persons_words_for_this_task_draw_no_limit(line):
    assert not draws_a_limit(line)
    assert classify(line, follows_assistant=True) != (HIGH, "explicit-rule")


# A request that says how the work lands (issue 34, recall): the commit message's convention,
# the commits the work is split into, the pull request it goes through. Tune sets with the
# shape: held-apart-5, -8, -9, -14. The negatives are the junk's requests to commit or publish
# that say no way, a report of how something was published, and a question.
@pytest.mark.parametrize(
    "line",
    [
        "Commit these changes with conventional commit message",
        "yep, add the minimal fix in one commit, then test it in another commit.",
        "Raise clean pull requests for each change, using conventional commit titles.",
        "OK, now follow the workflow to get our changes merged, via PR, copilot fb etc.",
        "Squash the fixups in a single commit before you push.",
    ],
)
def test_a_request_that_says_how_the_work_lands_is_a_rule(line):
    assert says_how_it_lands(line)
    assert classify(line, follows_assistant=True) == (HIGH, "explicit-rule")


@pytest.mark.parametrize(
    "line",
    [
        "Commit and push, then do the agent-tools doctor.",  # a request saying no way
        "commit these changes",
        "i tried to publish via `bun release:manual` but got this error:",  # a report
        "The fix was committed in a separate commit last week.",  # a report
        "was this merged via the PR?",  # a question
        "can you commit it with a conventional commit message?",  # asked
        "Open the pull request page and copy the link.",  # no way of landing said
    ],
)
def test_a_request_to_commit_that_says_no_way_of_landing_is_no_rule(line):
    assert not says_how_it_lands(line) or "?" in line
    assert classify(line, follows_assistant=True) != (HIGH, "explicit-rule")
