# Step 62: ranking finds a note asked for in other words (sourced by demo/run.sh after step 60).

step "Ranking: a paraphrase finds its note (stop words out, light stemming, synonyms)"
# None of these words is in the note's title ("SQLite WAL grows unbounded without
# checkpointing"): "embedded database" is a synonym of SQLite, "bigger" of grows.
show reflect-git search --limit 2 "why does the journal of my embedded database keep getting bigger"
# An abbreviation inside a phrase keeps the phrase ("embedded db's": embedded database).
show reflect-git search --limit 1 "nightly job so the embedded db's log file stops filling the disk"
# Code-like words match whole and by their parts; "revoke" finds "revocation" and the like.
show reflect-git search --limit 1 "redis.exceptions.ConnectionError: during a surge"
# recall ranks its project's words with the same ranking: here a task stands for the project.
show reflect-git recall --project "stop the embedded database journal from eating the disk" \
  --global --limit 1

step "A team extends the synonym table with synonyms.txt in its KB"
show reflect-git search --limit 1 "doorbuster"
printf '# our words\nflashsale, flash sale, doorbuster\n' > "$KB/synonyms.txt"
git -C "$KB" add synonyms.txt
git -C "$KB" commit -q -m "search: our own synonyms"
show reflect-git search --limit 1 "doorbuster"

step "search --expand asks the drain's model once for related terms (a stub model here)"
stub="$DEMO_ROOT/stub-expand-model"
printf '#!/bin/sh\ncat >/dev/null\necho '"'"'["wal_checkpoint", "PRAGMA"]'"'"'\n' > "$stub"
chmod +x "$stub"
show env REFLECT_DRAIN_CMD="$stub" reflect-git search --expand --limit 1 "reader starvation"
show env REFLECT_DRAIN_CMD="$stub" reflect-git search --expand --limit 1 "reader starvation"
