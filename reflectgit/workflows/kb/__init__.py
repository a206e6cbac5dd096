"""The knowledge-base workflows, split by idea; ``KnowledgeBase`` is what callers hold.

- ``base``: the KB handle, finding notes, and THE mutation door (``Base.mutate``)
- ``mutations``: add, update, confirm, archive, restore, forget, sweep, supersede, undo
- ``reading``: list, show, log
- ``transfer``: import, export
- ``status``: status
- ``layout``: init (create or adopt a KB)
- ``knowledgebase``: ``KnowledgeBase``, one class over the four mixins

``KnowledgeBase`` is imported on first use (PEP 562), so a command that only writes
(``reflect-git add`` opens ``Mutations``) pays for none of the reading, status and transfer
modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from reflectgit.workflows.kb.knowledgebase import KnowledgeBase


def __getattr__(name: str) -> Any:
    if name == "KnowledgeBase":
        from reflectgit.workflows.kb.knowledgebase import KnowledgeBase

        return KnowledgeBase
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["KnowledgeBase"]
