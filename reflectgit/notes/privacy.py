"""Privacy filters: ``strip_private`` and ``scrub_secrets``. Pure.

Both run before anything captured is written to a note, a queue entry, a log or a commit
message. They are best effort, not a security boundary: they over-redact rather than leak.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from reflectgit.notes.names import scrub_controls

PRIVATE_MARKER = "[private content removed]"
REDACTED = "***REDACTED***"

# <private> is the user's own marker; the rest are wrappers harnesses put around injected text
# (reminders, environment dumps, local command output) that is not part of the dialogue.
PRIVATE_TAGS = (
    "private",
    "system-reminder",
    "system_reminder",
    "environment_context",
    "user_instructions",
    "local-command-stdout",
    "local-command-stderr",
    "command-stdout",
    "command-stderr",
)

_OPEN_TAG = r"<(" + "|".join(re.escape(t) for t in PRIVATE_TAGS) + r")(?:\s[^<>]*)?>"


def _close_tag(tag: str) -> str:
    return r"</" + re.escape(tag) + r"\s*>"


def strip_private(text: str) -> str:
    """Replace ``<private>`` spans and harness wrapper tags by a marker; unclosed tags strip to the end."""
    if "<" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        opening = re.compile(_OPEN_TAG, re.IGNORECASE).search(text, pos)
        if opening is None:
            out.append(text[pos:])
            break
        out.append(text[pos : opening.start()])
        out.append(PRIVATE_MARKER)
        closing = re.compile(_close_tag(opening.group(1).lower()), re.IGNORECASE).search(
            text, opening.end()
        )
        if closing is None:
            break  # unclosed: everything after the tag is private
        pos = closing.end()
    return "".join(out)


# --------------------------------------------------------------------------- secrets

# Value of a key=value pair: a quoted string, or a run up to whitespace, quote, comma or ';'.
_VALUE = r"""(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`,;<>]+)"""

_SECRET_WORD = (
    r"(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?key|secret|client[_-]?secret|"
    r"private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|passwd|password|"
    r"passphrase|pwd|credentials?)"
)

_Sub = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def _keep(group: str) -> Callable[[re.Match[str]], str]:
    return lambda m: m.group(group) + REDACTED


@lru_cache(maxsize=1)
def _substitutions() -> tuple[_Sub, ...]:
    """Compiled on first use: hook processes that never scrub never pay for the patterns."""
    return (
        # PEM private key blocks, whole.
        (
            re.compile(
                r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
                re.DOTALL,
            ),
            lambda m: REDACTED,
        ),
        # Authorization / Proxy-Authorization headers: the whole credential, scheme included.
        (
            re.compile(
                r"(?P<k>\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?)"
                r"(?:(?:bearer|basic|token|digest|bot)\s+)?[^\s\"'`,;]+",
                re.IGNORECASE,
            ),
            _keep("k"),
        ),
        # X-Api-Key, X-Auth-Token, X-Whatever-Key headers, and plain api-key headers.
        (
            re.compile(
                r"(?P<k>\b(?:x-[a-z0-9-]*(?:key|token|secret|auth)[a-z0-9-]*|api-key)"
                r"[\"']?\s*[:=]\s*[\"']?)[^\s\"'`,;]+",
                re.IGNORECASE,
            ),
            _keep("k"),
        ),
        # Bearer tokens wherever they appear.
        (
            re.compile(r"(?P<k>\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE),
            _keep("k"),
        ),
        # Well-known key shapes.
        (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{8,}"), lambda m: REDACTED),  # Anthropic
        (re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), lambda m: REDACTED),
        (
            re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
            lambda m: REDACTED,
        ),
        (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), lambda m: REDACTED),  # Slack tokens
        (re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), lambda m: REDACTED),
        (
            re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}\b"),
            lambda m: REDACTED,
        ),  # AWS key ids
        (
            re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*"),
            lambda m: REDACTED,
        ),  # JWTs
        # Credentials in URLs: scheme://user:password@host
        (
            re.compile(r"(?P<k>\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+(?=@)", re.IGNORECASE),
            _keep("k"),
        ),
        # key=value / key: value pairs whose key names a secret (also JSON "key": "value").
        (
            re.compile(
                r"(?P<k>\b[A-Za-z0-9_.-]*"
                + _SECRET_WORD
                + r"(?!s\b)[A-Za-z0-9_.-]*[\"']?\s*[:=]\s*)"
                + _VALUE,
                re.IGNORECASE,
            ),
            _keep("k"),
        ),
        # Prose: "the password is X", "the VPN PIN is 1234", "passcode: 9876".
        (
            re.compile(
                r"(?P<k>\b(?:password|passphrase|passcode|passwd|pin(?:\s*code)?|otp|"
                r"one-time code|security code|secret)\s+(?:is|was|=|:)\s+)" + _VALUE,
                re.IGNORECASE,
            ),
            _keep("k"),
        ),
    )


# An AWS secret access key has no prefix: 40 characters of base64. Only masked where the text
# talks about AWS or secrets, and only with mixed case, so git hashes are left alone.
_AWS_CONTEXT = r"aws|AKIA|ASIA|secret|" + re.escape(REDACTED)
_AWS_SECRET = r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"


def _aws_secret(m: re.Match[str]) -> str:
    value = m.group(0)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return REDACTED if mixed else value


def scrub_secrets(text: str) -> str:
    """Mask credentials (headers, bearer tokens, secret pairs, known key shapes, JWTs)."""
    for pattern, replace in _substitutions():
        text = pattern.sub(replace, text)
    if re.search(_AWS_CONTEXT, text, re.IGNORECASE):
        text = re.sub(_AWS_SECRET, _aws_secret, text)
    return text


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
