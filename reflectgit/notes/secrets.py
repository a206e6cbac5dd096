"""The one secret scanner: findings (kind, line, column; never the value) and masking. Pure.

Every channel uses it: ``check`` reports findings, the writers (``add``, ``update``,
``import``, ``route``) refuse a note that has one, and capture, commit capture and the drain
mask them (``mask``) before anything is written, queued, logged or sent to a model.

The scanner is a table of rules. Each rule is a regular expression whose ``v`` group (or the
whole match) is the secret, declared with what it runs around: a few lowercase trigger strings
(or, for the few shapes with no fixed text, a short ``anchor`` pattern), and a check on the
value that turns placeholders (``sk_live_xxx``, ``<your-token>``, ``$TOKEN``, ``<redacted>``)
and ordinary words (``password: required``) away. Multi-line blocks (PEM and PGP private keys,
PuTTY key files) are one finding each and are masked whole.

A rule looks only around its triggers and anchors, so the table's triggers and anchors are
also the prefilter (``could_hold_secret``): text holding none of them is let through after a
handful of substring tests and one anchor search, and no rule's pattern is compiled for it
(each is compiled the first time it has a window to look in).

It is best effort, not a security boundary: where capture is concerned it over-masks rather
than leaks; where a person wrote the text it stays quiet on words, paths and placeholders.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from reflectgit.notes import names
from reflectgit.notes.lazyre import Pattern

if TYPE_CHECKING:
    from reflectgit.notes.note import Note, Origin, Sidecar
    from reflectgit.notes.schema import Problem

REDACTED = "***REDACTED***"  # what ``mask`` writes in place of a secret
MASK = "<redacted>"  # what a person writes by hand; both read as masked, never as a secret
HINT = (
    f"replace each value named above with {MASK} (the key or flag may stay), "
    "and rotate the credential if it was ever real"
)


class Finding(NamedTuple):
    """One secret in a text: what kind, where (1-based line and column). Never the value."""

    kind: str
    line: int
    column: int
    start: int  # offsets of the secret, for masking (not compared, not shown)
    end: int

    @property
    def label(self) -> str:
        return label(self.kind)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return (self.kind, self.line, self.column) == (other.kind, other.line, other.column)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((self.kind, self.line, self.column))

    def __repr__(self) -> str:
        return f"Finding(kind={self.kind!r}, line={self.line!r}, column={self.column!r})"


def label(kind: str) -> str:
    """``a GitHub token``; ``a GitHub token, base64-encoded`` for ``base64:github``."""
    how, _sep, inner = kind.rpartition(":")
    text = LABELS.get(inner, inner)
    return f"{text}, {HOW.get(how, how)}" if how else text


class Rule(NamedTuple):
    """One shape. The full ``pattern`` runs only in windows around an anchor: a lowercase
    ``trigger`` string found in the lowercased text, or a hit of the fast ``anchor`` regex;
    ``back`` and ``ahead`` bound how far a match reaches before and after its anchor."""

    kind: str
    pattern: Pattern
    triggers: tuple[str, ...] = ()
    check: Callable[[re.Match[str]], bool] | None = None  # False: not a secret after all
    anchor: Pattern | None = None
    back: int = 4
    ahead: int = 1200
    finder: Callable[[str, str], Iterator[tuple[int, int]]] | None = None  # spans, its own way
    needs: tuple[str, ...] = ()  # every match holds one of these: without any, nothing to look at

    def windows(self, text: str, low: str, anchored: bool = True) -> list[tuple[int, int]]:
        """Where the pattern may match; ``anchored`` False: the table's anchors (``_prefilter``)
        match nowhere in ``text``, so this rule's anchor is not searched (nor compiled)."""
        hits: list[int] = []
        if self.anchor is not None and anchored:
            hits.extend(m.start() for m in self.anchor.finditer(text))
        for trigger in self.triggers:
            at = low.find(trigger)
            while at >= 0:
                hits.append(at)
                at = low.find(trigger, at + 1)
        merged: list[tuple[int, int]] = []
        for at in sorted(hits):
            lo, hi = max(0, at - self.back), min(len(text), at + self.ahead)
            if merged and lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        return merged

    def matches(self, text: str, low: str, anchored: bool = True) -> Iterator[re.Match[str]]:
        for lo, hi in self.windows(text, low, anchored):
            for m in self.pattern.finditer(text, lo, hi):
                if m.end() == hi < len(text):  # cut by the window: match again, unbounded
                    again = self.pattern.match(text, m.start())
                    m = again if again is not None else m
                yield m


LABELS = {
    "private-key": "a private key block",
    "authorization": "an Authorization header",
    "api-key-header": "an API key header",
    "bearer": "a bearer token",
    "anthropic": "an Anthropic API key",
    "openai": "an OpenAI API key",
    "github": "a GitHub token",
    "gitlab": "a GitLab token",
    "slack": "a Slack token",
    "slack-webhook": "a Slack webhook URL",
    "stripe": "a Stripe secret key",
    "sendgrid": "a SendGrid API key",
    "twilio": "a Twilio key",
    "discord": "a Discord bot token",
    "telegram": "a Telegram bot token",
    "mailchimp": "a Mailchimp API key",
    "google": "a Google API key or OAuth secret",
    "npm": "an npm token",
    "pypi": "a PyPI token",
    "azure": "an Azure storage key or SAS signature",
    "aws-key-id": "an AWS access key id",
    "aws-secret": "an AWS secret access key",
    "artifactory": "an Artifactory token",
    "square": "a Square OAuth secret",
    "jwt": "a JSON web token",
    "url-credentials": "a password in a URL",
    "netrc": "a .netrc password",
    "command-password": "a password on a command line",
    "flag": "a password, token or PIN given as a flag",
    "assignment": "a secret assigned to a key or variable",
    "prose": "a password or PIN written in prose",
}

# --------------------------------------------------------------------------- values

# A value after ``=``/``:``: quoted, or a run up to whitespace, a quote or a separator.
_VALUE = r"""(?:"[^"\n]{1,400}"|'[^'\n]{1,400}'|`[^`\n]{1,400}`|[^\s"'`,;<>&|]{1,400})"""
_PLACEHOLDER_WORDS = frozenset(
    [
        "true",
        "false",
        "null",
        "none",
        "nil",
        "undefined",
        "required",
        "optional",
        "string",
        "str",
        "int",
        "bool",
        "value",
        "empty",
        "unset",
        "hidden",
        "secret",
        "secrets",
        "password",
        "passwords",
        "passwd",
        "token",
        "tokens",
        "key",
        "apikey",
        "api_key",
        "changeme",
        "change_me",
        "placeholder",
        "example",
        "sample",
        "dummy",
        "fake",
        "test",
        "testing",
        "redacted",
        "masked",
        "omitted",
        "removed",
        "env",
        "environment",
        "variable",
        "default",
        "todo",
        "tbd",
        "foo",
        "bar",
        "baz",
    ]
)
_FILLER = Pattern(r"x{4,}|(?:^|[_.\-])x{3}(?:$|[_.\-])|\*{3,}|\.{3}|…|#{4,}|0{8,}", re.IGNORECASE)
_TEMPLATE = Pattern(r"^[$%&@]|\$\{|\{\{|\$\(|<[^>]*>|\[\[|^\{[A-Za-z_]")
_STRIP = "\"'` \t"


def _bare(value: str) -> str:
    value = value.strip(_STRIP)
    return value.rstrip(".,:;)]}!?") if value[-1:] in ".,:;)]}!?" else value


def is_placeholder(value: str) -> bool:
    """An example, template, reference or mask, not a secret (``<your-token>``, ``$TOKEN``,
    ``sk_live_xxxx``, ``***``, ``<redacted>``, ``changeme``, a path, a function call)."""
    v = _bare(value)
    low = v.lower()
    if len(v) < 4 or len(set(low)) <= 2:
        return True
    if low in _PLACEHOLDER_WORDS or "redacted" in low or _FILLER.search(v):
        return True
    if _TEMPLATE.search(v) or "(" in v:
        return True
    if low.startswith(("your", "my-", "my_", "<", "example", "placeholder", "insert", "fake")):
        return True
    return v.startswith(("/", "./", "../", "~/"))  # a path names where the secret lives


def _filler_body(body: str) -> bool:
    """The random part of a prefixed key is a placeholder (``sk_live_xxxxxxxx``)."""
    return bool(_FILLER.search(body)) or len(set(body.lower())) <= 3 or "<" in body


def _word_like(value: str) -> bool:
    """Letters only (a word, ``required``, ``stored``): not a secret without quotes."""
    return _bare(value).replace("-", "").replace("_", "").isalpha()


def _token_like(value: str) -> bool:
    """A credential-looking run: 8+ characters, letters and digits, no spaces."""
    v = _bare(value)
    return (
        len(v) >= 8 and " " not in v and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
    )


# Key words. STRONG: the key is a secret whatever the value looks like (save placeholders);
# a key whose last part ends with one (``DB_PASSWORD``, ``PGPASSWORD``, ``authToken``).
# EXACT: only as a whole last part (``pass``, ``pwd``, ``pin``: ``compass`` is no secret).
# WEAK: ``..._KEY`` and friends need a credential-looking value (``SORT_KEY=created_at`` is
# not a secret, ``STRIPE_KEY=rk_...`` is).
_STRONG: tuple[str, ...] = ("password", "passwd", "passphrase", "passcode", "secret", "token")
_STRONG += ("credentials", "credential", "contraseña", "contrasena", "apikey", "authkey")
_STRONG += ("privatekey",)
# "password" in the languages people write to agents in (Russian, German, Portuguese, Dutch,
# Polish, Chinese, Japanese, Korean): ``пароль: hunter2`` is a password too.
_FOREIGN: tuple[str, ...] = ("пароль", "passwort", "senha", "wachtwoord", "hasło", "haslo")
_FOREIGN += ("密码", "パスワード", "비밀번호")
_STRONG += _FOREIGN
_EXACT = frozenset({"pass", "pwd", "pw", "pin", "otp", "pat"})
_WEAK = ("key", "hmac", "sig", "signature", "auth", "dsn")
_CAMEL = Pattern(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_SECRET_KEYS = frozenset({"pwd", "oldpwd"})  # the shell's working directories


_KEY_SPLIT = Pattern(r"[_.\-\s\"'\]]+")


@lru_cache(maxsize=4096)
def _key_kind(key: str) -> str | None:
    """``strong`` / ``weak`` / None for the name a value is assigned to."""
    if key.lower() in _NOT_SECRET_KEYS:
        return None
    parts = [p for p in _KEY_SPLIT.split(_CAMEL.sub("_", key)) if p]
    if not parts:
        return None
    last = parts[-1].lower()
    joined = "".join(p.lower() for p in parts[-3:])
    if last in _EXACT or last.endswith(_STRONG):
        return "strong"
    if joined.endswith(("apikey", "authkey", "privatekey", "accesskey", "secretkey")):
        return "strong"
    if last in _WEAK or last.endswith("key"):
        return "weak"
    return None


def _assignment_ok(key: str, value: str, sep: str = ":") -> bool:
    kind = _key_kind(key)
    if kind is None or is_placeholder(value):
        return False
    if kind == "weak":
        return _token_like(value)
    quoted = value[:1] in "\"'`"
    if _bare(value).isdigit():
        return kind == "strong" and len(_bare(value)) >= 4
    env_style = sep == "=" and key.isupper()  # PGPASSWORD=letmein: a shell assignment
    return quoted or env_style or not _word_like(value) or len(_bare(value)) >= 12


def _prose(m: re.Match[str]) -> bool:
    value = m.group("v")
    if is_placeholder(value):
        return False
    bare = _bare(value)
    if m.group("w").lower().startswith(("pin", "otp", "one-time", "security", "passcode")):
        return bare.isdigit() or not _word_like(bare)
    return not _word_like(bare)


# A value in prose runs to the next space: ``&`` and ``;`` are part of a password there.
_PROSE_VALUE = (
    r"""(?:"[^"\n]{1,400}"|'[^'\n]{1,400}'|`[^`\n]{1,400}`|[^\s"'`<>]{0,399}[^\s"'`<>.,;:!?)\]])"""
)


def _prose_direct(m: re.Match[str]) -> bool:
    """A password written right after its word: 8 or more characters of at least three kinds
    (upper, lower, digit, symbol), never a placeholder or a path (``sha-256`` and ``x86_64``
    are too short or too plain; ``Tr0ub4dor&3`` is not)."""
    value = _bare(m.group("v"))
    if len(value) < 8 or is_placeholder(value):
        return False
    kinds = (
        any(ch.isupper() for ch in value),
        any(ch.islower() for ch in value),
        any(ch.isdigit() for ch in value),
        any(not ch.isalnum() for ch in value),
    )
    return sum(kinds) >= 3


def _plain(m: re.Match[str]) -> bool:
    return not is_placeholder(m.group("v"))


def _flag(m: re.Match[str]) -> bool:
    value = m.group("v")
    if value.startswith("-") or is_placeholder(value):
        return False
    if m.group("f").lower() in ("pin", "otp"):
        return _bare(value).isdigit()
    return True


def _body_after(prefix_len: int) -> Callable[[re.Match[str]], bool]:
    return lambda m: not _filler_body(m.group(0)[prefix_len:])


def _prefixed(m: re.Match[str]) -> bool:
    body = re.split(r"[_-]", m.group(0), maxsplit=1)[-1]
    return not _filler_body(body)


def _mixed(m: re.Match[str]) -> bool:
    v = m.group("v")
    return any(c.isupper() for c in v) and any(c.islower() for c in v) and not _filler_body(v)


def _alnum_mixed(m: re.Match[str]) -> bool:
    v = m.group(0)
    return (
        any(c.isdigit() for c in v)
        and any(c.isalpha() for c in v)
        and not _filler_body(v[2:])
        and not v.isdigit()
    )


def _artifactory(m: re.Match[str]) -> bool:
    v = m.group(0)
    return (
        any(c.isdigit() for c in v)
        and any(c.islower() for c in v)
        and any(c.isupper() for c in v)
        and not _filler_body(v[3:])
    )


def _block(m: re.Match[str]) -> bool:
    """A key block with a body (a header alone, or ``...`` in docs, is no key)."""
    inner = m.group("body") or ""
    closed = m.end("body") < m.end()
    if not closed and not re.search(r"[A-Za-z0-9+/=]{16,}", inner):
        return False  # a header named in prose, not a (cut) key
    inner = re.sub(r"(?:\\[nr]|\s)+", "", inner)
    return len(inner) >= 4 and not _FILLER.search(inner) and "<" not in inner


# How a private key's DER encoding starts, in base64: a SEQUENCE (short, 1- or 2-byte length)
# holding the INTEGER version 0 or 1 first (PKCS#1 RSA and DSA, PKCS#8, SEC1 EC keys); or an
# OpenSSH key ("openssh-key-v1"). Public keys, certificates and requests start with a nested
# SEQUENCE instead, so they never match.
_KEY_BODY_START = (
    r"MII[A-Za-z0-9+/]{2}[AQgw]IBA|MI[E-H][A-Za-z0-9+/]AgE[AB]|M[A-Za-z0-9+/]{2}CAQ[A-H]"
    r"|b3BlbnNzaC1rZXktdjE"
)


def _key_body(m: re.Match[str]) -> bool:
    """A base64 run that decodes to a private key's DER structure (or an OpenSSH key), long
    enough to be one: the version INTEGER is followed by the modulus, an algorithm or the key."""
    import base64
    import binascii

    run = re.sub(r"\\[rn]|\s", "", m.group("v")).rstrip("=")
    if len(run) < 64:
        return False
    if run.startswith("b3BlbnNzaC1rZXktdjE"):
        return True
    try:
        head = base64.b64decode(run[:24])
    except (binascii.Error, ValueError):
        return False
    if head[0] != 0x30:
        return False
    at = 2 + (head[1] - 0x80 if head[1] > 0x80 else 0)  # past the SEQUENCE's length
    if head[at : at + 2] != b"\x02\x01" or head[at + 2] not in (0, 1):
        return False
    return head[at + 3] in (0x02, 0x30, 0x04)  # INTEGER, SEQUENCE (PKCS#8), OCTET STRING (EC)


# --------------------------------------------------------------------------- the table

_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_KEY_WORDS: tuple[str, ...] = ("pass", "pwd", "pw", "secret", "token", "key", "credential")
_KEY_WORDS += ("pin", "otp", "pat")
_KEY_WORDS += ("contrase", "hmac", "sig", "auth", "dsn", *_FOREIGN)
# After a key: an optional closing quote or bracket, the assignment, the value.
_ASSIGN_TAIL = Pattern(
    r"(?P<rest>[a-z0-9_.\-]{0,60})[\"'\]]{0,2}[ \t]*(?P<sep>:=|=>|=|:)[ \t]*(?P<v>" + _VALUE + r")"
)


def _assignments(text: str, low: str) -> Iterator[tuple[int, int]]:
    """``KEY=VALUE``, ``key: value``, ``"key": "value"`` whose key names a secret.

    Key words are found with ``str.find`` (fast on any text); only around them is the key
    read back to its start and the rest of the assignment matched.
    """
    seen: set[int] = set()
    for word in _KEY_WORDS:
        at = low.find(word)
        while at >= 0:
            start = at
            while start > 0 and at - start < 60 and low[start - 1] in _KEY_CHARS:
                start -= 1
            m = _ASSIGN_TAIL.match(low, at + len(word))
            if m is not None and start not in seen and not _inside_word(low, start):
                key = text[start : m.end("rest")]
                vs, ve = m.span("v")
                if _assignment_ok(key, text[vs:ve], m.group("sep")):
                    seen.add(start)
                    yield vs, ve
            at = low.find(word, at + 1)


def _inside_word(low: str, start: int) -> bool:
    return start > 0 and (low[start - 1].isalnum() or low[start - 1] in "_.-")


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """The table, built on first use; each pattern is compiled when its trigger or anchor first
    occurs in a text (a hook whose text triggers no rule compiles none of them)."""
    i = re.IGNORECASE
    c = Pattern  # each compiled when its trigger or anchor first occurs in a text
    return (
        Rule(
            "private-key",
            c(
                r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?P<body>.*?)"
                r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
                re.DOTALL,
            ),
            ("-----begin",),
            _block,
            back=0,
            ahead=16384,
        ),
        Rule(
            "private-key",
            c(r"PuTTY-User-Key-File-\d+:(?P<body>.*?)(?:Private-MAC:[^\n]*|\Z)", re.DOTALL),
            ("putty-user-key-file",),
            _block,
            back=0,
            ahead=16384,
        ),
        Rule(
            "private-key",  # a PEM body without its BEGIN/END lines (DER or OpenSSH inside)
            c(
                r"(?<![A-Za-z0-9+/])(?P<v>[A-Za-z0-9+/]{16,}={0,2}"
                r"(?:(?:\r?\n|\\(?:r\\)?n)[ \t]*[A-Za-z0-9+/]{4,}={0,2})*)"
            ),
            check=_key_body,
            anchor=c(_KEY_BODY_START),
            back=0,
            ahead=16384,
        ),
        Rule(
            "authorization",
            c(
                r"\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
                r"(?:(?:bearer|basic|token|digest|bot|sso-key)\s+)?(?P<v>[^\s\"'`,;]{4,})",
                i,
            ),
            ("authorization",),
            _plain,
            back=8,
            needs=(":", "="),
        ),
        Rule(
            "api-key-header",
            c(
                r"\b(?:x-[a-z0-9-]{0,40}(?:key|token|secret|auth)[a-z0-9-]{0,40}|api-key|"
                r"private-token)[\"']?\s*[:=]\s*[\"']?(?P<v>[^\s\"'`,;]{4,})",
                i,
            ),
            ("x-", "api-key", "private-token"),
            _plain,
            needs=(":", "="),
        ),
        Rule(
            "bearer",
            c(r"\bbearer\s+(?P<v>[A-Za-z0-9._~+/=-]{8,})", i),
            ("bearer",),
            _plain,
        ),
        Rule("anthropic", c(r"\bsk-ant-[A-Za-z0-9_-]{8,}"), ("sk-ant-",), _body_after(7)),
        Rule(
            "openai",
            c(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
            ("sk-",),
            _body_after(3),
        ),
        Rule(
            "github",
            c(r"\b(?:gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
            _prefixed,
        ),
        Rule(
            "gitlab",
            c(
                r"\b(?:gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]{20,}"
                r"|GR1348941[A-Za-z0-9_-]{20,})"
            ),
            (
                "glpat-",
                "gldt-",
                "glft-",
                "glsoat-",
                "glrt-",
                "glcbt-",
                "glimt-",
                "glptt-",
                "glagent-",
                "gloas-",
                "gr1348941",
            ),
            _prefixed,
        ),
        Rule("slack", c(r"\bxox[abposrec]-[A-Za-z0-9-]{10,}", i), ("xox",), _body_after(5)),
        Rule(
            "slack-webhook",
            c(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{8,}"),
            ("hooks.slack.com",),
            back=8,
        ),
        Rule(
            "stripe",
            c(r"\b[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}"),
            ("k_live_", "k_test_"),
            _body_after(8),
        ),
        Rule(
            "sendgrid",
            c(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
            ("sg.",),
            _body_after(3),
        ),
        Rule(
            "twilio",
            c(r"(?<![A-Za-z0-9])(?:AC|SK)[0-9a-z]{32}(?![A-Za-z0-9])"),
            check=_alnum_mixed,
            anchor=c(r"(?:AC|SK)[0-9a-z]{32}"),
        ),
        Rule(
            "discord",
            c(
                r"(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\."
                r"[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])"
            ),
            check=_body_after(1),
            anchor=c(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}"),
            back=28,
            ahead=90,
        ),
        Rule(
            "telegram",
            c(r"(?:(?<=bot)|(?<![0-9A-Za-z]))\d{8,10}:(?P<v>[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])"),
            check=lambda m: not _filler_body(m.group("v")),
            anchor=c(r":[0-9A-Za-z_-]{35}"),
            back=12,
            ahead=48,
        ),
        Rule(
            "mailchimp",
            c(r"(?<![0-9a-z])[0-9a-z]{32}-us\d{1,2}\b"),
            ("-us",),
            _body_after(0),
            back=34,
            ahead=8,
        ),
        Rule(
            "google",
            c(r"\b(?:AIza[0-9A-Za-z_-]{35}|GOCSPX-[0-9A-Za-z_-]{24,}|ya29\.[0-9A-Za-z_-]{20,})"),
            ("aiza", "gocspx-", "ya29."),
            _body_after(4),
        ),
        Rule("npm", c(r"\bnpm_[A-Za-z0-9]{36}\b"), ("npm_",), _body_after(4)),
        Rule("pypi", c(r"\bpypi-[A-Za-z0-9_-]{50,}"), ("pypi-",), _body_after(5)),
        Rule(
            "azure",
            c(
                r"(?:AccountKey|SharedAccessKey|SharedSecret)\s*=\s*(?P<v>[A-Za-z0-9+/=]{20,})"
                r"|[?&]sig=(?P<sig>[A-Za-z0-9%+/=]{20,})",
                i,
            ),
            ("accountkey", "sharedaccesskey", "sharedsecret", "sig="),
            back=2,
            needs=("=",),
        ),
        Rule(
            "aws-key-id",
            c(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
            check=_body_after(4),
            anchor=c(r"A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA|3T)[A-Z0-9]{16}"),
        ),
        Rule(
            "aws-secret",
            c(
                r"(?:aws|akia|asia|secret)[^\n]{0,120}?"
                r"(?<![A-Za-z0-9/+=])(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
                i,
            ),
            ("aws", "akia", "asia", "secret"),
            _mixed,
            back=0,
            ahead=180,
        ),
        Rule(
            "artifactory",
            c(r"(?<![A-Za-z0-9])(?:AKC[a-zA-Z0-9]{10,}|AP[0-9A-F][a-zA-Z0-9]{8,})(?![A-Za-z0-9])"),
            check=_artifactory,
            anchor=c(r"A(?:KC[a-zA-Z0-9]{10}|P[0-9A-F][a-zA-Z0-9]{8})"),
        ),
        Rule("square", c(r"\bsq0(?:csp|atp)-[0-9A-Za-z_-]{22,}"), ("sq0",), _body_after(7)),
        Rule(
            "jwt",
            c(
                r"\beyJ[A-Za-z0-9_=-]{8,}\.[A-Za-z0-9_=-]{4,}(?:\.[A-Za-z0-9_.+/=-]*)?"
                r"|\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*"
            ),
            ("eyj",),
            ahead=8192,
        ),
        Rule(
            "url-credentials",
            c(r"\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@\"'<>]{1,200}:(?P<v>[^\s@/\"'<>]{1,400})@", i),
            ("://",),
            _plain,
            back=32,
            needs=("@",),
        ),
        Rule(
            "netrc",
            c(
                r"\b(?:machine\s+\S+|default)(?:\s+login\s+\S+)?(?:\s+account\s+\S+)?"
                r"\s+password\s+(?P<v>\S+)"
                r"|\blogin\s+\S+\s+password\s+(?P<w>\S+)",
                i,
            ),
            ("password",),
            lambda m: not is_placeholder(m.group("v") or m.group("w") or ""),
            back=400,
            ahead=300,
        ),
        Rule(
            "command-password",
            c(
                r"\bcurl\b[^\n]{0,1000}?\s(?:-u|--user)(?:[ \t]+|=)[ \t]*['\"]?[^\s:'\"]+:"
                r"(?P<v>[^\s'\"]+)"
                r"|\b(?:docker|podman|helm|nerdctl)\s+(?:registry\s+)?login\b[^\n]{0,1000}?\s"
                r"(?:-p|--password)(?:[ \t]+|=)[ \t]*(?P<d>\"[^\"\n]+\"|'[^'\n]+'|[^\s'\"]+)"
                r"|\bmysql(?:dump|admin|import|sh|check)?\b[^\n]{0,1000}?\s(?-i:-p)"
                r"(?P<m>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"-][^\s'\"]*)"
                r"|\bsshpass[ \t]+-p[ \t]*(?P<s>\S+)",
                i,
            ),
            ("curl", "docker", "podman", "helm", "nerdctl", "mysql", "sshpass"),
            lambda m: not is_placeholder(next(g for g in m.groups() if g) or ""),
            ahead=1600,
        ),
        Rule(
            "flag",
            c(
                r"(?<![\w-])--?(?P<f>password|passwd|pass|pwd|token|api-?key|access-token|"
                r"auth-token|secret|client-secret|secret-key|pin|otp)(?![\w-])"
                r"(?:[ \t]*=[ \t]*|[ \t]+)(?P<v>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'`]+)",
                i,
            ),
            (
                "-pass",
                "-pwd",
                "-token",
                "-api",
                "-access",
                "-auth",
                "-secret",
                "-client",
                "-pin",
                "-otp",
            ),
            _flag,
            back=2,
            ahead=600,
        ),
        Rule("assignment", _ASSIGN_TAIL, _KEY_WORDS, finder=_assignments, needs=(":", "=")),
        Rule(
            "prose",
            c(
                r"\b(?P<w>password|passphrase|passcode|passwd|pin(?:\s*code)?|otp|one-time code|"
                r"security code|secret)(?:\s+(?:for|of|on|to)\s+(?:the\s+)?[\w.@-]+)?"
                r"\s+(?:is|was|=|:)\s+(?P<v>" + _PROSE_VALUE + r")",
                i,
            ),
            ("password", "passphrase", "passcode", "passwd", "pin", "otp", "code", "secret"),
            _prose,
            ahead=600,
        ),
        # "the staging password Tr0ub4dor&3 did not work": the value right after the word, when
        # it is shaped like a password and like no word, name, version or path
        Rule(
            "prose",
            c(r"\b(?P<w>password|passphrase|passwd)\s+(?P<v>" + _PROSE_VALUE + r")", i),
            ("password", "passphrase", "passwd"),
            _prose_direct,
            ahead=600,
        ),
    )


# --------------------------------------------------------------------------- seeing through
# A secret is still a secret when it is written so that no rule sees it as it stands: escaped
# (``ghp%5F...``, ``\u0067\u0068...``, ``\x67\x68...``), with characters no one sees inside it
# (a zero-width space, a bidi override), split over lines (a token, an AWS key id or secret cut
# in two), base64- or hex-encoded, or reversed. The scanner looks at the text as a reader or a
# program would take it back:
#
# - the *plain view*: escapes decoded, invisible characters dropped, and a line break removed
#   where a token run ends a line and the next line goes on with the rest of it (the whole
#   line, or a word holding a digit), so a wrapped token is whole again while wrapped prose and
#   a key name on the next line are not glued on;
# - each base64 or hex run in the plain view that decodes to text is scanned as that text (two
#   levels deep: base64 of a URL-encoded token is seen too); a run that decodes to bytes (an
#   image, a hash, a commit id) is left alone, so hashes and blobs stay silent;
# - the plain view reversed, for the rules whose tokens carry a fixed prefix (``ghp_``, ...).
#
# A finding in a view is mapped back to the characters of the text it came from, so ``mask``
# replaces the whole encoded span. Its kind says how it was hidden (``base64:github``).

_TOKEN_END = "A-Za-z0-9+/_-"
# Escapes of printable ASCII: %XX (URLs), \uXXXX (JSON, any code point), \xXX (C, Python).
_ESCAPES = Pattern(r"%[2-7][0-9A-Fa-f]|\\u[0-9A-Fa-f]{4}|\\x[2-7][0-9A-Fa-f]")
# A line break inside a token: 4+ token characters before it; after it, the rest of the token:
# a run of 4+ token characters that is the whole line, or that holds a digit and ends the word
# (a key name on the next line, ``aws_secret_access_key = ...``, is never glued on).
_REST = r"[A-Za-z0-9+/]{4}[A-Za-z0-9+/_-]*={0,2}"
_AFTER = (
    rf"(?={_REST}[\"'`,;)\]]*[ \t]*(?:\r?\n|\\(?:r\\)?n|$)"
    rf"|(?=[A-Za-z+/_-]*[0-9]){_REST}(?=[\s\"'`,;)\].:]|\\[nr]|$))"
)
# The break first (a pattern that starts with a literal is found fast), then what is after it,
# written once (at most one kind of break starts at a place: the same matches as one
# alternative per break, for a quarter of the compiling).
_BREAK = "|".join(
    rf"{nl}(?<=[{_TOKEN_END}]{{4}}{nl})" for nl in (r"\n", r"\r\n", r"\\n", r"\\r\\n")
)
_SPLIT = Pattern(rf"(?:{_BREAK}){_AFTER}")
_HIDDEN = Pattern(f"[{names.INVISIBLE}]")
# Base64 of ASCII text, 4 characters a group: each group's first character encodes the top 6
# bits of a printable byte ([I-Za-f]), its second the next byte's top bits, its third is even
# or odd per the third byte. Four such groups (12 bytes) in a row: a run that may hide a token.
# Ordinary words and paths almost never have that rhythm, so the prefilter stays cheap.
_B64_GROUP = r"[I-Za-f][C-HS-Xi-nyz0-3][ABEFIJMNQRUVYZcdghklopstwx014589][A-Za-z0-9+/_-]"
_BASE64 = rf"(?:{_B64_GROUP}){{4,}}"  # (a class first: found fast)
# Hex of printable ASCII: every byte's first digit is 2 to 7; eight bytes in a row.
_HEX = r"[2-7](?<![0-9A-Fa-f][2-7])[0-9A-Fa-f](?:[2-7][0-9A-Fa-f]){7,}"
# Rules whose token starts with a fixed prefix: the ones a reversed text is scanned for.
REVERSIBLE = frozenset(
    {"anthropic", "openai", "github", "gitlab", "slack", "stripe", "sendgrid", "google"}
    | {"npm", "pypi", "square"}
)
HOW = {
    "url": "URL-encoded",
    "json": "written with \\u escapes",
    "escaped": "written with \\x escapes",
    "hidden": "with invisible characters inside",
    "split": "split over lines",
    "base64": "base64-encoded",
    "hex": "hex-encoded",
    "reversed": "written backwards",
}


class _Step(NamedTuple):
    """One rewrite: each replaced span as (view start, view end, source start, source end)."""

    edits: list[tuple[int, int, int, int]]
    keys: list[int]  # the view starts, for bisect

    def back(self, at: int) -> tuple[int, int]:
        """The first and last source character a view character came from."""
        from bisect import bisect_right

        k = bisect_right(self.keys, at) - 1
        if k < 0:
            return at, at
        _view_start, view_end, source_start, source_end = self.edits[k]
        if at < view_end:
            return source_start, source_end - 1
        at += source_end - view_end
        return at, at


class View(NamedTuple):
    """A text as a reader takes it back, and the rewrites that made it (to map spans back)."""

    text: str
    steps: tuple[_Step, ...]

    def changed(self) -> list[int]:
        """Where the view differs from the text: each rewrite's place, in view positions."""
        out: list[int] = []
        for index, step in enumerate(self.steps):
            for view_start, _view_end, _source_start, _source_end in step.edits:
                at = view_start
                for later in self.steps[index + 1 :]:  # carried through the later rewrites
                    for start, end, source_start, source_end in later.edits:
                        if source_start >= at:
                            break
                        at += (end - start) - (source_end - source_start)
                out.append(at)
        return sorted(out)

    def regions(self, reach: int = 2048) -> list[tuple[int, int]]:
        """The stretches of the view around its changes, each cut at whitespace: only there can
        a rule find what it did not find in the text as written."""
        text = self.text
        out: list[tuple[int, int]] = []
        for at in self.changed():
            lo, hi = max(0, at - reach), min(len(text), at + reach)
            while lo > 0 and not text[lo - 1].isspace() and at - lo < 2 * reach:
                lo -= 1
            while hi < len(text) and not text[hi].isspace() and hi - at < 2 * reach:
                hi += 1
            if out and lo <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], hi))
            else:
                out.append((lo, hi))
        return out

    def origin(self, start: int, end: int) -> tuple[int, int]:
        first, last = start, end - 1
        for step in reversed(self.steps):
            first, last = step.back(first)[0], step.back(last)[1]
        return first, last + 1


def _rewrite(text: str, pattern: Pattern, repl: Callable[[str], str]) -> tuple[str, _Step]:
    edits: list[tuple[int, int, int, int]] = []
    shift = 0

    def one(m: re.Match[str]) -> str:
        nonlocal shift
        new = repl(m.group())
        start, end = m.span()
        edits.append((start + shift, start + shift + len(new), start, end))
        shift += len(new) - (end - start)
        return new

    out = pattern.sub(one, text)
    return out, _Step(edits, [e[0] for e in edits])


def _unescape(escape: str) -> str:
    if escape[0] == "%":
        return chr(int(escape[1:], 16))
    code = int(escape[2:], 16)
    return "" if 0xD800 <= code <= 0xDFFF else chr(code)  # a lone surrogate is no text


def _plain_text(text: str) -> str | None:
    """``plain_view(text).text``, without keeping where each character came from."""
    plain = text
    if ("%" in text or "\\" in text) and _ESCAPES.search(text):
        plain = _ESCAPES.sub(lambda m: _unescape(m.group()), plain)
    if not plain.isascii():  # every invisible character is outside ASCII (names.INVISIBLE)
        plain = _HIDDEN.sub("", plain)
    if "\n" in plain or "\\n" in plain:
        plain = _SPLIT.sub("", plain)
    return None if plain == text else plain


def plain_view(text: str) -> View | None:
    """``text`` with escapes decoded, invisible characters dropped and tokens split over lines
    joined; None when it holds none of them (the text is its own plain view)."""
    escaped = "%" in text or "\\" in text
    if not (escaped and _ESCAPES.search(text)) and not (
        (not text.isascii() and _HIDDEN.search(text))
        or (("\n" in text or "\\n" in text) and _SPLIT.search(text))
    ):
        return None
    view, steps = text, []
    rewrites = [(_HIDDEN, _nothing), (_SPLIT, _nothing)]
    for pattern, repl in [(_ESCAPES, _unescape), *rewrites] if escaped else rewrites:
        if pattern is _HIDDEN and view.isascii():
            continue  # every invisible character is outside ASCII (names.INVISIBLE)
        if pattern.search(view) is not None:
            view, step = _rewrite(view, pattern, repl)
            steps.append(step)
    return None if view == text else View(view, tuple(steps))


def _nothing(_text: str) -> str:
    return ""


def _decoded(run: str, how: str) -> str | None:
    """A base64 or hex run as the text it encodes, or None when it encodes no text."""
    import base64
    import binascii

    try:
        if how == "hex":
            raw = bytes.fromhex(run)
        else:
            raw = base64.b64decode(run.replace("-", "+").replace("_", "/"), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if decoded.replace("\n", "").replace("\t", "").isprintable() else None


# --------------------------------------------------------------------------- the prefilter


def lower(text: str) -> str:
    """Lowercase with the same length (a few characters grow when lowercased): the text the
    rules find their triggers in, so that an offset in it is an offset in ``text``."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)


@lru_cache(maxsize=1)
def _prefilter() -> tuple[tuple[str, ...], Pattern]:
    """The table's triggers (and those of the reversible rules, reversed), less those holding
    a shorter one (where they occur, it does); its anchors and the base64 and hex runs as one
    pattern."""
    table = rules()
    words = {t for rule in table for t in rule.triggers}
    words |= {t[::-1] for rule in table if rule.kind in REVERSIBLE for t in rule.triggers}
    triggers = tuple(sorted(t for t in words if not any(o != t and o in t for o in words)))
    anchors = [f"(?:{r.anchor.pattern})" for r in table if r.anchor is not None]
    return triggers, Pattern("|".join([*anchors, *(p.pattern for _how, p in ENCODED_RUNS)]))


def could_hold_secret(text: str) -> bool:
    """False only when no rule could find anything in ``text``: none of the table's triggers
    occurs in it or in its plain view, and none of its anchors (nor a base64 or hex run)
    matches (a rule looks nowhere else)."""
    if not text:
        return False
    if _has_window(text, lower(text)):
        return True
    plain = _plain_text(text)
    return plain is not None and _has_window(plain, lower(plain))


def _has_window(text: str, low: str) -> bool:
    return any(t in low for t in _prefilter()[0]) or _anchored(text)


def _anchored(text: str) -> bool:
    """Does any of the table's anchors, or a base64 or hex run, match in ``text``? When none
    does, no anchor rule and no encoded run is looked for (nor its pattern compiled)."""
    return _prefilter()[1].search(text) is not None


# --------------------------------------------------------------------------- scanning


def _value_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Trailing sentence punctuation is not part of an unquoted value."""
    while end > start and text[end - 1] in ".,:;)]}!?" and text[start] not in "\"'`":
        end -= 1
    return start, end


def _rule_spans(
    text: str, low: str, kinds: frozenset[str] | None = None, anchored: bool | None = None
) -> list[Span]:
    """What the table finds in ``text`` as it stands (only the rules of ``kinds``, if given).
    A rule whose literals (``needs``) the text lacks is skipped; ``anchored``: whether
    ``_anchored(text)`` (None: found out here, when a rule has an anchor)."""
    found: list[Span] = []
    for rule in rules():
        if kinds is not None and rule.kind not in kinds:
            continue
        if rule.needs and not any(n in text for n in rule.needs):
            continue
        if rule.finder is not None:
            found.extend((*_value_span(text, a, b), rule.kind) for a, b in rule.finder(text, low))
            continue
        if rule.anchor is not None and anchored is None:
            anchored = _anchored(text)
        for m in rule.matches(text, low, anchored is not False):
            if rule.check is not None and not rule.check(m):
                continue
            names_ = [n for n in ("v", "w", "sig", "d", "m", "s") if n in rule.pattern.groupindex]
            group: str | int = next((n for n in names_ if m.group(n) is not None), 0)
            start, end = _value_span(text, *m.span(group))
            if start < end:
                found.append((start, end, rule.kind))
    return found


def _encoded_spans(text: str, depth: int) -> list[Span]:
    """Base64 and hex runs in ``text`` that decode to text holding a secret, whole.

    A base64 run is decoded whole (text with line breaks in it: a key file, a config); when
    that is no text, each stretch of aligned groups in it is (a token inside a binary blob).
    The span found is the whole run, so ``mask`` leaves no piece of it.
    """
    found: list[Span] = []
    for how, pattern in ENCODED_RUNS:
        run_start, run_end, run_done = -1, -1, False
        for m in pattern.finditer(text):
            decoded: str | None = None
            if how == "base64":
                if m.start() >= run_end:  # a new run: decode it whole first
                    whole = _B64_WHOLE.match(text, _run_start(text, m.start()))
                    assert whole is not None
                    run_start, run_end = whole.span()
                    decoded = _decoded(_padded(whole.group()), how)
                    run_done = decoded is not None
                elif run_done:
                    continue
                decoded = decoded or _decoded(_padded(m.group()), how)
                span = (run_start, run_end)
            else:
                decoded, span = _decoded(m.group(), how), m.span()
            inner = _spans(decoded, depth + 1) if decoded else []
            if inner and (not found or found[-1][:2] != span):
                found.append((*span, f"{how}:{inner[0][2].split(':')[-1]}"))
    return found


def _padded(run: str) -> str:
    run = run.rstrip("=")
    return run + "=" * (-len(run) % 4)


def _run_start(text: str, at: int) -> int:
    while at > 0 and text[at - 1] in _B64_CHARS:
        at -= 1
    return at


_B64_WHOLE = Pattern(r"[A-Za-z0-9+/_-]+={0,2}")
_B64_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"
# The runs decoded and scanned as text: base64 (the aligned groups, then a last group of 2 or
# 3 characters with its padding) and hex. Their patterns are part of the prefilter.
ENCODED_RUNS = (
    (
        "base64",
        Pattern(
            rf"{_BASE64}(?:[I-Za-f][C-HS-Xi-nyz0-3](?:[ABEFIJMNQRUVYZcdghklopstwx014589]=?|==?)?)?"
        ),
    ),
    ("hex", Pattern(_HEX)),
)


@lru_cache(maxsize=1)
def _reversed_triggers() -> tuple[str, ...]:
    """The reversible rules' triggers reversed, less those holding a shorter one."""
    words = {t[::-1] for r in rules() if r.kind in REVERSIBLE for t in r.triggers}
    return tuple(sorted(t for t in words if not any(o != t and o in t for o in words)))


def _how(text: str, start: int, end: int) -> str:
    """What made a plain-view finding invisible as written: the first of escapes, invisible
    characters and line breaks found in its original span."""
    part = text[start:end]
    escape = _ESCAPES.search(part)
    if escape is not None:
        first = escape.group()
        return "url" if first[0] == "%" else "json" if first[1] == "u" else "escaped"
    if _HIDDEN.search(part):
        return "hidden"
    return "split"


Span = tuple[int, int, str]


def _spans(text: str, depth: int = 0) -> list[Span]:
    low = lower(text)
    view = plain_view(text)
    plain, plow = (text, low) if view is None else (view.text, lower(view.text))
    if not _has_window(text, low) and (view is None or not _has_window(plain, plow)):
        return []  # no rule has anywhere to look
    found = _rule_spans(text, low)
    seen: list[Span] = []
    anchored = _anchored(plain)  # none in the view: none in a part of it
    if view is not None:
        for lo, hi in view.regions():
            part, at = plain[lo:hi], plow[lo:hi]
            seen += [(a + lo, b + lo, k) for a, b, k in _rule_spans(part, at, None, anchored)]
    if depth < 2 and anchored:  # an encoded run is one of the anchors
        seen += _encoded_spans(plain, depth)
    if any(t in plow for t in _reversed_triggers()):
        n, back = len(plain), plain[::-1]
        found_back = _rule_spans(back, lower(back), REVERSIBLE)
        seen += [(n - e, n - s, f"reversed:{k}") for s, e, k in found_back]
    known = {(s, e) for s, e, _k in found}
    for start, end, kind in seen:
        if view is not None:
            start, end = view.origin(start, end)
            if ":" not in kind and (start, end) not in known:
                kind = f"{_how(text, start, end)}:{kind}"
        if (start, end) not in known:
            found.append((start, end, kind))
    found.sort(key=lambda s: (s[0], -s[1]))
    merged: list[Span] = []
    for start, end, kind in found:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            named = last[2] if ":" not in last[2] or ":" in kind else kind  # as written first
            merged[-1] = (last[0], max(last[1], end), named)
        else:
            merged.append((start, end, kind))
    return merged


def scan(text: str) -> list[Finding]:
    """Every secret in ``text`` (overlapping matches merged), in order."""
    if not text:
        return []
    out = []
    for start, end, kind in _spans(text):
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        out.append(Finding(kind, line, column, start, end))
    return out


def has_secret(text: str) -> bool:
    return bool(text) and bool(_spans(text))


def mask(text: str, replacement: str = REDACTED) -> str:
    """``text`` with every secret replaced (multi-line blocks whole); idempotent."""
    if not text:
        return text
    spans = _spans(text)
    if not spans:
        return text
    out = []
    pos = 0
    for start, end, _kind in spans:
        out.append(text[pos:start])
        out.append(replacement)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def mask_data(value: Any) -> Any:
    """``mask`` applied to every string inside a JSON-shaped value (dict keys included)."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {mask_data(k): mask_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_data(v) for v in value]
    return value


# --------------------------------------------------------------------------- notes


class Located(NamedTuple):
    """A finding in a note or sidecar: the field path it is in and the file line."""

    field: str
    kind: str
    line: int
    column: int

    @property
    def label(self) -> str:
        return label(self.kind)


def _leaves(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _leaves(item, (*path, str(key)))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))


def _field_name(path: Sequence[str | int]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def data_findings(data: Mapping[str, Any], origin: Origin | None) -> list[Located]:
    """Findings in the string values of frontmatter or sidecar data, with their field path.

    Each value is scanned with its key in front (``api_key: ...``), so a key that names a
    secret counts; the line is the value's line in the file when the data was parsed from one.
    """
    out: list[Located] = []
    for path, text in _leaves(data):
        if not text:
            continue
        key = next((p for p in reversed(path) if isinstance(p, str)), "")
        prefix = f"{key}: " if key else ""
        findings = [f for f in scan(prefix + text) if f.end > len(prefix)]
        for finding in findings:
            line, column = _line_of(origin, path, finding)
            out.append(Located(_field_name(path), finding.kind, line, column))
    return out


def _line_of(origin: Origin | None, path: Sequence[str | int], finding: Finding) -> tuple[int, int]:
    if origin is None:
        return 1, 1
    from reflectgit.notes.schema import locate

    line, column = locate(origin, path)
    lines = origin.yaml_text.splitlines()
    index = line - origin.yaml_line
    if finding.line > 1 and 0 <= index < len(lines):
        block = re.search(r"[|>][+-]?\d*\s*(?:#.*)?$", lines[index]) is not None
        return line + finding.line - 1 + (1 if block else 0), 1
    return line, column


def body_findings(body: str, origin: Origin | None) -> list[Located]:
    """Findings in a note's markdown body, with file lines when the note came from a file."""
    first = 1
    if origin is not None:
        first = origin.yaml_line + origin.yaml_text.count("\n") + 1
        if origin.yaml_text and not origin.yaml_text.endswith("\n"):
            first += 1
    return [Located("body", f.kind, first + f.line - 1, f.column) for f in scan(body)]


def _quick_clear(data: Mapping[str, Any], body: str = "") -> bool:
    """No secret anywhere (one scan of all the values at once: the common case, and cheap)."""
    joined = "\n".join(f"{path[-1] if path else ''}: {text}" for path, text in _leaves(data))
    return not has_secret(joined + "\n" + body)


def note_findings(note: Note) -> list[Located]:
    """Every secret in a note: frontmatter values (with their field) and the body."""
    if _quick_clear(note.frontmatter, note.body):
        return []
    return data_findings(note.frontmatter, note.origin) + body_findings(note.body, note.origin)


def sidecar_findings(sidecar: Sidecar) -> list[Located]:
    if _quick_clear(sidecar.data):
        return []
    return data_findings(sidecar.data, sidecar.origin)


def problems(found: Iterable[Located], source: str) -> list[Problem]:
    """Validation problems for findings: where, which field, what kind; never the value."""
    from reflectgit.notes.schema import Problem

    return [
        Problem(
            source,
            f.line,
            f.column,
            f.field,
            f"holds {f.label} (the value is not shown); replace it with {MASK}",
        )
        for f in found
    ]


def source_problems(note: Note, sidecar: bytes | None, source: str) -> list[Problem]:
    """Secret problems of a note file and its sidecar bytes (what ``route`` refuses to push)."""
    from reflectgit.errors import NoteError
    from reflectgit.notes.note import parse_sidecar, sidecar_path_for

    found = problems(note_findings(note), source)
    if sidecar is not None:
        side_source = sidecar_path_for(source)
        try:
            found += problems(sidecar_findings(parse_sidecar(sidecar, side_source)), side_source)
        except NoteError:
            found += problems(body_findings(sidecar.decode("utf-8", "replace"), None), side_source)
    return found
