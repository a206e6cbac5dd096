# shellcheck shell=bash
# CI and pre-commit as a team adopts them: a workflow and a pre-commit config that name where
# reflect-git came from (the demo runs from a checkout, which others cannot install: init says
# what to set, and the demo sets the hooks to a team's mirror of reflect-git, tagged
# v<version>), a real pre-commit run on a commit, and the timers that run the drain and the
# idle sweep.

CI_KB="$DEMO_ROOT/ci-kb"
MIRROR="$DEMO_ROOT/reflect-git-mirror"
export PRE_COMMIT_HOME="$DEMO_ROOT/pre-commit-home"
in_ci_kb() { printf '$ %s\n' "$*"; (cd "$CI_KB" && "$@"); }

step "A KB with the GitHub workflow: what pip installs in one variable, validate and check in steps of their own"
show reflect-git init "$CI_KB" --ci github
show sed -n '/^env:/,/^jobs:/p' "$CI_KB/.github/workflows/reflect-git.yml"
show grep -n 'name:\|uses:' "$CI_KB/.github/workflows/reflect-git.yml"

step "The pre-commit config names where reflect-git came from; this one is a checkout, so set repo and rev"
show cat "$CI_KB/.pre-commit-config.yaml"
git clone -q "$root" "$MIRROR"
version="$(reflect-git --version | cut -d' ' -f2)"
git -C "$MIRROR" tag -f "v$version" >/dev/null
sed -i -e "s#^- repo: SET-ME.*#- repo: file://$MIRROR#" -e "s#^  rev: SET-ME.*#  rev: v$version#" \
  "$CI_KB/.pre-commit-config.yaml"
show grep -n 'repo:\|rev:' "$CI_KB/.pre-commit-config.yaml"
show git -C "$CI_KB" commit -qam "pre-commit: our mirror of reflect-git"
in_ci_kb pre-commit install
in_ci_kb pre-commit install-hooks >/dev/null

step "A commit with an invalid note is refused with its line; an untracked draft never blocks"
printf -- '---\ntitle: Upper tier\ncreated: 2026-03-04\nconfidence: HIGH\n---\nBody.\n' > "$CI_KB/documents/draft.md"
printf -- '---\ntitle: Pin the CI runner image\ncreated: 2026-03-04\nconfidence: high\n---\nA floating image broke the build.\n' > "$CI_KB/documents/pin-the-ci-runner-image.md"
show git -C "$CI_KB" add documents/pin-the-ci-runner-image.md
in_ci_kb git commit -m "Pin the CI runner image"
show git -C "$CI_KB" status --short
show git -C "$CI_KB" add documents/draft.md
in_ci_kb git commit -m "A draft" || true
show git -C "$CI_KB" log --format='%h %s' -3
git -C "$CI_KB" rm -q --cached documents/draft.md

step "Timers for the drain and the idle sweep (systemd user units; --timer-kind launchd on macOS)"
show reflect-git --kb "$CI_KB" hooks install --timer
show reflect-git --kb "$CI_KB" hooks install --timer
if command -v systemd-analyze >/dev/null; then
  (cd "$HOME/.config/systemd/user" && show systemd-analyze verify reflect-git-drain.service reflect-git-drain.timer reflect-git-idle.service reflect-git-idle.timer)
fi
show reflect-git hooks install --timer --uninstall
