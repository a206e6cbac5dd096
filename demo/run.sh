#!/usr/bin/env bash
# make demo: run every demo step in order on a fresh scratch folder and print what happened.
# Each capability adds its own numbered step file (demo/NN-name.sh); steps share the variables
# below and run in one shell.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
export DEMO_ROOT="$root/demo-out"
# The notes, transcripts and hook payloads the steps read: written for the demo, shipped here.
export DATA="$here/data"
rm -rf "$DEMO_ROOT"
mkdir -p "$DEMO_ROOT"
export HOME="$DEMO_ROOT/home"
mkdir -p "$HOME"
export GIT_CONFIG_GLOBAL="$HOME/.gitconfig"
git config --global user.name "Demo User"
git config --global user.email "demo@example.com"
git config --global init.defaultBranch main
export KB="$DEMO_ROOT/kb"
export TEAM_REMOTE="$DEMO_ROOT/team.git"
export REFLECT_GIT_KB="$KB"
unset REFLECT_STATE_DIR GLOBAL_LEARNINGS_PATH || true

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }
export -f step show

for script in "$here"/[0-9][0-9]-*.sh; do
  # shellcheck disable=SC1090
  source "$script"
done
printf '\nDemo finished; everything it made is under %s\n' "$DEMO_ROOT"
