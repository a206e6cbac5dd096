# shellcheck shell=bash
# Step 52: drain real sessions (Claude Code 2.1 with its compaction agent, Codex, Copilot CLI).
# Only a person's words make a rule; the assistant's fixes are low notes; the text the harness
# injects (command caveats, skill bodies, compaction prompts, AGENTS.md) makes none.
real="$SHARED/data/real/transcripts"
rkb="$DEMO_ROOT/real-kb"

step "real sessions: queue a Claude Code session full of corrections, a compaction agent's file, a Codex rollout and a Copilot CLI session"
git init -q -b main "$rkb"
show reflect-git --kb "$rkb" queue add "$real/claude/codemie__session-196820da.jsonl" --trigger stop
show reflect-git --kb "$rkb" queue add "$real/claude/spotter__ae4a77f8__subagents__agent-acompact-946d2b.jsonl" \
  --trigger precompact --session ae4a77f8-aedd-4bc1-888f-c94edc91af04
show reflect-git --kb "$rkb" queue add "$real/codex/codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl" --trigger stop
show reflect-git --kb "$rkb" queue add "$real/copilot/agentsessions__copilot-small.jsonl" --trigger stop

step "real sessions: drain them with the heuristic writer"
REFLECT_DRAIN_WRITER=heuristic REFLECT_DRAIN_DEBOUNCE_SEC=0 REFLECT_DRAIN_MAX=10 show reflect-git --kb "$rkb" drain

step "real sessions: the notes (confidence, title); none from the injected caveat, skill or AGENTS.md text"
for f in "$rkb"/documents/*.md; do
  printf '  %-7s %s\n' "$(sed -n 's/^confidence: //p' "$f" | head -1)" "$(sed -n 's/^title: //p' "$f" | head -1)"
done
if grep -l -e 'DO NOT respond' -e 'AGENTS.md' -e 'Base directory for this skill' "$rkb"/documents/*.md; then
  echo "demo: a note came from injected text" >&2
  exit 1
fi
echo "no note holds the command caveat, a skill body or AGENTS.md text"

step "real sessions: a person's rule carries its evidence (their words, and what the assistant had just done)"
note=$(grep -l "^title: Don't produce code" "$rkb"/documents/*.md)
printf '$ awk ... %s   (the body, after the frontmatter)\n' "${note#"$rkb"/}"
awk 'n >= 2; /^---$/ { n++ }' "$note"
