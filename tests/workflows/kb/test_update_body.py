"""``update --set key_insight=...`` keeps the body in step: ``add`` from flags writes the insight
as the body, so a note must never show the old insight below the new one. A body a person
edited by hand keeps every word they wrote; only the paragraph stating the old insight changes,
and a body that no longer states it is left as written (the update says so)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.support.kb import assert_clean, head, kb

__all__ = ["kb"]

OLD = "Tests that read the wall clock fail at midnight."
NEW = "Inject a clock; tests that read the wall clock fail at midnight."


@pytest.fixture
def rg(cli, kb):  # type: ignore[no-untyped-def]
    def invoke(*args: str):  # type: ignore[no-untyped-def]
        return cli("--kb", str(kb), *args)

    return invoke


@pytest.fixture
def added(rg, kb: Path) -> tuple[str, Path]:  # type: ignore[no-untyped-def]
    res = rg(
        "--json", "add", "--title", "Pin the clock", "--insight", OLD,
        "--category", "testing", "--confidence", "medium",
    )  # fmt: skip
    assert res.code == 0, res
    doc = res.json()
    return doc["id"], kb / doc["path"]


def body_of(path: Path) -> str:
    return path.read_text().split("---\n", 2)[2]


def write_body(path: Path, body: str) -> None:
    """A person's edit of the body (in their editor), committed with plain git."""
    _, front, _ = path.read_text().split("---\n", 2)
    path.write_text(f"---\n{front}---\n{body}")
    git("commit", "-qam", "edited by hand", cwd=path.parent.parent)


def test_the_body_add_wrote_follows_the_insight(rg, kb: Path, added) -> None:  # type: ignore[no-untyped-def]
    ident, path = added
    assert body_of(path) == OLD + "\n"
    res = rg("--json", "update", ident, "--set", f"key_insight={NEW}")
    assert res.code == 0, res
    assert res.json() == {"id": ident, "commit": head(kb), "notes": []}
    text = git("show", f"HEAD:{path.relative_to(kb)}", cwd=kb)
    assert f"key_insight: {NEW}" in text
    assert body_of(path) == NEW + "\n"
    assert "wall clock fail at midnight." in text and OLD not in text  # one version only
    assert_clean(kb)


def test_a_hand_edited_body_keeps_the_persons_words(rg, kb: Path, added) -> None:  # type: ignore[no-untyped-def]
    ident, path = added
    mine = f"## Context\n\nSeen in the nightly job, twice.\n\n{OLD}\n\n```\nTZ=UTC pytest\n```\n"
    write_body(path, mine)
    res = rg("update", ident, "--set", f"key_insight={NEW}")
    assert res.code == 0, res
    assert body_of(path) == mine.replace(OLD, NEW)
    assert "note:" not in res.out
    assert_clean(kb)


def test_a_body_rewritten_by_hand_is_left_as_written_and_the_update_says_so(
    rg, kb: Path, added
) -> None:  # type: ignore[no-untyped-def]
    ident, path = added
    mine = "The clock is only a problem around DST changes; see the runbook.\n"
    write_body(path, mine)
    res = rg("update", ident, "--set", f"key_insight={NEW}")
    assert res.code == 0, res
    assert body_of(path) == mine
    assert f"key_insight: {NEW}" in path.read_text()
    assert "note: the body does not state the old key_insight" in res.out
    assert_clean(kb)


def test_a_new_body_given_with_the_insight_wins(rg, kb: Path, added, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ident, path = added
    given = tmp_path / "body.md"
    given.write_text("Entirely new.\n")
    res = rg("update", ident, "--set", f"key_insight={NEW}", "--body-file", str(given))
    assert res.code == 0, res
    assert body_of(path) == "Entirely new.\n"


def test_other_fields_leave_the_body_alone(rg, kb: Path, added) -> None:  # type: ignore[no-untyped-def]
    ident, path = added
    res = rg("update", ident, "--set", "title=Pin the test clock")
    assert res.code == 0, res
    assert body_of(path) == OLD + "\n"
