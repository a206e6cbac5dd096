"""reflectgit.records: the value-object bases that stand in for @dataclass on the hot paths."""

from __future__ import annotations

import inspect
import pickle

import pytest

from reflectgit.records import FrozenRecord, Record
from reflectgit.state.ranking import Counters
from reflectgit.workflows.search.results import Hit


class Point(Record):
    _FIELDS = ("x", "y")

    def __init__(self, x: int, y: list[int] | None = None) -> None:
        self.x = x
        self.y = [] if y is None else y


class Other(Record):
    _FIELDS = ("x", "y")

    def __init__(self, x: int, y: list[int]) -> None:
        self.x, self.y = x, y


class Key(FrozenRecord):
    _FIELDS = ("name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "name", name)


def test_equality_is_by_class_and_fields() -> None:
    assert Point(1, [2]) == Point(1, [2])
    assert Point(1) != Point(1, [2])
    assert Point(1, []) != Other(1, [])  # another class with the same fields is not equal
    assert Point(1) != (1, [])


def test_repr_names_the_fields() -> None:
    assert repr(Point(1, [2])) == "Point(x=1, y=[2])"
    assert repr(Key("a")) == "Key(name='a')"


def test_a_record_is_mutable_and_unhashable_a_frozen_one_the_opposite() -> None:
    p = Point(1)
    p.x = 3
    assert p == Point(3)
    with pytest.raises(TypeError):
        hash(p)
    k = Key("a")
    assert hash(k) == hash(Key("a"))
    assert {k, Key("a")} == {k}
    with pytest.raises(AttributeError):
        k.name = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del k.name


def test_records_pickle_as_the_index_build_sends_them() -> None:
    for value in (Point(1, [2]), Key("a"), Counters("n", importance=0.5)):
        assert pickle.loads(pickle.dumps(value)) == value


def test_the_converted_types_keep_their_dataclass_defaults() -> None:
    hit = Hit("id", "t", "high", "live", "documents/id.md", "", 1.0, 1.0, 1.0, 1.0)
    assert hit.edge_match is False and hit.matched_fields == []
    other = Hit("id", "t", "high", "live", "documents/id.md", "", 1.0, 1.0, 1.0, 1.0)
    hit.matched_fields.append("title")
    assert other.matched_fields == []  # each its own list, as default_factory gave
    assert Counters("n") == Counters("n", 0.0, 0.0, 0, 0, 0, 0, None)


def test_a_notes_ranking_state_is_the_fields_a_note_may_never_hold() -> None:
    """One list, three places: the fields rule S9 keeps out of notes are the ranking state's
    value fields and its table's columns (a field added to one and not the others fails)."""
    import sqlite3

    from reflectgit.notes.note import RANKING_FIELDS
    from reflectgit.state import ranking

    assert ("id", *RANKING_FIELDS) == Counters._FIELDS
    conn = sqlite3.connect(":memory:")
    conn.executescript(ranking._SCHEMA)
    columns = tuple(row[1] for row in conn.execute("PRAGMA table_info(counters)"))
    conn.close()
    assert columns == Counters._FIELDS


def _every_record_class() -> list[type[Record]]:
    import importlib
    import pkgutil

    import reflectgit

    for module in pkgutil.walk_packages(reflectgit.__path__, "reflectgit."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: list[type[Record]] = []
    todo: list[type[Record]] = [Record]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("reflectgit.") and sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def test_every_annotated_record_lists_its_annotated_fields() -> None:
    """``_FIELDS`` (what ``==``, ``hash`` and ``repr`` compare and show) is written out beside
    the class's field annotations; a field added to one and not the other fails here."""
    checked = 0
    for cls in _every_record_class():
        annotated = tuple(name for name in inspect.get_annotations(cls) if not name.startswith("_"))
        if "_FIELDS" not in cls.__dict__ or not annotated:
            continue  # a slotted record declares only _FIELDS; nothing to disagree with
        assert annotated == cls._FIELDS, f"{cls.__module__}.{cls.__qualname__}"
        checked += 1
    assert checked >= 40  # the walk found the project's records
