# demo step 30: route notes by confidence to a local bare team repository, then review.
# Sourced by demo/run.sh (set -euo pipefail; KB, TEAM_REMOTE, DEMO_ROOT, HOME are set).

step "Team routing: a bare team repository and a clone of it"
rm -rf "$TEAM_REMOTE" "$DEMO_ROOT/team-clone"
git init -q --bare -b main "$TEAM_REMOTE"
if [ ! -d "$KB/.git" ]; then
  if reflect-git init --help >/dev/null 2>&1; then
    reflect-git init "$KB" --no-pre-commit >/dev/null
  else
    git init -q -b main "$KB"
  fi
fi
show reflect-git --kb "$KB" team clone "$TEAM_REMOTE" --path "$DEMO_ROOT/team-clone"

step "Three notes in the personal KB: high, medium and low confidence"
route_notes="$DEMO_ROOT/route-notes"
mkdir -p "$route_notes"
write_note() { # file id title confidence tags insight
  cat >"$route_notes/$1.md" <<EOF
---
type: learning
id: $2
created: "2026-03-04"
confidence: $4
title: "$3"
tags: [$5]
category: debugging
key_insight: "$6"
---

## Problem
$6
EOF
}
write_note route-high lrn-prefill-pools "Prefill connection pools at startup" high "postgres, pooling" \
  "Open min_size connections in the startup hook so the first burst does not time out."
write_note route-medium lrn-retry-uploads "Retry flaky artifact uploads with backoff" medium "ci, uploads" \
  "Uploads to the artifact store fail transiently; three retries with backoff fixed it."
write_note route-low lrn-maybe-uv "Maybe switch the CI cache to uv" low "python, ci" \
  "uv looked faster in one run; not confirmed yet."
if reflect-git add --help >/dev/null 2>&1; then
  for n in high medium low; do reflect-git --kb "$KB" add "$route_notes/route-$n.md" >/dev/null; done
else
  # No `add` command in this build: commit the notes through the store, as `add` would.
  python - "$KB" "$route_notes" <<'PY'
import sys
from pathlib import Path
from reflectgit.notes.note import parse_note
from reflectgit.git.store import Store, write
kb, folder = Path(sys.argv[1]), Path(sys.argv[2])
with Store.open(kb) as store:
    for path in sorted(folder.glob("*.md")):
        note = parse_note(path.read_bytes(), str(path))
        store.commit([write(f"documents/{note.id}.md", path.read_bytes())], f"add {note.id}")
PY
fi
show git -C "$KB" log --oneline -3

step "Route them: high -> team main, medium -> knowledge branch, low -> review queue"
show reflect-git --kb "$KB" route lrn-prefill-pools
show reflect-git --kb "$KB" route lrn-retry-uploads
show reflect-git --kb "$KB" route lrn-maybe-uv
step "Routing again changes nothing"
show reflect-git --kb "$KB" route lrn-retry-uploads

step "What the team repository holds now"
show git --git-dir "$TEAM_REMOTE" log --oneline --all --graph --decorate
show git --git-dir "$TEAM_REMOTE" ls-tree -r --name-only main
show cat "$KB/review-queue/maybe-switch-the-ci-cache-to-uv.yaml"

step "Bring the team clone up to date (routing never touched its work tree)"
show reflect-git --kb "$KB" team sync

step "Review the open knowledge branches"
show reflect-git --kb "$KB" review list
