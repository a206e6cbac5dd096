# Step 64: recall as the original tool does it: project and branch first, --global pools the
# rest, fleet authority/quarantine/domain, speculative notes lower, the economics line, whole
# notes within the budget, --as-of (sourced by demo/run.sh after step 60; KB, DEMO_ROOT set).

step "Recall: this project and branch first; a fleet import with authority, quarantine, shards"
fleet="$DEMO_ROOT/fleet-learnings"
rm -rf "$fleet"
branch_docs="$fleet/shards/payments-api/branches/fix__redis-pool/documents"
mkdir -p "$fleet/documents" "$branch_docs" "$fleet/shards/billing-ui/documents"
cat > "$branch_docs/redis-pool-wait-timeout.md" <<'NOTE'
---
id: fleet-redis-pool-wait
created: "2026-03-02"
confidence: high
title: "Give the redis pool a wait timeout on this branch"
tags: [redis, celery]
key_insight: "BlockingConnectionPool(timeout=2) turns pool exhaustion into a clear error."
discovery_tokens: 14200
---
Learned while fixing the pool on fix/redis-pool.
NOTE
cat > "$fleet/documents/redis-law.md" <<'NOTE'
---
id: fleet-redis-law
created: "2026-03-01"
confidence: medium
title: "Never share a redis client across forked celery workers"
tags: [redis, celery]
key_insight: "Create the redis client after the fork (worker_process_init)."
authority: law
learning_type: anti-pattern
domain: backend
---
Fleet rule.
NOTE
cat > "$fleet/documents/redis-quarantined.md" <<'NOTE'
---
id: fleet-redis-unvetted
created: "2026-03-01"
confidence: high
title: "Flush redis on every deploy"
tags: [redis]
key_insight: "An unvetted fleet claim: held back until someone promotes it."
quarantine: true
---
Unvetted.
NOTE
cat > "$fleet/documents/celery-guess.md" <<'NOTE'
---
id: fleet-celery-guess
created: "2026-03-01"
confidence: medium
title: "Celery acks late may double-run redis tasks"
tags: [celery, redis, speculative]
key_insight: "Maybe: acks_late with a visibility timeout under the task time runs it twice."
---
From a session that may still resume.
NOTE
cat > "$fleet/shards/billing-ui/documents/redis-ui.md" <<'NOTE'
---
id: fleet-billing-redis-cache
created: "2026-03-01"
confidence: high
title: "Cache the billing UI's redis reads for 30 s"
tags: [redis]
key_insight: "The UI's redis reads were 80% of its latency."
---
From the billing-ui shard.
NOTE
show reflect-git import "$fleet"
(
  cd "$DEMO_ROOT/payments-api"   # branch fix/redis-pool (step 60)
  show reflect-git recall --limit 4
  printf '$ reflect-git --json recall --limit 4   # why each note came back, what it cost\n'
  reflect-git --json recall --limit 4 | python3 -c '
import json, sys
for n in json.load(sys.stdin)["notes"]:
    print("%-34s %6d %-10s %s" % (n["id"], n["discovery_tokens"], n["discovery_source"],
                                 "; ".join(n["reasons"])))'
  show reflect-git recall --global --limit 8
  show reflect-git recall --budget 600 --limit 5
  show reflect-git recall --as-of 2026-01-01 --domain backend --limit 2
)
