"""pr-notes' reading of what stands above a definition and belongs to it (``HEADER`` in
``workflows/code/change_notes.py``): its attributes, annotations and decorators are code, a
comment above it is not, nor is the code before it (issue 35: seen on the qs, KeychainAccess,
anyhow and color histories)."""

from __future__ import annotations

from reflectgit.workflows.code.change_notes import _header, _headers_differ

SWIFT_GET = "    func get(_ key: String) -> String? {\n        return nil\n    }\n"


def swift(doc: str) -> str:
    return f"    let service: String\n{doc}    @discardableResult\n{SWIFT_GET}"


def test_a_doc_comment_whose_lines_have_no_star_is_read_whole_as_a_comment() -> None:
    # a Swift doc comment: its text lines need no ``*``; a line of it that reads like an
    # attribute (``[link](...)``) is its text, and ``*/`` closes it, no code
    doc = "    /**\n     Reads a value.\n     [Apple](https://apple.com/keychain)\n     */\n"
    assert _header(swift(doc), SWIFT_GET, "Keychain.swift") == ["@", "discardableResult"]
    reworded = doc.replace("apple.com/keychain", "developer.apple.com/keychain")
    old, new = swift(doc), swift(reworded)
    assert not _headers_differ(old, new, [SWIFT_GET], [SWIFT_GET], "Keychain.swift")
    # with a blank line inside it too
    spaced = "    /**\n     Reads a value.\n\n     - parameter key: the key\n     */\n"
    assert _header(swift(spaced), SWIFT_GET, "Keychain.swift") == ["@", "discardableResult"]
    # code with a comment after it on its line is the code before the definition
    body = "int limit(void) {\n    return 3;\n}\n"
    assert _header(f"static int cap = 3; /* the cap */\n{body}", body, "src/limit.c") == []


def test_an_attribute_changed_above_a_doc_comment_is_still_a_header_change() -> None:
    # the negative: the attribute is code; the comment between it and the definition is not
    doc = "    /**\n     Reads a value.\n     */\n"
    old = f"    let service: String\n    @available(iOS 8.0, *)\n{doc}{SWIFT_GET}"
    new = old.replace("iOS 8.0", "iOS 9.0")
    assert _header(old, SWIFT_GET, "Keychain.swift") == [
        "@", "available", "(", "iOS", "8.0", ",", "*", ")",
    ]  # fmt: skip
    assert _headers_differ(old, new, [SWIFT_GET], [SWIFT_GET], "Keychain.swift")


def test_an_overload_signature_above_the_definition_is_not_its_header() -> None:
    # TypeScript: the overloads' lines close brackets their first line opens, and that line
    # is a signature, not an annotation
    body = "export function parse(str: any, opts?: any) {\n  return str;\n}\n"
    text = f"export function parse(\n  str: string,\n): Parsed;\n{body}"
    assert _header(text, body, "src/parse.ts") == []


def test_a_lisp_form_closing_above_the_definition_is_not_its_header() -> None:
    body = "(defn baz [y]\n  y)\n"
    text = f"(defn foo [x]\n  (bar x))\n{body}"
    assert _header(text, body, "src/core.clj") == []


def test_an_annotation_whose_arguments_run_over_lines_is_still_a_header() -> None:
    # the negative of the two above: the first line opening the brackets is an annotation
    body = "fun send() {\n}\n"
    text = f'val x = 1\n@Deprecated(\n    message = "use post",\n)\n{body}'
    assert _header(text, body, "Client.kt") == [
        "@", "Deprecated", "(", "message", "=", '"use post"', ",", ")",
    ]  # fmt: skip


def test_a_define_above_a_function_is_code_before_it_not_its_header() -> None:
    body = "int limit(void) {\n    return LIMIT;\n}\n"
    old = f"#define LIMIT 3\n{body}"
    assert _header(old, body, "src/limit.c") == []
    assert not _headers_differ(
        old, old.replace("3", "4"), [body], [body], "src/limit.c"
    )  # LIMIT's own line changed, not the function's header


def test_a_conditional_or_an_attribute_above_a_function_is_still_its_header() -> None:
    # the negatives: ``#if`` decides where the function exists, as Rust's ``#[cfg]`` does
    body = "int limit(void) {\n    return 3;\n}\n"
    assert _header(f"#if defined(X)\n{body}", body, "src/limit.c") == [
        "#", "if", "defined", "(", "X", ")",
    ]  # fmt: skip
    rust = "pub fn backtrace(&self) {\n}\n"
    text = f'#[cfg(feature = "std")]\n/// Docs.\n{rust}'
    assert _header(text, rust, "src/error.rs") == [
        "#", "[", "cfg", "(", "feature", "=", '"std"', ")", "]",
    ]  # fmt: skip
