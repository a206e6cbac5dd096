"""Enforced rules, the pure part: patterns, calls, what matches (and what must not), decisions."""

from __future__ import annotations

import pytest

from reflectgit.notes import shellcommand
from reflectgit.notes.policy import (
    Call,
    Rule,
    RuleError,
    call_from,
    command_table,
    decide,
    matches,
    matching,
    parse_pattern,
    pattern_problem,
    rule_from_line,
    rules_from_note,
    simple_commands,
)


def bash(command: str) -> Call:
    return call_from("Bash", {"command": command}, "/home/dev/src/billing", home="/home/dev")


# (rule pattern, commands it must match, commands it must not match)
COMMAND_CASES = [
    (
        "Bash(git push --force:*)",
        [
            "git push --force",
            "git push --force origin main",
            "cd app && git push --force",
            "git fetch; git push --force origin HEAD",
            "sudo git push --force",
            "GIT_TRACE=1 git push --force",
            "git   push   '--force'",
            'bash -lc "git push --force origin main"',
            "make build\ngit push --force",
            "(cd app; git push --force)",
        ],
        [
            "git push",
            "git push origin main",
            "git push --force-with-lease",
            "echo git push --force",
            'git commit -m "never git push --force"',
            "git log | grep 'git push --force'",
            "# git push --force",
            "mygit push --force",
        ],
    ),
    (
        "Bash(git push --force *)",  # the space before * is a word boundary
        ["git push --force", "git push --force origin"],
        ["git push --forced", "git push"],
    ),
    (
        "Bash(rm -rf build)",  # exact: the whole simple command
        ["rm -rf build", "cd app && rm -rf build", "rm  -rf  'build'", "npm run x || rm -rf build"],
        ["echo rm -rf build", "rm -rf build/dist", "rm -rf buildx", "rm -rf", "rm -r -f build"],
    ),
    (
        "Bash(git * main)",  # glob over the whole simple command
        ["git push origin main", "git merge main", "git push --force origin main"],
        ["git push origin main2", "git push origin develop", "echo git push main"],
    ),
    (
        "Bash(npm publish:*)",
        ["npm publish", "npm publish --tag next", "cd pkg && npm publish"],
        ["npm run publish", "pnpm publish", "npm publishx"],
    ),
    (
        "Bash",
        ["ls", "anything at all"],
        [],
    ),
]


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [(rule, c, True) for rule, yes, _ in COMMAND_CASES for c in yes]
    + [(rule, c, False) for rule, _, no in COMMAND_CASES for c in no],
)
def test_command_rules_match_simple_commands_from_their_first_word(rule, command, expected):
    assert matches(parse_pattern(rule), bash(command)) is expected


# (rule pattern, tool, tool_input, expected)
OTHER_CASES = [
    ("Edit(.env)", "Edit", {"file_path": "/home/dev/src/billing/.env"}, True),
    ("Edit(.env)", "Write", {"file_path": "/home/dev/src/billing/config/.env"}, True),
    ("Edit(.env)", "Edit", {"file_path": "/home/dev/src/billing/.env.example"}, False),
    ("Edit(.env)", "Read", {"file_path": "/home/dev/src/billing/.env"}, False),
    ("Edit(.env)", "edit", {"path": ".env"}, True),  # Copilot, relative to cwd
    ("Edit(migrations/**)", "Edit", {"file_path": "/r/db/migrations/0001.sql"}, True),
    ("Edit(migrations/**)", "Edit", {"file_path": "/r/db/migrations_old/0001.sql"}, False),
    ("Edit(/etc/**)", "Edit", {"file_path": "/etc/hosts"}, True),
    ("Edit(/etc/**)", "Edit", {"file_path": "/home/dev/etc/hosts"}, False),
    ("Edit(*.lock)", "Edit", {"file_path": "/r/poetry.lock"}, True),
    ("Edit(*.lock)", "Edit", {"file_path": "/r/poetry.lock.bak"}, False),
    ("Read(~/.ssh/**)", "Read", {"file_path": "/home/dev/.ssh/id_ed25519"}, True),
    ("Read(~/.ssh/**)", "Read", {"file_path": "/home/other/.ssh/id_ed25519"}, False),
    (
        "Edit(migrations/**)",
        "apply_patch",
        {"command": "*** Begin Patch\n*** Update File: db/migrations/0002.sql\n@@\n-x\n+y\n"},
        True,
    ),
    (  # Codex's own rollouts: the patch itself is the call's input
        "Edit(migrations/**)",
        "apply_patch",
        "*** Begin Patch\n*** Update File: db/migrations/0002.sql\n@@\n-x\n+y\n",
        True,
    ),
    ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://docs.example.com/x"}, True),
    ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com.evil.io/"}, False),
    ("mcp__github__*", "mcp__github__create_issue", {}, True),
    ("mcp__github__*", "mcp__gitlab__create_issue", {}, False),
    ("Bash(rm -rf build)", "bash", {"command": "rm -rf build"}, True),  # Copilot's name
    ("Bash(rm -rf build)", "Edit", {"file_path": "/r/build"}, False),
]


@pytest.mark.parametrize(("rule", "tool", "tool_input", "expected"), OTHER_CASES)
def test_path_domain_and_tool_rules(rule, tool, tool_input, expected):
    call = call_from(tool, tool_input, "/home/dev/src/billing", home="/home/dev")
    assert matches(parse_pattern(rule), call) is expected


def test_codex_list_commands_are_read_as_their_script():
    call = call_from("Bash", {"command": ["bash", "-lc", "git push --force"]}, "/r")
    assert matches(parse_pattern("Bash(git push --force:*)"), call)
    assert simple_commands("FOO=1 env BAR=2 nohup rm -rf x & echo done") == [
        ("rm", "-rf", "x"),
        ("echo", "done"),
    ]
    # an unclosed quote still splits into words rather than failing
    assert simple_commands("git push --force 'oops") == [("git", "push", "--force", "'oops")]


@pytest.mark.parametrize(
    "bad", ["", "   ", "Bash(", "Foo(bar)", "WebFetch(example.com)", "Bash(git push 'x)", "1x"]
)
def test_unreadable_patterns_are_refused(bad):
    with pytest.raises(RuleError):
        parse_pattern(bad)
    assert pattern_problem(bad)


def rule(action: str, tier: str, source: str, reviewed: bool = True, pattern: str = "Bash") -> Rule:
    return Rule(action=action, pattern=pattern, tier=tier, source=source, reviewed=reviewed)


def test_only_high_reviewed_rules_decide_and_medium_ones_add_at_most_three_lines():
    assert decide([rule("deny", "high", "a")]).action == "deny"
    assert decide([rule("ask", "high", "a")]).action == "ask"
    both = decide([rule("ask", "high", "a"), rule("deny", "high", "b")])
    assert both.action == "deny" and "b" in both.reason
    unreviewed = decide([rule("deny", "high", "a", reviewed=False)])
    assert unreviewed.action is None and unreviewed.context == () and unreviewed.silent
    assert decide([rule("deny", "low", "a")]).silent
    medium = decide([rule("deny", "medium", s) for s in "abcde"])
    assert medium.action is None and len(medium.context) == 3
    assert all("(medium)" in line for line in medium.context)
    assert "note a" in medium.context[0]


def test_a_note_gives_its_enforce_patterns_and_a_no_never_permission_rule():
    front = {
        "id": "lrn-x",
        "title": "No force pushes",
        "confidence": "high",
        "enforce": {"deny": ["Bash(git push --force:*)", "Bash("], "ask": "Bash(npm publish:*)"},
        "permission": {
            "tool": "Bash",
            "command": "rm -rf node_modules",
            "decision": "deny",
            "scope": "never",
            "rule": "Bash(rm -rf node_modules)",
        },
    }
    got = [(r.action, r.pattern, r.origin) for r in rules_from_note(front, "lrn-x")]
    assert got == [
        ("deny", "Bash(git push --force:*)", "note"),  # the unreadable "Bash(" is left out
        ("ask", "Bash(npm publish:*)", "note"),
        ("deny", "Bash(rm -rf node_modules)", "permission"),
    ]
    allowed = {**front, "enforce": None, "permission": {**front["permission"], "decision": "allow"}}
    assert rules_from_note(allowed, "lrn-x") == []  # an "always allow" is no rule of ours


def test_policy_file_lines():
    high = rule_from_line(
        {"pattern": "git push --force:*", "decision": "deny", "confidence": "high"}, "f:1"
    )
    assert high is not None and high.pattern == "Bash(git push --force:*)" and high.tier == "high"
    assert high.source == "f:1" and high.origin == "file"
    quiet = rule_from_line({"rule": "Edit(.env)", "action": "block", "id": "no-env"}, "f:2")
    assert quiet is not None and quiet.tier == "medium" and quiet.source == "no-env"
    assert rule_from_line({"pattern": "ls", "decision": "allow"}, "f:3") is None
    assert rule_from_line({"pattern": "git push 'x", "decision": "deny"}, "f:4") is None


def test_matching_skips_unreadable_rules():
    rules = [rule("deny", "high", "bad", pattern="Bash("), rule("deny", "high", "ok")]
    assert [r.source for r in matching(rules, bash("ls"))] == ["ok"]


def test_the_command_table_holds_the_shell_tools_command_rules_or_nothing():
    def table(*rules: str):
        return command_table([parse_pattern(r) for r in rules])

    shell = ["Bash", "bash", "exec_command", "local_shell", "powershell", "shell"]
    assert table("Bash(git push --force:*)", "Bash(rm -rf build)", "Bash", "Edit(.env)") == {
        "tools": shell,
        "rules": [
            ["prefix", ["git", "push", "--force"]],
            ["exact", ["rm", "-rf", "build"]],
            ["any", []],
        ],
    }
    assert table("bash(npm publish *)") == {
        "tools": shell,
        "rules": [["prefix", ["npm", "publish"]]],
    }
    # a glob on a shell tool, a rule for any tool, or no shell rule at all: no table
    assert table("Bash(git push --force:*)", "Bash(git * main)") is None
    assert table("Bash(git push --force:*)", "mcp__github__*") is None
    assert table("Edit(.env)", "WebFetch(domain:example.com)") is None
    assert table() is None


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("mise run check 2>&1 | tail -80", [("mise", "run", "check"), ("tail", "-80")]),
        ("make > build.log", [("make",)]),
        ("go test ./... >> out.txt 2>&1", [("go", "test", "./...")]),
        ("sort < names.txt", [("sort",)]),
        ("echo 2 3", [("echo", "2", "3")]),  # digits that are arguments stay
        ("gofmt -w a.go", [("gofmt", "-w", "a.go")]),
    ],
)
def test_a_commands_redirections_are_not_its_words(command, words):
    from reflectgit.notes.shellcommand import simple_commands, without_redirections

    assert [without_redirections(w) for w in simple_commands(command)] == words


@pytest.mark.parametrize(
    ("command", "core"),
    [
        ("cd app && mise run check 2>&1 | tail -80", ("mise", "run", "check")),
        ("pushd web; npm test", ("npm", "test")),
        ("make > build.log", ("make",)),
        ("cd app", ()),
    ],
)
def test_a_command_lines_core_is_its_first_command_past_cd(command: str, core: tuple) -> None:
    assert shellcommand.core(command) == core


@pytest.mark.parametrize(
    ("words", "targets"),
    [
        (("git", "push", "-u", "origin", "fix-1"), {"fix-1"}),
        (("mise", "run", "test:bats", "--", "test/a.bats"), {"test:bats", "test/a.bats"}),
        (("gh", "run", "view", "--log"), set()),  # a subcommand and an option: nothing run on
        (("serve", "8080"), {"8080"}),
    ],
)
def test_a_commands_targets_are_its_words_that_are_no_option_nor_plain_word(
    words: tuple, targets: set
) -> None:
    assert shellcommand.targets(words) == targets
