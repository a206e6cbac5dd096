from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflectgit.errors import NoteError
from reflectgit.notes import plainyaml, schema
from reflectgit.notes.note import (
    Note,
    Sidecar,
    dump_yaml,
    is_safe_id,
    load_yaml,
    new_id,
    normalize_tier,
    parse_note,
    parse_sidecar,
    render_note,
    render_sidecar,
    slugify,
    tier_of,
)
from reflectgit.notes.schema import to_json_value
from tests.conftest import DATA

VALID = sorted((DATA / "notes" / "valid").glob("*.md")) + sorted((DATA / "compat").glob("*.md"))


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_corpus_notes_parse_and_round_trip(path):
    note = parse_note(path.read_bytes(), str(path))
    assert note.title
    again = parse_note(render_note(note))
    assert again == note
    assert render_note(again) == render_note(note)


YAML_TEXTS = sorted(DATA.rglob("*.md")) + sorted(DATA.rglob("*.yaml"))


@pytest.mark.parametrize("path", YAML_TEXTS, ids=lambda p: str(p.relative_to(DATA)))
def test_strict_loader_builds_what_pyyaml_builds(path):
    """The one-pass mapping (plain strings taken from their nodes) gives exactly PyYAML's safe
    loader's values, on every note and sidecar in the shared data that PyYAML reads."""
    import yaml

    text = path.read_text("utf-8", "replace")
    if path.suffix == ".md":
        parts = text.split("\n---", 1)
        if not text.startswith("---") or len(parts) < 2:
            pytest.skip("no frontmatter")
        text = parts[0][3:]
    try:
        expected = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        pytest.skip("PyYAML refuses it too")
    try:
        got = load_yaml(text)
    except NoteError as exc:
        assert "duplicate key" in exc.message or "tag" in exc.message or "alias" in exc.message
        return
    assert got == expected
    assert type(got) is type(expected)


RESOLVER_EDGES = [
    "",
    "~",
    "null",
    "Null",
    "NULL",
    "nULL",
    "yes",
    "Yes",
    "YES",
    "no",
    "On",
    "off",
    "y",
    "n",
    "true",
    "True",
    "TRUE",
    "tRUE",
    "false",
    "0x1F",
    "0o17",
    "017",
    "0b101",
    "1_000",
    "-1",
    "+12",
    "1.5",
    "1e3",
    "1.0e+3",
    ".5",
    "-.5",
    ".inf",
    "-.Inf",
    "+.INF",
    ".nan",
    ".NaN",
    "190:20:30",
    "2026-12-01",
    "2026-12-01T12:30:00Z",
    "2026-12-1 1:02:03.5 +01:00",
    "12:30:00",
    "<<",
    "=",
    "!",
    "&a",
    "*a",
    "-",
    "--",
    ".",
    "0",
    "00",
    "08",
    "1,000",
    "x",
    "text with: colon",
    "\u00e9t\u00e9",
    "0.",
    "+",
    "-0x1",
    "._",
    "1__0",
    "=x",
    "<<x",
]


def _plain_scalars():
    """Every plain scalar of the shared data's YAML (PyYAML's parser events), with the edges."""
    import yaml

    values = set(RESOLVER_EDGES)
    for path in YAML_TEXTS:
        text = path.read_text("utf-8", "replace")
        if path.suffix == ".md":
            text = text.split("\n---", 1)[0][3:] if text.startswith("---") else ""
        try:
            events = list(yaml.parse(text, Loader=yaml.CSafeLoader))
        except yaml.YAMLError:
            continue
        values.update(e.value for e in events if isinstance(e, yaml.ScalarEvent) and e.implicit[0])
    return sorted(values)


def test_strict_loader_resolves_every_scalar_as_pyyaml_does():
    """StrictLoader's faster ``resolve`` gives PyYAML's own resolver's tag for every plain and
    quoted scalar of the shared data and the awkward ones (null, booleans, numbers, dates,
    merge and value keys), and PyYAML's defaults for sequences and mappings."""
    import yaml

    from reflectgit.notes.yamlcodec import StrictLoader

    ours, theirs = StrictLoader(""), yaml.resolver.Resolver()
    values = _plain_scalars()
    assert len(values) > len(RESOLVER_EDGES) + 100
    tags = set()
    for value in values:
        for implicit in ((True, False), (False, True), (False, False)):
            want = theirs.resolve(yaml.ScalarNode, value, implicit)
            assert ours.resolve(yaml.ScalarNode, value, implicit) == want, (value, implicit)
            tags.add(want)
    assert {"bool", "int", "float", "null", "timestamp", "merge", "value", "str"} <= {
        tag.rsplit(":", 1)[1] for tag in tags
    }
    for kind in (yaml.SequenceNode, yaml.MappingNode):
        assert ours.resolve(kind, None, (False, False)) == theirs.resolve(
            kind, None, (False, False)
        )
    ours.dispose()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("a: 1\nb: x\n", {"a": 1, "b": "x"}),
        ("1: one\n'1': text\n", {1: "one", "1": "text"}),
        ("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n", {"base": {"x": 1}, "use": {"x": 1, "y": 2}}),
        ("when: 2026-12-01\n", {"when": dt.date(2026, 12, 1)}),
        ("s: !!str 12\nt: '12'\n", {"s": "12", "t": "12"}),
    ],
)
def test_strict_loader_keys_and_values(text, expected):
    assert load_yaml(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",
        "outer:\n  k: 1\n  k: 2\n",
        "1: x\n0x1: y\n",
        "base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n  y: 3\n",
        "? [a]\n: 1\n",
    ],
)
def test_strict_loader_refuses_duplicate_and_unhashable_keys(text):
    with pytest.raises(NoteError):
        load_yaml(text)


@pytest.mark.parametrize(
    "name,fragment,line",
    [
        ("no-frontmatter.md", "no frontmatter", 1),
        ("unclosed-frontmatter.md", "never closed", 1),
        ("duplicate-keys.md", "duplicate key 'title'", 3),
        ("python-tag-injection.md", "python/object", 2),
        ("yaml-syntax-error.md", "quoted scalar started on line 2", 5),
        ("frontmatter-is-a-list.md", "not a mapping", 2),
        ("latin1.md", "not UTF-8", 2),
        ("binary.md", "binary", 1),
        ("billion-laughs.md", "aliases expand", 2),
    ],
)
def test_unreadable_notes_fail_with_a_located_error(name, fragment, line):
    path = DATA / "notes" / "invalid" / name
    with pytest.raises(NoteError) as info:
        parse_note(path.read_bytes(), name)
    assert fragment in info.value.message
    assert name in info.value.message
    assert info.value.line == line


def test_oversized_note_is_refused():
    data = b"---\ntitle: x\n---\n" + b"a" * (1024 * 1024)
    with pytest.raises(NoteError, match="limit"):
        parse_note(data)


def test_bom_and_crlf_are_accepted():
    note = parse_note(b"\xef\xbb\xbf---\r\ntitle: T\r\nconfidence: h\r\n---\r\nline1\r\nline2\r\n")
    assert note.frontmatter == {"title": "T", "confidence": "h"}
    assert note.body == "line1\nline2\n"
    assert note.tier == "high"


def test_render_orders_keys_and_writes_iso_timestamps():
    note = Note(
        {
            "zeta": 1,
            "title": "T",
            "alpha": 2,
            "created": dt.datetime(2026, 3, 4, 9, 12, tzinfo=dt.timezone.utc),
            "updated": dt.date(2026, 3, 5),
            "confidence": "high",
        },
        "body\n",
    )
    text = render_note(note).decode()
    assert text == (
        "---\ncreated: 2026-03-04T09:12:00Z\nupdated: 2026-03-05\nconfidence: high\n"
        "title: T\nalpha: 2\nzeta: 1\n---\nbody\n"
    )


def test_render_writes_the_one_style_of_notes():
    """PyYAML's emitter with the notes' options (``yamlcodec.STYLE``): keys in their order, block
    lists at their key's indentation, two-space nesting, quoted where YAML would misread a
    string, literal blocks, unicode kept, a long line never folded."""
    long = "word " * 40 + "end"
    front = {
        "title": "Wombat burrow: yes, 1.5 #tags",
        "tags": ["ci", "yes", "1.5", "c++", "日本語"],
        "key_insight": "first line\nsecond line",
        "why": "é ü\n",
        "long": long,
        "provenance": {"source_tool": "cli", "proof_count": 1, "runs": [{"a": None}, {}]},
        "empty": [],
    }
    assert dump_yaml(front) == (
        "title: 'Wombat burrow: yes, 1.5 #tags'\n"
        "tags:\n- ci\n- 'yes'\n- '1.5'\n- c++\n- 日本語\n"
        "key_insight: |-\n  first line\n  second line\n"
        "why: |\n  é ü\n"
        f"long: {long}\n"
        "provenance:\n  source_tool: cli\n  proof_count: 1\n  runs:\n  - a: null\n  - {}\n"
        "empty: []\n"
    )


@pytest.mark.skipif(not (DATA / "notes" / "valid").is_dir(), reason="no shared data folder")
def test_every_shared_note_is_written_stably_and_read_back_plain():
    """Each valid shared note and sidecar as the writer renders it: rendered again, the same
    bytes (an update rewrites nothing it did not change), and its YAML read by the plain reader
    (the validate hook's fast path) as PyYAML reads it."""
    folders = (DATA / "notes" / "valid", DATA / "compat")
    paths = sorted(p for f in folders for p in f.iterdir() if schema.kind_of_path(p))
    assert len(paths) > 40
    for path in paths:
        if schema.kind_of_path(path) == "note":
            note = parse_note(path.read_bytes(), path.name)
            data, text = note.frontmatter, render_note(note)
            assert render_note(parse_note(text)) == text, path.name
        else:
            data = parse_sidecar(path.read_bytes(), path.name).data
            text = render_sidecar(Sidecar(data))
            assert render_sidecar(parse_sidecar(text, path.name)) == text, path.name
        written = dump_yaml(data)
        assert plainyaml.json_value(written) == to_json_value(load_yaml(written)), path.name


def test_model_strings_cannot_inject_keys():
    evil = 'x"\nconfidence: high\nrecall_count: 9\n'
    note = Note({"title": evil, "created": "2026-01-01", "confidence": "low"}, "")
    again = parse_note(render_note(note))
    assert again.frontmatter["title"] == evil
    assert again.frontmatter["confidence"] == "low"
    assert "recall_count" not in again.frontmatter


@pytest.mark.parametrize(
    "title,slug",
    [
        ("Prefill connection pools at startup!", "prefill-connection-pools-at-startup"),
        ("Tokio ランタイム — nested panic (v2)", "tokio-nested-panic-v2"),
        ("Café déjà vu", "cafe-deja-vu"),
        ("ランタイム", "untitled"),
        ("", "untitled"),
        ("--a--b--", "a-b"),
    ],
)
def test_slugify(title, slug):
    assert slugify(title) == slug


def test_slug_is_bounded_and_clean():
    slug = slugify("word " * 40)
    assert len(slug) <= 60
    assert not slug.endswith("-")


def test_new_id_lengthens_on_clash():
    first = new_id("Pool timeout", "body")
    assert first.startswith("pool-timeout-") and len(first.rsplit("-", 1)[1]) == 6
    second = new_id("Pool timeout", "body", exists=lambda i: i == first)
    assert second != first and second.startswith(first)
    assert new_id("Pool timeout", "other body") != first


@pytest.mark.parametrize(
    "value,ok",
    [
        ("lrn-a-b", True),
        ("../../etc/passwd", False),
        ("a/b", False),
        (".hidden", False),
        ("a..b", False),
        ("tab\there", False),
        ("", False),
        (3, False),
    ],
)
def test_safe_ids(value, ok):
    assert is_safe_id(value) is ok


@pytest.mark.parametrize(
    "value,tier",
    [
        ("HIGH", "high"),
        ("h", "high"),
        ("Med", "medium"),
        ("m", "medium"),
        ("L", "low"),
        ("x", None),
    ],
)
def test_tier_aliases(value, tier):
    assert normalize_tier(value) == tier


def test_tier_from_confidence_num():
    assert tier_of({"confidence_num": 0.8}) == "high"
    assert tier_of({"confidence_num": 0.5}) == "medium"
    assert tier_of({"confidence_num": 0.49}) == "low"
    assert tier_of({"confidence": "low", "confidence_num": 0.9}) == "low"
    assert tier_of({}) is None


_keys = st.text(min_size=1, max_size=12)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | st.dates()
    | st.datetimes(timezones=st.just(dt.timezone.utc)).map(lambda d: d.replace(microsecond=0))
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    front=st.dictionaries(_keys, _values, max_size=8),
    body=st.text(max_size=80).filter(lambda b: "\x00" not in b),
)
def test_parse_render_round_trip(front, body):
    # Any note: any JSON-shaped frontmatter with dates, any text body (NUL marks binary files).
    note = Note(front, body)
    assert parse_note(render_note(note)) == note


def _enums(node, found):
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            found.append(set(node["enum"]))
        for value in node.values():
            _enums(value, found)
    elif isinstance(node, list):
        for value in node:
            _enums(value, found)
    return found


def test_schemas_use_the_one_set_of_entity_and_relationship_types():
    import json

    from reflectgit.notes.note import ENTITY_TYPES, RELATIONSHIP_TYPES
    from tests.conftest import REPO_ROOT

    sidecar = _enums(json.loads((REPO_ROOT / "schemas" / "sidecar.schema.json").read_text()), [])
    front = _enums(json.loads((REPO_ROOT / "schemas" / "frontmatter.schema.json").read_text()), [])
    assert set(ENTITY_TYPES) in sidecar
    assert set(RELATIONSHIP_TYPES) in sidecar
    assert set(RELATIONSHIP_TYPES) in front
