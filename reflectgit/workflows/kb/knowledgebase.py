"""``KnowledgeBase``: every workflow over one KB, one class over the four mixins."""

from __future__ import annotations

from reflectgit.workflows.kb.mutations import Mutations
from reflectgit.workflows.kb.reading import Reading
from reflectgit.workflows.kb.status import Status
from reflectgit.workflows.kb.transfer import Transfer


class KnowledgeBase(Mutations, Reading, Transfer, Status):
    """Every workflow over one KB repository; every write goes through ``mutate``."""
