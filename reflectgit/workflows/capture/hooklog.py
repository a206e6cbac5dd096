"""The hooks' log, ``<state>/logs/hooks.log``: one line a hook outcome. The one writer of it.

``Capture`` logs through it, and so does the enforced-rules answer of ``hook PreToolUse``
(``hooks/policy.py``), which must not import the whole capture workflow (its dataclasses,
dates, names and note writing) to say that it blocked a call. Every line is ``clean``\\ ed
(private spans, secrets, control characters) and cut to 2,000 characters; the file rotates to
``hooks.log.1`` past ``LOG_MAX_BYTES``. Writing never raises.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from reflectgit.config import Config

LOG_DIR = "logs"
LOG_FILE = "hooks.log"
LOG_MAX_BYTES = 1_000_000


class HookLog:
    """The hooks' log of one KB's state directory."""

    def __init__(self, cfg: Config, clock: Callable[[], float] = time.time) -> None:
        self.cfg = cfg
        self.clock = clock
        self.state_dir = cfg.state_dir
        if cfg.warnings and self.usable:  # malformed settings fell back to defaults: say so
            for warning in cfg.warnings:
                self.write("config", "fallback", warning)

    @property
    def usable(self) -> bool:
        """False when there is no KB to capture into (we never create one by accident)."""
        if self.cfg.state_dir_explicit:
            return True
        return os.path.isdir(os.path.dirname(self.state_dir))

    def write(self, event: str, outcome: str, detail: str = "", session: str | None = None) -> None:
        """One line in ``<state>/logs/hooks.log``; never raises."""
        try:
            from reflectgit.notes.dates import format_epoch
            from reflectgit.notes.privacy import clean

            folder = os.path.join(self.state_dir, LOG_DIR)
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, LOG_FILE)
            try:
                if os.stat(path).st_size > LOG_MAX_BYTES:
                    os.replace(path, os.path.join(folder, LOG_FILE + ".1"))
            except OSError:
                pass
            stamp = format_epoch(self.clock())
            line = " ".join(
                part for part in (stamp, event, session or "-", outcome, detail) if part
            )
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(clean(line.replace("\n", " ")[:2000]) + "\n")
        except Exception:
            pass
