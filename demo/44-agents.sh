# Agents: wire reflect-git into Claude Code (project scope), Codex and Copilot CLI, show the
# files as the harness reads them, and run a SessionStart command the way the harness does.
# Sourced by demo/run.sh (KB, DEMO_ROOT are set; reflect-git is on PATH). Uses its own HOME.

agents_home="$DEMO_ROOT/agents-home"
agents_proj="$DEMO_ROOT/agents-project"
agents_kb="$DEMO_ROOT/agents-kb"  # its own KB: the background drain below never races step 50
rm -rf "$agents_home" "$agents_proj" "$agents_kb"
mkdir -p "$agents_home" "$agents_proj/.claude"
git init -q "$agents_proj"
reflect-git init "$agents_kb" >/dev/null
reflect-git --kb "$agents_kb" add --title "Prefill connection pools at startup" \
  --insight "cold pools time out the first requests" --category performance --confidence high >/dev/null
# A team's own project settings, with non-ASCII and 4-space indentation: kept as they are.
cat >"$agents_proj/.claude/settings.json" <<'JSON'
{
    "permissions": {
        "allow": [
            "Bash(make test)"
        ]
    },
    "statusLine": {
        "type": "command",
        "command": "echo Grüße"
    }
}
JSON
cp "$agents_proj/.claude/settings.json" "$DEMO_ROOT/agents-settings-before.json"

step "Agents: Claude Code, project scope (the committed .claude/settings.json gets the portable command)"
HOME="$agents_home" show reflect-git hooks install "$agents_proj" --agent claude --scope project
show sed -n '1,24p' "$agents_proj/.claude/settings.json"
printf '  ... (%s hook commands in all)\n' "$(grep -c '"command": "reflect-git' "$agents_proj/.claude/settings.json")"

step "Agents: Codex (~/.codex/hooks.json: lifecycle hooks, SessionStart recall, Stop queues the transcript)"
HOME="$agents_home" show reflect-git hooks install --agent codex
show cat "$agents_home/.codex/hooks.json" | sed -n '1,14p'

step "Agents: Copilot CLI (user ~/.copilot/hooks/reflect-git.json, project .github/hooks/reflect-git.json)"
HOME="$agents_home" show reflect-git hooks install --agent copilot
HOME="$agents_home" show reflect-git hooks install "$agents_proj" --agent copilot --scope project
show sed -n '1,12p' "$agents_proj/.github/hooks/reflect-git.json"

step "Agents: a SessionStart as Claude Code runs it (stdout is what the model reads)"
(
  cd "$agents_proj"
  export REFLECT_GIT_KB="$agents_kb"
  start_cmd=$(python -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["hooks"]["SessionStart"][-1]["hooks"][0]["command"])' .claude/settings.json)
  recall_cmd="$start_cmd"
  printf '$ %s   # the recall, and the drain started detached\n' "$recall_cmd"
  sh -c "$recall_cmd" </dev/null | python -c 'import json,sys; d=json.load(sys.stdin)["hookSpecificOutput"]; print(d["hookEventName"] + ": " + d["additionalContext"].splitlines()[0])'
  printf '$ REFLECT_DISABLED=1 %s   # stdout: %s bytes\n' "$recall_cmd" "$(REFLECT_DISABLED=1 sh -c "$recall_cmd" </dev/null | wc -c | tr -d ' ')"
)

step "Agents: what is installed where, then uninstall (the team's own settings come back byte for byte)"
HOME="$agents_home" show reflect-git hooks status "$agents_proj"
HOME="$agents_home" show reflect-git hooks install "$agents_proj" --agent claude --scope project --uninstall
show cmp "$DEMO_ROOT/agents-settings-before.json" "$agents_proj/.claude/settings.json" && echo "  identical to the file before install"
for agent in codex copilot; do
  HOME="$agents_home" reflect-git hooks install --agent "$agent" --uninstall
done
HOME="$agents_home" reflect-git hooks install "$agents_proj" --agent copilot --scope project --uninstall
