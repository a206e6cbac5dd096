from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import jsonschema
import pytest

from reflectgit.errors import NoteError
from reflectgit.notes import schema
from reflectgit.notes.note import RANKING_FIELDS, parse_note, parse_sidecar
from reflectgit.notes.schema import (
    NOTE_SCHEMA,
    SIDECAR_SCHEMA,
    is_valid_fast,
    is_valid_reference,
    to_json_value,
    validate_note_bytes,
    validate_sidecar_bytes,
)
from reflectgit.workflows.validation import validate_file
from tests.conftest import DATA, REPO_ROOT, SHARED

VALID_DIR = DATA / "notes" / "valid"
INVALID_DIR = DATA / "notes" / "invalid"
COMPAT_DIR = DATA / "compat"


def corpus(*folders: Path) -> list[Path]:
    return sorted(
        p for folder in folders for p in folder.iterdir() if schema.kind_of_path(p) is not None
    )


VALID = corpus(VALID_DIR, COMPAT_DIR)
INVALID = corpus(INVALID_DIR)
EVERYTHING = corpus(VALID_DIR, INVALID_DIR, COMPAT_DIR)


def note(text: str) -> list[schema.Problem]:
    return validate_note_bytes(text.encode("utf-8"), "n.md")


def sidecar(text: str, strict: bool = False) -> list[schema.Problem]:
    return validate_sidecar_bytes(text.encode("utf-8"), "s.entities.yaml", strict=strict)


# --------------------------------------------------------------------------- the schema files


@pytest.mark.parametrize("name", [NOTE_SCHEMA, SIDECAR_SCHEMA])
def test_packaged_schema_is_identical_to_the_repository_copy(name):
    packaged = (REPO_ROOT / "reflectgit" / "schemas" / name).read_bytes()
    assert (REPO_ROOT / "schemas" / name).read_bytes() == packaged
    assert schema.load_schema(name) == json.loads(packaged)


@pytest.mark.parametrize("name", [NOTE_SCHEMA, SIDECAR_SCHEMA])
def test_schemas_are_valid_draft_2020_12(name):
    doc = schema.load_schema(name)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(doc)


def test_enums_are_the_closed_sets_of_the_design():
    design = (SHARED / "DESIGN.md").read_text(encoding="utf-8")
    relation_line = re.search(r"14 relationship types \(([^)]*)\)", design.replace("\n", " "))
    assert relation_line
    design_relations = [w.strip() for w in relation_line.group(1).split(",")]
    assert list(schema.RELATIONSHIP_TYPES) == design_relations
    front = schema.load_schema(NOTE_SCHEMA)
    side = schema.load_schema(SIDECAR_SCHEMA)
    assert front["$defs"]["relationshipType"]["enum"] == design_relations
    assert side["$defs"]["relationshipType"]["enum"] == design_relations
    assert side["$defs"]["entityType"]["enum"] == list(schema.ENTITY_TYPES)
    assert len(schema.ENTITY_TYPES) == 13
    for entity_type in schema.ENTITY_TYPES:
        assert entity_type in design
    forbidden = sorted(k for k, v in front["properties"].items() if v is False)
    assert forbidden == sorted(RANKING_FIELDS)


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("path", VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_valid_corpus_file_passes(path):
    assert validate_file(path) == []


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_every_invalid_corpus_file_fails_with_a_location(path):
    problems = validate_file(path, display=path.name)
    assert problems, f"{path.name} should not validate"
    for problem in problems:
        assert problem.file == path.name
        assert problem.line >= 1 and problem.column >= 1
        assert len(problem.message) > 15


# name -> (line, column, field, a fragment of the message)
EXPECTED = {
    "bad-causal-type.md": (8, 11, "causal_relations[0].type", "is not a relationship type"),
    "bad-confidence.md": (4, 13, "confidence", "'certain' is not a tier; write one of high"),
    "bad-created.md": (3, 10, "created", "'last tuesday' is not an ISO date or timestamp"),
    "bad-entity-type.entities.yaml": (4, 11, "entities[0].type", "'spaceship' is not an entity"),
    "bad-strength.entities.yaml": (15, 15, "relationships[0].strength", "from 1 to 10"),
    "billion-laughs.md": (2, 1, "", "aliases expand"),
    "binary.md": (1, 1, "", "binary file"),
    "confidence-num-out-of-range.md": (5, 17, "confidence_num", "use a number from 0 to 1"),
    "duplicate-keys.md": (3, 1, "", "duplicate key 'title' (first defined on line 2)"),
    "duplicate-tags.md": (5, 11, "tags[1]", "'a' is listed twice"),
    "empty-title.md": (2, 8, "title", "must not be empty"),
    "forbidden-id-path.md": (2, 5, "id", "is not a safe file name"),
    "from-to.entities.yaml": (7, 5, "relationships[0].from", "use 'source' instead of 'from'"),
    "frontmatter-is-a-list.md": (2, 1, "", "not a mapping"),
    "latin1.md": (2, 12, "", "not UTF-8"),
    "missing-title.md": (1, 1, "title", "is required; add `title:"),
    "no-frontmatter.md": (1, 1, "", "no frontmatter"),
    "python-tag-injection.md": (2, 8, "", "python/object"),
    "ranking-field-s9.md": (5, 1, "recall_count", "ranking field (rule S9)"),
    "tvalid-end-before-start.entities.yaml": (12, 17, "relationships[0].tvalid_end", "before"),
    "unclosed-frontmatter.md": (1, 1, "", "never closed"),
    "uppercase-confidence.md": (4, 13, "confidence", "'HIGH' is not allowed; write 'high'"),
    "yaml-syntax-error.md": (5, 1, "", "invalid YAML"),
}


def test_expectations_cover_the_whole_invalid_corpus():
    assert sorted(EXPECTED) == sorted(p.name for p in INVALID)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_invalid_corpus_problem_points_at_the_line(name):
    line, column, field, fragment = EXPECTED[name]
    problems = validate_file(INVALID_DIR / name)
    first = problems[0]
    assert (first.line, first.column, first.field) == (line, column, field), problems
    assert fragment in first.message


def test_from_to_reports_both_keys_and_no_missing_source():
    problems = validate_file(INVALID_DIR / "from-to.entities.yaml")
    assert [(p.line, p.field) for p in problems] == [
        (7, "relationships[0].from"),
        (8, "relationships[0].to"),
    ]


# --------------------------------------------------------------------------- two validators agree


def _instances() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for path in EVERYTHING:
        kind = schema.kind_of_path(path)
        try:
            if kind == "note":
                data = parse_note(path.read_bytes(), str(path)).frontmatter
            else:
                data = parse_sidecar(path.read_bytes(), str(path)).data
        except NoteError:
            continue
        out.append((NOTE_SCHEMA if kind == "note" else SIDECAR_SCHEMA, to_json_value(data)))
    return out


def test_fast_and_reference_validators_agree_on_every_corpus_file():
    instances = _instances()
    assert len(instances) > 60
    verdicts = set()
    for name, instance in instances:
        fast, reference = is_valid_fast(instance, name), is_valid_reference(instance, name)
        assert fast == reference, (name, instance)
        verdicts.add(fast)
    assert verdicts == {True, False}


@pytest.mark.parametrize(
    "front",
    [
        {"title": "t", "created": "2026-03-04", "confidence": "high", "id": ".hidden"},
        {"title": "t", "created": "2026-03-04", "confidence": "high", "id": "a..b"},
        {"title": "t", "created": "2026-03-04", "confidence": "high", "id": "a\\b"},
        {"title": "t", "created": "2026-03-04", "confidence": "high", "id": "tab\there"},
        {"title": "t", "created": "2026-03-04", "confidence": "high", "id": " pad"},
        {"title": "t", "created": "2026-03-04", "confidence": "high", "id": "lrn-ok-a1b2c3"},
        {"title": "  ", "created": "2026-03-04", "confidence": "high"},
        {"title": "t", "created": "2026-02-30T25:00:00Z", "confidence": "high"},
        {"title": "t", "created": "2026-02-03 10:00", "confidence": "low"},
        {"title": "t", "created": "2026-02-03T10:00:00.123+0530", "confidence": "low"},
        {"title": "t", "created": "2026-03-04", "confidence": "low", "tags": [""]},
        {"title": "t", "created": "2026-03-04", "confidence": "low", "forget_after": None},
        {"title": "t", "created": "2026-03-04", "confidence": "low", "discovery_tokens": 1.5},
        {"title": "t", "created": "2026-03-04", "confidence": "low", "maturity": "x"},
        {"title": "t", "created": "2026-03-04", "confidence": "low", "provenance": []},
    ],
)
def test_fast_and_reference_validators_agree_on_edge_cases(front):
    assert is_valid_fast(front, NOTE_SCHEMA) == is_valid_reference(front, NOTE_SCHEMA)


@pytest.mark.parametrize("path", corpus(VALID_DIR, INVALID_DIR, COMPAT_DIR), ids=lambda p: p.name)
def test_fast_frontmatter_is_exactly_what_the_full_parser_reads(path):
    if schema.kind_of_path(path) != "note":
        return
    quick = schema.fast_frontmatter(path.read_bytes())
    try:
        full = to_json_value(parse_note(path.read_bytes()).frontmatter)
    except NoteError:
        assert quick is None
        return
    if path.parent != INVALID_DIR:
        assert quick is not None, "plain valid notes take the fast path"
    assert quick is None or quick == full


@pytest.mark.parametrize(
    "front",
    [
        "a: &x 1\nb: *x\n",
        "<<: {title: t}\ncreated: 2026-03-04\n",
        "title: !!str 12\n",
        "title: !!binary aGVsbG8=\n",
        "tags: !!set {a: null}\n",
        "provenance: {1: x}\n",
        "[a]: b\n",
        "x: =\n",
        "",
        "title: t\ntitle: u\n",
        "t: 2026-3-4\nf: 1e3\ng: 0x1F\nh: .inf\ni: ~\nj: yes\nk: 1_000\nl: 0o7\n",
        "nested: {a: [1, {b: 2026-03-04 10:00:00}]}\n",
    ],
)
def test_fast_frontmatter_never_disagrees_with_the_full_parser(front):
    data = f"---\n{front}---\nbody\n".encode()
    quick = schema.fast_frontmatter(data)
    try:
        full = to_json_value(parse_note(data).frontmatter)
    except NoteError:
        assert quick is None
        return
    assert quick is None or quick == full


# --------------------------------------------------------------------------- notes


def test_dates_pass_whether_yaml_made_a_string_a_date_or_a_timestamp():
    for created in (
        '"2026-03-04"',
        "2026-03-04",
        "2026-03-04T09:12:00Z",
        "2026-03-04 09:12:00+01:00",
    ):
        assert note(f"---\ntitle: t\ncreated: {created}\nconfidence: high\n---\n") == []
    front = {"title": "t", "confidence": "high", "created": dt.date(2026, 3, 4)}
    assert to_json_value(front)["created"] == "2026-03-04"
    stamp = dt.datetime(2026, 3, 4, 9, 12, tzinfo=dt.timezone.utc)
    assert to_json_value({"x": [stamp]}) == {"x": ["2026-03-04T09:12:00+00:00"]}


@pytest.mark.parametrize("value", ['"2026-13-01"', '"04/03/2026"', '"yesterday"', "20260304"])
def test_dates_that_are_not_iso_are_rejected(value):
    problems = note(f"---\ntitle: t\ncreated: {value}\nconfidence: high\n---\n")
    assert [p.field for p in problems] == ["created"]
    assert problems[0].line == 3


@pytest.mark.parametrize(
    "value,fix", [("HIGH", "'high'"), ("Med", "'medium'"), ("h", "'high'"), ("L", "'low'")]
)
def test_confidence_alias_names_the_value_to_write(value, fix):
    problems = note(f"---\ntitle: t\ncreated: 2026-03-04\nconfidence: {value}\n---\n")
    assert len(problems) == 1
    assert problems[0].message == f"{value!r} is not allowed; write {fix}"


def test_numeric_confidence_points_at_confidence_num():
    (problem,) = note("---\ntitle: t\ncreated: 2026-03-04\nconfidence: 0.9\n---\n")
    assert "confidence_num" in problem.message


def test_every_problem_of_a_note_is_reported_in_line_order():
    text = (
        "---\n"
        "title: t\n"
        "created: soon\n"
        "confidence: sure\n"
        "tags: [x, y, x]\n"
        "causal_relations:\n"
        "  - source: a\n"
        "    type: causes\n"
        "importance: 3\n"
        "forget_after: never\n"
        "---\nbody\n"
    )
    problems = note(text)
    assert [(p.line, p.field) for p in problems] == [
        (3, "created"),
        (4, "confidence"),
        (5, "tags[2]"),
        (7, "causal_relations[0].target"),
        (9, "importance"),
        (10, "forget_after"),
    ]
    assert "is required" in problems[3].message


def test_crlf_and_bom_keep_line_numbers():
    data = "\ufeff---\r\ntitle: t\r\ncreated: 2026-03-04\r\nconfidence: maybe\r\n---\r\n".encode()
    (problem,) = validate_note_bytes(data, "w.md")
    assert (problem.line, problem.column) == (4, 13)


def test_missing_fields_point_at_the_frontmatter_block():
    problems = note("---\ncategory: x\n---\n")
    assert [(p.line, p.column, p.field) for p in problems] == [
        (1, 1, "confidence"),
        (1, 1, "created"),
        (1, 1, "title"),
    ]


def test_type_errors_say_what_was_found():
    (problem,) = note("---\ntitle: 42\ncreated: 2026-03-04\nconfidence: low\n---\n")
    assert problem.field == "title"
    assert problem.message == "expected a string, got a whole number (42)"


def test_extra_keys_are_allowed():
    assert (
        note("---\ntitle: t\ncreated: 2026-03-04\nconfidence: low\nmy_team_field: 3\n---\n") == []
    )


# --------------------------------------------------------------------------- sidecars

SIDECAR_OK = """document_id: lrn-x
extracted_at: 2026-03-04T09:12:00Z
entities:
  - name: a
    type: library
    description: ""
  - name: b
    type: service
    description: the b service
relationships:
  - source: a
    target: b
    type: uses
    description: ""
    strength: 10
    tvalid: 2026-01-10
    tvalid_end: 2026-01-10T00:00:00Z
"""


def test_a_full_sidecar_passes_strict():
    assert sidecar(SIDECAR_OK, strict=True) == []


def test_strict_sidecar_needs_document_id_extracted_at_and_known_endpoints():
    text = SIDECAR_OK.replace("document_id: lrn-x\n", "").replace("target: b", "target: c")
    assert sidecar(text) == []
    problems = sidecar(text, strict=True)
    assert [(p.line, p.field) for p in problems] == [
        (1, "document_id"),
        (11, "relationships[0].target"),
    ]
    assert "'c' is not a listed entity" in problems[1].message


def test_tvalid_end_compares_instants_across_timezones():
    base = SIDECAR_OK.replace("tvalid: 2026-01-10", 'tvalid: "2026-01-10T10:00:00+02:00"')
    ok = base.replace("tvalid_end: 2026-01-10T00:00:00Z", 'tvalid_end: "2026-01-10T08:00:00Z"')
    assert sidecar(ok) == []
    bad = base.replace("tvalid_end: 2026-01-10T00:00:00Z", 'tvalid_end: "2026-01-10T07:59:00Z"')
    (problem,) = sidecar(bad)
    assert (problem.line, problem.field) == (17, "relationships[0].tvalid_end")


def test_strength_must_be_a_whole_number():
    (problem,) = sidecar(SIDECAR_OK.replace("strength: 10", "strength: 2.5"))
    assert problem.message == "expected a whole number, got a number (2.5)"


def test_sidecar_that_is_not_a_mapping():
    (problem,) = sidecar("- a\n- b\n")
    assert (problem.line, problem.field) == (1, "")
    assert "mapping" in problem.message
