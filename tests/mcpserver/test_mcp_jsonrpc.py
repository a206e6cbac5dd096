"""``reflect-git mcp`` spoken to in plain JSON-RPC: the installed console script as a
subprocess, one JSON message a line on its stdin and stdout (MCP's stdio transport), no SDK on
the client side, so what is checked is what a client receives on the wire.

- every tool declares an ``outputSchema`` and marks its required arguments;
- a tool's ``content`` is the command line's compact text, and its ``structuredContent`` is the
  command's ``--json`` document, valid against the ``outputSchema``;
- ``update``, ``supersede`` and ``archive`` go through the KB's one mutation door (checked in
  git: the commit, its trailers, the files), and ``update`` is capped at medium as ``add`` is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import git, run_cli_proc
from tests.mcpserver.test_mcp_server import cli_add, make_kb
from tests.support.kb import assert_clean, count_commits, subject, trailers

SCRIPT = Path(sys.executable).parent / "reflect-git"
POOL = "Cold pools time out under the first burst of traffic; prefill them at startup."


class Wire:
    """One ``reflect-git --kb KB mcp`` process and the JSON-RPC lines exchanged with it."""

    def __init__(self, kb: Path) -> None:
        self.proc = subprocess.Popen(
            [str(SCRIPT), "--kb", str(kb), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=kb,
        )
        self.next_id = 0
        self.sizes: list[int] = []  # the byte size of each answer, as sent

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, self.proc.stderr.read() if self.proc.stderr else "the server closed"
            answer: dict[str, Any] = json.loads(line)
            if answer.get("id") == self.next_id:
                self.sizes.append(len(line.encode()))
                return answer

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in answer, answer
        result: dict[str, Any] = answer["result"]
        return result

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return make_kb(tmp_path)


@pytest.fixture
def wire(kb: Path) -> Iterator[Wire]:
    w = Wire(kb)
    try:
        hello = w.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "plain-json-rpc", "version": "0"},
            },
        )
        assert hello["result"]["serverInfo"]["name"] == "reflect-git", hello
        w.notify("notifications/initialized")
        yield w
    finally:
        w.close()


def tools(wire: Wire) -> dict[str, dict[str, Any]]:
    listed = wire.request("tools/list")["result"]["tools"]
    return {t["name"]: t for t in listed}


def text(result: dict[str, Any]) -> str:
    return "\n".join(c["text"] for c in result["content"] if c["type"] == "text")


def structured(result: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The structured content, valid against the tool's output schema."""
    assert result.get("isError") is not True, text(result)
    doc: dict[str, Any] = result["structuredContent"]
    jsonschema.validate(doc, schema)
    return doc


def test_every_tool_declares_its_output_and_marks_its_required_arguments(wire: Wire) -> None:
    listed = tools(wire)
    assert set(listed) >= {"search", "recall", "show", "update", "supersede", "archive"}
    for name, tool in listed.items():
        out = tool["outputSchema"]
        assert out["type"] == "object" and out["properties"], name
        jsonschema.Draft202012Validator.check_schema(out)
        assert isinstance(tool["inputSchema"]["required"], list), name
    required = {name: tool["inputSchema"]["required"] for name, tool in listed.items()}
    assert required["search"] == ["query"]
    assert required["show"] == ["id"]
    assert required["update"] == ["id"]
    assert required["supersede"] == ["old", "by"]
    assert required["archive"] == ["id"]
    assert required["confirm"] == ["id", "source"]
    assert listed["archive"]["annotations"]["destructiveHint"] is True
    assert listed["search"]["annotations"]["readOnlyHint"] is True


def test_search_recall_and_show_answer_with_the_clis_text(kb: Path, wire: Wire) -> None:
    pool = cli_add(kb, "Prefill connection pools at startup", POOL, "high", "pool")
    clock = cli_add(kb, "Pin the test clock", "Tests reading the wall clock fail.", "medium")
    schemas = {name: t["outputSchema"] for name, t in tools(wire).items()}

    found = wire.call("search", {"query": "pool timeout burst"})
    doc = structured(found, schemas["search"])
    assert [h["id"] for h in doc["hits"]] == [pool]
    cli = run_cli_proc("--kb", str(kb), "search", "pool timeout burst")
    assert text(found) == cli.stdout.rstrip("\n")
    assert text(found).startswith(f"{pool}  [high]  Prefill connection pools at startup\n")
    # Small for the model: no scores, no query reading in the text (they are structured).
    assert "bm25" not in text(found) and "understood" not in text(found)
    assert len(text(found)) < 300 and "bm25" in json.dumps(doc)

    recalled = wire.call("recall", {"project": "kb", "everywhere": True})
    doc = structured(recalled, schemas["recall"])
    assert sorted(n["id"] for n in doc["notes"]) == sorted([pool, clock])
    assert text(recalled) == doc["context"]

    shown = wire.call("show", {"id": clock})
    doc = structured(shown, schemas["show"])
    assert doc["frontmatter"]["confidence"] == "medium"
    assert text(shown) == run_cli_proc("--kb", str(kb), "show", clock).stdout.rstrip("\n")


def test_update_keeps_the_body_in_step_and_is_capped_at_medium(kb: Path, wire: Wire) -> None:
    ident = cli_add(kb, "Prefill connection pools at startup", POOL, "medium", "pool")
    path = f"documents/{ident}.md"
    schema = tools(wire)["update"]["outputSchema"]
    before = count_commits(kb)
    new = "Prefill pools at startup: a cold pool times out under the first burst."

    result = wire.call("update", {"id": ident, "insight": new, "confidence": "high"})
    doc = structured(result, schema)
    assert doc["capped"] is True and doc["commit"] == git("rev-parse", "HEAD", cwd=kb).strip()
    note = git("show", f"HEAD:{path}", cwd=kb)
    assert f"key_insight: '{new}'" in note or f"key_insight: {new}" in note
    assert note.endswith(f"---\n{new}\n")  # the body follows the insight: one version
    assert POOL not in note
    assert "\nconfidence: medium\n" in note and "confidence_num: 0.6" in note
    assert text(result).splitlines() == [
        f"updated {ident} in {doc['commit'][:12]}",
        "note: confidence capped at medium: an agent's note is reviewed before it reaches the "
        "team (pass user_requested_high only when the user asked for high)",
    ]
    assert trailers(kb, "Reflect-Op") == ["update"] and trailers(kb, "Reflect-Source") == ["mcp"]

    refused = wire.call("update", {"id": ident, "set": ["confidence=high"]})
    assert refused["isError"] is True and text(refused).startswith("error: update: set confidence")

    asked = wire.call(
        "update",
        {"id": ident, "confidence": "high", "tags": ["pool", "db"], "user_requested_high": True},
    )
    assert structured(asked, schema)["capped"] is False
    note = git("show", f"HEAD:{path}", cwd=kb)
    assert "\nconfidence: high\n" in note and "- db" in note
    assert count_commits(kb) == before + 2
    assert_clean(kb)


def test_supersede_and_archive_go_through_the_door(kb: Path, wire: Wire) -> None:
    old = cli_add(kb, "Restart the pool on timeouts", "Restart it.", "medium", "pool")
    new = cli_add(kb, "Prefill connection pools at startup", POOL, "medium", "pool")
    gone = cli_add(kb, "Pin the test clock", "Tests reading the wall clock fail.", "low")
    schemas = {name: t["outputSchema"] for name, t in tools(wire).items()}
    before = count_commits(kb)

    replaced = wire.call("supersede", {"old": old, "by": new})
    doc = structured(replaced, schemas["supersede"])
    assert doc == {"old": old, "new": new, "commit": git("rev-parse", "HEAD", cwd=kb).strip()}
    assert text(replaced) == f"{old} superseded by {new} in {doc['commit'][:12]}"
    assert f"superseded_by: {new}" in git("show", f"HEAD:documents/{old}.md", cwd=kb)
    assert f"supersedes: {old}" in git("show", f"HEAD:documents/{new}.md", cwd=kb)
    assert subject(kb) == f"chore(knowledge): supersede {old}"

    archived = wire.call("archive", {"id": gone})
    doc = structured(archived, schemas["archive"])
    assert doc["path"] == f"archived/{gone}.md"
    assert text(archived) == f"archived {gone} -> archived/{gone}.md in {doc['commit'][:12]}"
    assert f"archived/{gone}.md" in git("ls-tree", "--name-only", "HEAD", "archived/", cwd=kb)
    assert f"documents/{gone}.md" not in git("ls-tree", "--name-only", "HEAD", "documents/", cwd=kb)
    assert trailers(kb, "Reflect-Source") == ["mcp"] and trailers(kb, "Reflect-Op") == ["archive"]

    again = wire.call("archive", {"id": gone})
    assert again["isError"] is True
    assert set(again["structuredContent"]) == {"error", "hint", "exit_code"}
    assert text(again).startswith(f"error: no note with id {gone!r}")
    missing = wire.request("tools/call", {"name": "supersede", "arguments": {"old": old}})
    assert missing["result"]["isError"] is True
    assert "'by' is required" in text(missing["result"])
    assert count_commits(kb) == before + 2
    assert_clean(kb)
