"""The schema validators compiled ahead of time (notes/validators.py, from notes/schema_code.py).

Regenerating gives the checked-in code; the generated code and jsonschema (Draft 2020-12)
agree on every corpus note and sidecar; nothing compiles a schema when a note is validated.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reflectgit.errors import NoteError
from reflectgit.notes import schema, schema_code
from reflectgit.notes.note import parse_note, parse_sidecar
from reflectgit.notes.schema import (
    NOTE_SCHEMA,
    SIDECAR_SCHEMA,
    is_valid_reference,
    load_schema,
    to_json_value,
)
from reflectgit.notes.validators import VALIDATORS, Invalid
from tests.conftest import DATA, REPO_ROOT

GENERATED = REPO_ROOT / "reflectgit" / "notes" / "validators.py"
REGENERATE = (
    "python -c 'import pathlib, reflectgit.notes.schema_code as c; "
    'pathlib.Path("reflectgit/notes/validators.py").write_text(c.source())\''
)
# Every note and sidecar of the shared corpus: valid, invalid, compat, and any other folder.
CORPUS = sorted(p for p in DATA.rglob("*") if p.is_file() and schema.kind_of_path(p) is not None)


def test_regenerating_gives_the_checked_in_code():
    assert GENERATED.read_text(encoding="utf-8") == schema_code.source(), (
        f"reflectgit/notes/validators.py is out of date; regenerate it: {REGENERATE}"
    )


def test_the_generated_code_follows_the_schema_it_was_made_from():
    """The comparison above can fail: another schema gives other code, which judges otherwise."""
    changed = {name: copy.deepcopy(load_schema(name)) for name in schema_code.SCHEMAS}
    changed[NOTE_SCHEMA]["properties"]["title"] = {"type": "string", "maxLength": 5}
    text = schema_code.source(changed)
    assert text != GENERATED.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {}
    exec(compile(text, "<generated>", "exec"), namespace)
    note = {"title": "a long title", "created": "2026-03-04", "confidence": "high"}
    VALIDATORS[NOTE_SCHEMA](note)  # the real schema accepts it
    with pytest.raises(namespace["Invalid"]):
        namespace["VALIDATORS"][NOTE_SCHEMA](note)


def _instance(path: Path) -> tuple[str, Any] | None:
    try:
        if schema.kind_of_path(path) == "note":
            return NOTE_SCHEMA, to_json_value(parse_note(path.read_bytes(), str(path)).frontmatter)
        return SIDECAR_SCHEMA, to_json_value(parse_sidecar(path.read_bytes(), str(path)).data)
    except NoteError:
        return None  # not YAML a schema could judge: the parser's error stands


def _generated_says(name: str, instance: Any) -> bool:
    try:
        VALIDATORS[name](instance)
    except Invalid:
        return False
    return True


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(DATA)))
def test_the_generated_code_and_jsonschema_agree_on_the_corpus_file(path):
    found = _instance(path)
    if found is None:
        pytest.skip("not parseable YAML: no schema verdict to compare")
    name, instance = found
    assert _generated_says(name, instance) == is_valid_reference(instance, name)


def test_the_corpus_holds_valid_and_invalid_notes_and_sidecars():
    folders = {p.relative_to(DATA).parts[0] for p in CORPUS}
    assert {"notes", "compat"} <= folders and len(CORPUS) > 80
    verdicts = {
        (found[0], _generated_says(*found)) for found in map(_instance, CORPUS) if found is not None
    }
    assert verdicts == {(n, v) for n in (NOTE_SCHEMA, SIDECAR_SCHEMA) for v in (True, False)}


def test_validating_a_note_compiles_nothing(tmp_path):
    note = next(p for p in CORPUS if p.parent.name == "valid" and p.suffix == ".md")
    probe = (
        "import json, sys\n"
        "from reflectgit.workflows.validation import validate_file\n"
        f"assert validate_file({str(note)!r}) == []\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    modules = json.loads(out.stdout)
    assert "reflectgit.notes.validators" in modules
    assert not [m for m in modules if m.split(".")[0] in {"fastjsonschema", "jsonschema"}]
