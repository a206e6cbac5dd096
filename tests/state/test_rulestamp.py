"""``state/rulestamp.py``: the quick answer is believed only whole, for the rules.json it
summarises, and a compile asked for is asked once (again only when it is long overdue).
Real files in a tmp state directory."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from reflectgit.state import rulestamp

LINE = rulestamp.key(["refs/heads/main", [1, 2, 3]], [["/p.jsonl", None, None]])
PAYLOAD = b'{"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}}'


def compiled(state: Path, tools: list[str] | None) -> str:
    (state / "policy").mkdir(parents=True, exist_ok=True)
    (state / "policy" / "rules.json").write_text('{"format": 1}')
    rulestamp.save(str(state), LINE, tools)
    return str(state)


def test_it_says_nothing_only_for_tools_it_does_not_name(tmp_path: Path) -> None:
    where = compiled(tmp_path, ["Bash", "shell"])
    quick = rulestamp.read(where)
    assert quick is not None and rulestamp.vouches(quick, LINE)
    assert rulestamp.summarises(where, quick)
    assert rulestamp.quiet(quick, PAYLOAD)
    assert not rulestamp.quiet(quick, PAYLOAD.replace(b'"Read"', b'"Bash"'))
    assert not rulestamp.vouches(quick, LINE.replace("main", "other"))
    wildcard = rulestamp.read(compiled(tmp_path, None))
    assert wildcard is not None and not rulestamp.quiet(wildcard, PAYLOAD)
    none = rulestamp.read(compiled(tmp_path, []))
    assert none is not None and rulestamp.quiet(none, PAYLOAD.replace(b'"Read"', b'"Bash"'))


def test_a_torn_file_or_another_rules_json_is_not_believed(tmp_path: Path) -> None:
    where = compiled(tmp_path, ["Bash"])
    path = tmp_path / "policy" / "quick"
    whole = path.read_bytes()
    for torn in (whole[:-1], whole[: whole.index(b"\n") + 1], whole.split(b"\t")[0], b""):
        path.write_bytes(torn)
        assert rulestamp.read(where) is None, torn
    path.write_bytes(whole)
    quick = rulestamp.read(where)
    assert quick is not None and rulestamp.summarises(where, quick)
    rules = tmp_path / "policy" / "rules.json"
    rules.write_text('{"format": 1, "rules": []}')  # another compile's file
    assert not rulestamp.summarises(where, quick)
    rules.unlink()
    assert not rulestamp.summarises(where, quick)
    rulestamp.save(where, LINE, ["Bash"])  # nothing to summarise: no quick answer
    assert not path.exists()


def test_a_compile_is_asked_once_per_state_and_again_when_overdue(tmp_path: Path) -> None:
    where = compiled(tmp_path, [])
    assert not rulestamp.wanted(where, LINE)
    assert rulestamp.want(where, LINE)
    assert rulestamp.wanted(where, LINE)
    assert not rulestamp.wanted(where, LINE.replace("main", "other"))
    old = time.time() - rulestamp.RETRY - 5
    os.utime(tmp_path / "policy" / "wanted", (old, old))
    assert not rulestamp.wanted(where, LINE)  # long overdue: asked again
    assert not rulestamp.want(str(tmp_path / "no-such-state"), LINE)


def test_the_command_rules_line_is_read_when_whole(tmp_path: Path) -> None:
    where = compiled(tmp_path, ["Bash"])
    quick = rulestamp.read(where)
    assert quick is not None and quick[3] is None  # none written: none read
    table = rulestamp.command_line(["Bash"], [("prefix", ["git", "push"])])
    assert table is not None
    rulestamp.save(where, LINE, ["Bash"], table)
    quick = rulestamp.read(where)
    assert quick is not None and quick[2] == [b"Bash"] and quick[3] == table.encode()
    path = tmp_path / "policy" / "quick"
    whole = path.read_bytes()
    for torn in (whole[:-1], whole + b"more\n", whole.replace(table.encode(), b"")):
        path.write_bytes(torn)
        assert rulestamp.read(where) is None, torn


# --------------------------------------------------------------------------- unworded
# "Nothing" from the payload's bytes alone must agree with the full reading (the payload
# parsed, the command split as a shell would, every rule matched) whenever it concludes.

SHELL_RULES = [
    "Bash(git push --force:*)",
    "Bash(rm -rf build)",
    "Bash(npm publish:*)",
    "Edit(.env)",
]
PIECES = [
    "git", "push", "--force", "--force-with-lease", "origin", "main", "status", "rm", "-rf",
    "build", "npm", "publish", "sudo", "env", "nohup", "GIT_TRACE=1", "X=push", "bash", "-c",
    "-lc", "sh", "&&", "||", ";", "|", "&", "(", ")", "'", '"', "\\", "\\n", "\n", "\r\n",
    "'git push --force'", '"git push --force"', "git\\ push", "pu'sh'", 'pu"sh"', "p\\ush",
    "--fo''rce", "béton", "日本", "push\u00a0", "'rm -rf build'", "#", "$(git push --force)",
    "`npm publish`", "--force\tx", "*",
]  # fmt: skip


def _quick_for(patterns: list[str]) -> rulestamp.Quick:
    from reflectgit.notes.policy import command_table, covered_tools, parse_pattern

    parsed = [parse_pattern(p) for p in patterns]
    table = command_table(parsed)
    assert table is not None
    line = rulestamp.command_line(table["tools"], table["rules"])
    assert line is not None
    tools = sorted(set().union(*(covered_tools(p.tool) or set() for p in parsed)))
    return (b"line", b"id", [t.encode() for t in tools], line.encode())


def _payloads(command: str, words: list[str]) -> list[bytes]:
    import json

    calls = [
        {"tool_name": "Bash", "tool_input": {"command": command, "description": "Run it"}},
        {"tool_name": "exec_command", "tool_input": {"cmd": words}},
        {"tool_name": "local_shell", "tool_input": {"cmd": command}},
        {"toolName": "bash", "toolArgs": command},
        {"tool_name": "Read", "tool_input": {"file_path": command}},
        {"tool_name": "Edit", "tool_input": {"file_path": ".env", "new_string": command}},
    ]
    return [json.dumps(c, ensure_ascii=a).encode() for c in calls for a in (True, False)]


def _full_reading_says_nothing(payload: bytes, patterns: list[str]) -> bool:
    from reflectgit.hooks.policy import tool_call
    from reflectgit.notes.policy import Rule, call_from, matching

    asked = tool_call(payload)
    if asked is None:
        return True
    _, tool, tool_input, cwd = asked
    rules = [Rule(action="deny", pattern=p, tier="high", source=p) for p in patterns]
    return not matching(rules, call_from(tool, tool_input, cwd, home="/home/dev"))


def _near_miss(rng: random.Random) -> str:
    """A command a rule matches or nearly does: its words, one of them quoted, escaped or split
    over lines, behind wrappers, assignments, other commands, inside ``bash -c``."""
    words = rng.choice([["git", "push", "--force"], ["rm", "-rf", "build"], ["npm", "publish"]])
    words = [*words, *rng.sample(["origin", "main", "-x", "é"], rng.randint(0, 2))]
    i = rng.randrange(len(words))
    word, cut = words[i], rng.randint(1, max(1, len(words[i]) - 1))
    words[i] = rng.choice(
        [
            word,
            f"{word[:cut]}'{word[cut:]}'",
            f'{word[:cut]}"{word[cut:]}"',
            f"{word[:cut]}\\{word[cut:]}",
            f"{word[:cut]}\\\n{word[cut:]}",
            f"'{word}'",
            f"{word}-with-lease",
        ]
    )
    before = rng.choice(
        ["", "sudo ", "env X=1 ", "GIT_TRACE=1 nohup ", "cd app && ", "ls; ", "ls\n"]
    )
    command = before + " ".join(words)
    if rng.random() < 0.3:
        command = (
            rng.choice(["bash -c ", "sh -lc ", "bash -c "]) + rng.choice(["'%s'", '"%s"']) % command
        )
    return command


def test_unworded_concludes_only_where_the_full_reading_agrees(tmp_path: Path) -> None:
    from reflectgit.hooks.policy import unmatched

    quick = _quick_for(SHELL_RULES)
    rng = random.Random(31)
    concluded = refused = 0
    for _ in range(3000):
        words = [rng.choice(PIECES) for _ in range(rng.randint(1, 7))]
        ruled = _near_miss(rng)
        for command in (" ".join(words), "".join(words[:2]) + " " + " ".join(words[2:]), ruled):
            for payload in _payloads(command, words):
                if not rulestamp.unworded(quick, payload):
                    refused += 1
                    continue
                concluded += 1
                assert _full_reading_says_nothing(payload, SHELL_RULES), payload
                if b'"Read"' not in payload:  # a shell call: the table answers it parsed too
                    assert unmatched(str(tmp_path), "/home/dev", payload, quick[3]), payload
    assert concluded > 1000 and refused > 1000  # both sides were exercised


@pytest.mark.parametrize(
    "command",
    [
        "git push --force",  # every word present
        "git status; git push --force origin main",
        "bash -c 'git push --force'",  # a single quote
        'bash -lc "git push --force"',  # a double quote is \" in JSON
        "git push --for\\\nce",  # escapes, a command over lines
        "git push\n--force",
        "git status\r\ngit push --force",
        "echo push --force; git status",  # words present, no rule matches: not concluded
        "rm -rf build",
    ],
)
def test_unworded_does_not_conclude_when_it_cannot_know(command: str) -> None:
    import json

    quick = _quick_for(SHELL_RULES)
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": command}}).encode()
    assert not rulestamp.unworded(quick, payload)


def test_unworded_needs_a_table_of_every_ruled_tool_it_names() -> None:
    quick = _quick_for(SHELL_RULES)
    status = b'{"tool_name": "Bash", "tool_input": {"command": "git status"}}'
    assert rulestamp.unworded(quick, status)
    assert rulestamp.unworded(quick, status.replace(b'"Bash"', b'"Read"'))  # not ruled
    assert not rulestamp.unworded(quick, status.replace(b'"Bash"', b'"Edit"'))  # ruled, no shell
    assert not rulestamp.unworded((*quick[:3], None), status)  # no table
    assert not rulestamp.unworded((*quick[:2], [*quick[2], b"*"], quick[3]), status)
    whole = _quick_for(["Bash(git push --force:*)", "Bash"])  # a rule of the whole tool
    assert not rulestamp.unworded(whole, status)


def test_the_command_rules_line_holds_only_words_read_without_unquoting() -> None:
    tools = ["Bash", "shell"]
    line = rulestamp.command_line(tools, [("prefix", ["git", "push"]), ("any", [])])
    assert line == "Bash\x1fshell\tprefix\x1fgit\x1fpush\tany"
    assert rulestamp.command_rules(line.encode()) == (
        [b"Bash", b"shell"],
        [[b"prefix", b"git", b"push"], [b"any"]],
    )
    for word in ("it's", 'say "hi"', "a\\b", "a\tb", "a\x1fb", "a\nb"):
        assert rulestamp.command_line(tools, [("exact", ["echo", word])]) is None, word
    assert rulestamp.command_line(tools, []) is None
    assert rulestamp.command_rules(b"Bash") is None
