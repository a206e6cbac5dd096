"""A sweeping mechanical edit (``notes/sweeps.py``): one commit making the same substitution in
many places is no change to a note's lesson, for ``stale`` and for ``pr-notes``, against real
git histories. Each with what must still count: the substitution made in one place, a note
that states what the sweep replaced, and a sweep plus another edit in the same block."""

from __future__ import annotations

from pathlib import Path

from tests.support.codeworld import World

# Three functions apart from each other (unchanged code between them: three hunks).
PARSE_PY = """import re


def parse_id(s):
    if re.match(r"^[0-9]+$", s):
        return int(s)
    return None


def helper():
    return 1


def parse_name(s):
    if re.match(r"^[a-z]+$", s):
        return s
    return None


def other():
    return 2


def parse_tag(s):
    if re.match(r"^#[a-z]+$", s):
        return s[1:]
    return None
"""
ID_NOTE = "parse_id returns None for text that is not all digits"


def swept(text: str) -> str:
    """Every regex's ``$`` become ``\\Z`` (end of string only)."""
    return text.replace('+$", s)', '+\\Z", s)')


def ids(entries: list[dict[str, object]]) -> set[object]:
    return {e["id"] for e in entries}


def flagged(world: World) -> set[object]:
    doc = world.stale()
    return ids(doc["stale"]) | ids(doc["changed"])


def test_stale_reads_a_sweep_as_a_respelling(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.note(ID_NOTE, "src/parse.py:parse_id")
    world.code.write("src/parse.py", swept(PARSE_PY)).commit("match the end of string only")
    assert nid not in flagged(world)


def test_stale_counts_the_same_substitution_made_in_one_place(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.note(ID_NOTE, "src/parse.py:parse_id")
    once = PARSE_PY.replace('[0-9]+$", s)', '[0-9]+\\Z", s)')
    world.code.write("src/parse.py", once).commit("parse_id: end of string only")
    assert nid in flagged(world)


def test_stale_counts_a_sweep_of_what_the_note_states(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.add(
        "parse_id anchors its regex with $",
        "parse_id matches with `$`, which also matches before a final newline",
        "src/parse.py:parse_id",
    )
    world.code.write("src/parse.py", swept(PARSE_PY)).commit("match the end of string only")
    assert nid in flagged(world)


def test_stale_counts_a_sweep_plus_another_edit_in_the_block(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.note(ID_NOTE, "src/parse.py:parse_id")
    more = swept(PARSE_PY).replace("    return None\n", "    return -1\n", 1)
    world.code.write("src/parse.py", more).commit("end of string; -1 for a bad id")
    assert nid in flagged(world)


def test_pr_notes_takes_a_sweep_as_no_evidence_and_one_place_as_evidence(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.add(ID_NOTE, "parse_id returns None unless every character is a digit",
                     "src/parse.py:parse_id")  # fmt: skip
    world.code.branch("sweep")
    world.code.write("src/parse.py", swept(PARSE_PY)).commit("match the end of string only")
    assert nid not in ids(world.pr())
    world.code.branch("once")
    once = swept(PARSE_PY).replace("[0-9]+", "[0-9a-f]+")  # only in parse_id
    world.code.write("src/parse.py", once).commit("hex ids")
    assert nid in ids(world.pr("--head", "once"))


def test_pr_notes_counts_a_sweep_of_what_the_note_states(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.add("parse_id anchors its regex with $",
                     "parse_id matches with `$`, which also matches before a final newline",
                     "src/parse.py:parse_id")  # fmt: skip
    world.code.branch("sweep")
    world.code.write("src/parse.py", swept(PARSE_PY)).commit("match the end of string only")
    assert nid in ids(world.pr())


HELPERS_PY = """def load(name):
    return read_path(name)


def helper():
    return 1


def save(name, data):
    return write(read_path(name), data)


def other():
    return 2


def remove(name):
    return unlink(read_path(name))
"""


def test_a_helper_renamed_everywhere_counts_only_for_a_note_naming_it_as_code(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    world.code.write("src/files.py", HELPERS_PY).commit("files")
    prose = world.add("load reads the whole file", "load reads the named path whole, once",
                      "src/files.py:load")  # fmt: skip
    code = world.add("load goes through read_path", "load calls read_path, which expands ~",
                     "src/files.py:load")  # fmt: skip
    world.code.write("src/files.py", HELPERS_PY.replace("read_path(", "resolved_path("))
    world.code.commit("rename read_path to resolved_path")
    found = flagged(world)
    # "path" in prose is no name of the code; read_path is the helper the sweep renamed
    assert prose not in found and code in found


def test_an_operator_changed_everywhere_is_no_sweep(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.code.write("src/parse.py", PARSE_PY).commit("parsers")
    nid = world.note(ID_NOTE, "src/parse.py:parse_id")
    # every pattern's + become *: what each matches changed (an empty string now matches)
    world.code.write("src/parse.py", PARSE_PY.replace(']+$"', ']*$"')).commit("allow empty")
    assert nid in flagged(world)
