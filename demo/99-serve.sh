# Step 99: the web UI (sourced by demo/run.sh; KB set). A server on a free port answers one
# API call with its token, refuses one without, and stops on Ctrl-C (SIGINT); then the demo
# ends by printing the command to run it yourself.

step "The web UI: reflect-git serve (token, cookie, CSRF, Host check; Ctrl-C stops it)"
serve_log="$DEMO_ROOT/serve.log"
reflect-git serve --port 0 --read-only >"$serve_log" 2>&1 &
serve_pid=$!
serve_url=""
for _ in $(seq 1 100); do
  serve_url="$(sed -n 's/^open //p' "$serve_log")"
  [ -n "$serve_url" ] && break
  sleep 0.1
done
sed "s/token=.*/token=.../" "$serve_log"
python3 - "$serve_url" <<'PY'
import json, sys, urllib.error, urllib.request
url = sys.argv[1]
base, token = url.split("/?token=")
try:
    urllib.request.urlopen(base + "/api/status", timeout=30)
except urllib.error.HTTPError as exc:
    print(f"without the token: {exc.code} {json.load(exc)['error']}")
req = urllib.request.Request(base + "/api/status", headers={"Authorization": f"token {token}"})
status = json.load(urllib.request.urlopen(req, timeout=30))["status"]
print(f"with the token: {status['notes']['live']} live notes, index {status['index']}")
page = urllib.request.Request(base + "/api/notes?q=redis", headers={"Authorization": f"token {token}"})
notes = json.load(urllib.request.urlopen(page, timeout=30))
print(f"search 'redis' on the notes page: {notes['total']} notes, first: {notes['notes'][0]['title']}")
PY
kill -INT "$serve_pid"
wait "$serve_pid"
tail -n 1 "$serve_log"

# The last line of `make demo`: how to open the UI on this demo's KB (after run.sh's own).
trap 'rc=$?; [ "$rc" -eq 0 ] && printf "\nBrowse the demo KB in your browser: reflect-git --kb %s serve --open\n" "$KB"' EXIT
