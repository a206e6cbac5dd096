"""Importing a real ``~/.learnings`` loses nothing (issue 11.5).

The folder is built from the original reflect tool's real notes (``data/compat``) in the
shapes its writers leave behind: hook notes with minimal frontmatter, ``HIGH``/``Med`` tiers,
fleet notes named by content hash and keyed by ``name:``, sidecars whose edges lack a type,
orphan sidecars, per-project shards, the raw originals of its ingest. The real CLI imports
it into a KB in tmp_path; ``check`` and ``validate`` must be clean right after, and every note
must come in with all of its fields and its body.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from reflectgit.notes.note import normalize_tier, parse_note, parse_sidecar
from tests.conftest import git
from tests.support.kb import COMPAT, assert_clean, kb, ls, rg

__all__ = ["kb", "rg"]

HASHED = "3f9a1c0e5b7d4e2f"  # a fleet importer's content-addressed file name
HOOK_MINI = "lrn-mini-1764580000-5f1e2d3c"
HOOK_PERM = "lrn-perm-1764580100-5f1e2d3c"


def _set_line(text: str, key: str, value: str) -> str:
    out, n = re.subn(rf"(?m)^{key}:.*$", f"{key}: {value}", text, count=1)
    assert n == 1, key
    return out


def learnings(home: Path) -> Path:
    """A ``~/.learnings`` as the original tool leaves it, from its real notes."""
    root = home / ".learnings"
    docs = root / "documents"
    docs.mkdir(parents=True)
    skip = {"ex-02-pyenv-shim-ordering", "gr-01-redis-pool-exhaustion", "tp-04-deploy-fly-process"}
    for note in sorted(COMPAT.glob("*.md")):
        if note.stem in skip:
            continue
        shutil.copy(note, docs / note.name)
        side = note.with_name(note.stem + ".entities.yaml")
        if side.exists():
            shutil.copy(side, docs / side.name)
    # Tiers in the case people and older writers used.
    for name, tier in (
        ("ex-01-tmux-socket-protection", "HIGH"),
        ("ex-04-docker-buildkit-cache-mount", "Med"),
    ):
        path = docs / f"{name}.md"
        path.write_text(_set_line(path.read_text(), "confidence", tier))
    # A fleet note: stored under its content hash, keyed by `name:`; its sidecar names the stem.
    fleet = COMPAT / "ex-02-pyenv-shim-ordering.md"
    shutil.copy(fleet, docs / f"{HASHED}.md")
    side = (COMPAT / "ex-02-pyenv-shim-ordering.entities.yaml").read_text()
    (docs / f"{HASHED}.entities.yaml").write_text(_set_line(side, "document_id", HASHED))
    # Sidecar edges without a type (the original backfills relates_to).
    untyped = (COMPAT / "gr-01-redis-pool-exhaustion.entities.yaml").read_text()
    untyped = re.sub(
        r"(?m)^    type: (?:caused_by|causes|relates_to|prevents|solves|uses)\n(?=    description)",
        "",
        untyped,
    )
    assert "    type: " not in untyped.split("relationships:")[1]
    shutil.copy(COMPAT / "gr-01-redis-pool-exhaustion.md", docs / "gr-01-redis-pool-exhaustion.md")
    (docs / "gr-01-redis-pool-exhaustion.entities.yaml").write_text(untyped)
    # Hook notes: id, source, session and a capture time; one without any confidence.
    (docs / f"{HOOK_MINI}.md").write_text(
        "---\n"
        f"id: {HOOK_MINI}\n"
        "source: posttooluse-minilearning\n"
        "session_id: 5f1e2d3c-9a8b-4c7d-8e6f-112233445566\n"
        "captured_at: 2026-03-14T09:21:07Z\n"
        "---\n"
        "Bash failed: `pytest -x` exited 1 (ModuleNotFoundError: No module named 'redis').\n"
        "Install the dev extras before running the suite: `pip install -e .[dev]`.\n"
    )
    (docs / f"{HOOK_PERM}.md").write_text(
        "---\n"
        f"id: {HOOK_PERM}\n"
        "confidence: high\n"
        "source: permission-pattern\n"
        "session_id: 5f1e2d3c-9a8b-4c7d-8e6f-112233445566\n"
        'captured_at: "2026-03-14T09:25:00Z"\n'
        "---\n"
        "## Permission\n\nAlways allow `git status` in this repository.\n"
    )
    # An orphan sidecar, the raw originals of /reflect:ingest, a broken note.
    shutil.copy(
        COMPAT / "gr-02-api-gateway-timeout-cascade.entities.yaml", docs / "gone.entities.yaml"
    )
    (docs / "memories" / "billing-api").mkdir(parents=True)
    (docs / "memories" / "billing-api" / "CLAUDE.md").write_text("# Project notes\n\nUse uv.\n")
    (docs / "broken.md").write_text("---\ntitle: [unclosed\ncreated: 2026-03-04\n---\n")
    # A per-project shard and an archived note.
    shard = root / "shards" / "billing-api" / "documents"
    shard.mkdir(parents=True)
    shutil.copy(COMPAT / "tp-04-deploy-fly-process.md", shard / "tp-04-deploy-fly-process.md")
    (root / "archived").mkdir()
    shutil.move(
        docs / "tp-01-auth-jwt-convention.md", root / "archived" / "tp-01-auth-jwt-convention.md"
    )
    shutil.move(
        docs / "tp-01-auth-jwt-convention.entities.yaml",
        root / "archived" / "tp-01-auth-jwt-convention.entities.yaml",
    )
    # Derived state the original tool keeps next to the notes: never imported.
    (root / "nano_graphrag_cache").mkdir()
    (root / "nano_graphrag_cache" / "graph.json").write_text("{}")
    return root


@pytest.fixture
def home_learnings() -> Path:
    return learnings(Path(os.environ["HOME"]))


def test_a_real_learnings_folder_imports_whole_and_check_is_clean(rg, kb, home_learnings):
    res = rg("--json", "import", str(home_learnings))
    assert res.code == 0, res
    doc = res.json()
    skipped = {s["path"]: s["reason"] for s in doc["skipped"]}
    # Each skipped file is listed with its reason, and only these are skipped.
    assert set(skipped) == {
        "documents/broken.md",
        "documents/gone.entities.yaml",
        "documents/memories/billing-api/CLAUDE.md",
    }
    assert "invalid YAML" in skipped["documents/broken.md"]
    assert "sidecar without a note" in skipped["documents/gone.entities.yaml"]
    assert "ingest" in skipped["documents/memories/billing-api/CLAUDE.md"]
    notes_in = sorted(COMPAT.glob("*.md"))
    assert doc["imported"] == len(notes_in) + 2  # every compat note, and both hook notes
    # check and validate are clean right after the import.
    check = rg("check")
    assert check.code == 0, check
    validate = rg("validate")
    assert validate.code == 0, validate
    assert_clean(kb)
    files = ls(kb)
    assert "documents/ex-02-pyenv-shim-ordering.md" in files  # the name: id, not the hash
    assert f"documents/{HASHED}.md" not in files
    assert "archived/tp-01-auth-jwt-convention.md" in files
    assert "documents/tp-04-deploy-fly-process.md" in files
    assert not any(
        f.startswith(("nano_graphrag_cache", "shards", "documents/memories")) for f in files
    )


def test_every_field_and_body_comes_in(rg, kb, home_learnings):
    """Lossless: each imported note keeps every key and value it had (tiers normalised,
    fields added where the original tool's readers assumed them), and its body byte for byte."""
    sources = {}
    for path in sorted(home_learnings.rglob("*.md")):
        rel = path.relative_to(home_learnings).as_posix()
        if "memories/" in rel or path.name == "broken.md":
            continue
        sources[rel] = path.read_bytes()
    rg("import", str(home_learnings))
    stored = {}
    for path in ls(kb):
        if path.endswith(".md"):
            stored[path] = git("show", f"HEAD:{path}", cwd=kb).encode()
    by_id = {}
    for path, data in stored.items():
        note = parse_note(data, path)
        by_id[note.id or note.frontmatter.get("name") or Path(path).stem] = note
    for rel, data in sources.items():
        old = parse_note(data, rel)
        ident = old.id or old.frontmatter.get("name")
        new = by_id[ident]
        assert new.body == old.body, rel
        for key, value in old.frontmatter.items():
            if key == "confidence":
                assert new.frontmatter[key] == normalize_tier(value), rel
                continue
            assert new.frontmatter[key] == value, (rel, key)


def test_the_adaptations_are_named_and_made_in_place(rg, kb, home_learnings):
    doc = rg("--json", "import", str(home_learnings)).json()
    adapted = {a["id"]: a["changes"] for a in doc["adapted"]}
    assert adapted["ex-01-tmux-socket-protection"] == ["confidence 'HIGH' -> 'high'"]
    assert adapted["ex-04-docker-buildkit-cache-mount"] == ["confidence 'Med' -> 'medium'"]
    mini = adapted[HOOK_MINI]
    assert "confidence missing -> 'medium'" in mini
    assert "created from captured_at" in mini
    assert "title from the body's first line" in mini
    assert adapted[HOOK_PERM] == ["created from captured_at", "title from the body's first line"]
    assert adapted["ex-02-pyenv-shim-ordering"] == [
        f"sidecar document_id '{HASHED}' -> 'ex-02-pyenv-shim-ordering'"
    ]
    assert adapted["gr-01-redis-pool-exhaustion"] == [
        "sidecar: 1 edge without a type -> relates_to"
    ]
    assert adapted["tp-04-deploy-fly-process"] == ["project 'billing-api' from its shard"]
    # Only the adapted lines changed: the tier note differs from its source by one line.
    source = (home_learnings / "documents" / "ex-01-tmux-socket-protection.md").read_text()
    stored = git("show", "HEAD:documents/ex-01-tmux-socket-protection.md", cwd=kb)
    diff = [(a, b) for a, b in zip(source.splitlines(), stored.splitlines(), strict=True) if a != b]
    assert diff == [("confidence: HIGH", "confidence: high")]
    mini_text = git("show", f"HEAD:documents/{HOOK_MINI}.md", cwd=kb)
    assert mini_text.startswith(f"---\nid: {HOOK_MINI}\n")
    front = parse_note(mini_text.encode()).frontmatter
    assert front["confidence"] == "medium"
    assert front["title"].startswith("Bash failed: `pytest -x` exited 1")
    side = parse_sidecar(
        git("show", "HEAD:documents/gr-01-redis-pool-exhaustion.entities.yaml", cwd=kb).encode()
    ).data
    assert {e["type"] for e in side["relationships"]} == {"relates_to"}
    renamed = parse_sidecar(
        git("show", "HEAD:documents/ex-02-pyenv-shim-ordering.entities.yaml", cwd=kb).encode()
    ).data
    assert renamed["document_id"] == "ex-02-pyenv-shim-ordering"


def test_the_text_report_lists_adaptations_and_skips(rg, kb, home_learnings):
    out = rg("import", str(home_learnings)).out
    assert "adapted 7 on the way in" in out
    assert "skipped 3:" in out
    assert "documents/gone.entities.yaml: sidecar without a note" in out


def test_a_second_import_adds_nothing_and_says_why(rg, kb, home_learnings):
    first = rg("--json", "import", str(home_learnings)).json()
    again = rg("--json", "import", str(home_learnings)).json()
    assert again["imported"] == 0 and again["commits"] == []
    reasons = [s["reason"] for s in again["skipped"]]
    assert len(reasons) == first["imported"] + len(first["skipped"])
    assert rg("check").code == 0


# --------------------------------------------------------------------------- tombstones


def test_import_does_not_bring_a_forgotten_note_back_unless_restored(rg, kb):
    assert rg("import", str(COMPAT)).code == 0
    assert rg("forget", "gr-05-celery-prefetch-starvation", "--reason", "wrong").code == 0
    doc = rg("--json", "import", str(COMPAT)).json()
    assert doc["imported"] == 0
    reasons = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert "was forgotten" in reasons["gr-05-celery-prefetch-starvation.md"]
    assert "documents/gr-05-celery-prefetch-starvation.md" not in ls(kb)
    assert rg("check").code == 0
    back = rg("--json", "import", str(COMPAT), "--restore").json()
    assert back["imported"] == 1
    files = ls(kb)
    assert "documents/gr-05-celery-prefetch-starvation.md" in files
    assert "documents/gr-05-celery-prefetch-starvation.entities.yaml" in files
    assert not any(f.startswith(".forgotten/gr-05") for f in files)
    assert rg("check").code == 0
    assert_clean(kb)
