from __future__ import annotations

import json

import pytest

from reflectgit.notes.privacy import (
    PRIVATE_MARKER,
    REDACTED,
    clean,
    clean_data,
    scrub_secrets,
    strip_private,
)
from tests.conftest import DATA, needs_shared, shared_json

MANIFEST = shared_json("transcripts", "MANIFEST.json")
LEAKS = next((e["must_never_leak"] for e in MANIFEST if "must_never_leak" in e), [])


def test_private_span_is_replaced_by_marker():
    assert strip_private("a <private>secret stuff</private> b") == f"a {PRIVATE_MARKER} b"


def test_harness_wrapper_tags_are_stripped_case_insensitively():
    text = "keep <System-Reminder kind='x'>injected</system-reminder> this"
    assert strip_private(text) == f"keep {PRIVATE_MARKER} this"


def test_unclosed_tag_strips_to_the_end():
    assert strip_private("ok <private>never closed\nmore") == f"ok {PRIVATE_MARKER}"


def test_several_spans_and_plain_text_untouched():
    assert strip_private("no tags here") == "no tags here"
    assert strip_private("<private>a</private>x<private>b</private>") == (
        f"{PRIVATE_MARKER}x{PRIVATE_MARKER}"
    )


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: Bearer abc.def.ghi-123456", "abc.def.ghi-123456"),
        ("curl -H 'X-Api-Key: 9f8e7d6c5b4a'", "9f8e7d6c5b4a"),
        ("X-Custom-Key=topsecretvalue", "topsecretvalue"),
        ("use bearer QWERTYUIOPASDFGH", "QWERTYUIOPASDFGH"),
        ("https://x.io/?token=abcdef123456&page=2", "abcdef123456"),
        ("api_key=zzzz-1111-yyyy", "zzzz-1111-yyyy"),
        ('{"password": "hunter2hunter2"}', "hunter2hunter2"),
        ("DB_PASSWORD='s3cr3t pass'", "s3cr3t pass"),
        ("the staging password is Tr0ub4dor&3 ok", "Tr0ub4dor&3"),
        ("the VPN PIN is 4471.", "4471"),
        ("OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz012345", "abcdefghijklmnopqrstuvwxyz012345"),
        ("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOp"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghij"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11ABC"),
        ("slack xoxb-1234567890-abcdefghijkl", "xoxb-1234567890"),
        ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        (
            "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("jwt eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.abc123", "eyJhbGciOiJIUzI1NiJ9"),
        ("git clone https://bob:pa55word@example.com/r.git", "pa55word"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "MIIE"),
    ],
)
def test_scrub_secrets_masks(text, secret):
    out = scrub_secrets(text)
    assert secret not in out
    assert REDACTED in out


def test_scrub_leaves_ordinary_text_and_git_hashes():
    text = "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the token counting in tokens.py"
    assert scrub_secrets(text) == text


@needs_shared
def test_clean_on_the_private_transcript_leaks_nothing():
    raw = (DATA / "transcripts" / "claude" / "private-and-secrets.jsonl").read_text()
    out = clean(raw)
    for leak in LEAKS:
        assert leak not in out
    # Also line by line on the decoded strings (JSON escapes differ from the raw text).
    for line in raw.splitlines():
        data = clean_data(json.loads(line))
        dumped = json.dumps(data, ensure_ascii=False)
        for leak in LEAKS:
            assert leak not in dumped


def test_clean_without_private_tags_still_catches_the_password_and_pin():
    text = "The staging password is Tr0ub4dor&3 and the VPN PIN is 4471. Deploy."
    out = scrub_secrets(text)
    assert "Tr0ub4dor&3" not in out and "4471" not in out
    assert "Deploy." in out


@pytest.mark.parametrize(
    "tag",
    [
        "reflect-private",
        "claude-mem-context",
        "system_instruction",
        "persisted-output",
        "user-prompt-submit-hook",
        "task-notification",
        "local-command-caveat",
        "bash-stdout",
    ],
)
def test_wrapper_tags_of_other_tools_are_stripped(tag):
    text = f"keep <{tag} id='1'>injected stuff</{tag}> this"
    assert strip_private(text) == f"keep {PRIVATE_MARKER} this"


def test_nested_spans_never_leak_the_outer_tail():
    text = "a <private>x <private>y</private> outer tail</private> b"
    assert strip_private(text) == f"a {PRIVATE_MARKER} b"
    mixed = "a <reflect-private>x <private>y</private> tail</reflect-private> b"
    assert strip_private(mixed) == f"a {PRIVATE_MARKER} b"
    deep = "<private>1<private>2<private>3</private>t2</private>t1</private>after"
    assert strip_private(deep) == f"{PRIVATE_MARKER}after"


@pytest.mark.parametrize(
    "text",
    [
        "a <privateer> is a ship",
        "the <private-key> placeholder",
        "use </private> alone",
        "<system_instructions>not ours</system_instructions>",
        "generic List<Privates> type",
        "the <user-prompt-submit> event and <user-prompt-submit-hooks> in docs",
        "a <task-notifications> list",
    ],
)
def test_lookalike_tags_are_left_alone(text):
    assert strip_private(text) == text


def test_a_prompt_hook_s_addition_is_cut_from_the_persons_words():
    text = (
        "use uv instead of pip <user-prompt-submit-hook>Reminder: the staging password is "
        "Tr0ub4dor&3</user-prompt-submit-hook>"
    )
    assert strip_private(text) == f"use uv instead of pip {PRIVATE_MARKER}"
