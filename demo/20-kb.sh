# shellcheck shell=bash
# Knowledge base: every mutation is one commit with trailers; undo; history from trailers.

step "Add three notes from flags (high, medium, low); aliases like 'med' are normalised"
show reflect-git add --title "Prefill connection pools at startup" \
  --insight "Open min_size connections in the startup hook; lazy pools time out on cold start." \
  --category debugging --confidence high --tag postgres --tag pooling
show reflect-git add --title "Cap retries with jitter" \
  --insight "Unbounded retries amplify an outage; cap at 3 with full jitter." \
  --category reliability --confidence med --tag retries
show reflect-git add --title "Maybe pin the CI runner image" \
  --insight "A floating runner image broke the build once; not yet sure it was the cause." \
  --category ci --confidence l
show reflect-git add "$DATA/notes/minimal-team-note.md"
show reflect-git add "$DATA/notes/minimal-team-note.md"
show reflect-git list

pool_id=$(reflect-git --json list --tag postgres | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
retry_id=$(reflect-git --json list --tag retries | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
ci_id=$(reflect-git --json list --confidence low | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')

step "Update one note (the id and file name stay; 'updated' bumps), confirm it twice from one source"
show reflect-git update "$retry_id" --set confidence=high --set 'tags=[retries, backoff]'
show reflect-git confirm "$retry_id" --source incident-42
show reflect-git confirm "$retry_id" --source incident-42

step "Archive one note, forget another (the commit names the id and reason, never the content)"
show reflect-git archive "$ci_id"
show reflect-git forget "$pool_id" --reason "superseded by the team runbook"
show git -C "$KB" log -1 --format='%s%n%n%b'

step "Undo the last reflect-git commit (a new commit restoring what it changed)"
show reflect-git undo
show reflect-git list --all

step "History from commit trailers, with reflect-git and with plain git"
show reflect-git log
show git -C "$KB" log --format='%h %(trailers:key=Reflect-Op,valueonly,separator=%x2C) %(trailers:key=Reflect-Id,valueonly,separator=%x2C)' -5
show reflect-git status
show git -C "$KB" status --short
