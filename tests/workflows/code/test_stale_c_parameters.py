"""``reflect-git stale`` on a C-family definition whose parameter is renamed through its body
(``bool is_used(const std::string &aArgumentName) const`` become ``... &name``, Java's
``plus(Money other)`` become ``plus(Money that)``), against real git histories: a parameter
is a name the definition binds, so renaming it is a respelling, not stale. A parameter whose
type changed is no renaming; a field renamed in one method and a call's argument put for
another name are still stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from reflectgit.notes.anchors import definitions
from reflectgit.notes.codediff import compare
from tests.support.codeworld import World

PARSER_HPP = """#include <map>
#include <string>

class ArgumentParser {
public:
  bool is_used(const std::string &aArgumentName) const {
    return mArguments.at(aArgumentName).mIsUsed;
  }

private:
  std::map<std::string, Argument> mArguments;
};
"""

MONEY_JAVA = """package money;

public final class Money {
    private final long amount;
    private final long cents;
    private final String currency;

    public Money(long amount, String currency) {
        this.amount = amount;
        this.cents = amount * 100;
        this.currency = currency;
    }

    public Money plus(Money other) {
        if (!currency.equals(other.currency)) {
            throw new IllegalArgumentException("not " + currency + ": " + other.currency);
        }
        return new Money(amount + other.amount, currency);
    }
}
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    world = World(tmp_path)
    world.code.write("include/parser.hpp", PARSER_HPP)
    world.code.write("src/Money.java", MONEY_JAVA).commit("parser and money")
    return world


def _stale(world: World) -> set[str]:
    return {e["id"] for e in world.stale()["stale"]}


def _plus_note(world: World) -> str:
    return world.add(
        "plus refuses another currency",
        "`plus` takes another `Money` and throws `IllegalArgumentException` when its `currency`"
        " differs; it never converts.",
        "src/Money.java:plus",
    )


def test_a_cpp_parameter_renamed_through_its_body_is_not_stale(world: World) -> None:
    nid = world.add(
        "is_used is true only when the user passed the argument",
        "`is_used` reads the argument's `mIsUsed`: false for an argument with only a default.",
        "include/parser.hpp:is_used",
    )
    world.code.write("include/parser.hpp", PARSER_HPP.replace("aArgumentName", "name"))
    world.code.commit("shorter parameter name")
    assert nid not in _stale(world)


def test_a_java_parameter_renamed_through_its_body_is_not_stale(world: World) -> None:
    nid = _plus_note(world)
    renamed = MONEY_JAVA.replace("Money other)", "Money that)").replace("other.", "that.")
    world.code.write("src/Money.java", renamed).commit("rename parameter")
    assert nid not in _stale(world)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a field read under another name in one method: the object's, not the method's
        ("other.amount, currency", "other.cents, currency"),
        # a call's argument put for another name the method already has
        ("(amount + other.amount", "(amount + amount"),
    ],
)
def test_a_field_or_an_argument_put_for_another_name_is_still_stale(
    world: World, old: str, new: str
) -> None:
    nid = world.add(
        "plus adds the amounts",
        "`plus` returns a new `Money` whose `amount` is the sum of both `amount` fields.",
        "src/Money.java:plus",
    )
    world.code.write("src/Money.java", MONEY_JAVA.replace(old, new)).commit("change plus")
    assert nid in _stale(world)


def test_a_parameter_renamed_beside_its_type_changed_is_no_renaming() -> None:
    # (a signature's types alone are not what a note states: ``stale`` reads such a change as
    # made elsewhere, with or without this reading; what matters is that it is not a renaming)
    typed = MONEY_JAVA.replace("plus(Money other)", "plus(Priced that)").replace("other.", "that.")
    old, new = (definitions(text, "plus", "src/Money.java")[0] for text in (MONEY_JAVA, typed))
    change = compare(old, new, "src/Money.java", "`plus` adds.", "plus", "plus", typed, MONEY_JAVA)
    assert change.kind != "renamed"
