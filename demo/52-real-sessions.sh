# shellcheck shell=bash
# Step 52: drain sessions that carry text the harness injected (a command caveat, a skill body,
# AGENTS.md) next to a person's words, from Claude Code and Codex. Only a person's words make a
# rule; the assistant's fixes are low notes; the injected text makes none.
rkb="$DEMO_ROOT/real-kb"

step "sessions: queue a Claude Code session with injected text and a person's rule, and a Codex rollout"
git init -q -b main "$rkb"
show reflect-git --kb "$rkb" queue add "$DATA/sessions/claude-injected-text.jsonl" --trigger stop
show reflect-git --kb "$rkb" queue add "$DATA/transcripts/codex/rollout-docker-cache.jsonl" --trigger stop

step "sessions: drain them with the heuristic writer"
REFLECT_DRAIN_WRITER=heuristic REFLECT_DRAIN_DEBOUNCE_SEC=0 REFLECT_DRAIN_MAX=10 show reflect-git --kb "$rkb" drain

step "sessions: the notes (confidence, title); none from the injected caveat, skill or AGENTS.md text"
for f in "$rkb"/documents/*.md; do
  printf '  %-7s %s\n' "$(sed -n 's/^confidence: //p' "$f" | head -1)" "$(sed -n 's/^title: //p' "$f" | head -1)"
done
if grep -l -e 'DO NOT respond' -e 'AGENTS.md' -e 'Base directory for this skill' -e 'bump the version' \
  -e 'migrations from a test' "$rkb"/documents/*.md; then
  echo "demo: a note came from injected text" >&2
  exit 1
fi
echo "no note holds the command caveat, a skill body or AGENTS.md text"

step "sessions: a person's rule carries its evidence (their words, and what the assistant had just done)"
note=$(grep -l "^title: Always write the plan first" "$rkb"/documents/*.md)
printf '$ awk ... %s   (the body, after the frontmatter)\n' "${note#"$rkb"/}"
awk 'n >= 2; /^---$/ { n++ }' "$note"
