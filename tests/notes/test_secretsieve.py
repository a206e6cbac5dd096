"""notes/secretsieve.py: the cheap sieve in front of the secret scanner never misses a finding.

``privacy.scrub_secrets`` returns text the sieve rules out without importing the scanner (the
hooks' log lines), so the sieve must say "could hold a secret" wherever the scanner finds
one: held to the scanner's own table (triggers and anchors), its test corpus, the shared data
and generated text; and it must say no to ordinary text, or it would save nothing.
"""

from __future__ import annotations

import contextlib
import json
import random

import pytest
import yaml

from reflectgit.notes import secrets
from reflectgit.notes.privacy import scrub_secrets
from reflectgit.notes.secretsieve import (
    ALNUM_RUN,
    KEY_ENDINGS,
    PROSE_WORDS,
    TRIGGERS,
    WORD_RUN,
    could_hold_secret,
)
from tests.conftest import DATA, TEST_DATA

CORPUS = yaml.safe_load((TEST_DATA / "secrets.yaml").read_text("utf-8"))

# What the sieve's ``_anchored`` is written for; a new anchor in the table must be added there.
ANCHORS = {
    r"(?:AC|SK)[0-9a-z]{32}",
    r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
    r":[0-9A-Za-z_-]{35}",
    r"A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA|3T)[A-Z0-9]{16}",
    r"A(?:KC[a-zA-Z0-9]{10}|P[0-9A-F][a-zA-Z0-9]{8})",
}


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _shared_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted(DATA.rglob("*")):
        if not path.is_file():
            continue
        try:
            raw = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        texts.append(raw)
        for line in raw.splitlines():
            texts.append(line)
            with contextlib.suppress(ValueError):
                texts.extend(_strings(json.loads(line)))
    return texts


def test_the_triggers_are_the_scanners_triggers() -> None:
    rules = {r.kind: r for r in secrets.rules()}
    others = {
        t for r in secrets.rules() if r.kind not in ("assignment", "prose") for t in r.triggers
    }
    assert set(TRIGGERS) == others
    assert len(TRIGGERS) == len(set(TRIGGERS))
    # the prose rule's own words, and it matches only with is/was/=/: after them
    assert set(PROSE_WORDS) == set(rules["prose"].triggers) - others
    assert r")\s+(?:is|was|=|:)\s+" in rules["prose"].pattern.pattern
    # the assignment rule: a separator after the key, and a key _key_kind names
    assert rules["assignment"].pattern.pattern.startswith(
        r"(?P<rest>[a-z0-9_.\-]{0,60})[\"'\]]{0,2}[ \t]*(?P<sep>:=|=>|=|:)"
    )
    names = secrets._EXACT | set(secrets._STRONG) | set(secrets._WEAK) | {"key"}
    assert set(KEY_ENDINGS) == names


def test_every_rule_runs_only_around_a_trigger_or_a_known_anchor() -> None:
    for rule in secrets.rules():
        assert rule.triggers or rule.anchor is not None, rule.kind
        if rule.finder is not None:  # a finder looks for its own words: they are its triggers
            assert set(secrets._KEY_WORDS) <= set(rule.triggers), rule.kind
    anchors = {r.anchor.pattern for r in secrets.rules() if r.anchor is not None}
    assert anchors == ANCHORS
    assert all(r.anchor.flags == 0 for r in secrets.rules() if r.anchor is not None)


@pytest.mark.parametrize(
    "text",
    [
        "xx ACabcdefghij0123456789abcdefghij01 yy",
        "x .abcdef.abcdefghijklmnopqrstuvwxyz0 y",
        "x :abcdefghij-abcdefghij_abcdefghij012 y",
        "x AKIAABCDEFGHIJ012345 y",
        "x AKCabcdefghij y",
        "x AP0abcdefgh y",
    ],
)
def test_a_text_each_anchor_matches_passes_the_sieve(text: str) -> None:
    rule = next(r for r in secrets.rules() if r.anchor is not None and r.anchor.search(text))
    assert rule.anchor is not None
    assert could_hold_secret(text)


@pytest.mark.parametrize(
    "text",
    [
        "db_pass: Hunter22xq9",
        "the pin is 482913",
        "Token=Zq3m9Xk2Lp8Vb4Nc",
        '"apiKey" : "Zk3u8QmT2v"',
    ],
)
def test_a_separated_assignment_word_passes(text: str) -> None:
    assert secrets.scan(text)
    assert could_hold_secret(text)
    assert not could_hold_secret(text.replace(":", "").replace("=", " ").replace(" is", ""))


@pytest.mark.parametrize(
    "text",
    [
        "2026-12-01T20:15:20Z PreToolUse - policy:deny Bash kb:never-force-push",
        "2026-12-01T20:15:20Z PermissionRequest - policy:ask Write policy-rules.jsonl",
        "x" * (ALNUM_RUN - 1) + " " + "a-b_" * ((WORD_RUN - 1) // 4),
        "the build is green",
        "file_path",  # a capture's JSON key: "pat", but no separator after it
        '{"file_path": "f.txt", "pattern": "x=1"}',  # nor a key that ends with a secret's name
        "the pin code",
        "ÄÖÜ" * 40,
        "",
    ],
)
def test_ordinary_text_does_not_pass(text: str) -> None:
    assert not could_hold_secret(text)
    assert scrub_secrets(text) == text


def test_every_corpus_text_the_scanner_flags_passes() -> None:
    texts = [e["text"] for e in CORPUS["positives"]] + list(CORPUS["negatives"])
    for text in texts:
        if secrets.scan(text):
            assert could_hold_secret(text), text
        assert scrub_secrets(text) == secrets.mask(text)


def test_the_shared_data_masks_as_the_scanner_does() -> None:
    texts = _shared_texts()
    assert len(texts) > 1000
    skipped = 0
    for text in texts:
        if not could_hold_secret(text):
            skipped += 1
            assert secrets.scan(text) == [], text[:200]
    assert skipped > 100  # the sieve spares real lines, not only made-up ones


def test_generated_text_never_slips_past() -> None:
    rng = random.Random(16)
    pieces = [e["text"] for e in CORPUS["positives"]] + list(CORPUS["negatives"])
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.:=/ \n'\"İıſK"
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            if kind < 0.3:
                piece = rng.choice(pieces)
                a = rng.randrange(len(piece) + 1)
                parts.append(piece[a : a + rng.randint(1, 80)])
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))))
        text = "".join(parts)
        if secrets.scan(text):
            assert could_hold_secret(text), text


def test_generated_assignments_never_slip_past() -> None:
    rng = random.Random(1616)
    words = [*KEY_ENDINGS, "accessKey", "ApiKey", "PGPASSWORD", "sort_key", "path", "KeyId"]
    found = 0
    for _ in range(6000):
        word = rng.choice(words)
        word = word.upper() if rng.random() < 0.2 else word
        key = rng.choice(["", "db_", "x.", "my-", "STRIPE_", "aws", "x"]) + word
        key += rng.choice(["", "", "_", "s", "Value", "_id", "-", "2"])
        quote = rng.choice(["", '"', "'", '"]', "]"])
        sep = rng.choice(["=", ":", ":=", "=>", " = ", ": ", "\t:", " "])
        value = rng.choice(["Zq3m9Xk2Lp8Vb4Nc", '"hunter2xyz"', "482913", "<redacted>", "x"])
        text = rng.choice(["", "export ", "{", "  "]) + key + quote + sep + value
        if secrets.scan(text):
            found += 1
            assert could_hold_secret(text), text
    assert found > 500
