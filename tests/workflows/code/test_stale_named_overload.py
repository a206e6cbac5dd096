"""``reflect-git stale`` on a note that names one overload of its symbol by the call it writes
(``addConstant(name, spec)``), against a real git history: the overload it names changed while
the first definition of the name did not (OrderedCollections.jl's ``pop!(dd, key)``, javapoet's
``addEnumConstant(name, typeSpec)``, stateless' ``PermitDynamic(TTrigger, Func<TState>, ...)``);
and the notes that must stay unlisted (one naming the first overload's call, one naming no call)."""

from __future__ import annotations

from tests.support.codeworld import World

BUILDER_JAVA = """package demo;

public final class Builder {
  public Builder addConstant(String name) {
    return addConstant(name, Spec.anonymous());
  }

  public Builder addConstant(String name, Spec spec) {
    checkState(isEnum, "not an enum");
    checkArgument(isValid(name), "not a valid name: %s", name);
    constants.put(name, spec);
    return this;
  }

  public Builder addField(String field) {
    fields.add(field);
    return this;
  }
}
"""

# the two-argument overload no longer checks the name (build() does, later)
UNCHECKED = BUILDER_JAVA.replace(
    '    checkArgument(isValid(name), "not a valid name: %s", name);\n', ""
)


def test_the_overload_the_note_calls_is_compared(world: World) -> None:
    world.code.write("src/Builder.java", BUILDER_JAVA).commit("builder")
    named = world.add(
        "addConstant checks the constant's name at once",
        "`addConstant(name, spec)` throws when `name` isn't a valid Java name: an invalid "
        "constant never reaches the generated file.",
        "src/Builder.java:addConstant",
    )
    first = world.add(
        "addConstant with a name alone makes an anonymous body",
        "`addConstant(name)` adds the constant with an empty anonymous body (`Spec.anonymous()`).",
        "src/Builder.java:addConstant",
    )
    bare = world.add(
        "addConstant puts the constant",
        "addConstant puts the constant in the builder's map of constants.",
        "src/Builder.java:addConstant",
    )
    world.code.write("src/Builder.java", UNCHECKED).commit("check names in build()")
    listed = world.listed()
    # the overload the note writes the call of lost its check: stale (on main, the first
    # definition alone was compared, unchanged: the note was not listed at all)
    assert named in listed
    # the first overload's note and the note naming no call keep to the first definition
    assert first not in listed and bare not in listed


def test_a_call_naming_no_other_overload_keeps_to_the_first(world: World) -> None:
    world.code.write("src/Builder.java", BUILDER_JAVA).commit("builder")
    nid = world.add(
        "addField appends",
        "`addField(field)` appends the field; `addConstant(name)` is for enum constants.",
        "src/Builder.java:addField",
    )
    world.code.write("src/Builder.java", UNCHECKED).commit("check names in build()")
    assert nid not in world.listed()
