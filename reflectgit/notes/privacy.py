"""Privacy filters: ``strip_private`` and ``scrub_secrets``. Pure.

``scrub_secrets`` is the one secret scanner's mask (``reflectgit.notes.secrets``). Both run
before anything captured is written to a note, a queue entry, a log or a commit message. They
are best effort, not a security boundary: they over-redact rather than leak.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reflectgit.notes.names import scrub_controls

if TYPE_CHECKING:
    import re
    from typing import Any

PRIVATE_MARKER = "[private content removed]"
REDACTED = "***REDACTED***"  # the same text as secrets.REDACTED (a test keeps them equal)

# <private> is the user's own marker; the rest are wrappers harnesses put around injected text
# (reminders, environment dumps, local command output) that is not part of the dialogue.
PRIVATE_TAGS = (
    "private",
    "reflect-private",
    "claude-mem-context",
    "system_instruction",
    "system-instruction",
    "persisted-output",
    "system-reminder",
    "system_reminder",
    "environment_context",
    "user_instructions",
    "local-command-stdout",
    "local-command-stderr",
    "command-stdout",
    "command-stderr",
    "local-command-caveat",
    "user-prompt-submit-hook",  # what a UserPromptSubmit hook adds to the person's prompt
    "session-start-hook",
    "task-notification",
    "bash-stdout",
    "bash-stderr",
)

_TAGS: dict[str, re.Pattern[str]] = {}  # compiled on first use: most text has no ``<``


def _open_tag() -> re.Pattern[str]:
    found = _TAGS.get("")
    if found is None:
        import re

        names = "|".join(re.escape(t) for t in PRIVATE_TAGS)
        found = _TAGS[""] = re.compile(r"<(" + names + r")(?:\s[^<>]*)?>", re.IGNORECASE)
    return found


def _same_tag(tag: str) -> re.Pattern[str]:
    """An opening or closing tag of one name: nesting is counted, so the outer tail never leaks."""
    found = _TAGS.get(tag)
    if found is None:
        import re

        name = re.escape(tag)
        found = re.compile(r"<(/?)" + name + r"(?:\s[^<>]*)?\s*>", re.IGNORECASE)
        if len(_TAGS) < 64:  # the lowercased names of PRIVATE_TAGS, a few case-folded spellings
            _TAGS[tag] = found
    return found


def strip_private(text: str) -> str:
    """Replace ``<private>`` spans and harness wrapper tags by a marker.

    Spans nest: ``<private>a <private>b</private> c</private>`` is one span, ``c`` included.
    A tag never closed strips to the end of the text.
    """
    if "<" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        opening = _open_tag().search(text, pos)
        if opening is None:
            out.append(text[pos:])
            break
        out.append(text[pos : opening.start()])
        out.append(PRIVATE_MARKER)
        depth = 1
        end = None
        for tag in _same_tag(opening.group(1).lower()).finditer(text, opening.end()):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                end = tag.end()
                break
        if end is None:
            break  # unclosed: everything after the tag is private
        pos = end
    return "".join(out)


# --------------------------------------------------------------------------- secrets


def scrub_secrets(text: str) -> str:
    """Mask every secret the one scanner finds (``reflectgit.notes.secrets``), blocks whole.

    Imported here, not at the top: a process that never masks does not load the scanner; one
    that does compiles only the rules the text gives a window to (``secrets.could_hold_secret``
    lets most text through untouched)."""
    from reflectgit.notes import secrets

    return secrets.mask(text)


def clean(text: str) -> str:
    """Both filters, in order: private spans first, then secrets; and terminal escapes and
    other control characters dropped, so captured text can be committed (``names``)."""
    return scrub_controls(scrub_secrets(strip_private(text)))


def clean_data(value: Any) -> Any:
    """``clean`` applied to every string inside a JSON-shaped value (dict keys included)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean_data(k): clean_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_data(v) for v in value]
    return value
