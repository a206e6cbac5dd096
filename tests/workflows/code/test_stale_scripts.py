"""``reflect-git stale`` and ``pr-notes`` on scripts named without a suffix (``bin/deploy``,
``libexec/tool``): the first line, a shebang, tells the language (``languages.read_as``), so
a shell script's functions are its symbols and its ``#`` lines comments, a Python script's
docstrings document; a file without a suffix and without a shebang (``Makefile``) is read by
its name, as before."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import run_cli_proc
from tests.support.coderepo import git
from tests.support.codeworld import World

DEPLOY = """#!/usr/bin/env bash
set -euo pipefail

# Push the build to every host, one at a time.
deploy() {
  local host
  for host in "$@"; do
    rsync -a build/ "$host:/srv/app/"
  done
  echo "deployed"
}

function rollback {
  ssh "$1" 'ln -sfn /srv/app.prev /srv/app'
}

deploy "$@"
"""

SYNC = """#!/usr/bin/env python3
import sys


def main(argv):
    \"\"\"Copy each file named to the mirror.\"\"\"
    for name in argv:
        copy(name, "/mirror")
    return 0


def copy(name, where):
    print(name, where)


sys.exit(main(sys.argv[1:]))
"""

MAKEFILE = """# Build the man pages.

man: docs/bats.1
\tronn --roff docs/bats.1.ronn

# Install under PREFIX.

install:
\tinstall -d $(PREFIX)/bin
"""


def _flagged(world: World) -> list[str]:
    return [e["id"] for e in world.stale()["stale"]]


def test_a_function_of_a_shell_script_is_flagged_when_its_body_changes(world: World) -> None:
    world.code.write("bin/deploy", DEPLOY).commit("deploy script")
    nid = world.add(
        "deploy syncs hosts one at a time",
        "deploy runs rsync to each host in turn",
        "bin/deploy:deploy",
    )
    # another function changed: the note's is as it was
    world.code.write("bin/deploy", DEPLOY.replace("app.prev", "app.old")).commit("rollback")
    assert _flagged(world) == []
    # a comment and the quoting of a word changed in deploy: the same code
    layout = DEPLOY.replace("  local host\n", "  local host  # the target\n")
    world.code.write("bin/deploy", layout.replace('"deployed"', "'deployed'")).commit("comment")
    assert _flagged(world) == []
    # its body changed: stale
    world.code.write("bin/deploy", layout.replace("rsync -a", "scp -r")).commit("x")
    assert _flagged(world) == [nid]


def test_a_function_written_with_the_function_word_is_a_symbol(world: World) -> None:
    world.code.write("libexec/tool", DEPLOY).commit("tool")
    nid = world.add(
        "rollback relinks app.prev", "rollback points the link back", "libexec/tool:rollback"
    )
    world.code.write("libexec/tool", DEPLOY.replace("rsync -a", "rsync -az")).commit("deploy")
    assert _flagged(world) == []
    world.code.write("libexec/tool", DEPLOY.replace("app.prev", "app.old")).commit("rollback")
    assert _flagged(world) == [nid]


def test_a_python_script_without_a_suffix_reads_its_docstrings_as_documentation(
    world: World,
) -> None:
    world.code.write("bin/sync", SYNC).commit("sync")
    nid = world.add(
        "main copies each file to the mirror",
        "main calls copy for each name, to /mirror",
        "bin/sync:main",
    )
    # its docstring and a comment changed, naming what the note states: the same code
    documented = SYNC.replace("to the mirror.", "to /mirror with copy, in order.").replace(
        "        copy(name", "        # copy keeps the name\n        copy(name"
    )
    world.code.write("bin/sync", documented).commit("docstring")
    assert _flagged(world) == []
    world.code.write("bin/sync", documented.replace('"/mirror"', '"/backup"')).commit("backup")
    assert _flagged(world) == [nid]


def test_a_makefile_without_a_shebang_is_still_read_by_paragraph(world: World) -> None:
    world.code.write("Makefile", MAKEFILE).commit("makefile")
    nid = world.add("man pages are built with ronn", "the man target runs ronn --roff", "Makefile")
    # another paragraph changed: the one the note states did not
    world.code.write("Makefile", MAKEFILE.replace("install -d", "install -m 755 -d")).commit("i")
    assert _flagged(world) == []
    world.code.write("Makefile", MAKEFILE.replace("ronn --roff", "pandoc -s -t man")).commit("m")
    assert _flagged(world) == [nid]


def _from_main(world: World, branch: str) -> None:
    git("checkout", "-q", "main", cwd=world.code.path)
    world.code.branch(branch)


def _pr(world: World) -> list[str]:
    done = run_cli_proc(
        "--kb", str(world.kb), "--json", "pr-notes", "--repo", str(world.code.path),
        "--base", "main",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    notes: list[dict[str, Any]] = json.loads(done.stdout)["notes"]
    return [n["id"] for n in notes]


def test_pr_notes_lists_a_note_on_a_script_function_only_when_it_changes(world: World) -> None:
    world.code.write("bin/deploy", DEPLOY).commit("deploy script")
    nid = world.add(
        "deploy syncs hosts one at a time",
        "deploy runs rsync to each host in turn",
        "bin/deploy:deploy",
    )
    world.code.branch("rollback")
    world.code.write("bin/deploy", DEPLOY.replace("app.prev", "app.old")).commit("rollback")
    assert nid not in _pr(world)
    _from_main(world, "comment")
    world.code.write("bin/deploy", DEPLOY.replace("  local host\n", "  local host  # a\n"))
    world.code.commit("comment")
    assert nid not in _pr(world)
    _from_main(world, "parallel")
    world.code.write("bin/deploy", DEPLOY.replace("rsync -a", "scp -r"))
    world.code.commit("scp")
    assert _pr(world) == [nid]
