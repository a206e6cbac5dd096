# shellcheck shell=bash
# Step 42: hook payloads in the shapes the harnesses document (demo/data/payloads): a red-green
# pytest run that Claude Code reports through PostToolUseFailure, the same through Copilot CLI's
# camelCase hooks, and a permission dialog answered once (no note). Sourced by demo/run.sh.
[ -d "$KB/.git" ] || { git init -q -b main "$KB"; git -C "$KB" commit -q --allow-empty -m "empty knowledge base"; }
export REFLECT_STATE_DIR="$DEMO_ROOT/state-42"  # its queue entries stay out of the drain step
# The capture pass a Stop starts runs in the foreground here, so the log below is complete.
export REFLECT_GIT_HOOK_SYNC=1
payloads_replay() {  # FILE [--harness NAME] [EVENT...]: one `reflect-git-hook` process per payload
  python - "$DATA" "$@" <<'PY'
import json, subprocess, sys
data, name, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
harness = rest[:2] if rest[:1] == ["--harness"] else []
names = rest[len(harness):]
events = json.load(open(f"{data}/payloads/{name}"))
for i, event in enumerate(events):
    word = names[i] if names else event["hook_event_name"]
    text = json.dumps(event).replace('"DATA/', f'"{data}/')
    proc = subprocess.run(["reflect-git-hook", word, *harness], input=text, text=True,
                          capture_output=True)
    out = proc.stdout.strip()
    print(f"  {word:<20} exit {proc.returncode}" + (f"  stdout: {out}" if out else ""))
PY
}
step "payloads: pytest fails (PostToolUseFailure.error, no tool_response), an Edit, pytest passes"
payloads_replay claude-pytest-red-green.json
show git -C "$KB" log -1 --format='%h %s%n        %(trailers:key=Reflect-Source,valueonly)'
f="$KB/documents/$(git -C "$KB" log -1 --format='%(trailers:key=Reflect-Id,valueonly)' | sed '/^$/d' | head -1).md"
sed -n '/^## What happened/,/^## Files changed/p' "$f"

step "payloads: the same run from Copilot CLI (camelCase events, toolResult), --harness copilot"
payloads_replay copilot-camelcase.json --harness copilot \
  sessionStart userPromptSubmitted postToolUseFailure postToolUse userPromptSubmitted agentStop sessionEnd
show git -C "$KB" log -2 --format='%h %s'
show reflect-git queue list

step "payloads: a permission dialog allowed once, then an unrelated \"yes\": no note"
before=$(git -C "$KB" rev-parse HEAD)
payloads_replay claude-permission-dialog.json
[ "$(git -C "$KB" rev-parse HEAD)" = "$before" ] && echo "  no commit: a one-off answer teaches nothing"
grep -E 'permission' "$REFLECT_STATE_DIR/logs/hooks.log" | cut -d' ' -f2- | sed 's/^/  /'

step "payloads: Copilot's errorOccurred is a breadcrumb, not a note"
printf '%s' '{"sessionId":"copilot_stage0_small","timestamp":1766093532000,"cwd":"/tmp/repo","error":{"message":"model call failed: 429","name":"RateLimitError"},"errorContext":"model_call","recoverable":true}' \
  | reflect-git-hook errorOccurred --harness copilot
# The hook only records the event; the capture pass at the session's end reads it.
printf '%s' '{"sessionId":"copilot_stage0_small","timestamp":1766093533000,"cwd":"/tmp/repo","reason":"user_exit"}' \
  | reflect-git-hook sessionEnd --harness copilot
show cat "$REFLECT_STATE_DIR/logs/errors.jsonl"
unset REFLECT_STATE_DIR REFLECT_GIT_HOOK_SYNC
