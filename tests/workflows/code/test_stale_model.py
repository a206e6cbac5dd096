"""``stale --ask-model``: a configured model (a stub executable here: it reads the prompt on
stdin, records the call and answers) reads each note the heuristics call stale for a change,
against real git histories. ``holds`` moves the note to ``changed``; ``wrong`` keeps it stale
with the model's why; an unsure answer, prose, a malformed object, a failing or hanging command
keep the heuristic verdict (the failure counted); the calls are bounded; a note with no changed
anchor costs no call; nothing is asked unless asked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reflectgit.workflows.code.model_reading import parse_verdict
from tests.conftest import run_cli_proc
from tests.support.coderepo import POOL_PY
from tests.support.codeworld import World
from tests.support.drain import calls, prompt_of, stub_command

CONNECT = POOL_PY.replace("pool.add(open_connection())", "pool.add(connect(size))")
HOLDS = 'emit({"verdict": "holds", "why": "it still opens size connections up front"})'
WRONG = 'emit({"verdict": "wrong", "why": "prefill now calls connect, not open_connection"})'


def _run(
    world: World, stub: Path | str, *extra: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return run_cli_proc(
        "--kb", str(world.kb), "stale", "--repo", str(world.code.path), *extra,
        env={"REFLECT_DRAIN_CMD": str(stub), **env},
    )  # fmt: skip


def _ask(world: World, stub: Path, *extra: str, **env: str) -> tuple[dict[str, Any], str]:
    """``stale --json --ask-model``: the document and stderr."""
    done = _run(world, stub, "--json", "--ask-model", *extra, **env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def _changed_note(world: World, title: str = "prefill calls open_connection size times") -> str:
    """A note on ``prefill`` whose code then changes in a name it states: stale: changed."""
    return world.note(title, "src/pool.py:prefill")


def _change(world: World) -> None:
    world.code.write("src/pool.py", CONNECT).commit("connect through the new helper")


def test_holds_moves_the_note_to_changed_with_the_models_why(world: World, tmp_path: Path) -> None:
    nid = _changed_note(world)
    _change(world)
    stub = stub_command(tmp_path, HOLDS)
    assert [e["id"] for e in world.stale()["stale"]] == [nid], "the heuristic flags it"
    doc, err = _ask(world, stub)
    assert doc["stale"] == []
    [entry] = doc["changed"]
    assert entry["id"] == nid and entry["reason"] == "changed-elsewhere"
    assert entry["model"] == {"verdict": "holds", "why": "it still opens size connections up front"}
    assert "the note still holds: it still opens size connections up front" in entry["label"]
    assert [a["reason"] for a in entry["anchors"]] == ["changed-elsewhere"]
    assert doc["model_reading"]["holds"] == 1 and calls(stub) == 1
    assert "1 still holds" in err
    # the prompt: the note's title and body, the anchored block at its commit and at HEAD
    prompt = prompt_of(stub)
    assert "Note title: prefill calls open_connection size times" in prompt
    assert "size times: what we learned" in prompt
    before = prompt[prompt.index("----- before -----") : prompt.index("----- end of before")]
    after = prompt[prompt.index("----- after -----") : prompt.index("----- end of after")]
    assert "pool.add(open_connection())" in before and "connect(size)" not in before
    assert "pool.add(connect(size))" in after and "class Pool" not in after
    assert "cut:" not in prompt


def test_wrong_keeps_the_note_stale_with_the_why_in_its_label(world: World, tmp_path: Path) -> None:
    nid = _changed_note(world)
    _change(world)
    stub = stub_command(tmp_path, WRONG)
    doc, _err = _ask(world, stub)
    [entry] = doc["stale"]
    assert entry["id"] == nid and entry["reason"] == "changed" and doc["changed"] == []
    assert entry["model"]["verdict"] == "wrong"
    assert entry["label"].startswith("stale: the code it names changed in 1 commit since")
    assert entry["label"].endswith("is wrong now: prefill now calls connect, not open_connection")


FAILURES = {
    "prose": ('print("The note looks fine to me.")', "held no JSON verdict"),
    "an unknown verdict": ('emit({"verdict": "maybe", "why": "?"})', "held no JSON verdict"),
    "no verdict key": ('emit({"why": "fine"})', "held no JSON verdict"),
    "exit 1": ("sys.exit(1)", "failed (exit 1)"),
    "an error result": ('emit("overloaded", is_error=True)', "the model command failed"),
    "a timeout": ("time.sleep(30)", "no answer within 1 s"),
}


@pytest.mark.parametrize("body, said", FAILURES.values(), ids=FAILURES.keys())
def test_a_failed_call_keeps_the_heuristic_verdict_and_is_counted(
    world: World, tmp_path: Path, body: str, said: str
) -> None:
    nid = _changed_note(world)
    _change(world)
    heuristic = world.stale()
    stub = stub_command(tmp_path, body)
    doc, err = _ask(world, stub, REFLECT_STALE_ASK_TIMEOUT="1")
    assert [e["id"] for e in doc["stale"]] == [nid] and doc["changed"] == []
    assert "model" not in doc["stale"][0]
    assert doc["stale"][0]["label"] == heuristic["stale"][0]["label"]
    assert doc["model_reading"]["failed"] == 1 and calls(stub) == 1
    assert "1 call failed, the heuristic verdict kept" in err and said in err


def test_unsure_keeps_the_heuristic_verdict(world: World, tmp_path: Path) -> None:
    nid = _changed_note(world)
    _change(world)
    stub = stub_command(tmp_path, 'emit({"verdict": "unsure", "why": "connect is not shown"})')
    doc, err = _ask(world, stub)
    [entry] = doc["stale"]
    assert entry["id"] == nid and entry["reason"] == "changed"
    assert entry["model"] == {"verdict": "unsure", "why": "connect is not shown"}
    assert doc["model_reading"]["unsure"] == 1 and doc["model_reading"]["failed"] == 0
    assert "1 unsure" in err and "failed" not in err


def test_the_calls_are_bounded(world: World, tmp_path: Path) -> None:
    first = _changed_note(world)
    second = _changed_note(world, "prefill hands open_connection to pool.add size times")
    _change(world)
    stub = stub_command(tmp_path, HOLDS)
    doc, err = _ask(world, stub, REFLECT_STALE_ASK_MAX="1")
    assert calls(stub) == 1
    assert doc["model_reading"] == {
        "asked": 1, "holds": 1, "wrong": 0, "unsure": 0, "failed": 0, "not_asked": 1, "errors": [],
    }  # fmt: skip
    moved = [e["id"] for e in doc["changed"]]
    kept = [e["id"] for e in doc["stale"]]
    assert sorted(moved + kept) == sorted([first, second]) and len(kept) == 1
    assert "model" not in doc["stale"][0], "the note past the bound keeps the heuristic verdict"
    assert "1 not asked" in err


def test_a_model_that_keeps_failing_is_asked_no_more(world: World, tmp_path: Path) -> None:
    for n in range(4):
        _changed_note(world, f"prefill calls open_connection size times, case {n}")
    _change(world)
    stub = stub_command(tmp_path, "sys.exit(1)")
    doc, _err = _ask(world, stub)
    assert calls(stub) == 3 and len(doc["stale"]) == 4
    assert doc["model_reading"]["failed"] == 3 and doc["model_reading"]["not_asked"] == 1


def test_a_note_with_no_changed_anchor_costs_no_call(world: World, tmp_path: Path) -> None:
    world.note("backoff doubles the wait each retry", "src/retry.py:backoff")
    untouched = world.note("the README names the service", "README.md")
    world.code.delete("src/retry.py").commit("retry moved to a library")
    stub = stub_command(tmp_path, HOLDS)
    doc, err = _ask(world, stub)
    assert [e["reason"] for e in doc["stale"]] == ["deleted"] and "model" not in doc["stale"][0]
    assert untouched not in {e["id"] for e in doc["stale"] + doc["changed"]}
    assert calls(stub) == 0 and doc["model_reading"]["asked"] == 0
    assert "no note to read" in err


def test_a_note_with_a_deleted_anchor_is_not_read_for_its_changed_one(
    world: World, tmp_path: Path
) -> None:
    world.note(
        "prefill calls open_connection, backoff doubles", "src/pool.py:prefill", "src/retry.py"
    )
    world.code.write("src/pool.py", CONNECT).delete("src/retry.py").commit("connect, no retry")
    stub = stub_command(tmp_path, HOLDS)
    doc, _err = _ask(world, stub)
    assert [e["reason"] for e in doc["stale"]] == ["deleted"] and calls(stub) == 0


def test_nothing_is_asked_unless_asked(world: World, tmp_path: Path) -> None:
    nid = _changed_note(world)
    _change(world)
    stub = stub_command(tmp_path, HOLDS)
    # no setting: the heuristic alone, the JSON as before
    plain = _run(world, stub, "--json")
    assert plain.returncode == 0 and calls(stub) == 0
    doc = json.loads(plain.stdout)
    assert "model_reading" not in doc and "model" not in doc["stale"][0]
    # the setting asks in text, never in --json unless the flag does
    on = {"REFLECT_STALE_ASK_MODEL": "1"}
    assert _run(world, stub, "--json", **on).returncode == 0 and calls(stub) == 0
    text = _run(world, stub, **on)
    assert text.returncode == 0 and calls(stub) == 1
    assert f"{nid}  changed: the code it names changed" in text.stdout
    assert "the model read the change and the note still holds" in text.stdout
    assert _run(world, stub, "--no-ask-model", **on).returncode == 0 and calls(stub) == 1
    asked = _run(world, stub, "--json", "--ask-model", **on)
    assert asked.returncode == 0 and calls(stub) == 2


def test_asking_without_a_model_command_is_an_error(world: World, tmp_path: Path) -> None:
    _changed_note(world)
    _change(world)
    done = _run(world, tmp_path / "no-such-model", "--ask-model")
    assert done.returncode == 1 and done.stdout == ""
    assert "error: reading stale notes with a model needs the drain's model command" in done.stderr
    assert "hint: set REFLECT_DRAIN_CMD" in done.stderr


def test_a_long_block_is_cut_and_the_prompt_says_so(world: World, tmp_path: Path) -> None:
    lines = "".join(f"    pool.add(open_connection())  # slot {i}\n" for i in range(300))
    long_py = POOL_PY.replace(
        "    for _ in range(size):\n        pool.add(open_connection())\n", lines
    )
    world.code.write("src/pool.py", long_py).commit("unrolled")
    world.note("prefill calls open_connection for every slot", "src/pool.py:prefill")
    world.code.write("src/pool.py", long_py.replace("open_connection()", "connect()")).commit("c")
    stub = stub_command(tmp_path, WRONG)
    doc, _err = _ask(world, stub)
    assert doc["stale"][0]["model"]["verdict"] == "wrong"
    prompt = prompt_of(stub)
    assert "Before, at the note's commit" in prompt and "(cut: the first 6000 of" in prompt
    assert "slot 299" not in prompt and len(prompt) < 20000


def test_a_secret_in_the_code_is_masked_before_the_model_sees_it(
    world: World, tmp_path: Path
) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    _changed_note(world)
    leaked = CONNECT.replace(
        "    return pool\n", f'    pool.token = "{token}"\n    return pool\n', 1
    )
    world.code.write("src/pool.py", leaked).commit("connect, with a token")
    stub = stub_command(tmp_path, HOLDS)
    _ask(world, stub)
    prompt = prompt_of(stub)
    assert "pool.token = " in prompt and token not in prompt


ANSWERS = {
    "bare": ('{"verdict": "holds", "why": "same"}', ("holds", "same")),
    "fenced after prose": (
        'Sure.\n```json\n{"verdict": "WRONG", "why": "x\n y"}\n```',
        ("wrong", "x y"),
    ),
    "no why": ('{"verdict": "unsure"}', ("unsure", "")),
    "a long why cut to one line": (
        '{"verdict": "holds", "why": "' + "w " * 200 + '"}',
        ("holds", ("w " * 99).strip() + "..."),
    ),
}
NOT_ANSWERS = {
    "prose": "It still holds.",
    "a verdict outside the three": '{"verdict": "fine", "why": "x"}',
    "a verdict not a string": '{"verdict": 1}',
    "broken JSON": '{"verdict": "holds", "why": ',
    "a verdict said in words": "verdict: holds, why: the same",
    "nested past all reason": '{"verdict": ' + "[" * 100000,
}


@pytest.mark.parametrize("text, want", ANSWERS.values(), ids=ANSWERS.keys())
def test_a_verdict_is_read_from_the_answer(text: str, want: tuple[str, str]) -> None:
    got = parse_verdict(text)
    assert got is not None and (got.verdict, got.why) == want


@pytest.mark.parametrize("text", NOT_ANSWERS.values(), ids=NOT_ANSWERS.keys())
def test_an_answer_without_a_known_verdict_is_none(text: str) -> None:
    assert parse_verdict(text) is None
