# Step 47: the MCP server. An agent consults and feeds the KB over MCP: `reflect-git mcp` on
# stdio, driven here by a tiny client on the official SDK (the same client the tests use), then
# registered with Claude Code and Codex by `hooks install --mcp`. Sourced by demo/run.sh
# (DEMO_ROOT is set; reflect-git and the venv's python are on PATH). Its own KB and HOME.

mcp_kb="$DEMO_ROOT/mcp-kb"
mcp_home="$DEMO_ROOT/mcp-home"
rm -rf "$mcp_kb" "$mcp_home"
mkdir -p "$mcp_home/.codex"
reflect-git init "$mcp_kb" --no-pre-commit >/dev/null
reflect-git --kb "$mcp_kb" add --title "Prefill connection pools at startup" \
  --insight "Cold pools time out under the first burst of traffic; prefill them at startup." \
  --category performance --confidence high --tag pool >/dev/null
reflect-git --kb "$mcp_kb" add --title "Pin the test clock" \
  --insight "Tests that read the wall clock fail at midnight; inject a clock." \
  --category testing --confidence medium --tag testing >/dev/null

cat >"$DEMO_ROOT/mcp-client.py" <<'PY'
"""A tiny MCP client on the official SDK: start `reflect-git mcp`, call each tool, read a note."""
import json
import sys

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

kb = sys.argv[1]


def say(title, result):
    print(f"-- {title}{'  (isError)' if getattr(result, 'is_error', False) else ''}")
    print("\n".join(c.text for c in result.content if c.type == "text"))


async def main():
    server = StdioServerParameters(command="reflect-git", args=["--kb", kb, "mcp"], cwd=kb)
    async with stdio_client(server) as (read, write), ClientSession(read, write) as s:
        init = await s.initialize()
        print(f"-- server {init.server_info.name} {init.server_info.version}")
        print("-- tools:", ", ".join(t.name for t in (await s.list_tools()).tools))
        found = await s.call_tool("search", {"query": "pool timeout", "limit": 3})
        say("search pool timeout (the text a model reads)", found)
        print("-- its structured content:", [(h["id"], h["tier"]) for h in found.structured_content["hits"]])
        say("recall", await s.call_tool("recall", {"project": "payments-api", "everywhere": True}))
        added = await s.call_tool("add", {
            "title": "Quote paths in shell hooks",
            "insight": "Unquoted paths break on spaces; quote every expansion.",
            "category": "tooling", "confidence": "high", "tags": ["shell"],
        })
        doc = added.structured_content
        print(f"-- add at high: {doc['id']} confidence={doc['confidence']} capped={doc['capped']}")
        print(f"   {doc['notes'][0]}")
        confirmed = await s.call_tool("confirm", {"id": doc["id"], "source": "session:demo"})
        print("-- confirm:", confirmed.structured_content)
        say("update the insight, asking for high", await s.call_tool("update", {
            "id": doc["id"], "confidence": "high",
            "insight": "Unquoted paths break on spaces and globs; quote every expansion.",
        }))
        say("show it: the body follows the insight", await s.call_tool("show", {"id": doc["id"]}))
        clock = next(h["id"] for h in (await s.call_tool("search", {"query": "clock"})).structured_content["hits"])
        newer = await s.call_tool("add", {
            "title": "Inject the clock in tests", "insight": "Pass a clock; never read the wall clock in tests.",
            "category": "testing",
        })
        say("supersede", await s.call_tool("supersede", {"old": clock, "by": newer.structured_content["id"]}))
        say("archive", await s.call_tool("archive", {"id": clock}))
        say("show no-such-note", await s.call_tool("show", {"id": "no-such-note"}))
        say("search with a bad limit", await s.call_tool("search", {"query": "pool", "limit": "five"}))
        listed = await s.list_resources()
        print("-- resources:", [str(r.uri) for r in listed.resources])
        read = await s.read_resource(str(listed.resources[0].uri))
        print(f"-- read {listed.resources[0].uri}:")
        print(read.contents[0].text.rstrip())
        try:
            await s.read_resource("note://no-such-note")
        except MCPError as exc:
            print(f"-- read note://no-such-note: MCP error {exc.error.code}: {exc.error.message}")
            print(f"   hint: {exc.error.data['hint']}")


anyio.run(main)
PY

step "MCP: an agent searches, recalls, adds (capped at medium) and reads notes over stdio"
show python "$DEMO_ROOT/mcp-client.py" "$mcp_kb"
show git -C "$mcp_kb" log -6 --format='%s%n    %(trailers:key=Reflect-Source,valueonly,separator=)'

step "MCP: register the server with Claude Code and Codex (other servers kept as they are)"
cat >"$mcp_home/.claude.json" <<'JSON'
{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"]
    }
  }
}
JSON
cat >"$mcp_home/.codex/config.toml" <<'TOML'
model = "gpt-5-codex"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
TOML
mcp_proj="$DEMO_ROOT/mcp-project"
rm -rf "$mcp_proj"
git init -q "$mcp_proj"
show env HOME="$mcp_home" reflect-git --kb "$mcp_kb" hooks install "$mcp_proj" --agent claude --mcp
show python -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["mcpServers"], indent=2))' "$mcp_home/.claude.json"
show env HOME="$mcp_home" reflect-git hooks install "$mcp_proj" --agent codex --mcp
show cat "$mcp_home/.codex/config.toml"
show env HOME="$mcp_home" reflect-git hooks install "$mcp_proj" --agent codex
show env HOME="$mcp_home" reflect-git hooks install "$mcp_proj" --agent codex --uninstall
show cat "$mcp_home/.codex/config.toml"
