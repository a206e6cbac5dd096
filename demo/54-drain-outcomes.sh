# shellcheck shell=bash
# Step 54: drain outcomes against a stub model. A subscription's "usage limit reached" answer
# closes the quota gate and defers the entry (nothing charged, nothing dead-lettered); once the
# limit has reset, a good answer drains it. A short prose answer is retried, never quarantined.
step "drain outcomes: a model that says its usage limit is reached"
mkdir -p "$DEMO_ROOT/t54"
session54() {  # a short session with a user's correction in it: $1 the file, $2 the correction
  python3 - "$1" "$2" <<'PY'
import json, sys
turns = [("user", "Add a cache in front of the pricing API."),
         ("assistant", "I added an in-process dict cache for prices."),
         ("user", sys.argv[2]),
         ("assistant", "Done, switched it over.")]
with open(sys.argv[1], "w") as fh:
    for role, text in turns:
        fh.write(json.dumps({"type": role, "message": {"role": role, "content": text}}) + "\n")
PY
}
session54 "$DEMO_ROOT/t54/session-54.jsonl" \
  "No, don't cache prices in process memory. Always use the shared Redis cache with a 60 s TTL."
model="$DEMO_ROOT/t54/stub-model"
cat > "$model" <<STUB
#!/bin/sh
# A stand-in for 'claude -p --output-format json': the prompt on stdin, the answer on stdout.
cat >/dev/null
if [ -e "$DEMO_ROOT/t54/limited" ]; then
  # the limit resets six seconds from now
  printf '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"Claude AI usage limit reached|%s"}\n' "\$(( \$(date +%s) + 6 ))"
elif [ -e "$DEMO_ROOT/t54/prose" ]; then
  printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"Nothing durable here; the context window was small."}'
else
  printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.0125,"usage":{"input_tokens":1200,"output_tokens":300},"result":"{\"actions\": [{\"action\": \"CREATE\", \"title\": \"Cache prices in the shared Redis cache\", \"rule\": \"Always use the shared Redis cache with a 60 s TTL for prices, never process memory\", \"key_insight\": \"Per-process caches disagree across workers\", \"confidence\": \"medium\", \"tags\": [\"redis\"]}]}"}'
fi
STUB
chmod +x "$model"
export REFLECT_DRAIN_CMD="$model" REFLECT_DRAIN_DEBOUNCE_SEC=0
touch "$DEMO_ROOT/t54/limited"
reflect-git queue add "$DEMO_ROOT/t54/session-54.jsonl" --trigger stop >/dev/null
show reflect-git drain
show reflect-git drain   # the gate is closed now: no model call until the reset
show reflect-git queue list
show reflect-git queue failed

step "drain outcomes: the limit has reset, the same entry drains"
rm -f "$DEMO_ROOT/t54/limited"
sleep 7
show reflect-git drain
show reflect-git cost --by outcome --since all
show reflect-git --json drain   # --json always carries the run's status, rows or none

step "drain outcomes: a short prose answer about a context window is retried"
session54 "$DEMO_ROOT/t54/session-54b.jsonl" \
  "Wrong approach. Never keep prices in a module-level dict; always use the shared Redis cache."
touch "$DEMO_ROOT/t54/prose"
reflect-git queue add "$DEMO_ROOT/t54/session-54b.jsonl" --trigger stop >/dev/null
show reflect-git drain
show reflect-git queue list
rm -f "$DEMO_ROOT/t54/prose"
id=$(reflect-git --json queue list | python3 -c 'import json,sys; print(json.load(sys.stdin)["pending"][0]["id"])')
show reflect-git queue retry "$id"
show reflect-git drain
unset REFLECT_DRAIN_CMD REFLECT_DRAIN_DEBOUNCE_SEC
