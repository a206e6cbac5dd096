# shellcheck shell=bash
# Step 48: other tools' memory into the KB (ingest), memory slots at Stop shown by recall,
# and the errors ledger. Sourced by demo/run.sh (DEMO_ROOT, DATA, root are set). Its own KB
# and HOME, so the later steps see the KB they expect.

ingest_kb="$DEMO_ROOT/ingest-kb"
ingest_home="$DEMO_ROOT/ingest-home"
ingest_proj="$DEMO_ROOT/billing"
rm -rf "$ingest_kb" "$ingest_home" "$ingest_proj"
reflect-git init "$ingest_kb" >/dev/null
cp -R "$root/tests/data/ingest/project" "$ingest_proj"
git init -q "$ingest_proj"
slug=$(printf '%s' "$ingest_proj" | sed 's/[^A-Za-z0-9]/-/g')
mkdir -p "$ingest_home/.claude/projects/$slug"
cp -R "$root/tests/data/ingest/auto-memory" "$ingest_home/.claude/projects/$slug/memory"
cp "$root/tests/data/ingest/user-claude/CLAUDE.md" "$ingest_home/.claude/CLAUDE.md"

step "ingest: CLAUDE.md, AGENTS.md, .cursorrules, Cursor rules, Copilot instructions, Claude Code's memory"
(
  cd "$ingest_proj"
  export HOME="$ingest_home" REFLECT_GIT_KB="$ingest_kb"
  show reflect-git ingest --dry-run
  printf '$ reflect-git ingest </dev/null   # not a terminal: it asks for --yes instead of waiting\n'
  { reflect-git ingest </dev/null 2>&1 >/dev/null || true; } | sed 's/^/  /'
  printf '$ reflect-git ingest --yes\n'
  reflect-git ingest --yes | sed -n '/^ingested/,$p' | head -4
  printf '  ...\n$ reflect-git ingest --yes   # again: the ledger has every rule already\n'
  reflect-git ingest --yes | tail -1
  id=$(reflect-git --json list | python3 -c 'import json,sys; print([n["id"] for n in json.load(sys.stdin) if n["id"].startswith("never-edit-files")][0])')
  show sed -n '1,24p' "$ingest_kb/documents/$id.md"
)

step "slots: REFLECT_SLOTS=1, a session's Stop, then the next SessionStart's recall"
(
  export HOME="$ingest_home" REFLECT_GIT_KB="$ingest_kb" REFLECT_SLOTS=1 REFLECT_GIT_HOOK_SYNC=1
  python3 - "$DATA/hook-events/correction.json" "$DATA/transcripts/claude/correction-uv.jsonl" "$ingest_proj" >"$DEMO_ROOT/stop-48.json" <<'PY'
import json, sys
stop = [e for e in json.load(open(sys.argv[1])) if e.get("hook_event_name") == "Stop"][-1]
stop["transcript_path"] = sys.argv[2]
stop["cwd"] = sys.argv[3]
print(json.dumps(stop))
PY
  printf '$ reflect-git-hook Stop < stop.json   # the payload Claude Code sends\n'
  reflect-git-hook Stop <"$DEMO_ROOT/stop-48.json"
  cd "$ingest_proj"
  show reflect-git recall --limit 2
)

step "errors: what went wrong, by kind (a damaged index rebuilt, an oversized transcript quarantined)"
(
  export HOME="$ingest_home" REFLECT_GIT_KB="$ingest_kb"
  big="$DEMO_ROOT/t48-model"
  cat >"$big" <<'STUB'
#!/bin/sh
cat >/dev/null
echo 'Error: prompt is too long: 250000 tokens > 200000' >&2
exit 1
STUB
  chmod +x "$big"
  reflect-git queue add "$DATA/transcripts/claude/test-fix-sqlite.jsonl" --trigger stop >/dev/null
  REFLECT_DRAIN_CMD="$big" REFLECT_DRAIN_DEBOUNCE_SEC=0 reflect-git drain >/dev/null
  reflect-git reindex >/dev/null
  printf 'not sqlite' >"$ingest_kb/.git/reflect-git/search.sqlite3"
  reflect-git search Decimal >/dev/null
  show reflect-git errors --since 7d
  show reflect-git status
)
