"""``reflect-git stale`` against a real git history, on what guards a definition (issue 35,
``anchors.guard_change``): an attribute put above a Rust function and the ``#if`` around a
Swift function changed make a note on it stale; an attribute of the next definition and a doc
comment above the anchored one leave it as it was."""

from __future__ import annotations

from tests.support.codeworld import World

ERROR_RS = """/// The error type.
pub struct Error {
    inner: Box<Inner>,
}

impl Error {
    /// The backtrace of the error, when one was captured.
    pub fn backtrace(&self) -> &Backtrace {
        self.inner.backtrace()
    }

    #[inline]
    pub fn chain(&self) -> Chain {
        Chain::new(self)
    }
}
"""

KEYCHAIN_SWIFT = """import Foundation

public final class Keychain {
    let service: String

    #if os(iOS)
    public func sharedPassword(_ completion: @escaping (String?) -> Void) {
        requestSharedWebCredential(domain: service, completion: completion)
    }
    #endif

    public func remove(_ key: String) {
        delete(service, key)
    }
}
"""


def _notes(world: World) -> tuple[str, str]:
    world.code.write("src/error.rs", ERROR_RS).write("Sources/Keychain.swift", KEYCHAIN_SWIFT)
    world.code.commit("code")
    backtrace = world.add(
        "Error::backtrace is always there",
        "`backtrace` returns the captured `Backtrace` of the error on every build.",
        "src/error.rs:backtrace",
    )
    shared = world.add(
        "sharedPassword reads the shared web credentials",
        "`sharedPassword` asks `requestSharedWebCredential` for the service's domain on iOS.",
        "Sources/Keychain.swift:sharedPassword",
    )
    return backtrace, shared


def test_an_attribute_or_condition_put_on_the_definition_makes_it_stale(world: World) -> None:
    backtrace, shared = _notes(world)
    gated = ERROR_RS.replace(
        "    pub fn backtrace(", '    #[cfg(feature = "std")]\n    pub fn backtrace('
    )
    narrowed = KEYCHAIN_SWIFT.replace(
        "#if os(iOS)\n", "#if os(iOS) && !targetEnvironment(macCatalyst)\n"
    )
    world.code.write("src/error.rs", gated).write("Sources/Keychain.swift", narrowed)
    world.code.commit("gate the backtrace on std, no shared credentials on Catalyst")
    listed = world.listed()
    assert set(listed) == {backtrace, shared}
    assert listed[backtrace]["anchors"][0]["names"] == ["its attributes"]
    assert listed[shared]["anchors"][0]["names"] == ["its #if"]
    assert "its attributes" in listed[backtrace]["label"]
    assert "its #if" in listed[shared]["label"]


def test_the_next_definitions_attribute_or_a_doc_comment_is_no_change(world: World) -> None:
    _notes(world)
    world.code.write(
        "src/error.rs",
        ERROR_RS.replace("#[inline]", "#[must_use]").replace(
            "/// The backtrace of the error, when one was captured.",
            "/// The error's backtrace (captured when `RUST_BACKTRACE` is set).",
        ),
    )
    world.code.write(
        "Sources/Keychain.swift",
        KEYCHAIN_SWIFT.replace(
            "    public func remove(", "    @discardableResult\n    public func remove("
        ).replace("#endif\n", "#endif // os(iOS)\n"),
    )
    world.code.commit("the neighbours' attributes, a doc comment")
    doc = world.stale()
    assert doc["stale"] == [] and doc.get("changed", []) == []
