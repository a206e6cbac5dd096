"""The plain YAML reader (notes/plainyaml.py) and the quick yes built on it (notes/quickcheck.py)
against PyYAML and the full validation path: the same values wherever the reader answers, the
same problems, lines and columns for every file."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflectgit.errors import NoteError
from reflectgit.notes import plainyaml, quickcheck, report, schema
from reflectgit.notes.note import (
    Note,
    decode_text,
    dump_yaml,
    load_yaml,
    parse_note,
    render_note,
    split_frontmatter,
)
from reflectgit.notes.schema import to_json_value
from reflectgit.workflows.validation import validate_file
from tests.conftest import DATA, TEST_DATA, needs_shared, type_tree

FOLDERS = [DATA / "notes" / "valid", DATA / "notes" / "invalid", DATA / "compat"]
EVERY_FILE = sorted(
    p
    for folder in FOLDERS
    if folder.is_dir()
    for p in folder.iterdir()
    if schema.kind_of_path(p) is not None
)
VALID = [p for p in EVERY_FILE if p.parent.name != "invalid"]


def reference(text: str) -> object:
    """What PyYAML (the strict loader) reads, as the validator sees it; NoteError if it refuses."""
    return to_json_value(load_yaml(text))


def yaml_text_of(path: Path) -> str:
    data = path.read_bytes()
    text = decode_text(data, path.name)
    if schema.kind_of_path(path) == "sidecar":
        return text.replace("\r\n", "\n")
    return split_frontmatter(text, path.name)[0]


def agrees(text: str) -> object:
    """The reader's value for ``text``, asserted to be PyYAML's whenever it is not None."""
    mine = plainyaml.json_value(text)
    try:
        theirs = reference(text)
    except (NoteError, ValueError, TypeError):  # PyYAML refuses it (a bad date: ValueError)
        assert mine is None, (text, mine)
        return None
    if mine is not None:
        assert mine == theirs, (text, mine, theirs)
        assert type(mine) is type(theirs)
        assert type_tree(mine) == type_tree(theirs), text  # True is not 1, 1.0 is not 1
    return mine


REFUSED_CLASS = "[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufeff\ufffe\uffff]"


@pytest.mark.parametrize("beyond_ascii", ["", "é"])
def test_the_refused_characters_are_found_in_ascii_text_without_the_pattern(beyond_ascii):
    """ASCII text is judged by ``isprintable``, other text by the pattern: both find exactly
    the characters of the class the module documents, one at a time and among others."""
    chars = [chr(c) for c in range(128)] + ["\x85", "\u2028", "\ud800", "\ufeff", "\uffff", "é"]
    for ch in chars:
        for text in (ch, f"a: b{ch}\nc: d{beyond_ascii}\n"):
            expected = re.search(REFUSED_CLASS, text) is not None
            assert plainyaml.refused(text) is expected, (text, expected)
    assert plainyaml.refused("a: b\n\n") is False  # newlines are what YAML is made of
    assert plainyaml.refused("a: b\tc\n") is True  # a tab is the reader's to refuse


# --------------------------------------------------------------------------- the corpus


@needs_shared
@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reader_gives_pyyamls_value_for_every_corpus_file(path):
    try:
        text = yaml_text_of(path)
    except NoteError:
        return  # no frontmatter, not UTF-8: no YAML to read
    agrees(text)


@needs_shared
@pytest.mark.parametrize("path", VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_valid_corpus_file_is_read_without_pyyaml(path):
    assert plainyaml.json_value(yaml_text_of(path)) is not None
    if schema.kind_of_path(path) == "note":
        assert quickcheck.note_is_valid(path.read_bytes())
    else:
        assert quickcheck.sidecar_is_valid(path.read_bytes())


@needs_shared
def test_notes_reflect_git_writes_are_read_without_pyyaml():
    for path in VALID:
        if schema.kind_of_path(path) != "note":
            continue
        written = render_note(parse_note(path.read_bytes()))
        assert agrees(split_frontmatter(written.decode(), "n.md")[0]) is not None, path.name


@needs_shared
@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_quick_path_reports_exactly_what_the_full_path_reports(path):
    """Every file: the problems (file, line, column, field, message) and the hook's report
    lines from ``validate_file`` (the quick yes first) equal the full path's (PyYAML, then
    jsonschema for the explanation), byte for byte, in every format."""
    data = path.read_bytes()
    shown = path.name
    for strict in (False, True):
        if schema.kind_of_path(path) == "sidecar":
            full = schema.validate_sidecar_bytes(data, shown, strict=strict)
            yes = quickcheck.sidecar_is_valid(data, strict=strict)
        else:
            try:
                full = schema.validate_note(parse_note(data, shown), shown)
            except NoteError as exc:
                full = [schema.problem_from_error(exc, shown)]
            yes = quickcheck.note_is_valid(data)
        quick = validate_file(path, strict=strict, display=shown)
        assert quick == full
        if yes:
            assert full == []
        for fmt in report.FORMATS:
            assert report.render(quick, fmt, 1) == report.render(full, fmt, 1)


# --------------------------------------------------------------------------- edge cases

EDGES = [
    "a: 1\n",
    "a: 012\n",
    "a: 0\nb: -1\nc: +1\nd: 1.5\ne: 1.\nf: .5\ng: 1e3\nh: 1_0\ni: 0x1f\nj: 1:30\n",
    "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: True\nh: nULL\ni: ~\nj: null\nk:\n",
    "yes: 1\n",
    "null: 1\n",
    "on: x\n",
    "a: 2026-03-04\nb: 2026-02-29\nc: 2024-02-29\nd: 2026-13-01\ne: 0000-01-01\n",
    "a: 2026-03-04T10:00:00\nb: 2026-03-04T10:00:00Z\nc: 2026-03-04T10:00:00+05:30\n",
    "a: 2026-03-04T10:00:00-00:00\nb: 2026-03-04t10:00:00\nc: 2026-03-04 10:00:00\n",
    "a: 2026-03-04T24:00:00\nb: 2026-03-04T10:00:60\nc: 2026-03-04T10:00:00.5\n",
    "a: 2026-03-04T10:00:00+24:00\nb: 2026-03-04T10:00:00+05\nc: 2026-3-4\n",
    "a: 2026-03-04x\nb: 2026 plan\nc: 12 monkeys\n",
    "a: \"x\"\nb: 'y'\nc: \"it's\"\nd: 'it''s'\ne: \"\"\nf: ''\n",
    'a: "x\\ty"\n',
    'a: "x" # c\n',
    "a: x # c\n",
    "a: x#c\n",
    "# c\na: 1\n  # indented comment\nb: 2\n",
    "a: [x, 'y', \"z\", 1, 2026-03-04, yes, ~]\n",
    "a: []\nb: [ ]\nc: {}\nd: { }\ne: {a: 1}\n",
    "a: [x, ]\n",
    "a: [x,y]\n",
    "a: [x, [y]]\n",
    "a: [x] y\n",
    "a: ['x, y', \"a]b\"]\n",
    "a: [x: y]\n",
    "a: [a b, c#d, 'e''f']\n",
    "a:\n- x\n- y\nb: 1\n",
    "a:\n  - x\n  - y\n",
    "a:\n  - x\n   - y\n",
    "a:\n  - x\n - y\n",
    "a:\n  -   x\n",
    "a:\n  - b: 1\n    c: 2\n  - d: 3\n",
    "a:\n  -   b: 1\n      c: 2\n",
    "a:\n  - b: 1\n   c: 2\n",
    "a:\n  - b:\n    - x\n",
    "a:\n  - b:\n      c: 1\n",
    "a:\n  -\n  - x\n",
    "a:\n  -\n    x\n",
    "a:\n  - - x\n",
    "a:\n  b: 1\n  c:\n    d: 2\n",
    "a:\n  b: 1\n c: 2\n",
    "a: 1\n b: 2\n",
    "a: x\n  y\n",
    "a:\n  x\n",
    "a:x\n",
    "a : x\n",
    "a: b: c\n",
    "a: b:\n",
    "a: b:c\n",
    "a: - x\n",
    "a: -x\n",
    "a: ?x\n",
    "a: :x\n",
    "a: |\n  x\n",
    "a: >\n  x\n",
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: %x\n",
    "a: @x\n",
    "a: `x\n",
    "a: ,x\n",
    "a: x,y\n",
    "a: x]\n",
    "a: x{y}\n",
    "<<: {a: 1}\n",
    "a: <<\n",
    "a: =\n",
    "a: <x\n",
    "a: 1\na: 2\n",
    '"a": 1\n',
    "'a': 1\n",
    "a b: 1\n",
    "a.b-c_d: 1\n",
    "_a: 1\n",
    "1a: 1\n",
    "- a\n- b\n",
    "  a: 1\n",
    "a\n",
    "",
    "\n\n",
    "...\n",
    "--- x\n",
    "%YAML 1.1\n",
    "a: x\u00a0y\n",
    "a: x\u0085y\n",
    "a: x\u2028y\n",
    "a: x\ufeffy\n",
    "a: x\x01y\n",
    "a: x\x7fy\n",
    "a: x\x9fy\n",
    "a: x\ty\n",
    "a: x\r\n",
    "a: Ünïcödé ✓ ランタイム\n",
    "a: x  \nb: y \n",
    "a: x   y\n",
    "a:    x\n",
    "a: 'multi\n  line'\n",
    'a: "multi\n  line"\n',
    "a: 'x'y'\n",
    'a: "x"y"\n',
    "a: 'x\n",
    'a: "x\n',
    "a: [x\n",
    "a: {\n",
    "a: x\n---\n",
    "k" * 200 + ": 1\n",
]


@pytest.mark.parametrize("text", EDGES)
def test_the_reader_never_disagrees_with_pyyaml_on_edge_cases(text):
    agrees(text)


def test_the_reader_answers_for_the_forms_notes_use():
    """Not everything is left to PyYAML: the common forms are read here (else no speed)."""
    text = (
        "title: Use uv\ncreated: 2026-03-04\nupdated: 2026-03-05T10:00:00Z\nconfidence: high\n"
        'confidence_num: 0.9\ndiscovery_tokens: 12\ntags: ["a", b]\nlinks: []\n'
        "superseded_by: null\nsymptoms:\n  - 'x: y'\ncausal_relations:\n  - source: a\n"
        "    target: b\n    type: causes\nprovenance:\n  proof_count: 4\n"
    )
    assert agrees(text) == {
        "title": "Use uv",
        "created": "2026-03-04",
        "updated": "2026-03-05T10:00:00+00:00",
        "confidence": "high",
        "confidence_num": 0.9,
        "discovery_tokens": 12,
        "tags": ["a", "b"],
        "links": [],
        "superseded_by": None,
        "symptoms": ["x: y"],
        "causal_relations": [{"source": "a", "target": "b", "type": "causes"}],
        "provenance": {"proof_count": 4},
    }


def test_nesting_past_the_readers_bound_goes_to_pyyaml():
    deep = "".join(f"{'  ' * i}k{i}:\n" for i in range(plainyaml.MAX_DEPTH + 2)) + "  " * 40
    assert plainyaml.json_value(deep + "x: 1\n") is None
    agrees(deep + "x: 1\n")


# --------------------------------------------------------------------------- generated

_WORD = st.text(
    alphabet=st.sampled_from("abcXYZ019 _-.:#'\"[]{},&*!|>%@`~=<?\\/é\u00a0ランタ✓"),
    min_size=0,
    max_size=12,
)
_SCALAR = st.one_of(
    _WORD,
    st.sampled_from(
        ["yes", "no", "On", "null", "~", "true", "012", "0", "1.5", "1e3", ".inf", "<<", "="]
    ),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.dates(min_value=dt.date(1, 1, 1)),
    st.datetimes(timezones=st.sampled_from([None, dt.timezone.utc])).map(
        lambda d: d.replace(microsecond=0)
    ),
)
_KEY = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,10}", fullmatch=True),
    st.sampled_from(["yes", "null", "on", "1", "a b", "a:b"]),
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_KEY, inner, max_size=4),
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_KEY, _VALUE, min_size=1, max_size=6))
def test_what_the_yaml_emitter_writes_is_read_as_pyyaml_reads_it(front):
    agrees(dump_yaml(front))


_FRAGMENT = st.sampled_from(
    [
        "a",
        "title",
        "x1",
        ":",
        ": ",
        " ",
        "  ",
        "- ",
        "-",
        "\n",
        "\n  ",
        "\n    ",
        "'",
        "''",
        '"',
        "[",
        "]",
        ", ",
        ",",
        "{",
        "}",
        "#",
        " #",
        "&a",
        "*a",
        "!",
        "|",
        ">",
        "yes",
        "~",
        "null",
        "1",
        "012",
        "1.5",
        "2026-03-04",
        "T10:00:00",
        "Z",
        "+05:30",
        "é",
        "\\",
        "?",
        "<<",
    ]
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_FRAGMENT, min_size=1, max_size=30).map("".join))
def test_random_fragments_are_read_as_pyyaml_reads_them(text):
    agrees("title: t\n" + text + "\n")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEY, _VALUE, min_size=1, max_size=6))
def test_the_quick_yes_is_only_given_to_notes_the_full_path_accepts(front):
    data = render_note(Note(front, "body\n"))
    if quickcheck.note_is_valid(data):
        assert schema.validate_note(parse_note(data, "n.md"), "n.md") == []


_NUMERIC_TAGS = ("float", "int", "timestamp")


def _pyyaml_number_like(text: str) -> bool:
    import yaml

    return any(
        regexp.match(text)
        for tag, regexp in yaml.resolver.Resolver.yaml_implicit_resolvers.get(text[:1], [])
        if tag.rsplit(":", 1)[-1] in _NUMERIC_TAGS
    )


@settings(max_examples=2000, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("0123456789-+._:eEoxXbBaAfFTtZz iInNT\t"), min_size=1)
    | st.sampled_from(
        [
            "2026-03-04",
            "2026-3-4 1:00:00",
            "2026-03-04T10:00:00.5 +05",
            "0x1F",
            "0b101",
            "1:30",
            "1_000",
            ".inf",
            "-.Inf",
            ".NaN",
            "012",
            "0o7",
            "1e3",
            "1.0e+3",
            "+1",
            "-0",
        ]
    )
)
def test_the_readers_number_test_is_pyyamls_patterns(text):
    assert plainyaml.number_like(text) == _pyyaml_number_like(text), text


@pytest.mark.parametrize(
    "path",
    [
        "a.md",
        "d/a.md",
        "d/a.md/",
        "a.md/.",
        "a.md/..",
        "x.entities.yaml",
        "d/x.entities.yaml/",
        "",
        ".",
        "/",
        "a.txt",
        "d.md/a",
        ".md",
        "a.entities.yaml.md",
        "./a.md",
        "a//b.md",
    ],
)
def test_kind_of_path_names_the_last_part_as_pathlib_does(path):
    name = Path(path).name
    expected = (
        "sidecar" if name.endswith(".entities.yaml") else "note" if name.endswith(".md") else None
    )
    assert quickcheck.kind_of_path(path) == expected
    assert quickcheck.kind_of_path(Path(path)) == expected


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("/.ab"), max_size=10))
def test_shown_paths_are_written_as_pathlib_writes_them(text):
    from pathlib import PurePosixPath

    from reflectgit.workflows import validation

    assert validation.path_text(text) == str(PurePosixPath(text))
    for base in ("/", "a", "a/b", "/a", "//a", ".", "a/"):
        try:
            expected = PurePosixPath(text).relative_to(base).as_posix()
        except ValueError:
            expected = str(PurePosixPath(text))
        assert validation._display(validation.path_text(text), base) == expected, base


def test_the_generated_validators_take_decimals_as_numbers_without_importing_decimal():
    import decimal

    front = {"title": "t", "created": "2026-03-04", "confidence": "high"}
    for number in (decimal.Decimal("0.5"), decimal.Decimal("2")):
        data = {**front, "confidence_num": number}
        assert schema.is_valid_fast(data, schema.NOTE_SCHEMA) == schema.is_valid_reference(
            data, schema.NOTE_SCHEMA
        )
    assert not schema.is_valid_fast({**front, "confidence_num": "0.5"}, schema.NOTE_SCHEMA)


_EDGE = st.fixed_dictionaries(
    {"source": st.sampled_from(["a", "b", "x"]), "target": st.sampled_from(["a", "b", "y"])},
    optional={
        "type": st.sampled_from(["causes", "uses", "Uses", "bogus", ""]),
        "strength": st.one_of(st.integers(-2, 12), st.floats(0, 1), st.just("8")),
        "tvalid": st.sampled_from(["2026-03-04", "2026-03-05T10:00:00Z", "soon"]),
        "tvalid_end": st.sampled_from(["2026-03-01", "2026-03-09", None]),
        "description": _WORD,
    },
)
_ENTITY = st.fixed_dictionaries(
    {"name": st.sampled_from(["a", "b", "c", ""])},
    optional={"type": st.sampled_from(["tool", "concept", "Tool", "nope"]), "description": _WORD},
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "document_id": st.sampled_from(["n-1", "", "a/b"]),
            "extracted_at": st.sampled_from(["2026-03-04T00:00:00", "2026-03-04", "x"]),
            "entities": st.lists(_ENTITY, max_size=3),
            "relationships": st.lists(_EDGE, max_size=3),
            "extra": _SCALAR,
        },
    ),
    st.booleans(),
)
def test_the_quick_yes_is_only_given_to_sidecars_the_full_path_accepts(data, strict):
    from reflectgit.notes.note import Sidecar, render_sidecar

    raw = render_sidecar(Sidecar(data))
    agrees(raw.decode())
    if quickcheck.sidecar_is_valid(raw, strict=strict):
        assert schema.validate_sidecar_bytes(raw, "s.entities.yaml", strict=strict) == []


def _pyyaml_patterns() -> list[str]:
    import yaml

    seen: dict[str, str] = {}
    for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values():
        for tag, regexp in resolvers:
            if tag.rsplit(":", 1)[-1] in _NUMERIC_TAGS:
                seen[tag] = regexp.pattern
    return list(seen.values())


@settings(max_examples=3000, deadline=None)
@given(
    st.one_of(
        [st.from_regex(re.compile(p, re.X), fullmatch=True) for p in _pyyaml_patterns()]
    ).filter(lambda s: s and "\n" not in s),
    st.integers(0, 40),
    st.sampled_from(["", "0", "_", ".", ":", "-", "e", "+", " ", "T", "Z", "x"]),
    st.booleans(),
)
def test_the_readers_number_test_agrees_near_pyyamls_numbers(text, at, char, drop):
    assert plainyaml.number_like(text), text
    at = min(at, len(text))
    near = text[:at] + text[at + 1 :] if drop else text[:at] + char + text[at:]
    if near:
        assert plainyaml.number_like(near) == _pyyaml_number_like(near), near


# --------------------------------------------------------------------------- the writer's yes


def _writer_problems(data: bytes) -> list[str]:
    """What ``add``'s door says of bytes it wrote, on the full path (PyYAML, schema, secrets)."""
    from reflectgit.workflows.kb.base import note_problems

    try:
        return note_problems(parse_note(data, "n.md"), "n.md")
    except NoteError as exc:
        return [exc.message]


def _agrees_with_the_writer(data: bytes) -> bool:
    yes = quickcheck.note_is_writable(data)
    if yes:
        assert _writer_problems(data) == [], data
    return yes


@needs_shared
@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_writers_yes_is_only_given_to_notes_the_full_path_accepts(path):
    if schema.kind_of_path(path) != "note":
        return
    data = path.read_bytes()
    yes = _agrees_with_the_writer(data)
    if path in VALID and b"enforce:" not in data:
        assert yes, path.name  # not vacuous: every valid plain note gets it
    for written in (render_note(parse_note(data)),) if path in VALID else ():
        assert _agrees_with_the_writer(written) == yes


def _secret_texts() -> tuple[list[str], list[str]]:
    import yaml

    corpus = yaml.safe_load((TEST_DATA / "secrets.yaml").read_text("utf-8"))
    return [e["text"] for e in corpus["positives"]], list(corpus["negatives"])


BASE_FRONT = {
    "type": "learning",
    "id": "wombat-burrow-1a2b3c",
    "created": dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.timezone.utc),
    "confidence": "high",
    "title": "Wombat burrow",
    "key_insight": "x",
}


def test_a_secret_in_a_value_or_the_body_gets_no_writers_yes():
    positives, negatives = _secret_texts()
    assert len(positives) > 40 and len(negatives) > 20
    for text in positives:
        for front, body in (({**BASE_FRONT, "problem": text}, "x\n"), (BASE_FRONT, text + "\n")):
            data = render_note(Note(dict(front), body))
            assert not quickcheck.note_is_writable(data), text
            assert _writer_problems(data), text  # the full path refuses it
    accepted = 0
    for text in negatives:
        data = render_note(Note({**BASE_FRONT, "problem": text}, text + "\n"))
        accepted += _agrees_with_the_writer(data)
    assert accepted > len(negatives) // 2  # a negative is not a secret: most get the yes


def test_the_writers_yes_leaves_enforce_rules_invalid_and_unplain_notes_to_the_full_path():
    plain = render_note(Note(dict(BASE_FRONT), "x\n"))
    assert _agrees_with_the_writer(plain)  # the positives beside the negatives below
    block = render_note(Note({**BASE_FRONT, "problem": "two\nlines\n\n# three"}, "x\n"))
    assert b"problem: |-\n  two\n  lines\n\n  # three\n" in block
    assert _agrees_with_the_writer(block)
    rules = {**BASE_FRONT, "enforce": {"deny": ["Bash(git push --force:*)"]}}
    for front in (
        rules,  # the rule patterns are checked on the full path
        {**BASE_FRONT, "confidence": "sure"},  # invalid
        {**BASE_FRONT, "key_insight": "pouch \U0001f998"},  # escaped by PyYAML
    ):
        assert not quickcheck.note_is_writable(render_note(Note(front, "x\n"))), front
    assert _writer_problems(render_note(Note(rules, "x\n"))) == []
    assert not quickcheck.note_is_writable(b"---\ntitle: [\n---\n")
    assert not quickcheck.note_is_writable(b"no frontmatter\n")
    assert not quickcheck.note_is_writable(plain.replace(b"x\n", b"x\x07\n"))  # a control char


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEY, _VALUE, min_size=1, max_size=6), st.sampled_from(["x\n", ""]))
def test_the_writers_yes_on_generated_notes(front, body):
    _agrees_with_the_writer(render_note(Note({**BASE_FRONT, **front}, body)))


_BLOCK_LINE = st.sampled_from(
    ["", " ", "  ", "a", "  a", "    a", "      b c", "  # not a comment", "# a comment",
     "  - item", "  key: value", "  'q'", "   ", "z: 1", "  a  ", "- x", "  |", "..."]
)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(["|", "|-", "|+", "|2", ">", "| ", "|-  "]),
    st.lists(_BLOCK_LINE, min_size=0, max_size=8),
    st.sampled_from(["", "n: 1\n", "  m: 2\n", "- y\n", "# end\n"]),
    st.sampled_from(["", "  "]),
)
def test_literal_blocks_are_read_as_pyyaml_reads_them(header, lines, after, indent):
    """Block scalars in every position the reader may meet them (nested, after a compact
    ``- key:``), with blank, comment-like, over- and under-indented lines."""
    body = "".join(indent + "  " * (i % 2) + line + "\n" for i, line in enumerate(lines))
    for text in (
        f"k: {header}\n" + body + after,
        f"a:\n  k: {header}\n" + body.replace("\n", "\n  ") + after,
        f"l:\n- k: {header}\n" + body.replace("\n", "\n  ") + after,
    ):
        agrees(text)


def test_the_literal_blocks_reflect_git_writes_are_read_without_pyyaml():
    for value in ("a\nb", "a\nb\n", "a\n\n  b\n# c", "x:\n  - y\n'z'"):
        for front in ({"k": value}, {"a": {"k": value}}, {"l": [{"k": value, "m": 1}]}):
            text = dump_yaml(front)
            assert "|" in text
            assert agrees(text) == front, text
