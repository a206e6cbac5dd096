"""A note on a whole README or settings file is about the section that states it (a markdown
heading's, a YAML top-level key's, a TOML table's), against real git histories: a change in
another section is ``changed-elsewhere``, for ``stale`` and ``pr-notes`` alike; a change
inside the section still counts, its heading reworded or its key moved; a note whose names
stand in several sections, or in none alone, is read against the whole file as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.workflows.code.test_pr_notes import World
from tests.workflows.code.test_stale import World as StaleWorld

README = """# ferry

ferry reads TOML only: point it at a string or a file, users get a dict out.

## Install

    pip install ferry

## Usage

```python
# ferry reads TOML from a string
import ferry
ferry.loads(text)
```

## FAQ

### Is there a writer?

No: ferry only reads. Feather provides `dump` and `dumps` for writing.
"""
FAQ = (
    "Writing is out of scope: point users to Feather",
    "The FAQ answers the recurring request for dumps: ferry reads only, Feather provides dump",
)
# The introduction rewritten: it says words the FAQ note says (ferry, reads, only, point,
# users, out), as a README's other sections say its project's words, and says "point" twice.
INTRO = (
    "ferry reads TOML only: point it at a string or a file, users get a dict out.",
    "ferry reads TOML 1.0 and 1.1 only: point it at a string or a file, users get a dict out,\n"
    "and its errors point at the line.",
)


def _stale_world(tmp_path: Path, text: str, path: str = "README.md") -> StaleWorld:
    world = StaleWorld(tmp_path)
    world.code.write(path, text).commit("docs")
    return world


def _listed(doc: dict[str, Any], key: str) -> list[str]:
    return [entry["id"] for entry in doc[key]]


def test_a_section_added_elsewhere_is_changed_elsewhere_not_stale(tmp_path: Path) -> None:
    world = _stale_world(tmp_path, README)
    nid = world.add(*FAQ, "README.md")
    world.code.write("README.md", README.replace(*INTRO)).commit("intro")
    doc = world.stale()
    assert doc["stale"] == [] and _listed(doc, "changed") == [nid]
    # the answer itself changed: it no longer names dumps
    gone = README.replace("`dump` and `dumps`", "`dump`")
    world.code.write("README.md", gone.replace(*INTRO)).commit("dump")
    assert _listed(world.stale(), "stale") == [nid]


def test_a_section_reworded_in_its_heading_is_still_the_notes(tmp_path: Path) -> None:
    world = _stale_world(tmp_path, README)
    nid = world.add(*FAQ, "README.md")
    retitled = README.replace("### Is there a writer?", "### Can it write TOML files?")
    world.code.write("README.md", retitled.replace(*INTRO)).commit("title")
    assert world.stale()["stale"] == []
    # the same reworded section, its answer changed: found again, and stale
    changed = retitled.replace("Feather provides", "Feather and Quill provide")
    world.code.write("README.md", changed).commit("quill")
    assert _listed(world.stale(), "stale") == [nid]


def test_names_in_several_sections_read_the_whole_file(tmp_path: Path) -> None:
    world = _stale_world(tmp_path, README)
    # the note states as much of the install section (install, pip) as of the FAQ answer
    # (Feather, dump): no one section is its, and a change to either counts
    nid = world.add("Feather's dump and pip", "Install with pip; Feather has dump", "README.md")
    world.code.write("README.md", README.replace("pip install", "pipx install"))
    world.code.commit("install with pipx")
    assert _listed(world.stale(), "stale") == [nid]


def test_setext_headings_and_fenced_comments_are_read_as_markdown(tmp_path: Path) -> None:
    from reflectgit.notes.codediff import sections

    text = "Title\n=====\n\nintro\n\nNotes\n-----\n\n```sh\n# not a heading\n```\n\n---\n"
    assert [s.split("\n", 1)[0] for s in sections(text, "README.md")] == ["Title", "Notes"]
    assert sections(text, "notes.py") == [text]


TRAVIS = """language: node_js
node_js:
  - "10"
script:
  - npm run lint
  - npm test
"""
LINT = ("CI lints before it tests", "Travis runs npm run lint before npm test")


def test_a_yaml_key_moved_or_changed_beside_is_changed_elsewhere(tmp_path: Path) -> None:
    world = _stale_world(tmp_path, TRAVIS, ".travis.yml")
    nid = world.add(*LINT, ".travis.yml")
    # the script key moved to the top, and another node version tested with npm's latest
    moved = 'script:\n  - npm run lint\n  - npm test\nlanguage: node_js\nnode_js:\n  - "10"\n'
    moved += "before_install:\n  - npm install -g npm@latest\n"
    world.code.write(".travis.yml", moved).commit("npm latest")
    doc = world.stale()
    assert doc["stale"] == [] and _listed(doc, "changed") == [nid]
    # the tests now run before the lint: inside the section
    world.code.write(".travis.yml", moved.replace("npm run lint", "npm run tmp")).commit("order")
    assert _listed(world.stale(), "stale") == [nid]


PYPROJECT = """[project]
name = "ferry"
version = "1.0.0"

[tool.black]
line-length = 88

[tool.pytest.ini_options]
addopts = "--strict-markers"
testpaths = ["tests"]
"""


def test_pr_notes_reads_a_toml_table_as_the_notes_section(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("pyproject.toml", PYPROJECT).commit("project")
    nid = world.note(
        "pytest runs with strict markers",
        "addopts has --strict-markers: a typo in a marker fails the run; testpaths is tests",
        "pyproject.toml",
    )
    world.code.branch("version")
    # a release: the project's version and its black settings, never pytest's table
    bumped = PYPROJECT.replace('"1.0.0"', '"1.1.0"').replace("88", "100")
    world.code.write("pyproject.toml", bumped + "\n[tool.mypy]\nstrict = true\n").commit("1.1.0")
    assert world.pr() == []
    world.code.branch("markers")
    world.code.write("pyproject.toml", PYPROJECT.replace('"--strict-markers"', '""')).commit("lax")
    assert [n["id"] for n in world.pr("--head", "markers")] == [nid]
