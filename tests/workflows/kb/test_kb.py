"""The knowledge-base commands, from the CLI and the library, checked against what git shows."""

from __future__ import annotations

import datetime as dt
import io
import shutil
import tarfile
from pathlib import Path

import pytest
import yaml

from reflectgit.state.ranking import Ranking
from reflectgit.workflows.kb import KnowledgeBase
from tests.conftest import git
from tests.support.kb import (
    COMPAT,
    VALID,
    assert_clean,
    count_commits,
    head,
    kb,
    ls,
    rg,
    subject,
    trailers,
)

__all__ = ["kb", "rg"]  # the fixture, imported for pytest


def front(repo: Path, path: str, rev: str = "HEAD") -> dict:
    text = git("show", f"{rev}:{path}", cwd=repo)
    return yaml.safe_load(text.split("---\n")[1])


def add_flags(rg, title="Pin the CI image", confidence="high", *extra: str):
    res = rg(
        "--json",
        "add",
        "--title",
        title,
        "--insight",
        f"{title}: the insight",
        "--category",
        "ci",
        "--confidence",
        confidence,
        *extra,
    )
    assert res.code == 0, res
    return res.json()


# --------------------------------------------------------------------------- add


def test_add_from_flags_commits_one_note_with_trailers(rg, kb):
    doc = add_flags(rg, "Pin the CI image", "H", "--tag", "ci", "--tag", "docker")
    assert set(doc) == {"id", "path", "commit"}
    assert doc["commit"] == head(kb)
    assert doc["path"] == f"documents/{doc['id']}.md"
    assert doc["id"].startswith("pin-the-ci-image-")
    fm = front(kb, doc["path"])
    assert fm["id"] == doc["id"]
    assert fm["confidence"] == "high"  # the alias H is normalised
    assert fm["tags"] == ["ci", "docker"]
    assert fm["key_insight"] == "Pin the CI image: the insight"
    assert "created" in fm
    assert subject(kb) == "feat(knowledge): Pin the CI image [HIGH]"
    assert trailers(kb, "Reflect-Op") == ["add"]
    assert trailers(kb, "Reflect-Id") == [doc["id"]]
    assert trailers(kb, "Reflect-Confidence") == ["high"]
    assert trailers(kb, "Reflect-Source") == ["cli"]
    assert trailers(kb, "Reflect-Git")
    assert_clean(kb)


def test_medium_and_low_notes_get_docs_subjects(rg, kb):
    add_flags(rg, "A medium one", "med")
    assert subject(kb) == "docs(knowledge): A medium one [MED]"
    add_flags(rg, "A low one", "l")
    assert subject(kb) == "docs(knowledge): A low one [LOW]"


@pytest.mark.parametrize("name", sorted(p.name for p in VALID.glob("*.md")))
def test_every_valid_note_adds(rg, kb, name):
    res = rg("--json", "add", str(VALID / name))
    assert res.code == 0, res
    doc = res.json()
    assert ls(kb) == [doc["path"]]
    assert front(kb, doc["path"])["id"] == doc["id"]
    assert_clean(kb)


def test_add_from_stdin(rg, kb, monkeypatch):
    data = (VALID / "minimal-team-note.md").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    res = rg("--json", "add", "-")
    assert res.code == 0, res
    assert ls(kb) == [res.json()["path"]]


def test_readding_the_same_note_is_a_no_op_that_says_so(rg, kb):
    first = rg("--json", "add", str(VALID / "minimal-team-note.md")).json()
    before = head(kb)
    again = rg("add", str(VALID / "minimal-team-note.md"))
    assert again.code == 0
    assert "already in the KB" in again.out
    assert head(kb) == before
    as_json = rg("--json", "add", str(VALID / "minimal-team-note.md")).json()
    assert as_json == {"id": first["id"], "path": first["path"], "commit": None}
    # Same for a note from flags: `created` was defaulted, so it is not a difference.
    add_flags(rg, "Flags note")
    before = head(kb)
    add_flags(rg, "Flags note")
    assert head(kb) == before
    assert count_commits(kb) == 2


def test_a_different_note_under_an_existing_id_needs_force_and_is_an_update(rg, kb, tmp_path):
    note = tmp_path / "n.md"
    note.write_text(
        "---\nid: my-rule\ntitle: A rule\ncreated: 2026-03-04\nconfidence: high\n---\nOne.\n"
    )
    rg("add", str(note))
    before = head(kb)
    note.write_text(note.read_text().replace("One.", "Two."))
    res = rg("add", str(note))
    assert res.code == 1
    assert "error: a different note already has the id my-rule" in res.err
    assert "hint:" in res.err and "--force" in res.err
    assert head(kb) == before
    forced = rg("--json", "add", str(note), "--force")
    assert forced.code == 0, forced
    assert forced.json()["path"] == "documents/my-rule.md"
    assert ls(kb) == ["documents/my-rule.md"]  # no twin
    assert git("show", "HEAD:documents/my-rule.md", cwd=kb).endswith("Two.\n")
    assert "updated" in front(kb, "documents/my-rule.md")
    assert trailers(kb, "Reflect-Op") == ["update"]


def test_add_with_entities_copies_the_sidecar_with_the_document_id(rg, kb):
    note = VALID / "use-docker-for-docker-workflows-66dab4.md"
    side = VALID / "use-docker-for-docker-workflows-66dab4.entities.yaml"
    doc = rg("--json", "add", str(note), "--entities", str(side)).json()
    side_path = f"documents/{doc['id']}.entities.yaml"
    assert sorted(ls(kb)) == sorted([doc["path"], side_path])
    data = yaml.safe_load(git("show", f"HEAD:{side_path}", cwd=kb))
    assert data["document_id"] == doc["id"]
    assert count_commits(kb) == 1


def test_add_needs_something_to_add(rg, kb):
    res = rg("add")
    assert res.code == 2
    assert res.err.startswith("error:") and "hint:" in res.err


def test_add_refuses_a_bad_confidence_flag(rg, kb):
    res = rg("add", "--title", "T", "--insight", "I", "--confidence", "certain")
    assert res.code == 1
    assert "--confidence 'certain' is not a tier" in res.err
    assert head(kb) in ("", "HEAD")


# --------------------------------------------------------------------------- update, confirm


def test_update_sets_yaml_typed_values_keeps_id_and_bumps_updated(rg, kb, tmp_path):
    doc = add_flags(rg, "Update me")
    body = tmp_path / "body.md"
    body.write_text("## New body\n")
    res = rg(
        "--json",
        "update",
        doc["id"],
        "--set",
        "tags=[a, b]",
        "--set",
        "confidence_num=0.55",
        "--set",
        "confidence=m",
        "--set",
        "provenance.source_tool=codex",
        "--body-file",
        str(body),
    )
    assert res.code == 0, res
    assert res.json() == {"id": doc["id"], "commit": head(kb), "notes": []}
    fm = front(kb, doc["path"])
    assert fm["tags"] == ["a", "b"]
    assert fm["confidence_num"] == 0.55
    assert fm["confidence"] == "medium"
    assert fm["provenance"] == {"source_tool": "codex"}
    assert fm["id"] == doc["id"]
    assert "updated" in fm
    assert git("show", f"HEAD:{doc['path']}", cwd=kb).endswith("---\n## New body\n")
    assert ls(kb) == [doc["path"]]
    assert trailers(kb, "Reflect-Op") == ["update"]
    assert subject(kb) == f"chore(knowledge): update {doc['id']}"
    assert_clean(kb)


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("id=other", "the id of a note never changes"),
        ("recall_count=3", "recall_count"),
        ("confidence_num=7", "confidence_num"),
        ("title=", "title"),
    ],
)
def test_update_refuses_invalid_changes_and_writes_nothing(rg, kb, assignment, message):
    doc = add_flags(rg, "Guarded")
    before = head(kb)
    res = rg("update", doc["id"], "--set", assignment)
    assert res.code in (1, 2), res
    assert message in res.err
    assert head(kb) == before
    assert_clean(kb)


def test_update_of_an_unknown_id(rg, kb):
    add_flags(rg, "Something")
    res = rg("update", "nope", "--set", "a=1")
    assert res.code == 1
    assert "no note with id 'nope'" in res.err and "hint:" in res.err


def test_confirm_is_idempotent_per_source(rg, kb):
    doc = add_flags(rg, "Confirm me")
    first = rg("--json", "confirm", doc["id"], "--source", "pr-12").json()
    assert first == {"id": doc["id"], "proof_count": 2, "commit": head(kb)}
    before = head(kb)
    second = rg("--json", "confirm", doc["id"], "--source", "pr-12").json()
    assert second == {"id": doc["id"], "proof_count": 2, "commit": None}
    assert head(kb) == before
    third = rg("--json", "confirm", doc["id"], "--source", "ci-run-7").json()
    assert third["proof_count"] == 3
    prov = front(kb, doc["path"])["provenance"]
    # ONE sources field for every confirmation (the drain's too): provenance.source_memory_ids
    assert prov == {"proof_count": 3, "source_memory_ids": ["pr-12", "ci-run-7"]}
    assert "updated" not in front(kb, doc["path"])  # a confirmation is not a content edit
    assert trailers(kb, "Reflect-Op") == ["confirm"]


# --------------------------------------------------------------------------- moves


def test_archive_and_restore_move_the_note_and_its_sidecar(rg, kb):
    note = VALID / "use-docker-for-docker-workflows-66dab4.md"
    side = VALID / "use-docker-for-docker-workflows-66dab4.entities.yaml"
    doc = rg("--json", "add", str(note), "--entities", str(side)).json()
    ident = doc["id"]
    res = rg("--json", "archive", ident)
    assert res.json() == {"id": ident, "commit": head(kb)}
    assert sorted(ls(kb)) == [f"archived/{ident}.entities.yaml", f"archived/{ident}.md"]
    assert subject(kb) == f"chore(knowledge): archive {ident}"
    assert_clean(kb)
    assert rg("archive", ident).code == 1  # no longer live
    rg("restore", ident)
    assert sorted(ls(kb)) == [f"documents/{ident}.entities.yaml", f"documents/{ident}.md"]
    assert trailers(kb, "Reflect-Op") == ["restore"]
    assert_clean(kb)


def test_archive_refuses_when_the_destination_exists(rg, kb):
    doc = add_flags(rg, "Twice")
    (kb / "archived").mkdir()
    shutil.copy(kb / doc["path"], kb / "archived" / f"{doc['id']}.md")
    git("add", "archived", cwd=kb)
    git("commit", "-q", "-m", "by hand", cwd=kb)
    before = head(kb)
    res = rg("archive", doc["id"])
    assert res.code == 1
    assert "already exists" in res.err
    assert head(kb) == before


def test_forget_names_the_id_and_reason_never_the_content(rg, kb):
    doc = add_flags(rg, "Secret sauce recipe")
    res = rg("--json", "forget", doc["id"], "--reason", "wrong advice")
    assert res.json() == {"forgotten": [doc["id"]], "commit": head(kb)}
    assert ls(kb) == [f".forgotten/{doc['id']}.md"]
    message = git("log", "-1", "--format=%B", cwd=kb)
    assert doc["id"] in message and "wrong advice" in message
    assert "Secret sauce" not in message and "insight" not in message
    assert trailers(kb, "Reflect-Op") == ["forget"]
    assert_clean(kb)


def test_forget_sweep_moves_expired_notes_in_one_commit(rg, kb):
    ids = {}
    for name, when in (("old", "2026-01-01"), ("soon", "2026-06-01T12:00:00Z"), ("never", None)):
        doc = add_flags(rg, f"Note {name}")
        ids[name] = doc["id"]
        if when:
            rg("update", doc["id"], "--set", f"forget_after={when}")
    commits = count_commits(kb)
    dry = rg("--json", "forget", "--sweep", "--now", "2026-03-01", "--dry-run").json()
    assert dry == {"forgotten": [ids["old"]], "commit": None}
    assert count_commits(kb) == commits
    res = rg("--json", "forget", "--sweep", "--now", "2026-07-01T00:00:00Z").json()
    assert sorted(res["forgotten"]) == sorted([ids["old"], ids["soon"]])
    assert count_commits(kb) == commits + 1
    assert sorted(trailers(kb, "Reflect-Id")) == sorted(res["forgotten"])
    assert [p for p in ls(kb) if p.startswith("documents/")] == [f"documents/{ids['never']}.md"]
    again = rg("--json", "forget", "--sweep", "--now", "2026-07-01").json()
    assert again == {"forgotten": [], "commit": None}


def test_forget_usage(rg, kb):
    assert rg("forget").code == 2
    assert rg("forget", "x", "--sweep").code == 2


def test_supersede_links_both_notes_in_one_commit(rg, kb):
    old = add_flags(rg, "Old way")
    new = add_flags(rg, "New way")
    res = rg("--json", "supersede", old["id"], "--by", new["id"]).json()
    assert res == {"old": old["id"], "new": new["id"], "commit": head(kb)}
    assert front(kb, old["path"])["superseded_by"] == new["id"]
    assert front(kb, new["path"])["supersedes"] == old["id"]
    changed = git("show", "--name-only", "--format=", "HEAD", cwd=kb).split()
    assert sorted(changed) == sorted([old["path"], new["path"]])
    assert trailers(kb, "Reflect-Id") == [old["id"], new["id"]]
    before = head(kb)
    assert rg("--json", "supersede", old["id"], "--by", new["id"]).json()["commit"] is None
    assert head(kb) == before


# --------------------------------------------------------------------------- undo


def test_undo_reverts_only_the_newest_reflect_git_commit(rg, kb):
    first = add_flags(rg, "Keep me")
    second = add_flags(rg, "Undo me")
    tree_before = git("rev-parse", "HEAD~1^{tree}", cwd=kb).strip()
    res = rg("--json", "undo").json()
    assert res == {"reverted": second["commit"], "commit": head(kb)}
    assert git("rev-parse", "HEAD^{tree}", cwd=kb).strip() == tree_before
    assert ls(kb) == [first["path"]]
    assert trailers(kb, "Reflect-Op") == ["undo"]
    assert subject(kb).startswith('Revert "feat(knowledge): Undo me')
    assert f"This reverts commit {second['commit']}" in git("log", "-1", "--format=%B", cwd=kb)
    assert_clean(kb)
    # The user's own commit on top: undo refuses and changes nothing.
    (kb / "README.md").write_text("mine\n")
    git("add", "README.md", cwd=kb)
    git("commit", "-q", "-m", "docs: my readme", cwd=kb)
    before = head(kb)
    refused = rg("undo")
    assert refused.code == 1
    assert "not made by reflect-git" in refused.err and "git revert" in refused.err
    assert head(kb) == before


def test_undo_with_nothing_to_undo(rg, kb):
    assert rg("undo").code == 1


# --------------------------------------------------------------------------- reading


def test_list_show_and_log(rg, kb):
    high = add_flags(rg, "High one", "high", "--tag", "x")
    low = add_flags(rg, "Low one", "low")
    rg("archive", low["id"])
    listed = rg("--json", "list").json()
    assert listed == [
        {
            "id": high["id"],
            "title": "High one",
            "confidence": "high",
            "path": high["path"],
            "state": "live",
        }
    ]
    everything = rg("--json", "list", "--all").json()
    assert {n["id"]: n["state"] for n in everything} == {high["id"]: "live", low["id"]: "archived"}
    assert rg("--json", "list", "--all", "--confidence", "l").json()[0]["id"] == low["id"]
    assert rg("--json", "list", "--tag", "nope").json() == []
    text = rg("list")
    assert high["id"] in text.out and "[HIGH]" in text.out

    shown = rg("--json", "show", high["id"]).json()
    assert set(shown) == {"id", "path", "state", "revision", "frontmatter", "body", "sidecar"}
    assert shown["frontmatter"]["title"] == "High one"
    assert shown["sidecar"] is None
    # --at a revision: the low note before it was archived.
    at_rev = rg("--json", "show", low["id"], "--at", low["commit"]).json()
    assert at_rev["path"] == low["path"]
    now_doc = rg("--json", "show", low["id"]).json()
    assert now_doc["path"] == f"archived/{low['id']}.md"

    log = rg("--json", "log").json()
    assert [e["op"] for e in log] == ["archive", "add", "add"]
    assert set(log[0]) == {"commit", "op", "id", "subject", "date"}
    assert log[0]["commit"] == head(kb)
    assert [e["op"] for e in rg("--json", "log", low["id"]).json()] == ["archive", "add"]
    assert len(rg("--json", "log", "--limit", "1").json()) == 1


def test_show_at_a_date(rg, kb, monkeypatch):
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-10T10:00:00Z")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-10T10:00:00Z")
    doc = add_flags(rg, "Dated")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-02-10T10:00:00Z")
    rg("update", doc["id"], "--set", "category=later")
    early = rg("--json", "show", doc["id"], "--at", "2026-01-20").json()
    assert early["frontmatter"]["category"] == "ci"
    late = rg("--json", "show", doc["id"], "--at", "2026-02-10").json()
    assert late["frontmatter"]["category"] == "later"
    res = rg("show", doc["id"], "--at", "2025-01-01")
    assert res.code == 1 and "no commit at or before" in res.err
    assert rg("show", doc["id"], "--at", "not-a-thing").code == 1


def test_log_skips_commits_that_are_not_ours(rg, kb):
    add_flags(rg, "Ours")
    (kb / "x.txt").write_text("x\n")
    git("add", "x.txt", cwd=kb)
    git("commit", "-q", "-m", "theirs", cwd=kb)
    assert [e["subject"] for e in rg("--json", "log").json()] == ["feat(knowledge): Ours [HIGH]"]


# --------------------------------------------------------------------------- import, export


def test_import_compat_corpus_in_one_commit_and_skip_on_reimport(rg, kb):
    res = rg("--json", "import", str(COMPAT))
    assert res.code == 0, res
    doc = res.json()
    notes = sorted(COMPAT.glob("*.md"))
    assert doc["imported"] == len(notes)
    assert doc["skipped"] == []
    assert doc["commits"] == [head(kb)]
    files = ls(kb)
    assert len([f for f in files if f.endswith(".md")]) == len(notes)
    assert len([f for f in files if f.endswith(".entities.yaml")]) == len(
        list(COMPAT.glob("*.entities.yaml"))
    )
    # Imported bytes are kept as they were.
    name = notes[0].name
    assert git("show", f"HEAD:documents/{name}", cwd=kb) == notes[0].read_text()
    assert trailers(kb, "Reflect-Op") == ["import"]
    assert_clean(kb)
    again = rg("--json", "import", str(COMPAT)).json()
    assert again["imported"] == 0 and again["commits"] == []
    assert len(again["skipped"]) == len(notes)
    assert all("already in the KB" in s["reason"] for s in again["skipped"])


def test_import_skips_invalid_and_duplicate_notes_and_says_why(rg, kb, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(VALID / "minimal-team-note.md", src / "good.md")
    (src / "bad.md").write_text("---\ntitle: x\n---\n")
    (src / "sub").mkdir()
    shutil.copy(VALID / "minimal-team-note.md", src / "sub" / "good.md")
    doc = rg("--json", "import", str(src)).json()
    assert doc["imported"] == 1
    reasons = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert set(reasons) == {"bad.md", "sub/good.md"}
    assert "is required" in reasons["bad.md"]
    assert "appears twice" in reasons["sub/good.md"]
    text = rg("import", str(src))
    assert "skipped 3" in text.out and "bad.md" in text.out


def test_export_is_deterministic_and_round_trips(rg, kb, tmp_path, cli):
    rg("import", str(COMPAT))
    rg("archive", "ex-01-tmux-socket-protection")
    one, two = tmp_path / "one.tar.gz", tmp_path / "two.tar.gz"
    doc = rg("--json", "export", str(one)).json()
    assert doc == {"file": str(one), "notes": len(list(COMPAT.glob("*.md")))}
    rg("export", str(two))
    assert one.read_bytes() == two.read_bytes()
    with tarfile.open(one) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names == sorted(names)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    other = tmp_path / "other"
    git("init", "-q", "-b", "main", str(other), cwd=tmp_path)
    res = cli("--kb", str(other), "--json", "import", str(one)).json()
    assert res["imported"] == doc["notes"]
    assert ls(other) == ls(kb)


def test_import_of_a_missing_path(rg, kb):
    res = rg("import", "/nonexistent/folder")
    assert res.code == 1 and "does not exist" in res.err


# --------------------------------------------------------------------------- status, ranking


def test_status(rg, kb):
    add_flags(rg, "One", "high")
    add_flags(rg, "Two", "low")
    three = add_flags(rg, "Three", "medium")
    rg("archive", three["id"])
    doc = rg("--json", "status").json()
    assert doc["notes"] == {"live": 2, "archived": 1, "forgotten": 0, "review_queue": 0}
    assert doc["tiers"] == {"high": 1, "medium": 0, "low": 1, "unknown": 0}
    assert doc["queue_depth"] == 0 and doc["dead_letters"] == 0
    assert doc["branch"] == "main" and doc["head"] == head(kb)
    assert doc["clean"] is True
    assert "index" in doc and "hooks" in doc
    assert "2 live, 1 archived" in rg("status").out


def test_ranking_counters_live_in_sqlite_never_in_notes(rg, kb, tmp_path):
    doc = add_flags(rg, "Ranked")
    state = tmp_path / "state"
    ranking = Ranking(state)
    assert ranking.counters(doc["id"]).recall_count == 0
    assert not ranking.path.exists()  # reading creates nothing
    when = dt.datetime(2026, 3, 4, 9, 0, tzinfo=dt.timezone.utc)
    ranking.record_recall([doc["id"], doc["id"], "other"], when)
    ranking.record_recall([doc["id"]], when)
    got = ranking.counters(doc["id"])
    assert got.recall_count == 2
    assert got.last_recalled_at == "2026-03-04T09:00:00Z"
    assert ranking.many([doc["id"], "other", "missing"]).keys() == {doc["id"], "other"}
    assert ranking.path.parent == state
    assert git("status", "--porcelain", cwd=kb) == ""
    assert "recall_count" not in git("show", f"HEAD:{doc['path']}", cwd=kb)


# --------------------------------------------------------------------------- library


def test_the_library_works_without_the_cli(kb):
    clock = lambda: dt.datetime(2026, 3, 4, 12, 0, tzinfo=dt.timezone.utc)  # noqa: E731
    with KnowledgeBase.open(kb, source="drain:s1", clock=clock) as base:
        added = base.add(
            fields={"title": "From the library", "key_insight": "k", "confidence": "low"}
        )
        assert added.status == "added"
        assert base.list_notes()[0].id == added.id
        assert base.show(added.id).frontmatter["created"] == "2026-03-04T12:00:00Z"
    assert trailers(kb, "Reflect-Source") == ["drain:s1"]
    assert count_commits(kb) == 1


def test_a_big_import_vets_notes_in_worker_processes_with_the_same_verdicts(
    rg, kb, tmp_path, monkeypatch
):
    import reflectgit.workflows.kb.transfer as kb_module

    src = tmp_path / "src"
    shutil.copytree(COMPAT, src)
    (src / "bad.md").write_text("---\ntitle: x\n---\n")
    (src / "gr-01-redis-pool-exhaustion.entities.yaml").write_text("entities: [{name: a}]\n")
    monkeypatch.setattr(kb_module, "PARALLEL_VET_MIN", 2)
    calls = []
    real_vet_all = kb_module._vet_all

    def spy(jobs):
        calls.append(len(jobs))
        return real_vet_all(jobs)

    monkeypatch.setattr(kb_module, "_vet_all", spy)
    doc = rg("--json", "import", str(src)).json()
    assert calls == [len(list(src.glob("*.md")))]
    reasons = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert set(reasons) == {"bad.md", "gr-01-redis-pool-exhaustion.md"}
    assert reasons["gr-01-redis-pool-exhaustion.md"].startswith("sidecar: ")
    assert doc["imported"] == len(list(COMPAT.glob("*.md"))) - 1
    assert_clean(kb)


def test_status_counts_the_queue_and_its_dead_letters(rg, kb):
    from reflectgit.config import Config
    from reflectgit.state.queue import Queue

    add_flags(rg, "Queued")
    queue = Queue(Config.resolve(str(kb)).state_dir)
    queue.add("/tmp/one.jsonl")
    queue.add("/tmp/two.jsonl")
    third, _ = queue.add("/tmp/three.jsonl")
    queue.dead_letter(third.id, "broken transcript")
    doc = rg("--json", "status").json()
    assert (doc["queue_depth"], doc["dead_letters"]) == (2, 1)
    assert doc["index"] in ("n/a", "missing", "fresh", "behind")
    assert git("status", "--porcelain", cwd=kb) == ""


def test_a_hand_named_note_is_found_by_its_frontmatter_id(rg, kb):
    (kb / "documents").mkdir()
    (kb / "documents" / "by-hand.md").write_text(
        "---\nid: team-rule-7\ntitle: Rule seven\ncreated: 2026-03-04\nconfidence: high\n---\n7\n"
    )
    git("add", "documents", cwd=kb)
    git("commit", "-q", "-m", "by hand", cwd=kb)
    assert rg("--json", "show", "team-rule-7").json()["path"] == "documents/by-hand.md"
    assert rg("update", "team-rule-7", "--set", "category=rules").code == 0
    assert ls(kb) == ["documents/by-hand.md"]  # the file name stays
    assert front(kb, "documents/by-hand.md")["category"] == "rules"
    assert rg("--json", "list").json()[0]["id"] == "team-rule-7"


def test_import_in_batches_makes_one_commit_per_batch(kb, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(5):
        (src / f"n{i}.md").write_text(
            f"---\ntitle: Note {i}\ncreated: 2026-03-04\nconfidence: low\n---\n{i}\n"
        )
    seen = []
    with KnowledgeBase.open(kb) as base:
        result = base.import_notes(src, progress=lambda d, t: seen.append((d, t)), batch=2)
    assert len(result.commits) == 3
    assert count_commits(kb) == 3
    assert seen[-1] == (5, 5)
    assert sorted(result.imported) == [f"n{i}" for i in range(5)]
    assert_clean(kb)


def test_update_body_from_stdin(rg, kb, monkeypatch):
    doc = add_flags(rg, "Body from stdin")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"New body\n")))
    assert rg("update", doc["id"], "--body-file", "-").code == 0
    assert git("show", f"HEAD:{doc['path']}", cwd=kb).endswith("---\nNew body\n")


@pytest.mark.parametrize(
    "args", [("update",), ("show",), ("confirm", "x"), ("list", "--bogus"), ("supersede", "a")]
)
def test_usage_errors_exit_2_with_a_hint(rg, kb, args):
    res = rg(*args)
    assert res.code == 2, res
    assert res.err.startswith("error: ") and "hint: " in res.err
    assert res.out == ""
