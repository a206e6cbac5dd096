"""What git or a teammate's checkout cannot hold is refused: exit 1, `error:` and `hint:`, and
nothing written (HEAD, `git status`, every file of the work tree and of .git unchanged).

Each refusal has its look-alike that must still be accepted next to it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
import yaml

from reflectgit.errors import RefusedError, StorageError, storage_error
from reflectgit.git.change import write
from reflectgit.git.store import Store
from reflectgit.notes import messages, names
from tests.conftest import git, needs_shared, run_cli_proc
from tests.support.disk import remount, tmpfs
from tests.support.kb import head, rg
from tests.support.remote import git_daemon

__all__ = ["git_daemon", "rg"]

# --------------------------------------------------------------------------- helpers


def snapshot(repo: Path) -> tuple[str, str, list[str]]:
    """HEAD, `git status --porcelain`, and every file (and link) under the repository, .git
    included, with its size: a refusal changes none of them."""
    files: list[str] = []
    for root, dirs, found in os.walk(repo, followlinks=False):
        for name in found + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            full = os.path.join(root, name)
            files.append(f"{os.path.relpath(full, repo)} {os.lstat(full).st_size}")
    status = git("status", "--porcelain", "--untracked-files=all", cwd=repo, check=False)
    return head(repo), status, sorted(files)


def assert_fsck_clean(repo: Path) -> None:
    proc = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=repo, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "error" not in proc.stdout + proc.stderr


@pytest.fixture
def kb(tmp_path: Path, cli) -> Path:
    path = tmp_path / "kb"
    res = cli("init", str(path), "--no-pre-commit")
    assert res.code == 0, res
    return path


def refused(rg, repo: Path, *args: str, says: str = "") -> str:
    """Run a command that must be refused; return its stderr."""
    before = snapshot(repo)
    res = rg(*args)
    assert res.code == 1, res
    assert "error: " in res.err and "hint: " in res.err, res
    assert says.lower() in res.err.lower(), res.err
    assert "internal error" not in res.err
    assert snapshot(repo) == before
    return res.err


def note_file(tmp_path: Path, name: str = "note.md", body: str = "The body.\n", **fields) -> Path:
    front = {"title": "A title", "created": "2026-03-04", "confidence": "high", **fields}
    path = tmp_path / name
    text = "---\n" + yaml.safe_dump(front, allow_unicode=True, sort_keys=False) + "---\n" + body
    path.write_bytes(text.encode("utf-8"))
    return path


def add_note(rg, tmp_path: Path, **fields) -> dict:
    res = rg("--json", "add", str(note_file(tmp_path, **fields)))
    assert res.code == 0, res
    return res.json()


# --------------------------------------------------------------------------- sha256


def test_sha256_repository_is_refused_by_init_and_by_every_open(tmp_path):
    path = tmp_path / "kb"
    git("init", "-q", "--object-format=sha256", str(path), cwd=tmp_path)
    before = snapshot(path)
    proc = run_cli_proc("init", str(path))
    assert proc.returncode == 1, proc
    assert "error: " in proc.stderr and "sha256" in proc.stderr
    assert "hint: " in proc.stderr and "--object-format=sha1" in proc.stderr
    assert snapshot(path) == before
    for args in (["list"], ["status"], ["add", "--title", "t", "--insight", "i"], ["log"]):
        proc = run_cli_proc("--kb", str(path), *args)
        assert proc.returncode == 1, (args, proc)
        assert "sha256" in proc.stderr and "hint: " in proc.stderr
    assert snapshot(path) == before
    assert git("rev-parse", "--show-object-format", cwd=path).strip() == "sha256"


def test_sha256_refused_by_the_library_too(tmp_path):
    path = tmp_path / "kb"
    git("init", "-q", "--object-format=sha256", str(path), cwd=tmp_path)
    with pytest.raises(RefusedError, match="sha256"):
        Store.open(path)
    with pytest.raises(RefusedError, match="sha256"):
        Store.init(path)


def test_sha1_repository_made_by_git_is_accepted(tmp_path, cli):
    path = tmp_path / "kb"
    git("init", "-q", "--object-format=sha1", "-b", "main", str(path), cwd=tmp_path)
    res = cli("init", str(path), "--no-pre-commit")
    assert res.code == 0, res
    assert_fsck_clean(path)


# --------------------------------------------------------------------------- control characters


@pytest.mark.parametrize(
    "title",
    ["a\x00b", "red \x1b[31malert", "bell\x07", "del\x7f", "csi\x9b2J", "form\x0cfeed"],
    ids=["NUL", "ESC", "BEL", "DEL", "C1-CSI", "FF"],
)
def test_control_characters_in_a_title_are_refused(rg, kb, tmp_path, title):
    err = refused(rg, kb, "add", str(note_file(tmp_path, title=title)), says="control character")
    at = names.text_control(title)
    assert at is not None
    assert f"title: holds the control character U+{ord(title[at]):04X}" in err
    res = rg("validate", str(tmp_path / "note.md"))  # the validator's fast path agrees
    assert res.code == 1 and f"U+{ord(title[at]):04X}" in res.out, res


def test_nul_from_flags_is_refused(rg, kb):
    refused(rg, kb, "add", "--title", "a\x00b", "--insight", "i", says="U+0000")


def test_control_characters_anywhere_in_the_frontmatter_or_body(rg, kb, tmp_path):
    refused(rg, kb, "add", str(note_file(tmp_path, tags=["ok", "b\x00d"])), says="tags[1]")
    refused(rg, kb, "add", str(note_file(tmp_path, provenance={"source_tool": "x\x01"})))
    refused(rg, kb, "add", str(note_file(tmp_path, **{"odd\x02key": "v"})), says="key")
    err = refused(rg, kb, "add", str(note_file(tmp_path, body="line one\nan \x1b[2J escape\n")))
    assert "note.md:7:4: body:" in err  # line and column in the file


def test_control_character_in_a_sidecar_is_refused(rg, kb, tmp_path):
    side = tmp_path / "note.entities.yaml"
    side.write_text(
        'entities:\n  - name: "pg\\x00"\n    type: technology\n    description: ""\n',
        encoding="utf-8",
    )
    refused(rg, kb, "add", str(note_file(tmp_path)), "--entities", str(side), says="U+0000")


def test_control_characters_in_update_and_forget_reason(rg, kb, tmp_path):
    ident = add_note(rg, tmp_path)["id"]
    refused(rg, kb, "update", ident, "--set", 'title="a\\0b"', says="U+0000")
    refused(rg, kb, "update", ident, "--set", 'fix="x\\eb"', says="U+001B")
    body = tmp_path / "body.md"
    body.write_bytes(b"new body \x1b]52;c;aGk=\x07\n")  # OSC 52: writes the clipboard
    refused(rg, kb, "update", ident, "--body-file", str(body), says="control character")
    err = refused(rg, kb, "forget", ident, "--reason", "gone\x01", says="commit message")
    assert "Reflect-Reason" in err


def test_tabs_newlines_and_unicode_are_text(rg, kb, tmp_path):
    doc = add_note(
        rg,
        tmp_path,
        title="Café au lait: é in a title",
        fix="one\ttab\nand a newline",
        body="| a\t| b |\r\nwindows line, tab\tinside\n",
    )
    assert_fsck_clean(kb)
    shown = rg("--json", "show", doc["id"]).json()
    assert shown["frontmatter"]["title"] == "Café au lait: é in a title"
    assert shown["frontmatter"]["fix"] == "one\ttab\nand a newline"
    assert "tab\tinside" in shown["body"]
    assert git("log", "-1", "--format=%s", cwd=kb).strip().startswith("feat(knowledge): Café")
    res = rg("forget", doc["id"], "--reason", "tab\there and\nthere")
    assert res.code == 0, res
    assert "Reflect-Reason: tab here and there" in git("log", "-1", "--format=%B", cwd=kb)
    assert_fsck_clean(kb)


def test_commit_message_builder_refuses_what_fsck_refuses():
    with pytest.raises(RefusedError, match="U\\+0000"):
        messages.build("feat: a\x00b", "add", ["x"]).render()
    with pytest.raises(RefusedError, match="Reflect-Id"):
        messages.build("s", "add", ["x\x1by"]).render()
    text = messages.build("tab\tsubject", "add", ["x"], body="a\tb\nc").render()
    assert text.startswith("tab subject\n\na\tb\nc\n")


def test_store_refuses_a_raw_string_message_with_nul(kb):
    before = snapshot(kb)
    with Store.open(kb) as store, pytest.raises(RefusedError):
        store.commit([write("documents/x.md", b"x\n")], "subject\x00")
    assert snapshot(kb) == before


# --------------------------------------------------------------------------- symlinks


def test_committed_symlink_folder_is_never_written_through(rg, kb, tmp_path):
    ident = add_note(rg, tmp_path)["id"]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    git("rm", "-rq", "archived", cwd=kb)
    os.symlink(outside, kb / "archived")
    git("add", "archived", cwd=kb)
    git("commit", "-qm", "archived is a link", cwd=kb)
    assert git("ls-tree", "HEAD", "archived", cwd=kb).startswith("120000")
    refused(rg, kb, "archive", ident, says="archived is a symlink committed")
    assert list(outside.iterdir()) == []
    # The same link, committed but not checked out (the work tree holds a real folder).
    os.unlink(kb / "archived")
    (kb / "archived").mkdir()
    git("update-index", "--skip-worktree", "archived", cwd=kb)
    refused(rg, kb, "archive", ident, says="symlink committed")
    assert list(outside.iterdir()) == []


def test_documents_as_a_work_tree_symlink_is_refused(rg, kb, tmp_path):
    add_note(rg, tmp_path)
    real = tmp_path / "real-documents"
    shutil.move(kb / "documents", real)
    os.symlink(real, kb / "documents")
    refused(
        rg,
        kb,
        "add",
        "--title",
        "Other",
        "--insight",
        "i",
        "--confidence",
        "high",
        says="symlink in the work tree",
    )
    imports = tmp_path / "imports"
    imports.mkdir()
    note_file(imports, "n1.md", title="Imported one")
    refused(rg, kb, "import", str(imports), says="documents is a symlink")
    assert len(list(real.glob("*.md"))) == 1  # nothing written through the link


def test_a_symlink_elsewhere_in_the_repository_does_not_matter(rg, kb, tmp_path):
    os.symlink("documents", kb / "notes-link")
    os.symlink("/tmp", kb / "tmp-link")
    git("add", "notes-link", "tmp-link", cwd=kb)
    git("commit", "-qm", "links we never write through", cwd=kb)
    ident = add_note(rg, tmp_path)["id"]
    assert rg("archive", ident).code == 0
    assert rg("restore", ident).code == 0
    assert git("status", "--porcelain", cwd=kb) == ""
    assert_fsck_clean(kb)


def test_leaf_symlink_is_not_overwritten_but_can_be_deleted(kb, tmp_path):
    os.symlink("/etc/hostname", kb / "documents" / "linked.md")
    git("add", "documents/linked.md", cwd=kb)
    git("commit", "-qm", "a linked note", cwd=kb)
    before = snapshot(kb)
    with Store.open(kb) as store:
        with pytest.raises(RefusedError, match="symlink"):
            store.commit([write("documents/linked.md", b"x\n")], "overwrite")
        assert snapshot(kb) == before
        from reflectgit.git.change import delete

        assert store.commit([delete("documents/linked.md")], "remove the link") is not None
    assert not os.path.lexists(kb / "documents" / "linked.md")
    assert os.path.exists("/etc/hostname")


# --------------------------------------------------------------------------- file names


@pytest.mark.parametrize(
    "ident",
    ["CON", "con", "Nul", "aux", "prn", "COM1", "com9", "LPT1", "lpt9", "con.notes", "NUL.tar"],
)
def test_windows_device_names_are_refused_as_ids(rg, kb, tmp_path, ident):
    refused(rg, kb, "add", str(note_file(tmp_path, id=ident)), says="device name on Windows")


@pytest.mark.parametrize("ident", ["a<b", "a>b", "a:b", 'a"b', "a|b", "a?b", "a*b"])
def test_windows_characters_are_refused_as_ids(rg, kb, tmp_path, ident):
    refused(rg, kb, "add", str(note_file(tmp_path, id=ident)), says="Windows")


def test_ids_whose_file_names_exceed_255_bytes_are_refused(rg, kb, tmp_path):
    ident = "é" * 121  # 242 bytes: 121 characters, under the 200 the schema allows
    refused(rg, kb, "add", str(note_file(tmp_path, id=ident)), says="256 bytes")


@pytest.mark.parametrize("ident", ["con-fig", "console", "com10", "lpt", "auxiliary-1", "a.b-c"])
def test_look_alikes_of_reserved_names_are_accepted(rg, kb, tmp_path, ident):
    assert add_note(rg, tmp_path, id=ident)["id"] == ident
    assert_fsck_clean(kb)


def test_a_255_byte_file_name_is_accepted(rg, kb, tmp_path):
    ident = "é" * 120 + "a"  # <id>.entities.yaml is exactly 255 bytes
    assert len((ident + ".entities.yaml").encode()) == 255
    assert add_note(rg, tmp_path, id=ident)["id"] == ident
    with Store.open(kb) as store:
        name = "r" * 250 + ".yaml"
        assert store.commit([write(f"review-queue/{name}", b"x: 1\n")], "a long name")
    assert git("status", "--porcelain", cwd=kb) == ""
    assert_fsck_clean(kb)


@pytest.mark.parametrize(
    "path",
    [
        "review-queue/" + "x" * 251 + ".yaml",
        "review-queue/a:b.yaml",
        "review-queue/COM1.yaml",
        "review-queue/tab\tname.yaml",
        "documents/.GIT/config",
        "documents/.g\u200cit/config",
        "documents/GIT~1/x.md",
        "documents/trailing /x.md",
        "review-queue/q?.yaml",
    ],
)
def test_the_git_layer_refuses_every_unholdable_path(kb, path):
    before = snapshot(kb)
    with Store.open(kb) as store, pytest.raises(RefusedError, match="refusing to write"):
        store.commit([write(path, b"x\n")], "bad name")
    assert snapshot(kb) == before


def test_names_rules_positive_and_negative():
    assert names.name_problem("a" * 255) is None
    assert "256 bytes" in (names.name_problem("a" * 256) or "")
    for bad in ("CON", "con.txt", "Com1.md", "lpt\u00b9", "CONIN$", "x.", "x ", "a\\b", "\x7f"):
        assert names.name_problem(bad) is not None, bad
    # git's folder as macOS (HFS+ ignores some code points) or Windows (short names) reads it
    for dotgit in (".git", ".GIT", "git~1", ".g\u200cit", "\ufeff.git", ".gi\u206ft"):
        assert "git's own folder" in (names.name_problem(dotgit) or ""), dotgit
    for good in ("con-fig", "config", ".gitkeep", ".gitignore", "café", "a\u00a0b", "com"):
        assert names.name_problem(good) is None, good


# --------------------------------------------------------------------------- id collisions


def test_an_id_differing_only_by_case_is_refused_naming_the_existing_one(rg, kb, tmp_path):
    add_note(rg, tmp_path, id="Foo-1")
    err = refused(rg, kb, "add", str(note_file(tmp_path, id="foo-1", title="Other")))
    assert "'Foo-1'" in err and "case" in err


def test_composed_and_decomposed_ids_clash(rg, kb, tmp_path):
    composed = unicodedata.normalize("NFC", "café-1")
    decomposed = unicodedata.normalize("NFD", "café-1")
    assert composed != decomposed
    add_note(rg, tmp_path, id=composed)
    err = refused(rg, kb, "add", str(note_file(tmp_path, id=decomposed, title="Other")))
    assert composed in err
    add_note(rg, tmp_path, id="fix-2")
    refused(rg, kb, "add", str(note_file(tmp_path, id="\ufb01x-2", title="Ligature")))  # NFKC


def test_archived_and_forgotten_ids_clash_too(rg, kb, tmp_path):
    ident = add_note(rg, tmp_path, id="Old-Note")["id"]
    assert rg("archive", ident).code == 0
    refused(rg, kb, "add", str(note_file(tmp_path, id="old-note", title="x")), says="Old-Note")


def test_distinct_ids_and_generated_ids_never_clash(rg, kb, tmp_path):
    add_note(rg, tmp_path, id="foo-1")
    add_note(rg, tmp_path, id="foo-2", title="Second")
    first = rg(
        "--json", "add", "--title", "Pin it", "--insight", "pin", "--confidence", "high"
    ).json()["id"]
    # A hand-named file whose name is the next generated id in another case.
    upper = first.upper()
    git("mv", f"documents/{first}.md", f"documents/{upper}.md", cwd=kb)
    git("commit", "-qm", "hand rename", cwd=kb)
    again = rg(
        "--json", "add", "--title", "Pin it", "--insight", "pin", "--confidence", "high"
    ).json()["id"]
    assert names.id_key(again) != names.id_key(upper)
    assert again.startswith("pin-it-") and len(again) > len(first)
    assert_fsck_clean(kb)


def test_import_skips_ids_that_clash_by_case(rg, kb, tmp_path):
    add_note(rg, tmp_path, id="Foo-1")
    src = tmp_path / "src"
    src.mkdir()
    note_file(src, "foo-1.md", title="Against the KB")
    note_file(src, "Bar-2.md", title="First bar")
    note_file(src, "bar-2.md", title="Second bar")
    note_file(src, "plain-3.md", title="Fine")
    res = rg("--json", "import", str(src))
    assert res.code == 0, res
    doc = res.json()
    assert doc["imported"] == 2
    assert sorted(
        p for p in git("ls-files", "documents", cwd=kb).split() if "2" in p or "3" in p
    ) == [
        "documents/Bar-2.md",
        "documents/plain-3.md",
    ]
    reasons = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert "Foo-1" in reasons["foo-1.md"] and "Bar-2" in reasons["bar-2.md"]
    assert git("status", "--porcelain", cwd=kb) == ""
    assert_fsck_clean(kb)


# --------------------------------------------------------------------------- look-alike ids
# Ids a person cannot tell from ``redis-pool`` (issue 32): each is refused, with the character
# named, and ``list`` still shows one "Redis pool" note.

LOOK_ALIKES = {
    "cyrillic-ie": "r\u0435dis-pool",
    "hyphen-u2010": "redis\u2010pool",
    "rtl-override": "redis-pool\u202elmth.exe",
    "zero-width-space": "redis\u200b-pool",
    "word-joiner": "redis-\u2060pool",
    "bom": "\ufeffredis-pool",
    "nbsp": "redis\u00a0pool",
    "mongolian-vowel-separator": "redis-pool\u180e",
    "hangul-filler": "redis-pool\u3164",
    "greek-omicron": "redis-p\u03bfol",
    "minus-sign": "redis\u2212pool",
    "soft-hyphen": "redis\u00adpool",
}


@pytest.mark.parametrize("ident", list(LOOK_ALIKES.values()), ids=list(LOOK_ALIKES))
def test_a_look_alike_id_is_refused(rg, kb, tmp_path, ident):
    add_note(rg, tmp_path, id="redis-pool", title="Redis pool")
    look_alike = note_file(tmp_path, "twin.md", id=ident, title="Redis pool")
    odd = next(ch for ch in ident if not ch.isascii())
    err = refused(rg, kb, "add", str(look_alike), says=f"U+{ord(odd):04X}")
    assert "id:" in err
    assert rg("validate", str(look_alike)).code == 1  # refused with no twin in the KB too
    listed = rg("--json", "list").json()
    assert [n["title"] for n in listed] == ["Redis pool"]


def test_an_id_in_another_script_that_looks_like_an_existing_one_clashes(rg, kb, tmp_path):
    add_note(rg, tmp_path, id="poe", title="Poe")
    twin = note_file(tmp_path, "twin.md", id="\u0440\u043e\u0435", title="Twin")  # р о е
    err = refused(rg, kb, "add", str(twin), says="clashes with the existing note 'poe'")
    assert "look-alike" in err
    src = tmp_path / "src"
    src.mkdir()
    note_file(src, "\u0440\u043e\u0435.md", title="Imported twin")
    res = rg("--json", "import", str(src))
    assert res.code == 0 and res.json()["imported"] == 0
    assert "poe" in res.json()["skipped"][0]["reason"]


@pytest.mark.parametrize(
    "ident",
    [
        "redis-pool-2",
        "Redis_Pool.v2",
        "lrn-use-redis-redis-connection-pool-pool-with-redis-workflows-8be276",
        "\u043f\u0443\u043b-\u0441\u043e\u0435\u0434\u0438\u043d\u0435\u043d\u0438\u0439",
        "\u63a5\u7d9a\u30d7\u30fc\u30eb",
        "caf\u00e9-notes",
        "\u03c0\u03bf\u03bb\u03b7",  # Greek alone is one script
    ],
)
def test_ordinary_and_non_latin_ids_are_accepted(rg, kb, tmp_path, ident):
    add_note(rg, tmp_path, id="redis-pool", title="Redis pool")
    assert add_note(rg, tmp_path, id=ident, title="Another")["id"] == ident
    assert_fsck_clean(kb)


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Redis\u200b pool\u202e", "redis-pool"),
        ("\ufeffRedis\u00a0pool\u3164", "redis-pool"),
        (
            "\u041f\u0443\u043b Redis \u0441\u043e\u0435\u0434\u0438\u043d\u0435\u043d\u0438\u0439",
            "redis",
        ),
        ("\u63a5\u7d9a\u30d7\u30fc\u30eb", "untitled"),
        ("Caf\u00e9 d\u00e9j\u00e0 vu", "cafe-deja-vu"),
    ],
)
def test_titles_slug_without_invisible_characters(rg, tmp_path, title, slug):
    made = rg("--json", "add", "--title", title, "--insight", "i", "--confidence", "high")
    assert made.code == 0, made
    ident = made.json()["id"]
    assert ident.rsplit("-", 1)[0] == slug and ident.isascii() and ident.isprintable()


# --------------------------------------------------------------------------- deep YAML


@pytest.mark.parametrize(
    "deep",
    [
        "[" * 500 + "]" * 500,
        "{a: " * 300 + "1" + "}" * 300,
        "\n" + "\n".join("  " * (i + 1) + "-" for i in range(200)),
    ],
    ids=["flow-lists", "flow-maps", "block-lists"],
)
def test_deep_yaml_is_a_note_error_with_a_position(rg, kb, tmp_path, deep):
    path = tmp_path / "deep.md"
    path.write_text(
        f"---\ntitle: Deep\ncreated: 2026-03-04\nconfidence: high\nextra: {deep}\n---\nbody\n",
        encoding="utf-8",
    )
    err = refused(rg, kb, "add", str(path), says="nested more than 64 levels")
    assert re.search(r"deep\.md:\d+:\d+: YAML nested", err), err
    res = rg("validate", str(path))
    assert res.code == 1 and "nested more than 64 levels" in res.out + res.err, res
    assert "internal error" not in res.err


def test_shallow_nesting_is_accepted(rg, kb, tmp_path):
    path = tmp_path / "nested.md"
    path.write_text(
        "---\ntitle: Nested\ncreated: 2026-03-04\nconfidence: high\n"
        "extra: " + "[" * 20 + "1" + "]" * 20 + "\n---\nbody\n",
        encoding="utf-8",
    )
    assert rg("add", str(path)).code == 0


# --------------------------------------------------------------------------- disks


def test_storage_errors_map_to_exit_1_with_a_hint():
    for code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES):
        err = storage_error(OSError(code, os.strerror(code), "/state/queue/x.json"))
        assert isinstance(err, StorageError) and err.exit_code == 1 and err.hint
        assert "/state/queue/x.json" in err.message
    assert storage_error(OSError(errno.ENOENT, "nope")) is None
    assert storage_error(ValueError("x")) is None
    import sqlite3

    assert storage_error(sqlite3.OperationalError("database or disk is full")) is not None
    assert storage_error(sqlite3.OperationalError("no such table: x")) is None


def fill(folder: Path) -> None:
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)


def queue_files(state: Path) -> list[str]:
    return sorted(str(p.relative_to(state)) for p in (state / "queue").rglob("*") if p.is_file())


def test_a_full_state_directory_is_exit_1_and_keeps_the_queue(rg, kb, tmp_path, monkeypatch):
    with tmpfs(tmp_path / "state", "256k") as state:
        monkeypatch.setenv("REFLECT_STATE_DIR", str(state))
        transcript = tmp_path / "t.jsonl"
        transcript.write_text('{"type":"user","message":{"content":"hi"}}\n', encoding="utf-8")
        assert rg("queue", "add", str(transcript)).code == 0
        kept = queue_files(state)
        fill(state)
        other = tmp_path / "u.jsonl"
        other.write_text('{"type":"user","message":{"content":"yo"}}\n', encoding="utf-8")
        for args in (("queue", "add", str(other)), ("drain",), ("reindex",)):
            before = snapshot(kb)
            res = rg(*args)
            assert res.code == 1, (args, res)
            assert "No space left on device" in res.err or "disk is full" in res.err, res
            assert "hint: free some space" in res.err
            assert snapshot(kb) == before
            assert queue_files(state) == kept  # nothing lost, no temporary file left
        (state / "filler").unlink()
        assert rg("queue", "add", str(other)).code == 0


def test_a_read_only_state_directory_is_exit_1(rg, kb, tmp_path, monkeypatch):
    with tmpfs(tmp_path / "state", "1m") as state:
        monkeypatch.setenv("REFLECT_STATE_DIR", str(state))
        transcript = tmp_path / "t.jsonl"
        transcript.write_text('{"type":"user","message":{"content":"hi"}}\n', encoding="utf-8")
        assert rg("queue", "add", str(transcript)).code == 0
        kept = queue_files(state)
        remount(state, "ro")
        for args in (("queue", "add", str(tmp_path / "t2.jsonl")), ("drain",), ("reindex",)):
            (tmp_path / "t2.jsonl").write_text("{}\n", encoding="utf-8")
            res = rg(*args)
            assert res.code == 1, (args, res)
            assert "[EROFS]" in res.err and "hint: that file system is mounted read-only" in res.err
            assert queue_files(state) == kept


def test_a_read_only_kb_is_exit_1(tmp_path, cli):
    path = tmp_path / "kb"
    assert cli("init", str(path), "--no-pre-commit").code == 0
    view = tmp_path / "ro"
    view.mkdir()
    proc = subprocess.run(["mount", "--bind", str(path), str(view)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {proc.stderr}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True)
        before = snapshot(path)
        res = cli(
            "--kb", str(view), "add", "--title", "T", "--insight", "i", "--confidence", "high"
        )
        assert res.code == 1, res
        assert "Read-only file system" in res.err and "hint: " in res.err
        assert snapshot(path) == before
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)


def test_reftable_repository_is_refused(tmp_path):
    path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(path), cwd=tmp_path)
    git("config", "core.repositoryformatversion", "1", cwd=path)
    git("config", "extensions.refstorage", "reftable", cwd=path)
    before = snapshot(path)
    proc = run_cli_proc("--kb", str(path), "list")
    assert proc.returncode == 1 and "refstorage" in proc.stderr and "hint: " in proc.stderr
    assert snapshot(path) == before


def test_sha256_is_refused_from_a_linked_worktree_too(tmp_path):
    path = tmp_path / "kb"
    git("init", "-q", "--object-format=sha256", "-b", "main", str(path), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "first", cwd=path)
    git("worktree", "add", "-q", str(tmp_path / "linked"), "-b", "other", cwd=path)
    before = snapshot(path)
    proc = run_cli_proc("--kb", str(tmp_path / "linked"), "add", "--title", "t", "--insight", "i")
    assert proc.returncode == 1 and "sha256" in proc.stderr and "hint: " in proc.stderr
    assert snapshot(path) == before


# --------------------------------------------------------------------------- captured text


@needs_shared
def test_captured_tool_output_with_colours_is_scrubbed_not_lost(tmp_path, monkeypatch):
    """Machine-captured text nobody can fix is made committable (escapes dropped) instead."""
    import json

    from tests.support.capture import event_name, load_events, notes, run_hook

    kb_path = tmp_path / "kb"
    git("init", "-q", "-b", "main", str(kb_path), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=kb_path)
    monkeypatch.setenv("REFLECT_GIT_KB", str(kb_path))

    def colour(value):
        if isinstance(value, str):
            return value.replace("FAILED", "\x1b[31mFAILED\x1b[0m").replace(
                "Cannot start", "\x1b[1;31mCannot\x1b[0m start\x07"
            )
        if isinstance(value, dict):
            return {k: colour(v) for k, v in value.items()}
        if isinstance(value, list):
            return [colour(v) for v in value]
        return value

    payloads = load_events("test-fix.json", tmp_path)
    # An edit between the red and the green run: the fix carries a lesson, so a note.
    edit = dict(json.loads(payloads[1]), tool_name="Edit", tool_response={"filePath": "x"})
    edit["tool_input"] = {"file_path": "/home/dev/src/tokio-service/src/runtime.rs"}
    for payload in [*payloads[:2], json.dumps(edit), *payloads[2:]]:
        coloured = json.dumps(colour(json.loads(payload)))
        assert run_hook(event_name(coloured), coloured).returncode == 0
    found = notes(kb_path)
    assert len(found) == 1, found
    (text,) = found.values()
    assert "Cannot start a runtime from within a runtime" in text
    assert "\x1b" not in text and "\\e" not in text and "\x07" not in text
    assert_fsck_clean(kb_path)


def test_scrub_controls_keeps_text_and_drops_escapes():
    assert names.scrub_controls("\x1b[31mred\x1b[0m\ttab\nline") == "red\ttab\nline"
    assert names.scrub_controls("a\x1b]52;c;aGk=\x07b\x00c") == "abc"
    assert names.scrub_controls("café ok") == "café ok"


def test_a_title_that_slugs_to_a_device_name_still_routes_to_the_review_queue(git_daemon, tmp_path):
    from reflectgit.workflows import routing
    from tests.support.routing import make_kb

    team = git_daemon.new_repo()
    kb = make_kb(tmp_path / "personal", team, "")
    low = kb.add("Con", "low")
    result = routing.route(kb.config(), low)
    assert result.route == "queue", result
    assert result.queue_path == "review-queue/con-note.yaml"
    assert git("status", "--porcelain", cwd=kb.path) == ""
    assert_fsck_clean(kb.path)
    assert names.safe_stem("console") == "console" and names.safe_stem("LPT1") == "LPT1-note"
