"""The heuristic writer: deterministic notes from a slice, with no model at all. Pure.

It turns the lessons of each chunk into CREATE actions in the same shape a model returns, so
the same safety rules apply. Which line may teach what follows who said it
(``notes/signals.classify``): a rule or correction comes only from a person's words; a root
cause or fix the assistant found gives at most a low note, and only when it names a fix (a
cause alone is an observation, not a rule); injected text never reaches a chunk at all.

Its modules, each importing only those before it: ``wording`` (sentences and shared words),
``note`` (one note as an action), ``session`` (what happened around a line), ``confirmation``,
``written`` (guidance written down), ``causes`` (stated in words), ``rules`` (the person's),
``conventions``, ``linked`` (causes read from the structure), ``commands`` (fixes by command),
``findings`` (relayed, and a code review's), ``choices`` (picked in a question tool), ``chunk`` (one chunk's
lessons) and ``answer``, whose ``write`` is the writer's door.
"""

from reflectgit.workflows.drain.heuristic.answer import write

__all__ = ["write"]
