"""Could this text hold a secret? A cheap, exact sieve in front of the secret scanner. Pure.

The scanner (``reflectgit.notes.secrets``) runs a rule only in windows around an anchor: one of
its lowercase trigger strings found in the lowercased text, or a hit of its ``anchor`` regex.
Text with neither cannot produce a finding, so ``could_hold_secret`` is False for it and the
caller may skip the scanner, and with it the import of the scanner, ``re`` and its table (the
hooks' one log line a call pays that otherwise). It never says False where the scanner finds
something: ``TRIGGERS`` is every rule's triggers (a test holds it to the table), and each
anchor needs what ``_anchored`` tests for (a test holds the anchors to that list).
"""

from __future__ import annotations

TRIGGERS = (
    "-----begin",
    "-access",
    "-api",
    "-auth",
    "-client",
    "-otp",
    "-pass",
    "-pin",
    "-pwd",
    "-secret",
    "-token",
    "-us",
    "://",
    "accountkey",
    "aiza",
    "akia",
    "api-key",
    "asia",
    "authorization",
    "aws",
    "bearer",
    "curl",
    "docker",
    "eyj",
    "gho_",
    "ghp_",
    "ghr_",
    "ghs_",
    "ghu_",
    "github_pat_",
    "glagent-",
    "glcbt-",
    "gldt-",
    "glft-",
    "glimt-",
    "gloas-",
    "glpat-",
    "glptt-",
    "glrt-",
    "glsoat-",
    "gocspx-",
    "gr1348941",
    "helm",
    "hooks.slack.com",
    "k_live_",
    "k_test_",
    "mysql",
    "nerdctl",
    "npm_",
    "password",
    "podman",
    "private-token",
    "putty-user-key-file",
    "pypi-",
    "secret",
    "sg.",
    "sharedaccesskey",
    "sharedsecret",
    "sig=",
    "sk-",
    "sk-ant-",
    "sq0",
    "sshpass",
    "x-",
    "xox",
    "ya29.",
)

# The ``prose`` rule's words that no other rule looks for; it matches only where ``is``,
# ``was``, ``:`` or ``=`` follows the word (``the pin is 1234``).
PROSE_WORDS = ("passphrase", "passcode", "passwd", "pin", "otp", "code")
PROSE_SEPARATORS = (":", "=")
PROSE_VERBS = ("is", "was")
# The ``assignment`` rule (``KEY=value``, ``"key": "value"``) needs a ``:`` or ``=`` after the
# key, with only blanks, up to two quotes or a bracket between; and the key, its trailing
# ``_.-`` aside, must end with one of these (``secrets._key_kind``: its exact, strong and weak
# names, and every ``..key``); ``file_path: x`` cannot be one.
KEY_ENDINGS = (
    "apikey",
    "auth",
    "authkey",
    "contrasena",
    "contraseña",
    "credential",
    "credentials",
    "dsn",
    "hmac",
    "key",
    "otp",
    "pass",
    "passcode",
    "passphrase",
    "passwd",
    "password",
    "pat",
    "pin",
    "privatekey",
    "pw",
    "pwd",
    "secret",
    "sig",
    "signature",
    "token",
)

# The anchors (case-sensitive, ASCII classes) and what each needs in the text:
#   (?:AC|SK)[0-9a-z]{32}                                  a run of 34 ASCII letters and digits
#   A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA|3T)[A-Z0-9]{16}      a run of 20 of them
#   \.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}          a run of 27 letters, digits, ``_`` and ``-``
#   :[0-9A-Za-z_-]{35}                                     a run of 35 of those
#   A(?:KC[a-zA-Z0-9]{10}|P[0-9A-F][a-zA-Z0-9]{8})         "AKC" or "AP"
ALNUM_RUN = 20
WORD_RUN = 27
ANCHOR_STRINGS = ("AKC", "AP")

_ALNUM = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_ALNUM_ONLY = bytes(b"a"[0] if b in _ALNUM else 32 for b in range(256))
_WORD_ONLY = bytes(b"a"[0] if b in _ALNUM + b"_-" else 32 for b in range(256))


def lower(text: str) -> str:
    """Lowercase with the same length (a few characters grow when lowercased): the text the
    scanner finds its triggers in."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)


def _longest(data: bytes, table: bytes) -> int:
    return max(map(len, data.translate(table).split()), default=0)


def _anchored(text: str) -> bool:
    if any(s in text for s in ANCHOR_STRINGS):
        return True
    data = text.encode("ascii", "replace")  # anything else ends a run, as it does for a regex
    return _longest(data, _ALNUM_ONLY) >= ALNUM_RUN or _longest(data, _WORD_ONLY) >= WORD_RUN


def could_hold_secret(text: str) -> bool:
    """False only when no rule of the scanner could find anything in ``text``."""
    if not text:
        return False
    low = lower(text)
    if any(t in low for t in TRIGGERS):
        return True
    separated = any(s in text for s in PROSE_SEPARATORS) or any(v in low for v in PROSE_VERBS)
    if separated and any(w in low for w in PROSE_WORDS):
        return True
    return _assigned(low) or _anchored(text)


def _assigned(low: str) -> bool:
    """A ``:`` or ``=`` after a key that ends with a secret's name."""
    for sep in ("=", ":"):
        at = low.find(sep)
        while at >= 0:
            end = at
            while end > 0 and low[end - 1] in " \t":
                end -= 1
            while end > 0 and low[end - 1] in "\"']":
                end -= 1
            while end > 0 and low[end - 1] in "_.-":
                end -= 1
            if low.endswith(KEY_ENDINGS, 0, end):
                return True
            at = low.find(sep, at + 1)
    return False
