# Step 60: search and recall on the demo KB (sourced by demo/run.sh; KB, DATA, DEMO_ROOT set).

step "Search: ranked notes from a derived index that follows git"
if [ ! -d "$KB/.git" ]; then
  git init -q -b main "$KB"
fi
# The KB holds the notes of the earlier steps; make sure a few sample notes are there too, added
# with plain git (the index follows any commit, not only reflect-git's own).
if ! git -C "$KB" grep -q "Redis connection pool exhaustion" HEAD -- documents 2>/dev/null; then
  mkdir -p "$KB/documents"
  for name in gr-01-redis-pool-exhaustion gr-02-api-gateway-timeout-cascade \
              gr-05-celery-prefetch-starvation ex-07-sqlite-wal-checkpoint; do
    cp "$DATA/reflect/$name.md" "$DATA/reflect/$name.entities.yaml" "$KB/documents/"
    git -C "$KB" add "documents/$name.md" "documents/$name.entities.yaml"
  done
  git -C "$KB" commit -q -m "demo: a few sample notes, committed with plain git"
fi
show reflect-git reindex
show reflect-git search redis pool
show reflect-git search --limit 2 "celery prefetch"
show reflect-git --json search "wal checkpoint" --limit 1

step "A note edited with plain git is found under its new text on the next search"
note="$(git -C "$KB" grep -l "Redis connection pool exhaustion" HEAD -- documents | head -n 1)"
note="${note#HEAD:}"
printf '\nSeen again during the quarterly flashsale.\n' >> "$KB/$note"
git -C "$KB" commit -q -m "note: mention the flash sale" -- "$note"
show reflect-git search flashsale
show reflect-git search "ConnectionError" --at HEAD~1 --limit 1

step "Recall: what an agent should know at session start"
project="$DEMO_ROOT/payments-api"
if [ ! -d "$project/.git" ]; then
  git init -q -b main "$project"
  mkdir -p "$project/worker"
  printf 'app = Celery()\n' > "$project/worker/tasks.py"
  printf 'redis==5.0\ncelery==5.4\n' > "$project/requirements.txt"
  git -C "$project" add -A
  git -C "$project" commit -q -m "start"
  git -C "$project" switch -q -c fix/redis-pool
fi
(
  cd "$project"
  show reflect-git recall --limit 3
  printf '$ reflect-git recall --format claude   # what a SessionStart hook prints\n'
  reflect-git recall --format claude --limit 2 | python3 -m json.tool
)
