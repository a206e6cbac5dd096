"""Value objects without ``dataclasses``: ``==``, ``repr`` (and, frozen, ``hash`` and no
assignment) from a class's ``_FIELDS``.

What ``@dataclass`` gives a class whose ``__init__`` is written out, without its cost on the
hot paths: importing ``dataclasses`` imports ``inspect`` (with ``ast``, ``dis`` and
``tokenize``), about 10 ms of every search, recall and hook process
(``tests/test_startup_imports.py`` keeps them out). The settings classes have their own base,
``config.Settings``, which also declares each field's default and documentation.
"""

from __future__ import annotations


class Record:
    """Equal when of the same class with equal fields; shown as ``Name(field=value, ...)``;
    mutable, so unhashable, as a plain ``@dataclass``."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, Record):
            return NotImplemented
        return self._values() == other._values()  # (and, by defining __eq__, no __hash__)

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS)
        return f"{type(self).__qualname__}({shown})"


class FrozenRecord(Record):
    """A ``Record`` that cannot change after ``__init__`` (which sets its fields with
    ``object.__setattr__``), so hashable, as ``@dataclass(frozen=True)``."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")
