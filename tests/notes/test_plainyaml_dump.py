"""The plain emitter (``plainyaml.dump``) against PyYAML's (``yamlcodec.dump``, what
``note.dump_yaml`` wrote before): wherever it writes, the bytes are PyYAML's and PyYAML reads
them back as the data; where it does not (None), PyYAML writes as before."""

from __future__ import annotations

import datetime as dt
import random

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from reflectgit.errors import NoteError
from reflectgit.notes import plainyaml, schema, yamlcodec
from reflectgit.notes.note import (
    Note,
    Sidecar,
    canonical_frontmatter,
    dump_yaml,
    parse_note,
    parse_sidecar,
    render_note,
    render_sidecar,
)
from tests.conftest import DATA, type_tree

# Every note and sidecar of the shared data: notes/valid, notes/invalid, compat (real/ holds
# transcripts and hook events, no notes).
CORPUS = sorted(
    p
    for folder in (DATA / "notes" / "valid", DATA / "notes" / "invalid", DATA / "compat")
    for p in folder.iterdir()
    if schema.kind_of_path(p) is not None
)


def same_as_pyyaml(data: object) -> str | None:
    """The plain emitter's text for ``data``, asserted to be PyYAML's rendering byte for byte
    and to load back (PyYAML's safe loader) as ``data`` whenever it is not None."""
    mine = plainyaml.dump(data)
    if mine is None:
        return None
    assert mine == yamlcodec.dump(data), (data, mine)
    assert yaml.safe_load(mine) == data
    assert type_tree(yaml.safe_load(mine)) == type_tree(data)  # True is not 1, 1.0 is not 1
    assert dump_yaml(data) == mine
    return mine


def _loaded(path):
    data = path.read_bytes()
    if schema.kind_of_path(path) == "note":
        note = parse_note(data, path.name)
        return [note.frontmatter, canonical_frontmatter(note.frontmatter)]
    return [parse_sidecar(data, path.name).data]


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_file_is_written_as_pyyaml_writes_it(path):
    try:
        values = _loaded(path)
    except NoteError:
        return  # PyYAML refuses it: nothing to write
    for value in values:
        if isinstance(value, dict) and value:
            same_as_pyyaml(value)


def test_the_plain_emitter_writes_every_valid_corpus_file():
    """Not a vacuous agreement: the valid notes and sidecars are all in the subset."""
    valid = [p for p in CORPUS if p.parent.name != "invalid"]
    assert len(valid) > 40
    for path in valid:
        for value in _loaded(path):
            assert same_as_pyyaml(value) is not None, path.name


def test_rendered_notes_and_sidecars_are_unchanged():
    """``render_note``/``render_sidecar`` give PyYAML's bytes for every corpus file."""
    for path in CORPUS:
        try:
            values = _loaded(path)
        except NoteError:
            continue
        if schema.kind_of_path(path) == "note":
            note = parse_note(path.read_bytes(), path.name)
            front = canonical_frontmatter(note.frontmatter)
            expected = "---\n" + yamlcodec.dump(front) + "---\n" + note.body
            assert render_note(note) == expected.encode(), path.name
        else:
            side = values[0]
            assert render_sidecar(Sidecar(side)).decode().endswith(yamlcodec.dump(side)[-1])


def test_what_an_add_from_flags_writes_is_plain():
    front = {
        "type": "learning",
        "id": "bench-release-1796-note-12-3fa2c1",
        "created": dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.timezone.utc),
        "confidence": "high",
        "title": "Bench release-1796 note 12",
        "tags": ["ci", "yes", "1.5", "c++"],
        "key_insight": "x",
        "provenance": {"source_tool": "cli", "proof_count": 1},
    }
    text = same_as_pyyaml(canonical_frontmatter(front))
    assert text is not None
    assert "created: 2026-03-04T10:00:00Z\n" in text
    assert "- 'yes'\n- '1.5'\n" in text
    assert render_note(Note(front, "x\n")).startswith(b"---\ntype: learning\n")


# --------------------------------------------------------------------------- the tricky scalars

TRICKY = [
    "yes", "Yes", "NO", "on", "Off", "true", "False", "null", "Null", "~", "",
    "1e3", "1.0e+3", "0x1F", "0o17", "0b101", "012", "0", "-1", "+1", "1_000", "1:30", "190:20:30",
    ".5", ".inf", "-.inf", ".nan", "1.", "3.14", "6.8523015e+5",
    "2026-03-04", "2026-3-4", "2026-03-04T10:00:00Z", "2026-03-04 10:00:00", "2026-13-45",
    "<<", "=", "<", "==", ":", "::", ":x", "x:", "a: b", "a:b", "a :b", "#", "a #b", "a#b",
    "-", "- a", "-a", "--", "---", "--- a", "...", "....", "?", "? a", "?a",
    "*", "*a", "&", "&a", "!", "!!str", "%", "%YAML", "@", "@a", "`", "`a`", "|", ">", "|-",
    "'", "''", "'a'", '"', '"a"', "it's", 'say "hi"', "[a]", "{a}", "a, b", ",", "a,b", "[]",
    "{}", " a", "a ", "  ", " ", "a  b", "é", "ü ber", "日本語", "a\u00a0b", "\u00a0", "😀",
    "a\tb", "a\nb", "a\n", "\n", "a\n\n", "a\n\nb", "a \nb", "a\n b", "a\n\n\n", " a\nb", "a\rb", "\x85", "\u2028", "\ufeff", "\x7f", "\x00", "\\",
    "c:\\path", "http://x.y/z?q=1#f", "C++", "x" * 120, "word " * 30, "z" * 60_000,
]  # fmt: skip


@pytest.mark.parametrize("text", TRICKY)
def test_each_tricky_string_is_written_as_pyyaml_writes_it(text):
    for data in ({"k": text}, {"k": [text, "b"]}, {"k": [{"a": text, "b": [text]}]}):
        same_as_pyyaml(data)


def test_the_tricky_strings_pyyaml_quotes_are_quoted_the_same_way():
    """Not vacuous: most of the tricky strings are written by the plain emitter, quoted ones
    included, and those it leaves (escapes, line breaks, long lines) are few."""
    written = [t for t in TRICKY if same_as_pyyaml({"k": t}) is not None]
    quoted = [t for t in written if plainyaml.dump({"k": t}) != f"k: {t}\n"]
    assert plainyaml.dump({"k": "1e3"}) == "k: 1e3\n"  # YAML 1.1 floats need a dot
    assert len(written) > len(TRICKY) * 3 // 4
    assert {"yes", "null", "3.14", "0x1F", ":", "#", "- a", "*a", "&a", "!", "%", "@", "`"} <= set(
        quoted
    )
    for left in ("\n", "a\n\n", "a \nb", " a\nb", "\x85", "\u2028", "😀", "a\tb", "z" * 60_000):
        assert plainyaml.dump({"k": left}) is None
    for block in ("a\nb", "a\n", "a\n\nb", "a\n  b\n", "# a\n- b: c"):
        assert plainyaml.dump({"k": block}).startswith("k: |"), block


def test_values_outside_the_subset_are_left_to_pyyaml():
    class Text(str):
        pass

    for data in (
        {},
        [],
        "a",
        {"k": Text("a")},
        {"k": [[1]]},
        {"k": float("nan")},
        {"k": float("inf")},
        {"k": (1, 2)},
        {"k": b"x"},
        {1: "a"},
        {"a b": 1},
        {"yes": 1},
        {"k" * 101: 1},
        {"k": 10**100},
    ):
        assert plainyaml.dump(data) is None, data


def test_nesting_past_the_bound_is_left_to_pyyaml():
    deep: dict[str, object] = {"k": "v"}
    for _ in range(plainyaml.MAX_DEPTH + 1):
        deep = {"k": deep}
    assert plainyaml.dump(deep) is None
    assert same_as_pyyaml({"a": {"b": {"c": [{"d": {"e": [1]}}]}}}) is not None


def test_numbers_dates_and_words_are_written_as_pyyaml_writes_them():
    for value in (
        None, True, False, 0, -7, 10**20, 0.9, -0.0, 1e17, 1e-05, 123456.789, 2.5e-300,
        dt.date(2026, 3, 4), dt.date(1, 1, 1),
        dt.datetime(2026, 3, 4, 10, 0), dt.datetime(2026, 3, 4, 10, 0, 0, 1234),
        dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.timezone.utc),
        dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))),
    ):  # fmt: skip
        assert same_as_pyyaml({"k": value, "l": [value]}) is not None, value


# --------------------------------------------------------------------------- generated values

_CHARS = "ab yYnN01-+.:#,?[]{}&*!|>'\"%@`~<=eExX_/\\é日\u00a0\t\n😀"
_TEXT = st.one_of(st.sampled_from(TRICKY[:-1]), st.text(alphabet=_CHARS, max_size=12))
_SCALAR = st.one_of(
    _TEXT,
    _TEXT,
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(),
    st.booleans(),
    st.none(),
    st.dates(),
    st.datetimes(
        timezones=st.sampled_from([None, dt.timezone.utc, dt.timezone(-dt.timedelta(hours=3))])
    ),
)
_KEY = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,10}", fullmatch=True),
    st.sampled_from(["yes", "null", "on", "1", "a b", "a:b", "_", "a.b", "x-"]),
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEY, inner, max_size=4)),
    max_leaves=14,
)


@settings(max_examples=700, deadline=None)
@given(st.dictionaries(_KEY, _VALUE, min_size=1, max_size=6))
def test_generated_values_are_written_as_pyyaml_writes_them(data):
    same_as_pyyaml(data)


# The same shapes with what the subset holds (no tabs, line breaks, emoji, nan, odd keys), so
# that nearly every example is written by the plain emitter and compared.
_IN_TEXT = st.text(alphabet=_CHARS.replace("\t", "").replace("\n", "").replace("😀", ""))
_IN_BLOCK = (
    st.lists(
        st.text(alphabet=_CHARS.replace("\t", "").replace("\n", "").replace("😀", "")), min_size=2
    )
    .map("\n".join)
    .filter(lambda v: plainyaml.literal_safe(v) and " \n" not in v and not v.endswith("\n\n"))
)
_IN_SCALAR = st.one_of(
    _IN_TEXT,
    _IN_BLOCK,
    st.sampled_from([t for t in TRICKY if plainyaml.dump({"k": t}) is not None]),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.dates(),
    st.datetimes(timezones=st.sampled_from([None, dt.timezone.utc])),
)
_IN_KEY = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,10}", fullmatch=True).filter(
    lambda k: k not in plainyaml._WORDS
)
_IN_VALUE = st.recursive(
    _IN_SCALAR,
    lambda inner: st.one_of(
        st.lists(inner.filter(lambda v: type(v) is not list or not v), max_size=4),
        st.dictionaries(_IN_KEY, inner, max_size=4),
    ),
    max_leaves=14,
)


@settings(max_examples=700, deadline=None)
@given(st.dictionaries(_IN_KEY, _IN_VALUE, min_size=1, max_size=6))
def test_generated_values_inside_the_subset_are_written_as_pyyaml_writes_them(data):
    assert same_as_pyyaml(data) is not None


def test_seeded_random_notes_are_written_as_pyyaml_writes_them():
    """Beside hypothesis: a fixed seed over the tricky strings joined in twos and threes, in
    the shapes a note has (top-level strings, tag lists, provenance, causal relations)."""
    rng = random.Random(17)
    pieces = [t for t in TRICKY if len(t) < 200]
    written = 0
    for _ in range(1500):

        def text() -> str:
            return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 3)))

        front = {
            "title": text(),
            "tags": [text() for _ in range(rng.randint(0, 3))],
            "provenance": {"source_tool": text(), "proof_count": rng.randint(0, 9)},
            "causal_relations": [{"source": text(), "target": text(), "type": "causes"}],
        }
        written += same_as_pyyaml(canonical_frontmatter(front)) is not None
    assert written > 150
