"""What a transcript's tools did, read once: the commands run (``commandruns``), the failures a
later command got past (``recoveries``) and the repairs (``repairs``).

The gate reads them for the signals of a session whose dialogue has none
(``signals.signals_in``) and to decide whether a model writer reads such a session anyway
(``worked``); the model writer's tool evidence (``drain/evidence.read``) reads the same
transcript's. One ``ToolWork`` per transcript carries each reading from the first reader to
the next, so none is computed twice. Each reading is made when first asked for: a session with
a signal in its dialogue never reads its commands at the gate.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from reflectgit.notes import commandruns
from reflectgit.notes.policy import EDIT_TOOLS
from reflectgit.notes.transcripts import Transcript

if TYPE_CHECKING:
    from reflectgit.notes.commandruns import Ran
    from reflectgit.notes.recoveries import Recovery
    from reflectgit.notes.repairs import Repair


class ToolWork:
    """The readings of one transcript's tool calls, each made once, when first asked for."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript

    @cached_property
    def ran(self) -> list[Ran]:
        """``commandruns.commands_run``'s reading."""
        return commandruns.commands_run(self.transcript)

    @cached_property
    def recovered(self) -> list[Recovery]:
        """``recoveries.recovered``'s reading, over ``ran``."""
        from reflectgit.notes.recoveries import recovered

        return recovered(self.transcript, self.ran)

    @cached_property
    def repaired(self) -> list[Repair]:
        """``repairs.repaired``'s reading, over ``ran``."""
        from reflectgit.notes.repairs import repaired

        return repaired(self.transcript, self.ran)

    @cached_property
    def worked(self) -> bool:
        """Did a command fail (``commandruns.failed_run``), or was a file edited? Where a root
        cause or a trap of the set-up can show: a session with neither only asked and read."""
        return any(c.name in EDIT_TOOLS for c in self.transcript.tool_calls) or any(
            commandruns.failed_run(r) for r in self.ran
        )
