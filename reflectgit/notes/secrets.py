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
        return LABELS.get(self.kind, self.kind)

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

    def windows(self, text: str, low: str) -> list[tuple[int, int]]:
        hits: list[int] = []
        if self.anchor is not None:
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

    def matches(self, text: str, low: str) -> Iterator[re.Match[str]]:
        for lo, hi in self.windows(text, low):
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


# --------------------------------------------------------------------------- the table

_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")
_KEY_WORDS: tuple[str, ...] = ("pass", "pwd", "pw", "secret", "token", "key", "credential")
_KEY_WORDS += ("pin", "otp", "pat")
_KEY_WORDS += ("contrase", "hmac", "sig", "auth", "dsn")
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
            "authorization",
            c(
                r"\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
                r"(?:(?:bearer|basic|token|digest|bot|sso-key)\s+)?(?P<v>[^\s\"'`,;]{4,})",
                i,
            ),
            ("authorization",),
            _plain,
            back=8,
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
        Rule("assignment", _ASSIGN_TAIL, _KEY_WORDS, finder=_assignments),
        Rule(
            "prose",
            c(
                r"\b(?P<w>password|passphrase|passcode|passwd|pin(?:\s*code)?|otp|one-time code|"
                r"security code|secret)\s+(?:is|was|=|:)\s+(?P<v>" + _VALUE + r")",
                i,
            ),
            ("password", "passphrase", "passcode", "passwd", "pin", "otp", "code", "secret"),
            _prose,
            ahead=600,
        ),
    )


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
    """The table's triggers (less those holding a shorter one: where they occur, it does) and
    its anchors as one pattern."""
    table = rules()
    words = {t for rule in table for t in rule.triggers}
    triggers = tuple(sorted(t for t in words if not any(o != t and o in t for o in words)))
    anchors = "|".join(f"(?:{r.anchor.pattern})" for r in table if r.anchor is not None)
    return triggers, Pattern(anchors)


def could_hold_secret(text: str) -> bool:
    """False only when no rule could find anything in ``text``: none of the table's triggers
    occurs in it and none of its anchors matches (a rule looks nowhere else)."""
    return bool(text) and _has_window(text, lower(text))


def _has_window(text: str, low: str) -> bool:
    triggers, anchors = _prefilter()
    return any(t in low for t in triggers) or anchors.search(text) is not None


# --------------------------------------------------------------------------- scanning


def _value_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Trailing sentence punctuation is not part of an unquoted value."""
    while end > start and text[end - 1] in ".,:;)]}!?" and text[start] not in "\"'`":
        end -= 1
    return start, end


def _spans(text: str) -> list[tuple[int, int, str]]:
    low = lower(text)
    if not _has_window(text, low):
        return []  # no rule has anywhere to look
    found: list[tuple[int, int, str]] = []
    for rule in rules():
        if rule.finder is not None:
            found.extend((*_value_span(text, a, b), rule.kind) for a, b in rule.finder(text, low))
            continue
        for m in rule.matches(text, low):
            if rule.check is not None and not rule.check(m):
                continue
            names = [n for n in ("v", "w", "sig", "d", "m", "s") if n in rule.pattern.groupindex]
            group: str | int = next((n for n in names if m.group(n) is not None), 0)
            start, end = _value_span(text, *m.span(group))
            if start < end:
                found.append((start, end, rule.kind))
    found.sort(key=lambda s: (s[0], -s[1]))
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in found:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
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
        return LABELS.get(self.kind, self.kind)


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
