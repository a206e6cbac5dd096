"""``python -m reflectgit.hooks.background --kb KB JOB``: the work hooks start and leave behind.

``workflows/background.start`` runs it detached. Jobs:

- ``pass SESSION``: the capture pass over that session's event log
  (``workflows/capture/sessionpass.py``); ``pass`` alone: every session with unhandled events;
- ``rules``: compile the enforced rules for the KB's HEAD (``workflows/policy.refresh``);
- ``housekeeping``: git's automatic maintenance of the KB's repository, as ``git commit``
  runs it (``git/housekeeping.run``);
- ``recall``: SessionStart's kept answers computed again for HEAD
  (``workflows/recall_hook.prepare``).

``housekeeping rules recall`` runs them one after the other (what follows a commit).

Always exits 0; an error leaves a breadcrumb in the hooks' log, as a hook's would.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    kb: str | None = None
    if len(args) >= 2 and args[0] == "--kb":
        kb, args = args[1], args[2:]
    job = args[0] if args else ""
    cfg = None
    try:
        from reflectgit.config import Config, environ

        cfg = Config.resolve(kb, environ())
        if cfg.disabled:
            return 0
        from reflectgit.workflows.capture.hooklog import HookLog

        if not HookLog(cfg).usable:  # the KB went away meanwhile: create nothing for it
            return 0
        if job == "pass":
            from reflectgit.workflows.capture import sessionpass

            if len(args) > 1:
                sessionpass.run(cfg, args[1])
            else:
                sessionpass.run_pending(cfg)
        else:
            for word in args:
                if word == "housekeeping":
                    from reflectgit.workflows.background import housekeeping

                    housekeeping(cfg)
                elif word == "rules":
                    from reflectgit.workflows.policy import refresh

                    refresh(cfg)
                elif word == "recall":
                    from reflectgit.workflows.recall_hook import prepare

                    prepare(cfg)
    except BaseException as exc:  # detached: nobody to tell but the log
        _breadcrumb(cfg, job, exc)
    return 0


def _breadcrumb(cfg: object, job: str, exc: BaseException) -> None:
    try:
        if cfg is not None:
            from reflectgit.workflows.capture.commits import Capture

            Capture(cfg).breadcrumb(f"background {job}", exc)  # type: ignore[arg-type]
            return
        from reflectgit.hooks.capture import fallback_log

        fallback_log(f"background {job}: {type(exc).__name__}: {exc}")
    except BaseException:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
