# demo step 36: two teammates edit one note; git merges it field by field (the merge driver).
# Sourced by demo/run.sh after step 30 (TEAM_REMOTE's main holds lrn-prefill-pools).

step "Two teammates clone the team KB; \`init\` in a clone sets git's merge driver for notes"
merge_team="$DEMO_ROOT/merge-team.git"
rm -rf "$merge_team" "$DEMO_ROOT/alice" "$DEMO_ROOT/bob"
git clone -q --bare "$TEAM_REMOTE" "$merge_team"
for who in alice bob; do
  git clone -q "$merge_team" "$DEMO_ROOT/$who"
  reflect-git init "$DEMO_ROOT/$who" --no-pre-commit >/dev/null
done
show cat "$DEMO_ROOT/alice/.gitattributes"
show git -C "$DEMO_ROOT/alice" config merge.reflect-git.driver

step "Bob raises the confidence number and pushes; Alice adds a tag and a symptom"
show reflect-git --kb "$DEMO_ROOT/bob" update lrn-prefill-pools --set confidence_num=0.95
git -C "$DEMO_ROOT/bob" push -q origin main
show reflect-git --kb "$DEMO_ROOT/alice" update lrn-prefill-pools \
  --set "tags=[postgres, pooling, startup]" --set "symptoms=[QueuePool limit reached]"

step "git pull: both edits merged, no conflict (every update also bumped updated:)"
show git -C "$DEMO_ROOT/alice" pull --no-rebase --no-edit
show git -C "$DEMO_ROOT/alice" diff HEAD^1 HEAD -- documents/lrn-prefill-pools.md
show sed -n '2,17p' "$DEMO_ROOT/alice/documents/lrn-prefill-pools.md"
show git -C "$DEMO_ROOT/alice" push -q origin main

step "Both change the same field: a conflict in that field alone, the rest merged"
git -C "$DEMO_ROOT/bob" pull -q --no-rebase --no-edit
show reflect-git --kb "$DEMO_ROOT/bob" update lrn-prefill-pools --set scope=project --set "tags=[postgres, pooling, startup, sqlalchemy]"
git -C "$DEMO_ROOT/bob" push -q origin main
show reflect-git --kb "$DEMO_ROOT/alice" update lrn-prefill-pools --set scope=global
printf '$ git pull --no-rebase\n'
git -C "$DEMO_ROOT/alice" pull --no-rebase --no-edit || echo "(exit $?)"
show sed -n '1,12p' "$DEMO_ROOT/alice/documents/lrn-prefill-pools.md"
printf '$ reflect-git check\n'
reflect-git check --kb "$DEMO_ROOT/alice" || echo "(exit $?: check and CI catch markers the driver left, or a forge's merge button made)"
git -C "$DEMO_ROOT/alice" merge --abort
