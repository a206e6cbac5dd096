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


# ------------------------------------------------------------------ typing without ``typing``
# Importing ``typing`` costs a write path (``add``) ~4 ms. Modules on it import ``NamedTuple``,
# ``Generic`` and ``TypeVar`` from ``typing`` under ``TYPE_CHECKING`` (mypy checks those) and
# these run-time stand-ins otherwise; ``tests/test_records_typing.py`` holds them to
# ``typing``'s behaviour.


class _NamedTupleMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], ns: dict[str, object]) -> type:
        if ns.get("_root"):
            return super().__new__(mcs, name, bases, ns)
        import collections

        annotations = ns.get("__annotations__", {})
        fields = list(annotations) if isinstance(annotations, dict) else []
        defaults = [ns[f] for f in fields if f in ns]
        if any(f not in ns for f in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        module = str(ns.get("__module__", "__main__"))
        make = collections.namedtuple
        tpl = make(name, fields, defaults=defaults, module=module)
        skip = {"__module__", "__qualname__", "__annotations__", "__slots__", "_root"}
        for key, value in ns.items():
            if key not in skip and key not in fields:
                setattr(tpl, key, value)
        tpl.__annotations__ = dict(annotations) if isinstance(annotations, dict) else {}
        if "__qualname__" in ns:
            tpl.__qualname__ = str(ns["__qualname__"])
        return tpl


class NamedTuple(metaclass=_NamedTupleMeta):
    """``class X(NamedTuple): a: int; b: str = ""`` gives ``collections.namedtuple`` with
    the defaults and the class body's methods, as ``typing.NamedTuple`` does."""

    _root = True


class TypeVar:
    """Stands in for ``typing.TypeVar`` at run time (only named, never checked)."""

    def __init__(self, name: str, *constraints: object, bound: object = None) -> None:
        self.__name__ = name


class Generic:
    """Stands in for ``typing.Generic`` at run time: ``Generic[T]`` is ``Generic``, and a
    generic class subscripted (``Edit[int]``) is the class itself."""

    __slots__ = ()

    def __class_getitem__(cls, item: object) -> type:
        return cls
