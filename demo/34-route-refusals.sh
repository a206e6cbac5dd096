# demo step 34: what route refuses or normalises before anything reaches the team's main.
# Sourced by demo/run.sh after step 30 (KB routes to TEAM_REMOTE, which holds lrn-prefill-pools).

refusals="$DEMO_ROOT/route-refusals"
mkdir -p "$refusals"
expect_fail() { # run a command that must fail; show its output and exit code, keep going
  printf '$ %s\n' "$*"
  if "$@"; then
    echo "(expected a refusal, got exit 0)" >&2
    return 1
  else
    echo "(exit $?)"
  fi
}

step "A confidence alias is normalised before the push: confidence: H arrives as high"
cat >"$refusals/shorthand.md" <<'EOF'
---
id: lrn-pin-runner-image
title: Pin the CI runner image
created: 2026-03-05
# typed in a hurry
confidence: H
tags: [ci]
---
Pin the runner image by digest; a moving tag broke the build twice.
EOF
show reflect-git --kb "$KB" route "$refusals/shorthand.md"
show git --git-dir "$TEAM_REMOTE" show main:documents/lrn-pin-runner-image.md

step "An invalid note is refused with file:line:col; nothing is pushed"
sed 's/2026-03-05/last tuesday/; s/lrn-pin-runner-image/lrn-bad-date/' \
  "$refusals/shorthand.md" >"$refusals/bad-date.md"
expect_fail reflect-git --kb "$KB" route "$refusals/bad-date.md"

step "A teammate's note is never overwritten: a different lrn-prefill-pools is refused"
sed 's/Open min_size connections/Open max_size connections/' \
  "$DEMO_ROOT/route-notes/route-high.md" >"$refusals/my-prefill.md"
show reflect-git --kb "$KB" route "$refusals/my-prefill.md" --dry-run
expect_fail reflect-git --kb "$KB" route "$refusals/my-prefill.md"
show git --git-dir "$TEAM_REMOTE" log --oneline -1 main -- documents/lrn-prefill-pools.md

step "The way through: route it for review (a knowledge branch whose PR shows the change)"
show reflect-git --kb "$KB" route "$refusals/my-prefill.md" --review

step "The review queue: list, promote (one commit: confidence up, pointer gone), route"
show reflect-git --kb "$KB" review queue
show reflect-git --kb "$KB" review queue promote lrn-maybe-uv --to medium
show git -C "$KB" show --stat --format=%s HEAD
show reflect-git --kb "$KB" review queue
