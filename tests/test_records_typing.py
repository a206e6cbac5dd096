"""reflectgit.records' run-time stand-ins for typing.NamedTuple, Generic and TypeVar: each
class built on them behaves as the same class built on ``typing`` does."""

from __future__ import annotations

import pickle
import typing

import pytest

from reflectgit import records
from reflectgit.notes.note import Origin
from reflectgit.notes.secrets import Finding, Located, Rule
from reflectgit.workflows.kb.base import Committed, Edit


def _pair(base: type) -> type:
    class Pair(base):  # type: ignore[misc, valid-type]
        """Two values."""

        left: str
        right: int = 7

        @property
        def both(self) -> str:
            return f"{self.left}{self.right}"

        def swapped(self) -> tuple[int, str]:
            return (self.right, self.left)

    return Pair


OURS, THEIRS = _pair(records.NamedTuple), _pair(typing.NamedTuple)


@pytest.mark.parametrize("args", [("a",), ("a", 3), ()])
def test_a_named_tuple_is_built_and_behaves_as_typings(args: tuple[object, ...]) -> None:
    if not args:
        with pytest.raises(TypeError):
            OURS()
        with pytest.raises(TypeError):
            THEIRS()
        return
    ours, theirs = OURS(*args), THEIRS(*args)
    assert tuple(ours) == tuple(theirs)
    assert ours == theirs  # both are tuples
    assert repr(ours) == repr(theirs)
    assert ours.both == theirs.both and ours.swapped() == theirs.swapped()
    assert OURS._fields == THEIRS._fields == ("left", "right")
    assert OURS._field_defaults == THEIRS._field_defaults == {"right": 7}
    assert ours._replace(left="z") == theirs._replace(left="z")
    assert ours._asdict() == theirs._asdict()
    assert OURS.__doc__ == THEIRS.__doc__ == "Two values."
    assert list(OURS.__annotations__) == list(THEIRS.__annotations__) == ["left", "right"]
    assert OURS.__qualname__ == THEIRS.__qualname__
    assert OURS.__module__ == THEIRS.__module__
    assert isinstance(ours, tuple) and not isinstance(ours, THEIRS)
    with pytest.raises(AttributeError):
        ours.left = "y"  # type: ignore[misc]


def test_a_field_without_default_after_one_with_is_refused_as_typing_refuses() -> None:
    for base in (records.NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError):

            class Bad(base):  # type: ignore[misc, valid-type]
                a: int = 1
                b: int


def test_the_projects_named_tuples_are_tuples_with_their_methods() -> None:
    origin = Origin("a.md", "title: x\n", 2)
    assert tuple(origin) == ("a.md", "title: x\n", 2) and origin.yaml_line == 2
    one, two = Finding("aws", 1, 2, 10, 30), Finding("aws", 1, 2, 0, 20)
    assert one == two and hash(one) == hash(two)  # the offsets are not compared
    assert one != Finding("aws", 1, 3, 10, 30)
    assert repr(one) == "Finding(kind='aws', line=1, column=2)"
    assert Rule._field_defaults["back"] == 4 and Rule._field_defaults["ahead"] == 1200
    assert Located("title", "aws", 1, 1)._fields == ("field", "kind", "line", "column")
    assert pickle.loads(pickle.dumps(origin)) == origin


def test_a_generic_record_subscripted_is_the_class_itself() -> None:
    assert Edit[int] is Edit and Committed[str] is Committed
    assert records.Generic[records.TypeVar("T")] is records.Generic
    assert records.TypeVar("T", bound=int).__name__ == "T"
