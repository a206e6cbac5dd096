# Enforced rules: a note that says "never force-push" blocks the `git push --force` an agent is
# about to run, in each harness's own reply format; a plain push, or the words in an echo, pass.
# Sourced by demo/run.sh (DEMO_ROOT is set; reflect-git is on PATH). Uses its own KB.

rules_kb="$DEMO_ROOT/rules-kb"
rm -rf "$rules_kb"
reflect-git init "$rules_kb" >/dev/null
cat >"$DEMO_ROOT/no-force-push.md" <<'NOTE'
---
title: Never force-push shared branches
created: 2026-11-30
confidence: high
rule: Rebase locally and open a pull request; never rewrite what others pulled.
enforce:
  deny:
    - "Bash(git push --force:*)"
    - "Bash(git push -f:*)"
---
A force push to main rewrote two teammates' work in March.
NOTE
cat >"$DEMO_ROOT/publish-from-ci.md" <<'NOTE'
---
title: Publish packages from CI only
created: 2026-11-30
confidence: medium
enforce:
  deny:
    - "Bash(npm publish:*)"
---
The release job signs the package; a laptop publish is unsigned.
NOTE
printf '%s\n' '{"pattern": "kubectl delete namespace:*", "decision": "deny", "confidence": "high", "reason": "namespaces are deleted by the platform team"}' \
  >"$DEMO_ROOT/team-policy.jsonl"

(
  export REFLECT_GIT_KB="$rules_kb" REFLECT_POLICY_FILE="$DEMO_ROOT/team-policy.jsonl"
  cd "$DEMO_ROOT"

  step "Rules: notes carry enforce patterns (validated like every field), a JSONL policy file adds one"
  show reflect-git add no-force-push.md
  show reflect-git add publish-from-ci.md
  show reflect-git rules list

  step "Rules: what the PreToolUse hook would answer (a high deny blocks, a medium one adds context)"
  show reflect-git rules test "git fetch && git push --force origin main"
  show reflect-git rules test "git push origin main"
  show reflect-git rules test 'echo "never git push --force"'
  show reflect-git rules test "npm publish --tag next"

  step "Rules: hook PreToolUse as each harness calls it (payload on stdin, reply on stdout, exit 0)"
  claude='{"session_id":"7f1c2a90","transcript_path":"/tmp/none.jsonl","cwd":"/home/dev/src/billing","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push -f origin main"},"tool_use_id":"toolu_01"}'
  printf '$ echo %s | reflect-git-hook PreToolUse\n' "'{...\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"git push -f origin main\"}}'"
  printf '%s' "$claude" | reflect-git-hook PreToolUse
  codex='{"session_id":"019e1625","turn_id":"t1","cwd":"/Users/user/repo","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"kubectl delete namespace prod"}}'
  printf '$ echo %s | reflect-git-hook PreToolUse --harness codex\n' "'{...\"command\":\"kubectl delete namespace prod\"}}'"
  printf '%s' "$codex" | reflect-git-hook PreToolUse --harness codex
  copilot='{"sessionId":"copilot_stage0_small","timestamp":1766093527000,"cwd":"/tmp/repo","toolName":"bash","toolArgs":"{\"command\":\"git push --force\"}"}'
  printf '$ echo %s | reflect-git-hook preToolUse --harness copilot\n' "'{...\"toolName\":\"bash\",\"toolArgs\":\"{\\\"command\\\":\\\"git push --force\\\"}\"}'"
  printf '%s' "$copilot" | reflect-git-hook preToolUse --harness copilot
  printf '$ echo %s | reflect-git-hook PreToolUse   # a plain push: no output\n' "'{...\"command\":\"git push origin main\"}}'"
  printf '%s' "${claude/git push -f origin main/git push origin main}" | reflect-git-hook PreToolUse
  printf '  exit %s, %s bytes on stdout\n' "$?" "$(printf '%s' "${claude/git push -f origin main/git push origin main}" | reflect-git-hook PreToolUse | wc -c | tr -d ' ')"
)
