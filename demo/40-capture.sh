# Capture: agent hook events become validated notes and queue entries; commits get recorded.
# Sourced by demo/run.sh (KB, DATA, DEMO_ROOT, HOME are set; reflect-git is on PATH).

if [ ! -d "$KB/.git" ]; then  # earlier steps normally made the KB; stand alone without them
  git init -q -b main "$KB"
  git -C "$KB" commit -q --allow-empty -m "empty knowledge base"
fi

step "Capture: replay the sample agent hook events (one process per event, as Claude Code runs them)"
capture_tr="$DEMO_ROOT/transcripts"
mkdir -p "$capture_tr"
python - "$DATA/transcripts/claude" "$capture_tr" <<'PY'
import json, shutil, sys
from pathlib import Path
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
for path in sorted(src.glob("*.jsonl")):
    session = json.loads(path.read_text().splitlines()[0])["sessionId"]
    shutil.copy(path, dst / f"{session}.jsonl")
PY
capture_replay() {
  python - "$1" "$capture_tr" <<'PY'
import json, subprocess, sys
raw = open(sys.argv[1]).read()
try:
    events = json.loads(raw)
except ValueError:
    events = [raw]
for event in events:
    if isinstance(event, dict):
        name = event.get("hook_event_name")
        payload = json.dumps(event).replace("TRANSCRIPTS/", sys.argv[2] + "/")
    else:
        name, payload = None, event
    name = name if isinstance(name, str) and name else "PostToolUse"
    proc = subprocess.run(["reflect-git", "hook", name], input=payload, text=True,
                          capture_output=True)
    out = proc.stdout.strip()
    print(f"  {name:<20} exit {proc.returncode}" + (f"  stdout: {out}" if out else ""))
PY
}
# A Stop starts the capture pass in the background; here it runs in the foreground, so the
# notes below are there when the next command looks.
export REFLECT_GIT_HOOK_SYNC=1
for events in test-fix correction permissions session-end malformed; do
  echo "hook-events/$events.json"
  capture_replay "$DATA/hook-events/$events.json"
done
echo "hook-events/not-json.txt"
capture_replay "$DATA/hook-events/not-json.txt"
unset REFLECT_GIT_HOOK_SYNC

step "Capture: the notes they made, one commit each (Reflect-Source: capture:<event>)"
show git -C "$KB" log --format='%h %s%n        %(trailers:key=Reflect-Source,valueonly,separator=%x2C)' -n 12
first_fix=$(git -C "$KB" ls-tree --name-only main documents/ | grep lrn-test-fix- | head -n 1)
show git -C "$KB" show "main:$first_fix"

step "Capture: the transcripts queued for the drain (Stop, PreCompact, SessionEnd, SubagentStop)"
show reflect-git queue list
show tail -n 6 "$KB/.git/reflect-git/logs/hooks.log"

step "Capture: the git post-commit hook records commits in the state directory"
capture_code="$DEMO_ROOT/code"
git init -q -b main "$capture_code"
show reflect-git hooks install "$capture_code"
echo "retry = 3" > "$capture_code/settings.ini"
git -C "$capture_code" add settings.ini
CLAUDE_SESSION_ID=091489cd-03b2-7030-e7f5-24f34dabb96d REFLECT_GIT_HOOK_SYNC=1 \
  git -C "$capture_code" commit -q -m "Add retry settings"
show tail -n 1 "$KB/.git/reflect-git/commits.jsonl"
show reflect-git hooks status "$capture_code"

step "Capture: reverting a commit demotes the learnings of the session that made it"
echo "pip install -r requirements.txt" > "$capture_code/setup.sh"
git -C "$capture_code" add setup.sh
CLAUDE_SESSION_ID=5a7b0c1e-2d3f-4a5b-8c6d-7e8f9a0b1c2d REFLECT_GIT_HOOK_SYNC=1 \
  git -C "$capture_code" commit -q -m "Install with pip"
REFLECT_GIT_HOOK_SYNC=1 show git -C "$capture_code" revert --no-edit HEAD
show git -C "$KB" log -1 --format='%h %s%n%n%b' main
