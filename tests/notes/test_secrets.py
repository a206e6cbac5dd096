"""The one secret scanner: a table of positives AND negatives, the corpus, detect-secrets.

The corpus (tests/data/secrets.yaml) holds one realistic, generated secret per shape with the
substring that must never leak, and negatives that must stay silent. ``check`` must find every
shape, ``add`` must refuse every one (exit 1, field and line named, the value never echoed),
and everything detect-secrets flags in the corpus we flag too.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import pytest
import yaml

from reflectgit.notes import secrets
from reflectgit.notes.note import parse_note
from reflectgit.notes.privacy import REDACTED
from tests.conftest import DATA, TEST_DATA, git, needs_shared
from tests.support.kb import count_commits, head, kb

CORPUS = yaml.safe_load((TEST_DATA / "secrets.yaml").read_text("utf-8"))
POSITIVES = CORPUS["positives"]
__all__ = ["kb"]  # the fixture, imported for pytest
NEGATIVES = CORPUS["negatives"]


def _ids(entries: list[dict[str, str]]) -> list[str]:
    return [e["shape"] for e in entries]


def test_the_corpus_is_large_and_one_shape_each() -> None:
    shapes = _ids(POSITIVES)
    assert len(shapes) >= 48 and len(set(shapes)) == len(shapes)
    assert len(NEGATIVES) >= 30
    for entry in POSITIVES:
        assert entry["secret"] in entry["text"], entry["shape"]


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("entry", POSITIVES, ids=_ids(POSITIVES))
def test_every_corpus_shape_is_found_and_masked(entry: dict[str, str]) -> None:
    text = entry["text"]
    found = secrets.scan(text)
    assert found, entry["shape"]
    assert all(entry["secret"] not in repr(f) for f in found)  # a finding never holds the value
    masked = secrets.mask(text)
    assert entry["secret"] not in masked
    assert REDACTED in masked
    assert secrets.mask(masked) == masked and secrets.scan(masked) == []  # idempotent


@pytest.mark.parametrize("text", NEGATIVES)
def test_corpus_negatives_stay_silent(text: str) -> None:
    assert secrets.scan(text) == []
    assert secrets.mask(text) == text


# --------------------------------------------------------------------------- a table


POSITIVE_TABLE = [
    ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe"),
    ("glpat-9xY2kLmN4pQrStUvWx7z", "gitlab"),
    ("TELEGRAM=123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq", "telegram"),
    ("--password Hunter22!", "flag"),
    ("--pin 482913", "flag"),
    ("--token=Zq3m9Xk2Lp8Vb4Nc", "flag"),
    ("docker login -p Xk29vLq8Zm registry.io", "command-password"),
    ("mysql -uroot -pS3cr3tPw db", "command-password"),
    ("curl -u bob:Pa55w0rd! https://x.io", "command-password"),
    ("machine api.x.io login bob password Pa55w0rd", "netrc"),
    ("STRIPE_KEY=Zk3u8QmT2vX9pL4rW7yB1nC6", "assignment"),
    ("apiKey: 'Zk3u8QmT2vX9pL4r'", "assignment"),
    ("PGPASSWORD=letmein psql", "assignment"),
    ("AccountKey=" + "a1B2c3D4" * 11, "azure"),
    ("the wifi password is Tr0ub4dor&3", "prose"),
    ("the staging password Tr0ub4dor&3 did not work", "prose"),
    ("the password for staging is Tr0ub4dor&3.", "prose"),
    ("пароль: hunter2", "assignment"),
    ("DB_PASSWORT=Sommer2024", "assignment"),
    ("密码: hunter2", "assignment"),
]


@pytest.mark.parametrize(("text", "kind"), POSITIVE_TABLE)
def test_positive_table(text: str, kind: str) -> None:
    assert [f.kind for f in secrets.scan(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "--token-file ~/.config/token",
        "--password-stdin",
        "--pin-memory",
        "--password $DB_PASSWORD",
        "--token <your-token>",
        "STRIPE_KEY=<redacted>",
        "password: <redacted>",
        "sk_live_xxx and sk_live_XXXXXXXXXXXXXXXXXXXXXXXX",
        "PARTITION_KEY=tenant_id",
        "password reset flow",
        "the password field is required",
        "use password auth with sha-256 hashes",
        "the password for staging is stored in vault",
        "Password123 is a terrible password",
        "the password must be 8+ chars",
        "password policy: MinLength=12",
        "the password is stored in vault",
        "a PIN is 4 digits",
        "uuid 9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b",
        "sha 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "tokens: 4096",
        "compass: north-east",
        "mysql -u root -p billing",
        "docker run -u 1000:1000 img",
        "https://user@example.com/repo.git",
        "mysql -h db -P3306 -uroot billing",
        "pass --token\nThen run the tests",
        "пароль: required",
        "mein Passwort ist lang genug",
    ],
)
def test_negative_table(text: str) -> None:
    assert secrets.scan(text) == []


# --------------------------------------------------------------------------- seen through
# The shapes that hid a secret from the scanner as it was (each fails on a scanner that only
# reads the text as it stands): the secret is found, named by how it was hidden, and masked
# with the whole encoded span. Generated values; they grant nothing.

TOKEN = "ghp_" + "R8mQ2vLx7KpZ4nWc9TbY3hJf6DsA1gUe5oNi"
KEY_ID = "AKIA" + "QX7M2KD9RT4BNW6P"
SECRET_KEY = "k9Qm2Lx7Vp4Zr8Nc3Tb6Yh1Jf5Ds0GaUeWoXiKqE"
PEM_BODY = (
    "MHcCAQEEIMqa/ZB6i5QHMeZLeM4jxS0js4GBeTFIFN49F5H6rX7coAoGCCqGSM49\n"
    "AwEHoUQDQgAE5c5fRNk7DsjMmevLRRyQEOHll5r+3BtyCaAwGQNeMIpptsCrenoO\n"
    "PSne5GCiJUDS604MV0e9RdKtIE7GDdS0GA=="
)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


ENCODED = [
    ("split", f"push with {TOKEN[:18]}\n{TOKEN[18:]}\nthen tag", "split:github", TOKEN[18:]),
    (
        "split-mid-line",
        f"push with {TOKEN[:18]}\n{TOKEN[18:]} then tag",
        "split:github",
        TOKEN[18:],
    ),
    ("base64", f"TOKEN_B64={_b64(TOKEN)}", "base64:github", _b64(TOKEN)[8:]),
    (
        "base64-text",
        f"blob {_b64('export GITHUB_TOKEN=' + TOKEN)}",
        "base64:github",
        _b64(TOKEN)[-12:],
    ),
    (
        "base64-url",
        f"k={base64.urlsafe_b64encode(TOKEN.encode()).decode()}",
        "base64:github",
        "Z2hw",
    ),
    ("hex", f"cfg {TOKEN.encode().hex()}", "hex:github", TOKEN.encode().hex()[8:]),
    ("url-encoded", "t=" + "".join(f"%{b:02X}" for b in TOKEN.encode()), "url:github", "%52"),
    ("hex-escaped", "".join(f"\\x{b:02x}" for b in TOKEN.encode()), "escaped:github", "\\x52"),
    ("url-encoded-part", f"?t={TOKEN.replace('_', '%5F')}", "url:github", TOKEN[4:]),
    (
        "json-u-escape",
        json.dumps({"t": TOKEN}).replace("ghp_", "\\u0067\\u0068\\u0070\\u005f"),
        "json:github",
        TOKEN[4:],
    ),
    (
        "zero-width-space",
        f"use {TOKEN[:10]}\u200b{TOKEN[10:]} to push",
        "hidden:github",
        TOKEN[10:],
    ),
    ("word-joiner", f"use {TOKEN[:10]}\u2060{TOKEN[10:]} to push", "hidden:github", TOKEN[10:]),
    ("reversed", f"echo {TOKEN[::-1]} | rev", "reversed:github", TOKEN[::-1][:20]),
    (
        "aws-key-id-split",
        f"aws_access_key_id = {KEY_ID[:10]}\n{KEY_ID[10:]}\n",
        "split:aws-key-id",
        KEY_ID[10:],
    ),
    (
        "aws-secret-split",
        f"aws_secret_access_key = {SECRET_KEY[:22]}\n{SECRET_KEY[22:]}\n",
        "assignment",
        SECRET_KEY[22:],
    ),
    ("pem-body-without-armour", PEM_BODY, "private-key", PEM_BODY[-20:]),
    (
        "base64-of-a-pem-block",
        "cert bundle " + _b64("-----BEGIN EC PRIVATE KEY-----\n" + PEM_BODY),
        "base64:private-key",
        "LS0t",
    ),
]


@pytest.mark.parametrize(
    ("text", "kind", "hidden"), [e[1:] for e in ENCODED], ids=[e[0] for e in ENCODED]
)
def test_an_encoded_or_split_secret_is_seen_and_masked_whole(
    text: str, kind: str, hidden: str
) -> None:
    found = secrets.scan(text)
    assert [f.kind for f in found][:1] == [kind]
    masked = secrets.mask(text)
    assert hidden not in masked and REDACTED in masked
    assert secrets.could_hold_secret(text)
    assert secrets.mask(masked) == masked and secrets.scan(masked) == []


def test_an_aws_key_pair_split_over_lines_is_masked_whole() -> None:
    text = (
        f"[default]\naws_access_key_id = {KEY_ID[:10]}\n{KEY_ID[10:]}\n"
        f"aws_secret_access_key = {SECRET_KEY[:22]}\n{SECRET_KEY[22:]}\nregion = eu-west-1\n"
    )
    assert [(f.kind, f.line) for f in secrets.scan(text)] == [
        ("split:aws-key-id", 2),
        ("assignment", 4),
    ]
    assert secrets.mask(text) == (
        f"[default]\naws_access_key_id = {REDACTED}\naws_secret_access_key = {REDACTED}\n"
        "region = eu-west-1\n"
    )


def test_hidden_secrets_far_into_a_long_text_are_found_where_each_one_is() -> None:
    """The plain view is scanned around its changes only: changes of every kind, far apart,
    each carried through the later rewrites to where it lands."""
    filler = "the build is green and the cache is warm; " * 200
    text = (
        "see https://x.io/a%20b "
        + filler
        + f"zero {TOKEN[:10]}\u200b{TOKEN[10:]} width\n"
        + filler
        + f"split {TOKEN[:18]}\n{TOKEN[18:]}\n"
        + filler
        + f"escaped ?t={TOKEN.replace('_', '%5F')} end"
    )
    assert [f.kind for f in secrets.scan(text)] == ["hidden:github", "split:github", "url:github"]
    masked = secrets.mask(text)
    assert TOKEN[10:] not in masked and TOKEN[18:] not in masked and TOKEN[4:] not in masked
    assert masked.count(REDACTED) == 3 and masked.count(filler) == 3


def test_a_finding_says_how_the_secret_was_hidden() -> None:
    [finding] = secrets.scan(f"blob {_b64(TOKEN)}")
    assert finding.label == "a GitHub token, base64-encoded"


@pytest.mark.parametrize(
    "text",
    [
        "aGVsbG8gd29ybGQgZnJvbSB0aGUgYnVpbGQgc2VydmVy",  # "hello world from the build server"
        _b64("the token expires after one hour, then ask for a new one"),
        _b64("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),  # an encoded placeholder
        b"The quick brown fox".hex(),
        "%3Cyour-token%3E and https://x.io/a%20b%2Fc",
        "\\u003cyour-token\\u003e",
        "use <redacted>\u200b here",
        "sha1 " + "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
        "git log 3f786850e387550fdab836ed7e6dc881de23001b..9fceb02d0ae598e95dc970b74767f19372d61af8",
        "ZGF0YTppbWFnZS9wbmc7YmFzZTY0LGlWQk9SdzBLR2dv",  # base64 of a data: URL prefix
        "tnemeganam-sruoy | rev",
        "the long identifier\nVeryLongConfigurationName",
        "- item one\n- item two\n- item 3",
    ],
)
def test_what_decodes_to_no_secret_stays_silent(text: str) -> None:
    assert secrets.scan(text) == []
    assert secrets.mask(text) == text


@pytest.mark.skipif(not DATA.is_dir(), reason="no shared data folder")
def test_the_shared_notes_hold_no_false_positive() -> None:
    notes = [
        path
        for folder in ("compat", "notes/valid")
        for path in sorted((DATA / folder).glob("*"))
        if path.suffix in (".md", ".yaml")
    ]
    assert len(notes) > 30
    flagged = [path.name for path in notes if secrets.scan(path.read_text("utf-8"))]
    assert flagged == []


# --------------------------------------------------------------------------- the prefilter
# A rule looks only around its triggers and anchors, and ``could_hold_secret`` (which lets text
# through unscanned) is built from them; so each rule's triggers must be in every text its
# pattern matches.

EXAMPLES = [e["text"] for e in POSITIVES] + [text for text, _kind in POSITIVE_TABLE]
EXAMPLES += [text for _shape, text, _kind, _hidden in ENCODED]


def _bare_matches(rule: secrets.Rule, text: str) -> set[tuple[int, int]]:
    """Where the rule's pattern matches (its check passing) anywhere in ``text``, windows aside."""
    return {m.span() for m in rule.pattern.finditer(text) if rule.check is None or rule.check(m)}


def _some_rule_looks(text: str) -> bool:
    """A rule has a window in the text or its plain view, a reversible rule in either reversed,
    or a base64 or hex run is there to decode."""
    view = secrets.plain_view(text)
    for seen in [text] if view is None else [text, view.text]:
        low = secrets.lower(seen)
        if any(rule.windows(seen, low) for rule in secrets.rules()):
            return True
        back = seen[::-1]
        reversible = [r for r in secrets.rules() if r.kind in secrets.REVERSIBLE]
        if any(rule.windows(back, secrets.lower(back)) for rule in reversible):
            return True
        if any(pattern.search(seen) for _how, pattern in secrets.ENCODED_RUNS):
            return True
    return False


def test_every_rule_has_a_trigger_its_own_examples_hold() -> None:
    for index, rule in enumerate(secrets.rules()):
        assert rule.triggers or rule.anchor is not None, rule.kind
        if rule.finder is not None:  # it looks for key words itself: they are its triggers
            assert rule.triggers is secrets._KEY_WORDS
            examples = [t for t in EXAMPLES if rule.kind in {f.kind for f in secrets.scan(t)}]
        else:
            examples = [t for t in EXAMPLES if _bare_matches(rule, t)]
        assert examples, f"rule {index} ({rule.kind}) has no positive example"
        for text in examples:
            low = secrets.lower(text)
            held = [t for t in rule.triggers if t in low]
            assert held or (rule.anchor is not None and rule.anchor.search(text)), (index, text)
            assert secrets.could_hold_secret(text), text
            if rule.finder is None:  # looking only around them, the rule finds all it matches
                windowed = {m.span() for m in rule.matches(text, low)}
                assert _bare_matches(rule, text) <= windowed, (index, text)


def test_the_anchors_combine_into_one_pattern() -> None:
    """The prefilter searches every anchor in one pattern: the same only while none has flags."""
    anchored = [r for r in secrets.rules() if r.anchor is not None]
    assert anchored and all(r.anchor is not None and r.anchor.flags == 0 for r in anchored)


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-01T20:15:20Z PreToolUse - policy:deny Bash kb:never-force-push",
        "2026-12-01T20:15:20Z PermissionRequest - policy:ask Write policy-rules.jsonl",
        "the build is green",
        "uuid 9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b",
        "ÄÖÜ" * 40,
        "",
    ],
)
def test_ordinary_text_is_let_through_unscanned(text: str) -> None:
    assert not secrets.could_hold_secret(text)
    assert secrets.mask(text) == text


def test_the_prefilter_says_yes_exactly_where_a_rule_would_look() -> None:
    rng = random.Random(16)
    pieces = EXAMPLES + list(NEGATIVES)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:=/ \n'\"İıſK"
    passed = 0
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.3:
                piece = rng.choice(pieces)
                a = rng.randrange(len(piece) + 1)
                parts.append(piece[a : a + rng.randint(1, 80)])
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))))
        text = "".join(parts)
        looks = secrets.could_hold_secret(text)
        assert looks == _some_rule_looks(text), text
        assert looks or not secrets.scan(text)
        passed += looks
    assert 0 < passed < 3000


def test_what_the_scanner_skips_by_is_true_of_every_match() -> None:
    """The scan's shortcuts: a rule is skipped in a text holding none of its ``needs``; the
    anchor rules and the encoded runs where the table's joined anchors match nowhere; the
    invisible characters are not looked for in ASCII text. Each rests on a fact checked here."""
    import re

    rng = random.Random(31)
    texts = list(EXAMPLES)
    for _ in range(300):  # pieces of examples glued to random text, as in a real payload
        piece = rng.choice(EXAMPLES)
        texts.append(piece[rng.randrange(len(piece) + 1) :] + " x=1 @ " + rng.choice(EXAMPLES))
    needy = [rule for rule in secrets.rules() if rule.needs]
    assert {rule.kind for rule in needy} >= {"url-credentials", "assignment"}
    for text in texts:
        for rule in needy:
            if rule.finder is not None:  # an assignment: its separator precedes the value
                for start, _end in rule.finder(text, secrets.lower(text)):
                    assert any(n in text[:start] for n in rule.needs), (rule.kind, text)
                continue
            for m in rule.pattern.finditer(text):
                assert any(n in m.group(0) for n in rule.needs), (rule.kind, m.group(0))
    # the joined anchors match wherever one of them does: the same patterns, no flags of their own
    assert all(r.anchor.flags == 0 for r in secrets.rules() if r.anchor is not None)
    assert all(p.flags == 0 for _how, p in secrets.ENCODED_RUNS)
    assert not any(re.search(f"[{secrets.names.INVISIBLE}]", chr(c)) for c in range(128))


@needs_shared
@pytest.mark.skipif(not DATA.is_dir(), reason="no shared data folder")
def test_the_prefilter_lets_most_shared_lines_through_and_hides_no_finding() -> None:
    lines = [
        line
        for path in sorted(DATA.rglob("*"))
        if path.is_file() and path.suffix in (".md", ".yaml", ".jsonl", ".json", ".txt")
        for line in path.read_text("utf-8", "replace").splitlines()
    ]
    assert len(lines) > 1000
    skipped = [line for line in lines if not secrets.could_hold_secret(line)]
    assert len(skipped) > len(lines) // 2  # the prefilter spares real lines, not made-up ones
    for line in lines:
        assert secrets.could_hold_secret(line) == _some_rule_looks(line), line[:200]


def test_findings_name_line_and_column_never_the_value() -> None:
    text = "first line\n  token: Zq3m9Xk2Lp8Vb4Nc77\nlast"
    [finding] = secrets.scan(text)
    assert (finding.kind, finding.line, finding.column) == ("assignment", 2, 10)
    assert "Zq3m9Xk2Lp8Vb4Nc77" not in repr(finding) and finding.label


def test_a_private_key_block_is_masked_whole() -> None:
    body = ["MIIEowIBAAKCAQEAx8" + "Qz9" * 15, "k2Lp8Vb4Nc7" * 5, "Zq3m9Xk2Lp=="]
    text = "key:\n-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body)
    text += "\n-----END RSA PRIVATE KEY-----\nafter"
    assert secrets.mask(text) == f"key:\n{REDACTED}\nafter"
    cut = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(body[:2])  # cut mid-block
    assert all(line not in secrets.mask(cut) for line in body[:2])
    pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(body)
    pgp += "\n-----END PGP PRIVATE KEY BLOCK-----"
    assert secrets.mask(pgp) == REDACTED
    public = "-----BEGIN PUBLIC KEY-----\n" + body[0] + "\n-----END PUBLIC KEY-----"
    assert secrets.scan(public) == []


def test_note_findings_name_the_field_and_the_file_line() -> None:
    data = (
        "---\ntitle: Deploy\ncreated: 2026-11-30\nconfidence: high\nfix: |\n"
        "  run it with\n  STRIPE_KEY=Zk3u8QmT2vX9pL4rW7yB1nC6 ./deploy.sh\n---\n"
        "Body line one.\nUse `curl -u admin:S3cretPass! https://ci`.\n"
    )
    found = secrets.note_findings(parse_note(data.encode(), "n.md"))
    assert [(f.field, f.line) for f in found] == [("fix", 7), ("body", 10)]


# --------------------------------------------------------------------------- detect-secrets


def _detect_secrets_lines(tmp: Path, text: str) -> set[int]:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    path = tmp / "note.md"
    path.write_text(text + "\n", encoding="utf-8")
    collection = SecretsCollection()
    with default_settings():
        collection.scan_file(str(path))
    return {s.line_number for found in collection.data.values() for s in found}


def test_everything_detect_secrets_flags_in_the_corpus_we_flag_too(tmp_path: Path) -> None:
    pytest.importorskip("detect_secrets")
    flagged_by_them = 0
    missed = []
    for entry in POSITIVES:
        theirs = _detect_secrets_lines(tmp_path, entry["text"])
        ours = {f.line for f in secrets.scan(entry["text"])}
        flagged_by_them += bool(theirs)
        if theirs - ours:
            missed.append((entry["shape"], sorted(theirs - ours)))
    assert missed == []
    assert flagged_by_them >= 30  # the differential means something: they find most shapes
    # Precision: on the negatives they have false positives, we have none.
    their_false = sum(bool(_detect_secrets_lines(tmp_path, text)) for text in NEGATIVES)
    ours_false = sum(bool(secrets.scan(text)) for text in NEGATIVES)
    print(f"\ndetect-secrets: {flagged_by_them}/{len(POSITIVES)} shapes, {their_false} FPs")
    assert ours_false == 0


# --------------------------------------------------------------------------- check and add


def _note(shape: str, text: str) -> str:
    return (
        f"---\ntype: learning\nid: lrn-{shape}\ncreated: 2026-11-30\n"
        f"title: Learning about {shape}\nconfidence: high\n---\n"
        f"We saw this in the logs:\n\n{text}\n"
    )


def test_check_finds_every_corpus_shape(repo: Path, cli) -> None:
    documents = repo / "documents"
    documents.mkdir()
    for entry in POSITIVES:
        (documents / f"lrn-{entry['shape']}.md").write_text(_note(entry["shape"], entry["text"]))
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "hand-written notes", cwd=repo)
    res = cli("--kb", str(repo), "--json", "check")
    assert res.code == 1
    problems = res.json()["problems"]
    flagged = {p["file"] for p in problems if secrets.MASK in p["message"]}
    assert len(flagged) == len(POSITIVES)
    for entry in POSITIVES:
        assert entry["secret"] not in res.out + res.err


def test_add_refuses_every_corpus_shape_and_commits_nothing(kb: Path, tmp_path: Path, cli) -> None:
    assert cli("--kb", str(kb), "init").code == 0
    before = head(kb)
    refused = 0
    for entry in POSITIVES:
        path = tmp_path / f"{entry['shape']}.md"
        path.write_text(_note(entry["shape"], entry["text"]), encoding="utf-8")
        res = cli("--kb", str(kb), "add", str(path))
        assert res.code == 1, entry["shape"]
        assert f"{path}:" in res.err and "body:" in res.err  # file, line, field
        assert secrets.MASK in res.err and "hint:" in res.err
        assert entry["secret"] not in res.out + res.err
        refused += 1
    assert refused == len(POSITIVES)
    assert head(kb) == before
    assert git("status", "--porcelain", cwd=kb) == ""


def test_add_names_the_frontmatter_field_and_line(kb: Path, tmp_path: Path, cli) -> None:
    assert cli("--kb", str(kb), "init").code == 0
    path = tmp_path / "n.md"
    path.write_text(
        "---\ntitle: Rotate the deploy key\ncreated: 2026-11-30\nconfidence: high\n"
        "fix: export GITLAB_TOKEN=glpat-9xY2kLmN4pQrStUvWx7z\n---\nBody.\n"
    )
    res = cli("--kb", str(kb), "add", str(path))
    assert res.code == 1
    assert f"{path}:5:" in res.err and "fix: holds a GitLab token" in res.err
    assert "glpat-9xY2" not in res.err


def test_add_accepts_the_masked_note(kb: Path, tmp_path: Path, cli) -> None:
    assert cli("--kb", str(kb), "init").code == 0
    commits = count_commits(kb)
    path = tmp_path / "n.md"
    path.write_text(
        "---\ntitle: Rotate the deploy key\ncreated: 2026-11-30\nconfidence: high\n"
        "fix: export GITLAB_TOKEN=<redacted>\n---\nRun `vault login --token <redacted>`.\n"
    )
    res = cli("--kb", str(kb), "add", str(path))
    assert res.code == 0, res.err
    assert count_commits(kb) == commits + 1


def test_update_and_import_refuse_a_secret(kb: Path, tmp_path: Path, cli) -> None:
    assert cli("--kb", str(kb), "init").code == 0
    path = tmp_path / "n.md"
    path.write_text(_note("plain", "Nothing secret here."))
    assert cli("--kb", str(kb), "add", str(path)).code == 0
    before = head(kb)
    token = "npm_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    res = cli("--kb", str(kb), "update", "lrn-plain", "--set", f"fix=publish with {token}")
    assert res.code == 1 and "fix: holds an npm token" in res.err and token not in res.err
    folder = tmp_path / "import"
    folder.mkdir()
    (folder / "lrn-leak.md").write_text(_note("leak", f"npm publish with {token}"))
    res = cli("--kb", str(kb), "--json", "import", str(folder))
    assert token not in res.out + res.err
    assert head(kb) == before
    assert "lrn-leak" not in git("ls-tree", "-r", "--name-only", "HEAD", cwd=kb)
    skipped = json.loads(res.out).get("skipped", [])
    assert any(secrets.MASK in str(s) for s in skipped)


# --------------------------------------------------------------------------- the drain


def test_the_prompt_masks_hand_written_learnings_and_split_key_blocks(tmp_path: Path) -> None:
    from reflectgit.workflows.drain import cascade

    token = "glpat-9xY2kLmN4pQrStUvWx7z"
    prepared = cascade.Prepared(
        text="user: fine", related=[cascade.Related("lrn-a", "Deploy", f"use {token}", 3)]
    )
    assert token not in cascade.build_prompt(prepared)
    # A key pasted in one message is masked whole before the message is cut into lines.
    body = ["MIIEowIBAAKCAQEAx8" + "Qz9" * 15, "k2Lp8Vb4Nc7" * 5]
    pem = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END RSA PRIVATE KEY-----"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "Set up the env, it uses pip."}},
        {"type": "user", "message": {"role": "user", "content": f"Here is the key:\n{pem}"}},
        {"type": "user", "message": {"role": "user", "content": "No, use uv instead of pip."}},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    prepared = cascade.prepare(str(path))
    assert prepared.text and "uv instead of pip" in prepared.text
    assert all(line not in prepared.text for line in body)


def test_privacy_names_the_scanners_mask_text():
    from reflectgit.notes import secrets

    assert REDACTED == secrets.REDACTED


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        (
            "the staging password Tr0ub4dor&3 did not work",
            "the staging password ***REDACTED*** did not work",
        ),
        ("the wifi password is Tr0ub4dor&3", "the wifi password is ***REDACTED***"),
        ("password is hunter2, then retry", "password is ***REDACTED***, then retry"),
        ("the password field is required", "the password field is required"),
    ],
)
def test_a_password_in_prose_is_masked_whole_and_prose_around_it_stays(text, masked):
    assert secrets.mask(text) == masked
