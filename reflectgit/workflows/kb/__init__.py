"""The knowledge-base workflows, split by idea; ``KnowledgeBase`` is what callers hold.

- ``base``: the KB handle, finding notes, and THE mutation door (``Base.mutate``)
- ``mutations``: add, update, confirm, archive, restore, forget, sweep, supersede, undo
- ``reading``: list, show, log
- ``transfer``: import, export
- ``status``: status
- ``layout``: init (create or adopt a KB)
"""

from __future__ import annotations

from reflectgit.workflows.kb.mutations import Mutations
from reflectgit.workflows.kb.reading import Reading
from reflectgit.workflows.kb.status import Status
from reflectgit.workflows.kb.transfer import Transfer


class KnowledgeBase(Mutations, Reading, Transfer, Status):
    """Every workflow over one KB repository; every write goes through ``mutate``."""


__all__ = ["KnowledgeBase"]
