# shellcheck shell=bash
# One door to git: reflect-git shares the repository with the user's own git and never breaks it.
# Sourced by demo/run.sh (set -euo pipefail; KB, DATA, DEMO_ROOT, HOME are set).

# `show` for a command that must fail: print it, run it, and stop the demo if it succeeds.
refused() {
  printf '$ %s\n' "$*"
  local code=0
  "$@" || code=$?
  if [ "$code" = 0 ]; then
    echo "demo: expected a refusal" >&2
    return 1
  fi
  echo "(exit $code: refused, nothing written)"
}

step "git holds its index.lock: reflect-git refuses before it commits anything"
head_before=$(git -C "$KB" rev-parse HEAD)
touch "$KB/.git/index.lock"
refused reflect-git add --title "Written while git holds the index" \
  --insight "Never committed: the index is git's while its lock is held." --confidence low
rm "$KB/.git/index.lock"
[ "$(git -C "$KB" rev-parse HEAD)" = "$head_before" ]
echo "HEAD is still $head_before"

step "Split index, untracked cache and autocrlf: a write leaves git's index exactly right"
git -C "$KB" config core.splitIndex true
git -C "$KB" config core.untrackedCache true
git -C "$KB" config core.autocrlf true
git -C "$KB" update-index --split-index --untracked-cache
show reflect-git add --title "Size the pool to peak concurrency" \
  --insight "A pool smaller than peak concurrency queues requests; size it from the load test." \
  --confidence medium --tag pooling
show git -C "$KB" status --short
[ "$(git -C "$KB" write-tree)" = "$(git -C "$KB" rev-parse 'HEAD^{tree}')" ]
echo "git write-tree = HEAD^{tree}: the index holds exactly what reflect-git committed"
show git -C "$KB" fsck --strict --no-progress

step "The user's own edit is never overwritten, even one that keeps the file's size and mtime"
note=$(git -C "$KB" ls-files 'documents/*.md' | head -1)
note_id=$(basename "$note" .md)
python3 - "$KB/$note" <<'EOF'
import os, sys
path = sys.argv[1]
st = os.stat(path)
data = bytearray(open(path, "rb").read())
data[-2:-1] = b"!" if data[-2:-1] != b"!" else b"?"  # same size, different content
open(path, "wb").write(bytes(data))
os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime, as cp -p or rsync -t leave it
EOF
refused reflect-git archive "$note_id"
show git -C "$KB" status --short
git -C "$KB" checkout -- "$note"
git -C "$KB" config --unset core.autocrlf

step "A plain 'git add -A && git commit' after reflect-git keeps every note"
notes_before=$(git -C "$KB" ls-tree -r --name-only HEAD documents/ | wc -l)
echo "a line of the user's own" >>"$KB/README.md"
git -C "$KB" add -A
show git -C "$KB" commit -q -m "docs: a line of my own"
notes_after=$(git -C "$KB" ls-tree -r --name-only HEAD documents/ | wc -l)
echo "notes before: $notes_before, after: $notes_after"
[ "$notes_before" = "$notes_after" ]
