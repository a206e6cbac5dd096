# shellcheck shell=bash
# Foundation: create the KB, validate the shared corpus, show what an invalid note looks like.

step "Create the knowledge base (layout, .gitignore, settings, pre-commit config, first commit)"
show reflect-git init "$KB" --team-remote "$TEAM_REMOTE"
show git -C "$KB" log --format='%h %s%n%(trailers)'
show reflect-git init "$KB"

step "Validate sample notes: hand-written, machine-written, and the original reflect tool's"
show reflect-git validate "$DATA/notes" "$DATA/reflect"

step "An invalid note is refused with its file, line, column, field and a fix"
show reflect-git validate "$DATA/invalid/uppercase-confidence.md" \
  "$DATA/invalid/bad-causal-type.md" "$DATA/invalid/from-to.entities.yaml" || true

step "Whole-KB invariants (unique ids, sidecars match notes, no ranking fields, the layout)"
show reflect-git check
