# demo step 66: knowledge that knows the code: a note anchored to a function, flagged stale when
# that function changes, and listed for the pull request that changes it.

step "A code repository; a note anchored to the function it is about (add --anchor PATH:SYMBOL)"
code="$DEMO_ROOT/billing-api"
rm -rf "$code"
mkdir -p "$code/src"
git -C "$code" init -q
cat > "$code/src/pool.py" <<'PY'
def prefill(pool, size):
    for _ in range(size):
        pool.put(pool.connect())


def close(pool):
    pool.drain()
PY
git -C "$code" add -A
git -C "$code" commit -qm "a connection pool"
(cd "$code" && show reflect-git add --title "Prefill the pool before serving" \
  --insight "Cold pools time out on the first requests: prefill at startup" \
  --category perf --confidence high --anchor src/pool.py:prefill)
(cd "$code" && show reflect-git stale)

step "The anchored function changes on a branch: stale names it, pr-notes lists the note for the change"
git -C "$code" checkout -q -b lazy-pool
sed -i 's/pool.put(pool.connect())/pool.put(pool.connect(lazy=True))/' "$code/src/pool.py"
git -C "$code" commit -qam "connect lazily"
(cd "$code" && show reflect-git stale)
(cd "$code" && show reflect-git pr-notes --base main)

step "A change elsewhere in the file: the note is not stale for it, and a change without anchored code lists nothing"
git -C "$code" checkout -q main
sed -i 's/pool.drain()/pool.drain(timeout=5)/' "$code/src/pool.py"
git -C "$code" commit -qam "close with a timeout"
(cd "$code" && show reflect-git stale)
printf 'notes\n' > "$code/README.md"
git -C "$code" add README.md
git -C "$code" commit -qm "a readme"
(cd "$code" && show reflect-git pr-notes --base HEAD~1)
echo "(nothing relevant: no output, exit 0, and the CI job posts no comment)"
