# shellcheck shell=bash
# Secrets: `add` refuses a note holding one (field and line named, the value never echoed);
# masking it with <redacted> makes the same note welcome. Capture and the drain mask instead.

step "add refuses a note with a secret: exit 1, the field and line named, nothing committed"
leaky="$DEMO_ROOT/leaky-note.md"
cat > "$leaky" <<'NOTE'
---
title: Deploy the billing API from CI
created: 2026-11-30
confidence: high
fix: export STRIPE_KEY=rk_live_51Hd8Lq2eZvKYlo2C9xMkTq7W before ./deploy.sh
---
Log in to the registry with `docker login -u deploy -p Xk29vLq8ZmT4 registry.example.com`.
NOTE
before=$(git -C "$KB" rev-parse HEAD)
set +e
reflect-git add "$leaky"
code=$?
set -e
echo "exit code: $code"
test "$code" -eq 1
test "$(git -C "$KB" rev-parse HEAD)" = "$before" && echo "nothing committed"
if git -C "$KB" cat-file --batch-all-objects --batch | grep -q "Xk29vLq8ZmT4"; then
  echo "the secret reached git" >&2
  exit 1
fi

step "Mask the values with <redacted> and the same note is added"
sed -i -e 's/rk_live_[A-Za-z0-9]*/<redacted>/' -e 's/-p Xk29vLq8ZmT4/-p <redacted>/' "$leaky"
show reflect-git add "$leaky"
