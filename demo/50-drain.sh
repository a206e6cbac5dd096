# shellcheck shell=bash
# Step 50: queue the sample transcripts and drain them with the heuristic writer (no model).
step "drain: queue the sample session transcripts"
[ -d "$KB/.git" ] || git init -q -b main "$KB"
mkdir -p "$DEMO_ROOT/transcripts"
for f in "$DATA"/transcripts/claude/*.jsonl "$DATA"/transcripts/codex/*.jsonl; do
  cp "$f" "$DEMO_ROOT/transcripts/"
done
for f in "$DEMO_ROOT"/transcripts/*.jsonl; do
  reflect-git queue add "$f" --trigger stop >/dev/null
done
show reflect-git queue list

step "drain: turn them into notes (heuristic writer, one commit per transcript)"
export REFLECT_DRAIN_WRITER=heuristic REFLECT_DRAIN_DEBOUNCE_SEC=0
export REFLECT_DRAIN_MAX=100 REFLECT_DRAIN_DAILY_MAX=100
show reflect-git drain --dry-run --max 3
show reflect-git drain

step "drain: what it cost, and the notes it made"
show reflect-git cost --by outcome
show reflect-git cost --by writer
show git -C "$KB" log --format='%h %s%n    %(trailers:key=Reflect-Source,valueonly,separator=%x2C)' --grep='Reflect-Source: drain:' -n 6
printf '%s\n' "notes made by the drain (confidence, title):"
for id in $(git -C "$KB" log --format='%(trailers:key=Reflect-Id,valueonly)' --grep='Reflect-Source: drain:' | sed '/^$/d' | sort -u); do
  f="$KB/documents/$id.md"
  [ -f "$f" ] || continue
  printf '  %-7s %s\n' "$(sed -n 's/^confidence: //p' "$f" | head -1)" "$(sed -n 's/^title: //p' "$f" | head -1)"
done
unset REFLECT_DRAIN_WRITER REFLECT_DRAIN_DEBOUNCE_SEC REFLECT_DRAIN_MAX REFLECT_DRAIN_DAILY_MAX
