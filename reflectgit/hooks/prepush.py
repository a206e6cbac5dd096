"""The pre-push guard of the clone layout (``reflect-git team guard`` installs the shim).

Git runs it as ``pre-push REMOTE URL`` with ``<local ref> <local sha> <remote ref> <remote sha>``
lines on stdin. When the KB is a clone of the team KB and the push would put a note that is not
high confidence on the team's main, it prints why and exits 1 (git then pushes nothing); any
other push, and any failure of the guard itself, passes (exit 0): a broken guard must never
block the user's git.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    remote_name = args[0] if args else ""
    remote_url = args[1] if len(args) > 1 else ""
    updates = sys.stdin.read()
    try:
        from reflectgit.config import Config, environ
        from reflectgit.workflows.team import check_push

        cfg = Config.resolve(Path.cwd(), environ())
        problems = check_push(cfg, remote_name, remote_url, updates)
    except Exception as exc:
        print(f"reflect-git pre-push: guard skipped ({exc})", file=sys.stderr)
        return 0
    if not problems:
        return 0
    from reflectgit.notes.words import plural

    print(
        f"error: reflect-git refused the push to {remote_name}: it would publish "
        f"{plural(len(problems), 'unreviewed note')} to the team's main:",
        file=sys.stderr,
    )
    for line in problems:
        print(f"  {line}", file=sys.stderr)
    print(
        "hint: route them for review (`reflect-git route ID`: a knowledge branch and a pull "
        "request); once approved, `git pull --rebase` drops your local copies and the push "
        "goes through. `git push --no-verify` skips this check.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
