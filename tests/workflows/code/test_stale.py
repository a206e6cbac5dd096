"""``reflect-git stale`` against real git histories: deletions, renames (followed as git
follows them), a vanished symbol, changed code; unchanged anchors, changes elsewhere in the
file and white-space-only edits are not listed. ``--propose`` sends stale notes to review."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from tests.conftest import git, run_cli_proc
from tests.support.coderepo import POOL_PY, CodeRepo
from tests.support.codeworld import World
from tests.support.forge_server import make_forge
from tests.support.remote import git_daemon
from tests.support.routing import kb_factory, team_on_forge

__all__ = ["git_daemon", "kb_factory", "make_forge"]


def test_nothing_changed_lists_nothing(world: World) -> None:
    world.note("Prefill the pool", "src/pool.py:prefill", "src/retry.py")
    doc = world.stale()
    assert doc["stale"] == [] and doc["checked"] == 1


def test_a_deleted_file_is_stale_with_the_commit_that_deleted_it(world: World) -> None:
    nid = world.note("Backoff doubles", "src/retry.py")
    untouched = world.note("Pool prefill", "src/pool.py")
    gone = world.code.delete("src/retry.py").commit("drop retries")
    listed = world.listed()
    assert set(listed) == {nid}
    assert listed[nid]["reason"] == "deleted" and listed[nid]["commits"] == [gone]
    assert untouched not in listed


def test_a_renamed_file_is_moved_not_stale_and_names_its_new_path(world: World) -> None:
    nid = world.note("Pool prefill", "src/pool.py")
    world.code.write("src/other.py", "X = 1\n").commit("unrelated")
    moved = world.code.move("src/pool.py", "lib/pool.py").commit("move the pool")
    doc = world.stale()
    assert doc["stale"] == [] and doc["changed"] == []
    [entry] = doc["moved"]
    assert entry["id"] == nid and entry["reason"] == "renamed"
    assert entry["commits"] == [moved]
    assert entry["anchors"][0]["now"] == "lib/pool.py"
    done = run_cli_proc("--kb", str(world.kb), "stale", cwd=world.code.path)
    assert f"{nid}  moved: the file it names is now lib/pool.py (its code unchanged)" in done.stdout
    assert "    src/pool.py -> lib/pool.py (stale --propose proposes the new anchor)" in done.stdout
    # proposed with its anchor re-pointed at HEAD, not flagged stale; the note itself stays
    [proposal] = world.stale("--propose")["proposed"]
    assert proposal["id"] == nid and proposal["route"] == "queue"
    from reflectgit.config import resolve_state_dir

    [proposed] = (resolve_state_dir(world.kb, os.environ) / "stale-proposals").glob("*.md")
    front = yaml.safe_load(proposed.read_text().split("---\n")[1])
    assert front["anchors"] == [{"path": "lib/pool.py", "commit": moved}]
    assert "stale" not in front
    kept = (world.kb / "documents" / f"{nid}.md").read_text()
    assert "path: src/pool.py" in kept


def test_a_renamed_file_whose_code_changed_too_is_stale_at_its_new_path(world: World) -> None:
    nid = world.note("Prefill the pool", "src/pool.py:prefill")
    world.code.move("src/pool.py", "lib/pool.py").commit("move the pool")
    text = (world.code.path / "lib/pool.py").read_text()
    world.code.write("lib/pool.py", text.replace("return pool\n", "return None\n"))
    world.code.commit("prefill returns nothing")
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "changed"
    assert entry["anchors"][0]["now"] == "lib/pool.py"


def test_comments_and_a_consistent_renaming_are_not_listed(world: World) -> None:
    world.note("Prefill the pool", "src/pool.py:prefill")
    text = POOL_PY.replace(
        "    for _ in range(size):", "    # one connection each\n    for _ in range(size):"
    )
    text = text.replace("def prefill(pool, size):", 'def prefill(pool, size):\n    """Fill it."""')
    world.code.write("src/pool.py", text).commit("document prefill")
    doc = world.stale()
    assert doc["stale"] == doc["changed"] == doc["moved"] == []


CONNS_PY = """class Conns:
    def acquire(self):
        return self.free.get()

    def release(self, conn):
        self.free.put(conn)
"""


def test_a_change_in_nothing_the_note_names_is_listed_as_changed_not_stale(world: World) -> None:
    world.code.write("src/conns.py", CONNS_PY).commit("conns")
    args = ["--kb", str(world.kb), "--json", "add", "--title", "Conns.acquire blocks",
            "--insight", "`Conns.acquire` waits on `self.free` until a connection is back",
            "--category", "perf", "--confidence", "high", "--anchor", "src/conns.py:Conns"]  # fmt: skip
    nid = json.loads(run_cli_proc(*args, cwd=world.code.path).stdout)["id"]
    world.code.write(
        "src/conns.py", CONNS_PY.replace("self.free.put(conn)", "self.free.put_nowait(conn)")
    )
    sha = world.code.commit("release without blocking")
    doc = world.stale()
    assert doc["stale"] == []
    [entry] = doc["changed"]
    assert entry["id"] == nid and entry["reason"] == "changed-elsewhere"
    assert entry["commits"] == [sha]
    # the method it names changes: stale
    conns = (world.code.path / "src/conns.py").read_text()
    world.code.write("src/conns.py", conns.replace("self.free.get()", "self.free.get(timeout=1)"))
    world.code.commit("acquire times out")
    [stale] = world.stale()["stale"]
    assert stale["id"] == nid and stale["reason"] == "changed"


def test_a_symbol_gone_is_stale_and_a_change_elsewhere_in_the_file_is_not(world: World) -> None:
    prefill = world.note("Prefill the pool", "src/pool.py:prefill")
    limit = world.note("Pool limit", "src/pool.py:Pool")
    world.code.write(
        "src/pool.py", POOL_PY.replace("def prefill(pool, size)", "def warm(pool, size)")
    )
    renamed = world.code.commit("rename prefill to warm")
    listed = world.listed()
    assert set(listed) == {prefill}
    assert listed[prefill]["reason"] == "symbol-gone" and listed[prefill]["commits"] == [renamed]
    assert limit not in listed


def test_changed_code_counts_only_the_commits_that_changed_it(world: World) -> None:
    nid = world.note("Prefill the pool", "src/pool.py:prefill")
    first = world.code.write(
        "src/pool.py", POOL_PY.replace("return pool\n", "return pool.ready()\n")
    ).commit("ready")
    world.code.write("src/pool.py", (world.code.path / "src/pool.py").read_text() + "\nLIMIT = 3\n")
    world.code.commit("a limit elsewhere")  # touches the file, not the symbol
    second = world.code.write("src/pool.py", (world.code.path / "src/pool.py").read_text().replace("range(size)", "range(size * 2)")).commit("double")  # fmt: skip
    [entry] = world.stale()["stale"]
    assert entry["id"] == nid and entry["reason"] == "changed"
    assert entry["commits"] == [second, first]
    assert entry["label"] == "stale: the code it names changed in 2 commits since (2 of 4 lines)"
    assert entry["lines"] == {"changed": 2, "of": 4}


def test_white_space_only_and_moves_within_the_diff_are_not_stale(world: World) -> None:
    world.note("Prefill the pool", "src/pool.py:prefill")
    world.note("Backoff", "src/retry.py")
    world.code.write("src/pool.py", POOL_PY.replace("    return pool\n", "\n    return   pool\n"))
    world.code.write("src/retry.py", "def backoff(n):\n\n    return 2 ** n\n")
    world.code.commit("reformat")
    assert world.stale()["stale"] == []


def test_a_file_anchor_is_stale_when_the_file_changes(world: World) -> None:
    nid = world.note("Readme", "README.md")
    sha = world.code.write("README.md", "# billing\n\nNew section.\n").commit("docs")
    assert world.listed()[nid]["commits"] == [sha]


def test_notes_of_another_project_and_unknown_commits_are_not_judged(
    world: World, tmp_path: Path
) -> None:
    other = CodeRepo(tmp_path / "other-repo")
    other.write("src/pool.py", POOL_PY).commit("other")
    args = ["--kb", str(world.kb), "add", "--title", "Elsewhere", "--insight", "i i i",
            "--category", "c", "--confidence", "high", "--anchor", "src/pool.py"]  # fmt: skip
    assert run_cli_proc(*args, cwd=other.path).returncode == 0
    note = world.kb / "documents"
    [path] = list(note.glob("elsewhere-*.md"))
    # the same note, claimed for billing-api, anchored at a commit billing-api never had
    text = path.read_text().replace("project: other-repo", "project: billing-api")
    path.write_text(text)
    git("commit", "-qam", "claim", cwd=world.kb)
    world.code.delete("src/pool.py").commit("drop the pool")
    doc = world.stale()
    assert doc["stale"] == [] and doc["unchecked"] == [path.stem]


# A C file in the GNU style: the return type on a line of its own, a form the symbol rule does
# not read (``ini_parse`` is called at column 0 in as many files as it is defined there).
INI_C = """#define INI_MAX_LINE 200
#define INI_ALLOW_BOM 1

static int
ini_parse(FILE* file)
{
    char line[INI_MAX_LINE];
    return fgets(line, INI_MAX_LINE, file) != NULL;
}
"""


def test_c_preprocessor_definitions_are_symbols_judged_by_their_own_line(world: World) -> None:
    world.code.write("src/ini.c", INI_C).commit("ini")
    nid = world.note("Lines longer than INI_MAX_LINE are cut", "src/ini.c:INI_MAX_LINE")
    world.code.write("src/ini.c", INI_C.replace("INI_ALLOW_BOM 1", "INI_ALLOW_BOM 0")).commit("bom")
    assert world.stale()["stale"] == []  # another #define changed: not this one
    sha = world.code.write("src/ini.c", INI_C.replace("LINE 200", "LINE 512")).commit("longer")
    [entry] = world.stale()["stale"]
    assert (entry["id"], entry["reason"], entry["commits"]) == (nid, "changed", [sha])
    assert "compared" not in entry["anchors"][0]


def test_a_symbol_not_found_at_the_notes_own_commit_is_judged_as_its_file(world: World) -> None:
    world.code.write("src/ini.c", INI_C).commit("ini")
    nid = world.note("ini_parse reads at most INI_MAX_LINE bytes", "src/ini.c:ini_parse")
    sha = world.code.write("src/ini.c", INI_C.replace("fgets(line, INI_MAX_LINE", "fgets(line, 80")).commit("80")  # fmt: skip
    [entry] = world.stale()["stale"]
    # not "symbol-gone": nothing says the symbol went, the file changed in what the note names
    assert (entry["id"], entry["reason"], entry["commits"]) == (nid, "changed", [sha])
    [anchor] = entry["anchors"]
    assert anchor["symbol"] == "ini_parse" and anchor["compared"] == "file"
    done = run_cli_proc("--kb", str(world.kb), "stale", cwd=world.code.path)
    assert "src/ini.c:ini_parse: changed (INI_MAX_LINE) (the symbol was not found" in done.stdout


def test_a_symbol_not_found_at_its_commit_and_a_change_elsewhere_is_not_stale(
    world: World,
) -> None:
    world.code.write("src/ini.c", INI_C).commit("ini")
    nid = world.note("ini_parse reads at most INI_MAX_LINE bytes", "src/ini.c:ini_parse")
    world.code.write("src/ini.c", INI_C + "\nint ini_version = 3;\n").commit("version")
    doc = world.stale()
    assert doc["stale"] == []
    [changed] = doc["changed"]  # the file changed, in nothing the note names
    assert changed["id"] == nid and changed["anchors"][0]["compared"] == "file"


def test_text_output_names_the_note_anchor_and_commit(world: World) -> None:
    nid = world.note("Backoff doubles", "src/retry.py:backoff")
    world.code.delete("src/retry.py").commit("drop retries")
    done = run_cli_proc("--kb", str(world.kb), "stale", cwd=world.code.path)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == f"{nid}  stale: the file it names (src/retry.py) was deleted"
    assert lines[1] == "    src/retry.py:backoff: deleted"
    assert lines[2].endswith(" drop retries")
    assert lines[-1].startswith("1 stale note of 1 anchored note in billing-api")


def test_not_a_repository_is_a_clear_error(world: World, tmp_path: Path) -> None:
    done = run_cli_proc("--kb", str(world.kb), "stale", "--repo", str(tmp_path))
    assert done.returncode == 1 and "is not a git repository" in done.stderr


def test_propose_without_a_team_queues_once_and_deletes_nothing(world: World) -> None:
    nid = world.note("Backoff doubles", "src/retry.py")
    world.code.delete("src/retry.py").commit("drop retries")
    first = world.stale("--propose")
    again = world.stale("--propose")
    [proposal] = first["proposed"]
    assert proposal["route"] == "queue" and proposal["where"].startswith("review-queue/")
    assert again["proposed"] == first["proposed"]
    assert (world.kb / "documents" / f"{nid}.md").is_file()  # never deleted
    queued = git("ls-tree", "--name-only", "HEAD", "review-queue/", cwd=world.kb).split()
    assert [q for q in queued if q.endswith(".yaml")] == [proposal["where"]]


def test_propose_with_a_team_opens_one_draft_pr_with_the_stale_flag(
    tmp_path: Path, git_daemon, kb_factory, make_forge, monkeypatch
) -> None:
    team, forge, kb = team_on_forge(git_daemon, kb_factory, make_forge, monkeypatch)
    code = CodeRepo(tmp_path / "billing-api")
    code.write("src/retry.py", "def backoff(n):\n    return 2 ** n\n").commit("first")
    args = ["--kb", str(kb.path), "--json", "add", "--title", "Backoff doubles", "--insight",
            "it doubles", "--category", "perf", "--confidence", "high",
            "--anchor", "src/retry.py:backoff"]  # fmt: skip
    nid = json.loads(run_cli_proc(*args, cwd=code.path).stdout)["id"]
    code.write("src/retry.py", "def jitter(n):\n    return n\n").commit("jitter instead")
    stale = ["--kb", str(kb.path), "--json", "stale", "--repo", str(code.path), "--propose"]
    [proposal] = json.loads(run_cli_proc(*stale).stdout)["proposed"]
    assert proposal["route"] == "branch" and proposal["error"] is None
    branch = proposal["where"].split()[0]
    assert branch.startswith("knowledge/")
    flagged = yaml.safe_load(team.git("show", f"{branch}:documents/{nid}.md").split("---\n")[1])
    assert flagged["stale"]["reason"] == "symbol-gone"
    assert flagged["stale"]["head"] == code.head()
    assert f"documents/{nid}.md" not in team.files("main")  # main unchanged: review decides
    assert len(forge.open_prs("acme/team")) == 1
    json.loads(run_cli_proc(*stale).stdout)  # proposing again opens nothing new
    assert len(forge.open_prs("acme/team")) == 1


def test_the_changed_elsewhere_label_says_which_words_of_the_note_the_change_touched(
    world: World,
) -> None:
    nid = world.add(
        "Pool.add keeps every conn", "`Pool.add` appends each conn to items.", "src/pool.py:Pool"
    )
    pool = (world.code.path / "src/pool.py").read_text()
    # another method, on lines holding a word of the note (``conn``): not what it states
    world.code.write(
        "src/pool.py", pool + "\n    def drop(self, conn):\n        conn.close()\n"
    ).commit("drop")
    [changed] = world.stale()["changed"]
    assert changed["id"] == nid and changed["anchors"][0]["names"] == ["conn"]
    assert changed["label"] == (
        "changed: the code it names changed in 1 commit since (2 of 6 lines), on lines holding"
        " words of the note (conn)"
    )
    done = run_cli_proc("--kb", str(world.kb), "stale", cwd=world.code.path)
    assert "    src/pool.py:Pool: changed-elsewhere (conn)" in done.stdout
    # a line holding no word of the note: "in nothing the note names", and no names listed
    world.code.write("src/pool.py", pool.replace("limit = 10", "limit = 20")).commit("limit")
    [changed] = world.stale()["changed"]
    assert "names" not in changed["anchors"][0]
    assert changed["label"] == (
        "changed: the code it names changed in 2 commits since (1 of 4 lines), in nothing the"
        " note names"
    )
