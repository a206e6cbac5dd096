"""The quota gate: fed only by what the writer reports, never by an extra API call.

After each model call the drain records the result's ``rate_limit_info`` (or a 429/529 seen on
stderr) in ``state_dir/quota-state.json``; before each entry it asks ``gate_closed``. A snapshot
older than the TTL fails open. API-key auth is exempt (it is billed, not windowed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reflectgit.config import QuotaSettings as QuotaSettings  # parsed there, used here
from reflectgit.notes.dates import format_epoch

QUOTA_FILE = "quota-state.json"
CEILINGS = {
    "five_hour": 0.95,
    "overage": 0.95,
    "seven_day": 0.93,
    "seven_day_opus": 0.93,
    "seven_day_sonnet": 0.92,
}
DEFAULT_CEILING = 0.95
DEFAULT_TTL = QuotaSettings().ttl_sec  # the settings themselves are parsed in reflectgit.config


def quota_path(state_dir: Path) -> Path:
    return Path(state_dir) / QUOTA_FILE


def _windows(info: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Normalise the shapes a writer reports into ``{window: {utilization, status}}``."""
    if isinstance(info.get("windows"), Mapping):
        info = info["windows"]
    if "rateLimitType" in info or "status" in info or "utilization" in info:
        name = str(info.get("rateLimitType") or info.get("window") or "five_hour")
        return {name: dict(info)}
    return {str(k): dict(v) for k, v in info.items() if isinstance(v, Mapping)}


def record(
    state_dir: Path,
    now: float,
    *,
    info: Mapping[str, Any] | None,
    rejected: bool = False,
    resets_at: float | None = None,
) -> None:
    """Store the newest snapshot (merged per window).

    ``rejected`` records a rejection the writer reported (a 429, a usage limit, no credit);
    ``resets_at`` is when the account said it opens again, which holds the gate closed past
    the snapshot's TTL.
    """
    path = quota_path(state_dir)
    state = load(path)
    windows: dict[str, Any] = dict(state.get("windows") or {})
    if info:
        windows.update(_windows(info))
    if rejected:
        window: dict[str, Any] = {"status": "rejected"}
        if resets_at is not None:
            window["resets_at"] = resets_at
        windows["rate_limit"] = window
    state = {"updated_at": now, "windows": windows}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def gate_closed(state_dir: Path, now: float, settings: QuotaSettings) -> str | None:
    """The reason the gate is closed (e.g. ``five_hour 0.97>=0.95``), or None when open."""
    if not settings.enabled or settings.exempt:
        return None
    state = load(quota_path(state_dir))
    updated = state.get("updated_at")
    windows = state.get("windows")
    if not isinstance(updated, (int, float)) or not isinstance(windows, Mapping):
        return None  # no reading: fail open
    stale = now - updated > settings.ttl_sec  # a stale reading fails open ...
    for name, window in sorted(windows.items()):
        if not isinstance(window, Mapping):
            continue
        status = str(window.get("status", "")).lower()
        resets = window.get("resets_at")
        if isinstance(resets, (int, float)) and not isinstance(resets, bool):
            if now < resets and status == "rejected":  # ... unless the account named a reset
                return f"{name} rejected until {format_epoch(resets)}"
            continue
        if stale:
            continue
        if status == "rejected":
            return f"{name} rejected"
        util = window.get("utilization")
        ceiling = settings.ceiling_override or CEILINGS.get(name, DEFAULT_CEILING)
        if isinstance(util, (int, float)) and util >= ceiling:
            return f"{name} {util:.2f}>={ceiling:.2f}"
        if status in ("allowed_warning", "warning") and not window.get("overage_available"):
            return f"{name} past its warning threshold with no overage"
    return None
