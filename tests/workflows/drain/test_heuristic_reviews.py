"""A code review's finding, fixed and then validated (issue 34): a finding of the assistant's
own review (a Codex "[P1]" item naming a file at a line) or one the person pastes (Codex
Desktop's diff comments) gives one root-cause note when the assistant's edits then touch the
file it names and what it says, and a test run after them passes. Each case is a Claude Code
transcript in tmp_path run through the real cascade and ``heuristic.write``; every shape has
its negatives (left unfixed, fixed but the run stays red, refuted, turned down, not a
finding)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.notes import reviews
from reflectgit.notes.commandruns import commands_run
from reflectgit.notes.signals import REVIEW as REVIEW_SIGNAL
from reflectgit.workflows.drain import cascade, heuristic
from reflectgit.workflows.drain.heuristic.findings import review_findings
from reflectgit.workflows.transcript_file import read_transcript
from tests.support.dialogue import session_file, tool_call

GREEN = "ok  \tgithub.com/entireio/entire-graph/internal/sem\t1.163s\n"
RED = (
    "--- FAIL: TestTypeReferenceQualifiedImport (0.01s)\n"
    "FAIL\tgithub.com/entireio/entire-graph/internal/sem\t0.412s\nFAIL\n"
)

# The assistant's review (held-apart-23, entire-graph trail 7), its first two findings.
REVIEW = (
    "I would not merge trail 7 as-is. I found two correctness issues in commit `c9c1515`.\n\n"
    "1. **[P1] Qualified imported types can still bind to the wrong local type.**  \n"
    "   [provider.go:7934](/Users/t/entire-graph/internal/sem/provider.go:7934) looks up "
    "imports using the bare type name. For `*cfg.Config`, Go imports are keyed by `cfg`, while "
    "type extraction supplies `Config`. The import tier is therefore skipped and the "
    "same-directory fallback can select an unrelated `app.Config`. Preserve the qualifier "
    "during type extraction or otherwise map qualified references through their package "
    "binding before any local-name fallback.\n\n"
    "2. **[P1] Extensionless shebang scripts are newly classified as unsupported.**  \n"
    "   [analyze.go:26](/Users/t/entire-graph/internal/sem/analyze.go:26) uses the path-only "
    "`Supported` check before reading content. This bypasses the existing shebang routing in "
    "`languageForContent`. Support detection here needs to account for content/shebang "
    "routing.\n\n"
    "Validation:\n\n- Existing `go test ./internal/sem/...` passed.\n"
)

# The person's paste of a Codex Desktop diff comment (the same session, comment 3).
DIFF_COMMENTS = (
    "# Diff comments:\n\n## Comment 1\n"
    "File: /Users/t/entire-graph/internal/sem/analyze.go\nSide: R\nLines: 26\nComment:\n"
    "[P2] Mark mixed-support renames\n\n"
    "Because the marker requires both paths to be unsupported, a supported-to-unsupported or "
    "unsupported-to-supported rename gets no completeness warning and is analyzed one-sided. "
    "Detect support independently for each existing side.\n\n"
    "## My request for Codex:\n\nFix all those\n"
)


def _transcript(tmp_path: Path, turns: list) -> Path:
    path = session_file(tmp_path, turns)
    return path


def _actions(tmp_path: Path, turns: list) -> list[dict]:
    """The review notes the drain writes: the gate, then the writer."""
    prepared = cascade.prepare(str(_transcript(tmp_path, turns)))
    if prepared.skip == "no-signal":
        return []
    assert prepared.skip is None, prepared.skip
    return [a for a in heuristic.write(prepared)["actions"] if "code review" in a["body"]]


def _read_by_the_writer(tmp_path: Path, turns: list) -> list[dict]:
    """The review notes the writer's reader gives, past the gate."""
    transcript = read_transcript(str(_transcript(tmp_path, turns)))
    return review_findings(transcript, commands_run(transcript))


def _run(call: str, output: str) -> list:
    return tool_call(call, "Bash", {"command": "go test ./internal/sem/..."}, output)


def _edit(call: str, path: str, new: str) -> list:
    edit = {"file_path": path, "old_string": "x", "new_string": new}
    return tool_call(call, "Edit", edit, "The file has been updated.")


QUALIFIER_FIX = _edit(
    "e1",
    "/Users/t/entire-graph/internal/sem/provider.go",
    "// qualified type references (cfg.Config) resolve through their import binding\n"
    "imports := qualifiedTypeImports(signature, importsByName)",
)
SHEBANG_FIX = _edit(
    "e2",
    "/Users/t/entire-graph/internal/sem/analyze.go",
    "// support is content-aware: shebang routing via languageForContent\n"
    "supported := provider.SupportedContent(path, content)",
)
RENAME_FIX = _edit(
    "e3",
    "/Users/t/entire-graph/internal/sem/analyze.go",
    "// detect support independently for each side of a rename (mixed-support renames)\n"
    "oldSupported, newSupported := supported(change.OldPath), supported(change.Path)",
)


def test_each_finding_of_the_assistants_review_fixed_and_validated_is_a_note(tmp_path):
    turns = [
        ("user", "Do an adversarial review of trail 7."),
        ("assistant", REVIEW),
        ("user", "Fix all those"),
        ("assistant", "Fixing both findings."),
        *QUALIFIER_FIX,
        *SHEBANG_FIX,
        *_run("t1", GREEN),
        ("assistant", "Both findings are fixed and `go test ./internal/sem/...` passes."),
    ]
    actions = _actions(tmp_path, turns)
    assert [a["title"] for a in actions] == [
        "Qualified imported types can still bind to the wrong local type (`provider.go`)",
        "Extensionless shebang scripts are newly classified as unsupported (`analyze.go`)",
    ]
    first, second = actions
    assert first["root_cause"].startswith("provider.go:7934 looks up imports using the bare")
    assert "unrelated `app.Config`" in first["root_cause"]
    assert first["fix"].startswith("Preserve the qualifier during type extraction")
    assert second["fix"] == "Support detection here needs to account for content/shebang routing."
    assert {a["confidence"] for a in actions} == {"medium"}
    assert {a["learning_type"] for a in actions} == {"bug-fix"}
    assert "passing test run" in first["body"]


# A finding that quotes code in a fenced block (held-apart-24, entire-graph trail 8).
QUOTING = (
    "Found one actionable issue in trail 8:\n\n"
    "1. **[P2] TSX masking breaks valid runtime imports.** "
    "[parser.go](/Users/t/entire-graph/internal/sem/parser.go:458)\n\n"
    "   `typeof import(resolveSpecifier())` is valid runtime TypeScript, but the regex stops at "
    "the inner `)` and masks it into:\n\n"
    "   ```ts\n   return any                             )\n   ```\n\n"
    "   This produces `E_PARSE_ERROR`. Restrict the rewrite to actual import-type syntax, "
    "preferably with a quoted module specifier.\n"
)
MASK_FIX = _edit(
    "e1",
    "/Users/t/entire-graph/internal/sem/parser.go",
    "// only import-type syntax with a quoted module specifier is masked (typeof import)\n"
    "var tsTypeImportPattern = regexp.MustCompile(`typeof\\s+import\\(\\s*['\"]`)",
)


def test_the_code_a_finding_quotes_is_neither_its_cause_nor_its_fix(tmp_path):
    turns = [
        ("user", "Do an adversarial review of trail 8."),
        ("assistant", QUOTING),
        ("user", "Fix it"),
        *MASK_FIX,
        *_run("t1", GREEN),
        (
            "assistant",
            "Both fixed. The TSX mask now rewrites only import-type syntax with a quoted "
            "module specifier.",
        ),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["fix"] == (
        "The TSX mask now rewrites only import-type syntax with a quoted module specifier."
    )
    assert "return any" not in action["root_cause"] and "return any" not in action["rule"]
    # the prose around the quoted code is the cause
    assert "the regex stops at the inner" in action["root_cause"]
    assert "E_PARSE_ERROR" in action["root_cause"]


def test_a_diff_comment_the_person_pastes_fixed_and_validated_is_a_note(tmp_path):
    turns = [
        ("user", DIFF_COMMENTS),
        ("assistant", "Reading analyze.go."),
        *RENAME_FIX,
        *_run("t1", GREEN),
        ("assistant", "Done; the tests pass."),
    ]
    [action] = _actions(tmp_path, turns)
    assert action["title"] == "Mark mixed-support renames (`analyze.go`)"
    assert action["root_cause"].startswith("Because the marker requires both paths")
    assert action["fix"] == "Detect support independently for each existing side."
    assert "relaying a code review's finding" in action["body"]


def test_a_finding_and_its_diff_comment_are_one_note(tmp_path):
    comment = DIFF_COMMENTS.replace("analyze.go", "provider.go").replace(
        "[P2] Mark mixed-support renames",
        "[P1] Preserve qualified import bindings\n\nType extraction reduces `cfg.Config` to "
        "`Config`, but Go imports are keyed by `cfg`, so this lookup misses the explicit "
        "import.",
    )
    turns = [
        ("assistant", REVIEW),
        ("user", comment),
        *QUALIFIER_FIX,
        *_run("t1", GREEN),
        ("assistant", "Done."),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert titles == [
        "Qualified imported types can still bind to the wrong local type (`provider.go`)"
    ]


@pytest.mark.parametrize(
    "after",
    [
        # left unfixed: the edits touch another file
        [
            *_edit("e1", "/Users/t/entire-graph/README.md", "qualified import bindings"),
            *_run("t1", GREEN),
        ],
        # fixed, but the run after the fix stays red
        [*QUALIFIER_FIX, *_run("t1", RED)],
        # fixed, and no test run at all
        [*QUALIFIER_FIX, ("assistant", "Changed provider.go.")],
        # refuted: the assistant finds the finding wrong before it edits the file
        [
            (
                "assistant",
                "The provider.go finding is a false positive: `importsByName` is keyed by the "
                "qualifier already.",
            ),
            *QUALIFIER_FIX,
            *_run("t1", GREEN),
        ],
        # the person turns the fix down
        [*QUALIFIER_FIX, *_run("t1", GREEN), ("user", "not sure I like it, revert this")],
    ],
    ids=["unfixed", "red", "no-run", "refuted", "turned-down"],
)
def test_a_finding_not_fixed_and_validated_is_no_note(tmp_path, after):
    review = REVIEW.split("2. **")[0]  # the first finding alone
    turns = [("user", "Review trail 7."), ("assistant", review), ("user", "Fix it"), *after]
    turns.append(("assistant", "Done."))
    assert _actions(tmp_path, turns) == []
    assert _read_by_the_writer(tmp_path, turns) == []


def test_the_gate_opens_on_a_finding_acted_on_and_only_then(tmp_path):
    """A session with no signal words opens the gate on a finding whose file was edited with a
    passing run after; a finding left alone keeps it closed."""
    review = REVIEW.split("2. **")[0]
    fixed = [("assistant", review), ("user", "Fix it"), *QUALIFIER_FIX, *_run("t1", GREEN)]
    prepared = cascade.prepare(str(_transcript(tmp_path, fixed)))
    assert prepared.skip is None
    assert [s.kind for s in prepared.signals] == [REVIEW_SIGNAL]
    left = [("assistant", review), ("user", "ok thanks"), *_run("t1", GREEN)]
    assert cascade.prepare(str(_transcript(tmp_path, left))).skip == "no-signal"


@pytest.mark.parametrize(
    "said",
    [
        # what the review found sound: file references under a heading that announces none
        "## What I verified holds up\n\n"
        "- **Grep exit code 1 (no matches) is handled as an empty result** (`provider.go:186`), "
        "not an error, so a zero-match name set never triggers the slow fallback.\n",
        # a place named under a heading of findings, without a statement of what is wrong
        "### Additional batching flaw\n\n- Binary search: [provider.go:129](provider.go:129)\n",
        # a brief's pointer under a findings heading: nothing goes wrong in it
        "## Findings so far\n\n- The hot path starts around `internal/sem/provider.go:437`.\n",
    ],
    ids=["verified", "label", "pointer"],
)
def test_an_item_that_states_no_finding_is_no_note(tmp_path, said):
    turns = [
        ("user", "Review it."),
        ("assistant", said),
        ("user", "go ahead"),
        *QUALIFIER_FIX,
        *_run("t1", GREEN),
        ("assistant", "Done."),
    ]
    assert _actions(tmp_path, turns) == []


# A pull request's review comment as `gh api repos/O/R/pulls/N/comments --jq '.[] | {...}'`
# prints it: Cursor Bugbot's, on held-apart-5's auth-go PR #16 (its markup and footer kept).
BUGBOT = (
    '{"body":"### Wait ignores ready callback\\n\\n**Medium Severity**\\n\\n'
    "\\u003c!-- DESCRIPTION START --\\u003e\\n`Flow.Wait` uses a single `select` across "
    "`resultCh`, `srvErrCh`, and `ctx.Done()` with no priority. When the callback has already "
    "written a result into the buffered `resultCh` but shutdown or the callback deadline is also "
    "ready, Go may choose timeout, cancel, or `ErrListenerClosed` instead of returning the "
    "authorization code\\u2014so a completed browser sign-in can be reported as failure.\\n"
    "\\u003c!-- DESCRIPTION END --\\u003e\\n\\n\\u003c!-- BUGBOT_BUG_ID: d5df4eb8 --\\u003e\\n"
    '\\u003cdiv\\u003e\\u003ca href=\\"https://cursor.com/open\\"\\u003e\\u003cimg alt=\\"Fix in '
    'Cursor\\" src=\\"https://cursor.com/fix.png\\"\\u003e\\u003c/a\\u003e\\u0026nbsp;'
    "\\u003c/div\\u003e\\n\\n\\u003csup\\u003eReviewed by [Cursor Bugbot](https://cursor.com/bugbot) "
    "for commit dfb6f1d8. Configure [here](https://www.cursor.com/dashboard/bugbot)."
    '\\u003c/sup\\u003e\\n","id":3355031289,"line":428,"path":"authcode/authcode.go",'
    '"user":"cursor[bot]"}\n'
)
FETCH = {
    "command": "gh api repos/entireio/auth-go/pulls/16/comments --jq '.[] | {id, path, line, "
    "body, user: .user.login}'"
}
WAIT_FIX = tool_call(
    "e1",
    "Edit",
    {
        "file_path": "/Users/p/auth-go/authcode/authcode.go",
        "old_string": "\tcase <-ctx.Done():\n",
        "new_string": "\tcase <-ctx.Done():\n\t\t// select offers no priority: prefer an already-"
        "buffered result\n\t\tif res, ok := f.tryResult(); ok {\n\t\t\treturn res.code, res.err\n\t\t}\n",
    },
    "The file has been updated successfully.",
)
GO_GREEN = tool_call(
    "t1",
    "Bash",
    {"command": "go build ./... && go test -race ./authcode/"},
    "ok  \tgithub.com/entireio/auth-go/authcode\t1.071s\n",
)
GO_RED = tool_call(
    "t1",
    "Bash",
    {"command": "go test -race ./authcode/"},
    "--- FAIL: TestWait_ResultWinsOverCancelledContext (0.00s)\n"
    "FAIL\tgithub.com/entireio/auth-go/authcode\t0.012s\nFAIL\n",
)
ASKED = "is this legit? https://github.com/entireio/auth-go/pull/16#discussion_r3355031289"
TOLD = (
    "Fix: added `tryResult()` (non-blocking `resultCh` read) and call it in both failure "
    "branches of `Wait` so a buffered authorization code always wins."
)


def _fetched(asked: str, after: list) -> list:
    return [
        ("user", asked),
        *tool_call("g1", "Bash", FETCH, BUGBOT),
        ("assistant", "Legit concern in principle; the fix is small."),
        *after,
    ]


def test_a_review_comment_fetched_at_the_persons_asking_fixed_and_validated_is_a_note(tmp_path):
    turns = _fetched(ASKED, [*WAIT_FIX, *GO_GREEN, ("assistant", TOLD)])
    [action] = _actions(tmp_path, turns)
    assert action["title"] == "Wait ignores ready callback (`authcode.go`)"
    assert action["root_cause"].startswith("`Flow.Wait` uses a single `select`")
    # the bot's markup, its severity label and its footer are not the finding's words
    for markup in ("Severity", "Bugbot", "DESCRIPTION", "Fix in Cursor", "nbsp"):
        assert markup not in action["root_cause"], markup
    assert action["fix"] == TOLD
    assert "code review comment the person had fetched" in action["body"]


@pytest.mark.parametrize(
    "asked, after",
    [
        # left unfixed: the edits touch another file
        (
            ASKED,
            [
                *_edit("e1", "/Users/p/auth-go/README.md", "buffered result tryResult select"),
                *GO_GREEN,
            ],
        ),
        # fixed, but the run after the fix stays red
        (ASKED, [*WAIT_FIX, *GO_RED]),
        # refuted before the edit
        (
            ASKED,
            [
                ("assistant", "The authcode.go comment is a false positive: `select` is fine."),
                *WAIT_FIX,
                *GO_GREEN,
            ],
        ),
        # the person never asked about the review: the assistant fetched it on its own
        ("let's cut a branch and see if we can improve this", [*WAIT_FIX, *GO_GREEN]),
        # the harness, not the person, delivered the review and asked for it to be addressed
        (
            "<ci-monitor-event>PR #16 has new review comments. Please address the feedback."
            "</ci-monitor-event>",
            [*WAIT_FIX, *GO_GREEN],
        ),
    ],
    ids=["unfixed", "red", "refuted", "not-asked", "injected"],
)
def test_a_fetched_review_comment_not_fixed_validated_or_asked_for_is_no_note(
    tmp_path, asked, after
):
    turns = _fetched(asked, [*after, ("assistant", TOLD)])
    assert _read_by_the_writer(tmp_path, turns) == []
    assert _actions(tmp_path, turns) == []


def test_a_review_comment_cut_short_by_the_output_cap_is_not_read() -> None:
    cut = BUGBOT[: BUGBOT.index("DESCRIPTION END")]
    assert reviews.comments_in(cut) == []
    assert [f.head for f in reviews.comments_in("[" + BUGBOT.strip() + "," + cut)] == [
        "Wait ignores ready callback"
    ]


def test_the_gate_opens_on_a_fetched_review_comment_acted_on(tmp_path):
    """A session whose one signal is a fetched review comment fixed and validated opens the
    gate; the same session where the person never asked about the review stays closed."""

    def session(asked: str) -> list:
        fetch = tool_call("g1", "Bash", FETCH, BUGBOT)
        return [("user", asked), *fetch, *WAIT_FIX, *GO_GREEN, ("assistant", "Pushed.")]

    prepared = cascade.prepare(str(_transcript(tmp_path, session(ASKED))))
    assert [s.kind for s in prepared.signals] == [REVIEW_SIGNAL]
    unasked = session("let's cut a branch")
    assert cascade.prepare(str(_transcript(tmp_path, unasked))).skip == "no-signal"
