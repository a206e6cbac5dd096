"""``reflect-git mcp``: the real server, started as a subprocess and driven over stdio by the
official SDK's own client (``mcp.client.stdio``), against real KBs in tmp_path.

What is checked is what lands in git (``git log``, ``git show``, ``git status``, ``fsck``), not
what the server says about itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

from tests.conftest import git, run_cli_proc
from tests.support.kb import assert_clean, count_commits, subject, trailers
from tests.support.remote import GitDaemon, git_daemon
from tests.support.routing import kb_factory

__all__ = ["git_daemon", "kb_factory"]

T = TypeVar("T")
TOOL_NAMES = [
    "search",
    "recall",
    "show",
    "add",
    "confirm",
    "update",
    "supersede",
    "archive",
    "review_list",
]


def drive(kb: Path, talk: Callable[[ClientSession], Awaitable[T]], cwd: Path | None = None) -> T:
    """Start ``python -m reflectgit --kb KB mcp``, initialize, run ``talk``, close stdin."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "reflectgit", "--kb", str(kb), "mcp"],
        env=dict(os.environ),
        cwd=str(cwd or kb),
    )

    async def main() -> T:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await talk(session)

    return anyio.run(main)


def make_kb(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    done = run_cli_proc("--kb", str(kb), "init", "--no-pre-commit")
    assert done.returncode == 0, done.stderr
    return kb


def cli_add(kb: Path, title: str, insight: str, confidence: str = "high", *tags: str) -> str:
    args = ["--kb", str(kb), "--json", "add", "--title", title, "--insight", insight]
    args += ["--category", "debugging", "--confidence", confidence]
    for tag in tags:
        args += ["--tag", tag]
    done = run_cli_proc(*args)
    assert done.returncode == 0, done.stderr
    ident: str = json.loads(done.stdout)["id"]
    return ident


@pytest.fixture
def filled(tmp_path: Path) -> tuple[Path, str, str]:
    kb = make_kb(tmp_path)
    pool = cli_add(
        kb,
        "Prefill connection pools at startup",
        "Cold pools time out under the first burst of traffic; prefill them at startup.",
        "high",
        "pool",
    )
    flaky = cli_add(
        kb,
        "Pin the test clock",
        "Tests that read the wall clock fail at midnight; inject a clock.",
        "medium",
        "testing",
    )
    return kb, pool, flaky


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


# --------------------------------------------------------------------------- tools


def test_the_server_lists_the_tools_with_their_schemas(filled: tuple[Path, str, str]) -> None:
    kb, _, _ = filled

    async def talk(s: ClientSession) -> Any:
        return (await s.list_tools()).tools

    tools = {t.name: t for t in drive(kb, talk)}
    assert list(tools) == TOOL_NAMES
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["show"].input_schema["required"] == ["id"]
    assert tools["confirm"].input_schema["required"] == ["id", "source"]
    assert "user_requested_high" in tools["add"].input_schema["properties"]
    assert tools["search"].annotations.read_only_hint is True
    assert tools["add"].annotations.read_only_hint is False


def test_search_recall_and_show_read_the_real_kb(filled: tuple[Path, str, str]) -> None:
    kb, pool, flaky = filled

    async def talk(s: ClientSession) -> Any:
        return (
            await s.call_tool("search", {"query": "pool timeout", "limit": 5}),
            await s.call_tool("search", {"query": "pool", "confidence": "medium"}),
            await s.call_tool("recall", {"project": "kb", "everywhere": True}),
            await s.call_tool("show", {"id": pool}),
        )

    search, filtered, recall, show = drive(kb, talk)
    assert not search.is_error
    hits = [h["id"] for h in search.structured_content["hits"]]
    assert hits == [pool]  # the clock note does not mention pools
    # the text is the command line's, not the JSON document (that is structured content)
    cli_search = run_cli_proc("--kb", str(kb), "search", "pool timeout", "--limit", "5")
    assert text_of(search) == cli_search.stdout.rstrip("\n")
    assert filtered.structured_content["hits"] == []  # the pool note is high, not medium
    assert not recall.is_error
    recalled = [n["id"] for n in recall.structured_content["notes"]]
    assert sorted(recalled) == sorted([pool, flaky])
    assert "Prefill connection pools at startup" in text_of(recall)
    assert not show.is_error
    assert text_of(show) == run_cli_proc("--kb", str(kb), "show", pool).stdout.rstrip("\n")
    raw = git("show", f"HEAD:documents/{pool}.md", cwd=kb)
    assert text_of(show).split("\n", 1)[1] == raw.rstrip("\n")
    assert show.structured_content["frontmatter"]["confidence"] == "high"


def test_add_at_high_is_capped_at_medium_and_committed_through_the_door(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    before = count_commits(kb)
    whole_note = (
        "---\ntype: learning\ntitle: Retry the flaky DNS lookup\nconfidence: high\n"
        "confidence_num: 0.9\n"
        "key_insight: The resolver drops the first query after a cold start.\n"
        "category: networking\ncreated: 2026-11-30\n---\nRetry once with a short timeout.\n"
    )

    async def talk(s: ClientSession) -> Any:
        return (
            await s.call_tool(
                "add",
                {
                    "title": "Quote paths in shell hooks",
                    "insight": "Unquoted paths break on spaces; quote every expansion.",
                    "category": "tooling",
                    "confidence": "high",
                    "tags": ["shell"],
                },
            ),
            await s.call_tool("add", {"note": whole_note}),
            await s.call_tool(
                "add",
                {
                    "title": "Never force-push main",
                    "insight": "The team decided: main is protected; open a pull request.",
                    "category": "git",
                    "confidence": "high",
                    "user_requested_high": True,
                },
            ),
        )

    flags, whole, asked = drive(kb, talk)
    for result in (flags, whole):
        assert not result.is_error, text_of(result)
        doc = result.structured_content
        assert doc["capped"] is True and doc["confidence"] == "medium"
        committed = git("show", f"HEAD:{doc['path']}", cwd=kb)
        assert "\nconfidence: medium\n" in committed
        assert "confidence: high" not in committed
        assert "confidence_num: 0.9" not in committed  # the number agrees with the capped tier
    assert not asked.is_error
    assert asked.structured_content["capped"] is False
    high_path = asked.structured_content["path"]
    assert "\nconfidence: high\n" in git("show", f"HEAD:{high_path}", cwd=kb)
    # One commit each, through the same door as `reflect-git add`, marked as the MCP's.
    assert count_commits(kb) == before + 3
    assert subject(kb, "HEAD~2") == "docs(knowledge): Quote paths in shell hooks [MED]"
    assert subject(kb, "HEAD~1") == "docs(knowledge): Retry the flaky DNS lookup [MED]"
    assert subject(kb) == "feat(knowledge): Never force-push main [HIGH]"
    assert trailers(kb, "Reflect-Source") == ["mcp"]
    assert trailers(kb, "Reflect-Op", "HEAD~1") == ["add"]
    assert_clean(kb)
    check = run_cli_proc("--kb", str(kb), "validate")
    assert check.returncode == 0, check.stdout + check.stderr


def test_bad_input_is_a_tool_error_with_the_clis_message_and_hint(
    filled: tuple[Path, str, str],
) -> None:
    kb, pool, _ = filled
    before = count_commits(kb)
    broken = "---\ntitle: [unclosed\n---\nbody\n"

    async def talk(s: ClientSession) -> Any:
        return (
            await s.call_tool("show", {"id": "no-such-note"}),
            await s.call_tool("add", {"note": broken}),
            await s.call_tool("search", {"query": "pool", "limit": "five"}),
            await s.call_tool("confirm", {"id": pool}),
            await s.call_tool("add", {"title": "T", "insight": "I", "colour": "red"}),
            await s.call_tool("search", {"query": "???"}),
        )

    missing, unparsable, wrong_type, no_source, unknown, nothing = drive(kb, talk)
    for result in (missing, unparsable, wrong_type, no_source, unknown, nothing):
        assert result.is_error
        assert text_of(result).startswith("error: ")
        assert "\nhint: " in text_of(result)
        assert set(result.structured_content) == {"error", "hint", "exit_code"}
    # The very lines the CLI prints on stderr for the same mistakes.
    cli_show = run_cli_proc("--kb", str(kb), "show", "no-such-note")
    assert cli_show.returncode == 1
    assert text_of(missing) == cli_show.stderr.rstrip("\n")
    cli_search = run_cli_proc("--kb", str(kb), "search", "???")
    assert text_of(nothing) == cli_search.stderr.rstrip("\n")
    assert "line 2" in text_of(unparsable) or ":2:" in text_of(unparsable)
    assert "'limit' must be an integer" in text_of(wrong_type)
    assert "'source' is required" in text_of(no_source)
    assert "unknown argument 'colour'" in text_of(unknown)
    assert unknown.structured_content["exit_code"] == 2
    assert count_commits(kb) == before  # nothing was written
    assert_clean(kb)


def test_confirm_counts_one_proof_per_source(filled: tuple[Path, str, str]) -> None:
    kb, pool, _ = filled
    before = count_commits(kb)

    async def talk(s: ClientSession) -> Any:
        first = await s.call_tool("confirm", {"id": pool, "source": "session:abc"})
        again = await s.call_tool("confirm", {"id": pool, "source": "session:abc"})
        other = await s.call_tool("confirm", {"id": pool, "source": "pr:42"})
        return first, again, other

    first, again, other = drive(kb, talk)
    # A note starts with one proof (itself); each new source adds one, a repeat adds none.
    assert [r.structured_content["proof_count"] for r in (first, again, other)] == [2, 2, 3]
    assert again.structured_content["commit"] is None
    assert count_commits(kb) == before + 2
    assert trailers(kb, "Reflect-Op") == ["confirm"]
    assert_clean(kb)


def test_a_low_note_routed_from_the_tool_waits_in_the_review_queue(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)

    async def talk(s: ClientSession) -> Any:
        added = await s.call_tool(
            "add",
            {
                "title": "Maybe the cache key misses the locale",
                "insight": "Two users saw each other's language once; unconfirmed.",
                "category": "caching",
                "confidence": "low",
                "route": True,
            },
        )
        listed = await s.call_tool("review_list", {})
        return added, listed

    added, listed = drive(kb, talk)
    assert not added.is_error, text_of(added)
    routed = added.structured_content["routed"]
    assert routed["route"] == "queue" and routed["error"] is None
    assert git("show", f"HEAD:{routed['queue_path']}", cwd=kb)  # the pointer is committed
    queue = listed.structured_content["queue"]
    assert [q["id"] for q in queue] == [added.structured_content["id"]]
    assert listed.structured_content["team"] is False
    assert_clean(kb)


def test_a_capped_note_routed_to_the_team_goes_to_a_knowledge_branch_not_main(
    git_daemon: GitDaemon, kb_factory: Any, tmp_path: Path
) -> None:
    team = git_daemon.new_repo()
    team.seed({"README.md": "team KB\n"})
    kb = kb_factory(team)
    main_before = team.heads()["main"]

    async def talk(s: ClientSession) -> Any:
        added = await s.call_tool(
            "add",
            {
                "title": "Drain the queue before deploys",
                "insight": "A deploy mid-drain loses the lease; drain first.",
                "category": "operations",
                "confidence": "high",
                "route": True,
            },
        )
        listed = await s.call_tool("review_list", {})
        return added, listed

    added, listed = drive(kb.path, talk)
    assert not added.is_error, text_of(added)
    routed = added.structured_content["routed"]
    assert routed["route"] == "branch" and routed["pushed"] is True
    heads = team.heads()
    assert heads["main"] == main_before  # the team's main never saw the agent's note
    assert routed["branch"] in heads and routed["branch"].startswith("knowledge/")
    note = team.git("show", f"{routed['branch']}:documents/{routed['id']}.md")
    assert "\nconfidence: medium\n" in note
    branches = [b["branch"] for b in listed.structured_content["branches"]]
    assert branches == [routed["branch"]]
    assert listed.structured_content["team"] is True


def test_a_high_note_the_user_asked_for_is_still_the_agents_and_goes_to_review(
    git_daemon: GitDaemon, kb_factory: Any, tmp_path: Path
) -> None:
    # user_requested_high keeps the tier, but the agent wrote the note: a person reviews it
    # (a CLI or web confirm) before it reaches the team's main (issue 34).
    team = git_daemon.new_repo()
    team.seed({"README.md": "team KB\n"})
    kb = kb_factory(team)
    main_before = team.heads()["main"]

    async def talk(s: ClientSession) -> Any:
        return await s.call_tool(
            "add",
            {
                "title": "Pin the runner image",
                "insight": "The floating runner tag broke the build twice; pin its digest.",
                "category": "ci",
                "confidence": "high",
                "user_requested_high": True,
                "route": True,
            },
        )

    added = drive(kb.path, talk)
    assert not added.is_error, text_of(added)
    routed = added.structured_content["routed"]
    assert routed["route"] == "branch" and routed["unreviewed"] == "agent"
    assert team.heads()["main"] == main_before
    note = team.git("show", f"{routed['branch']}:documents/{routed['id']}.md")
    assert "\nconfidence: high\n" in note and "written_by: agent" in note


# --------------------------------------------------------------------------- resources


def test_notes_are_resources_listed_and_read(filled: tuple[Path, str, str]) -> None:
    kb, pool, flaky = filled

    async def talk(s: ClientSession) -> Any:
        listed = await s.list_resources()
        templates = await s.list_resource_templates()
        read = await s.read_resource(f"note://{pool}")
        try:
            await s.read_resource("note://no-such-note")
        except MCPError as exc:
            missing = exc.error
        try:
            await s.read_resource("file:///etc/passwd")
        except MCPError as exc:
            foreign = exc.error
        return listed, templates, read, missing, foreign

    listed, templates, read, missing, foreign = drive(kb, talk)
    uris = sorted(str(r.uri) for r in listed.resources)
    assert uris == sorted([f"note://{pool}", f"note://{flaky}"])
    titles = {r.name: r.title for r in listed.resources}
    assert titles[pool] == "Prefill connection pools at startup"
    assert [t.uri_template for t in templates.resource_templates] == ["note://{id}"]
    assert read.contents[0].text == git("show", f"HEAD:documents/{pool}.md", cwd=kb)
    assert read.contents[0].mime_type == "text/markdown"
    assert missing.code == -32002
    assert missing.message == "no note with id 'no-such-note'"
    assert missing.data["hint"] == "`reflect-git list --all`"
    assert foreign.code == -32002 and "note://" in foreign.data["hint"]


# --------------------------------------------------------------------------- the wire


def test_stdout_carries_only_the_protocol(filled: tuple[Path, str, str]) -> None:
    """A raw JSON-RPC exchange: every stdout line is one JSON-RPC message, nothing else."""
    kb, pool, _ = filled
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "pool"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "show", "arguments": {"id": "nope"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "resources/read",
            "params": {"uri": f"note://{pool}"},
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit", "--kb", str(kb), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test, never hangs it
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(4)]
        proc.stdin.close()  # the client leaves: the server exits cleanly
        rest = proc.stdout.read()
        code = proc.wait()
    finally:
        watchdog.cancel()
    assert code == 0
    assert rest == ""
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    by_id = {r["id"]: r for r in replies}
    assert sorted(by_id) == [1, 2, 3, 4]
    assert by_id[1]["result"]["serverInfo"]["name"] == "reflect-git"
    assert by_id[2]["result"]["structuredContent"]["hits"][0]["id"] == pool
    assert by_id[3]["result"]["isError"] is True
    assert by_id[4]["result"]["contents"][0]["uri"] == f"note://{pool}"


def test_a_request_line_with_no_end_is_refused_not_buffered(tmp_path: Path) -> None:
    """A client that sends bytes and never a newline (800 MB, say) gets a JSON-RPC error once
    the line passes the limit, and the server closes the connection: it stops reading, so
    the sender's pipe breaks long before it is done, and memory stays bounded."""
    limit = 8 * 1024 * 1024  # the server's LINE_LIMIT
    kb = make_kb(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "reflectgit", "--kb", str(kb), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    sent = 0
    chunk = b"x" * (1024 * 1024)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            while sent < 16 * limit:  # 128 MiB, never a newline
                proc.stdin.write(chunk)
                proc.stdin.flush()
                sent += len(chunk)
        except BrokenPipeError:
            pass
        reply = json.loads(proc.stdout.readline())
        code = proc.wait()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
    assert sent < 2 * limit, "the server kept reading a line past the limit"
    assert reply["jsonrpc"] == "2.0" and reply["id"] is None
    assert reply["error"]["code"] == -32600
    assert "longer than" in reply["error"]["message"]
    assert code == 0
