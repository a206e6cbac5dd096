"""Knowledge that knows the code: anchors (``anchoring``), stale notes (``staleness``), the
notes relevant to a change (``changes``)."""
