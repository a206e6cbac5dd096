# shellcheck shell=bash
# Invariants after every command (issue 11.4-11.6, 12.7): supersession without cycles or dangling
# links, forgotten ids stay forgotten, one-field edits are one-field diffs, a real ~/.learnings
# imports whole, notes carry their project.
# Sourced by demo/run.sh (set -euo pipefail; KB, DATA, DEMO_ROOT, HOME are set).

# Print a command that must be refused, run it, stop the demo if it succeeds.
must_refuse() {
  printf '$ %s\n' "$*"
  local code=0
  "$@" || code=$?
  if [ "$code" = 0 ]; then
    echo "demo: expected a refusal" >&2
    return 1
  fi
  echo "(exit $code: refused, nothing written)"
}
note_id() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }

step "Supersede: a cycle is refused, and re-pointing lets the old superseder go"
old=$(reflect-git --json add --title "Deploy with fly deploy" --insight "Run fly deploy from a laptop." \
  --category deploy --confidence medium | note_id)
new=$(reflect-git --json add --title "Deploy from CI" --insight "Deploys run in CI, never from a laptop." \
  --category deploy --confidence high | note_id)
newer=$(reflect-git --json add --title "Deploy by merging to main" \
  --insight "A merge to main deploys; nobody runs a deploy command." --category deploy --confidence high | note_id)
show reflect-git supersede "$old" --by "$new"
must_refuse reflect-git supersede "$new" --by "$old"
show reflect-git supersede "$old" --by "$newer"
show git -C "$KB" show --stat --format='%s' HEAD
show reflect-git list --all
show reflect-git check

step "Forgotten ids are tombstones: add does not bring one back unless asked"
cat > "$DEMO_ROOT/pin.md" <<'EOF'
---
id: pin-node-version
title: Pin the Node version in .nvmrc
created: 2026-03-04
confidence: medium
---
CI and laptops drifted apart on Node 18 and 20.
EOF
show reflect-git add "$DEMO_ROOT/pin.md"
show reflect-git forget pin-node-version --reason "the team moved to volta"
must_refuse reflect-git add "$DEMO_ROOT/pin.md"
show reflect-git add "$DEMO_ROOT/pin.md" --restore
show reflect-git check

step "Edits keep the file: a hand-written note (comment, quoting, CRLF) and a one-field update"
printf -- "---\r\n# owned by the platform team\r\ntitle: 'Keep the runner image pinned'   # short\r\ncreated: \"2026-03-04\"\r\nconfidence: medium\r\ntags: [ci, runners]\r\n---\r\nPin ubuntu-24.04; ubuntu-latest moved under us twice.\r\n" \
  > "$KB/documents/runner-image.md"
git -C "$KB" -c core.autocrlf=false add documents/runner-image.md
git -C "$KB" -c core.autocrlf=false commit -qm "hand-written runner note"
show reflect-git update runner-image --set confidence=high
show git -C "$KB" diff -U0 HEAD~1 HEAD
show git -C "$KB" diff --stat HEAD~1 HEAD

step "Import a real ~/.learnings: hook notes, HIGH tiers, name: ids, untyped edges, orphan sidecars"
src="$DEMO_ROOT/old-learnings"
mkdir -p "$src/documents"
cp "$DATA/reflect/ex-05-gh-graphql-pagination.md" "$DATA/reflect/ex-05-gh-graphql-pagination.entities.yaml" "$src/documents/"
sed 's/^confidence: high$/confidence: HIGH/' "$DATA/reflect/ex-03-zsh-glob-nomatch.md" > "$src/documents/ex-03-zsh-glob-nomatch.md"
cp "$DATA/reflect/ex-06-launchd-plist-env.md" "$src/documents/8c1f0e2a9b7d.md"
sed 's/^document_id: .*/document_id: 8c1f0e2a9b7d/' "$DATA/reflect/ex-06-launchd-plist-env.entities.yaml" > "$src/documents/8c1f0e2a9b7d.entities.yaml"
awk '/^relationships:/ {edges=1} !(edges && /^    type: /)' \
  "$DATA/reflect/ex-07-sqlite-wal-checkpoint.entities.yaml" > "$src/documents/ex-07-sqlite-wal-checkpoint.entities.yaml"
cp "$DATA/reflect/ex-07-sqlite-wal-checkpoint.md" "$src/documents/"
cp "$DATA/reflect/ex-08-git-worktree-prune.entities.yaml" "$src/documents/orphan.entities.yaml"
cat > "$src/documents/lrn-mini-1764580000-5f1e2d3c.md" <<'EOF'
---
id: lrn-mini-1764580000-5f1e2d3c
source: posttooluse-minilearning
session_id: 5f1e2d3c-9a8b-4c7d-8e6f-112233445566
captured_at: 2026-03-14T09:21:07Z
---
Install the dev extras before running the suite: `pip install -e .[dev]`.
EOF
show reflect-git import "$src"
show reflect-git check
show git -C "$KB" show HEAD:documents/lrn-mini-1764580000-5f1e2d3c.md

step "Scope: notes carry their project; recall --project serves that project's notes and global ones"
cat > "$DEMO_ROOT/billing.md" <<'EOF'
---
title: Run the billing migrations before the tests
created: 2026-03-04
confidence: high
project: billing-api
scope: project
---
In this repo the test database needs `make migrate` first.
EOF
show reflect-git add "$DEMO_ROOT/billing.md"
show reflect-git recall --project billing-api --limit 3
show reflect-git recall --project web-app --limit 3
