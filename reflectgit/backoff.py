"""The pause before trying again: exponential, capped, jittered.

One rule for every retry that waits: the drain's queue (minutes between tries of a failed
entry), a route whose push lost the race to the team's main, a fetch whose tracking ref
another fetch moved meanwhile. The jitter spreads processes that failed together, so they do
not collide again in lockstep.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """``delay = initial * multiplier**(retries-1)``, capped, then scaled by +-jitter
    (``jitter=1.0``: anywhere from nothing to twice the delay)."""

    initial: float = 60.0
    multiplier: float = 2.0
    max_delay: float = 3600.0
    jitter: float = 0.2

    def delay(self, retries: int, rng: random.Random) -> float:
        base = min(self.initial * self.multiplier ** max(retries - 1, 0), self.max_delay)
        return base * rng.uniform(1.0 - self.jitter, 1.0 + self.jitter)

    def pause(self, retries: int, rng: random.Random | None = None) -> None:
        """Sleep the delay after the ``retries``-th failed try."""
        time.sleep(self.delay(retries, rng or random.Random()))
