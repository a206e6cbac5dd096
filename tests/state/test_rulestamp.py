"""``state/rulestamp.py``: the quick answer is believed only whole, for the rules.json it
summarises, and a compile asked for is asked once (again only when it is long overdue).
Real files in a tmp state directory."""

from __future__ import annotations

import os
import time
from pathlib import Path

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
    table = '{"tools":["Bash"],"rules":[["prefix",["git","push"]]]}'
    rulestamp.save(where, LINE, ["Bash"], table)
    quick = rulestamp.read(where)
    assert quick is not None and quick[2] == [b"Bash"] and quick[3] == table.encode()
    path = tmp_path / "policy" / "quick"
    whole = path.read_bytes()
    for torn in (whole[:-1], whole + b"more\n", whole.replace(table.encode(), b"")):
        path.write_bytes(torn)
        assert rulestamp.read(where) is None, torn
