"""The fast folder-tree diff agrees with git on big trees, and falls back when it must."""

from __future__ import annotations

import hashlib
import random
import subprocess
from pathlib import Path

import pytest

from reflectgit.git.change import delete, write
from reflectgit.git.store import Store
from reflectgit.git.treediff import RAW_TREES_KEPT, SMALL, _diff_maps, diff_raw, entries
from reflectgit.workflows.search import build as search_build
from reflectgit.workflows.search.build import changed_files
from reflectgit.workflows.search.index import Index
from reflectgit.workflows.search.storage import index_path
from tests.conftest import git


def raw_tree(files: dict[bytes, bytes]) -> bytes:
    return b"".join(
        b"100644 " + name + b"\0" + hashlib.sha1(data).digest()
        for name, data in sorted(files.items())
    )


def _no_git(*args: object) -> object:
    raise AssertionError("fell back to git diff-tree")


def test_diff_raw_matches_a_full_parse_on_random_edits() -> None:
    rng = random.Random(7)
    base = {f"lrn-{i:05d}.md".encode(): str(i).encode() for i in range(5000)}
    names = sorted(base)
    edits = [names[0], names[-1], names[len(names) // 2]]
    for trial in range(200):
        new = dict(base)
        for _ in range(rng.choice([1, 1, 2, 4])):
            key = edits[trial % 3] if trial < 30 else rng.choice(names)
            roll = rng.random()
            if roll < 0.4:
                new[key] = f"changed {rng.random()}".encode()
            elif roll < 0.7:
                new.pop(key, None)
            else:
                new[f"lrn-{rng.randrange(9000):05d}{'x' * rng.randrange(40)}.md".encode()] = b"n"
        old_raw, new_raw = raw_tree(base), raw_tree(new)
        assert len(old_raw) > SMALL
        assert diff_raw(old_raw, new_raw) == _diff_maps(entries(old_raw), entries(new_raw))


def test_refresh_of_a_big_folder_agrees_with_git_diff_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb"
    notes = {
        f"documents/n{i:05d}.md": f"---\ntitle: note {i}\n---\nbody{i}\n".encode()
        for i in range(2000)
    }
    with Store.init(kb) as store:
        store.commit([write(p, d) for p, d in notes.items()], "many notes")
    state = tmp_path / "state"
    rng = random.Random(3)
    with Store.open(kb) as store, Index.open(index_path(state)) as index:
        index.refresh(store)
        kept = list(state.glob("search.tree.documents.*"))  # the folder tree is kept, by id
        folder = git("rev-parse", "HEAD:documents", cwd=kb).strip()
        assert [k.name for k in kept] == [f"search.tree.documents.{folder}"]
        for step in range(8):
            old = store.tree_id()
            picks = rng.sample(sorted(notes), 3)
            changes = [
                write(picks[0], notes[picks[0]] + f"edit{step}\n".encode()),
                delete(picks[1]),
                write(f"documents/new{step}.md", f"---\ntitle: fresh{step}\n---\n".encode()),
            ]
            if step % 4 == 0:
                changes.append(write("archived/a.md", f"---\ntitle: a{step}\n---\n".encode()))
            store.commit(changes, f"step {step}")
            expected = changed_files(store, old or "", store.tree_id() or "")
            with monkeypatch.context() as m:
                m.setattr(search_build, "changed_files", _no_git)  # the fast path must answer
                found, _keep = index._changes(store, old or "", store.tree_id() or "")
            assert sorted(found) == sorted(expected)
            result = index.refresh(store)
            assert result.changed == len({p.replace(".entities.yaml", ".md") for p, *_ in expected})
            notes.pop(picks[1])
        assert index.search(f"fresh{step}").hits[0].id == f"new{step}"
        assert index.count() == len(notes) + 8 + 1
        folder = git("rev-parse", "HEAD:documents", cwd=kb).strip()
        kept = sorted(p.name for p in state.glob("search.tree.documents*"))
        assert kept == [f"search.tree.documents.{folder}"]  # only the latest, no leftovers
        # Our commits kept their big folder tree raw (the last few), byte for byte git's object.
        raw = sorted((kb / ".git" / "reflect-git" / "raw-trees").iterdir())
        assert 1 <= len(raw) <= RAW_TREES_KEPT and folder in [p.name for p in raw]
        git_raw = subprocess.run(
            ["git", "cat-file", "tree", folder], cwd=kb, capture_output=True, check=True
        ).stdout
        assert (kb / ".git" / "reflect-git" / "raw-trees" / folder).read_bytes() == git_raw
    # A packed repository takes the git path and still agrees.
    git("gc", "-q", "--prune=now", cwd=kb)
    with Store.open(kb) as store, Index.open(index_path(state)) as index:
        store.commit([write("documents/n00001.md", b"---\ntitle: packed edit\n---\n")], "x")
        assert index.refresh(store).changed == 1
        assert index.search("packed edit").hits[0].id == "n00001"
