"""bench/respell_shapes.py (issue 35, stale false alarms): the respellings a flagged block holds,
a member named with and without its receiver and a Swift getter with and without ``get { }``
among them. The snippets are SwiftyJSON's (a tune history)."""

from __future__ import annotations

from bench import respell_shapes

STRING_VALUE = """    public var stringValue: String {
        get {
            switch self.type {
            case .string:
                return self.object as? String ?? ""
            default:
                return ""
            }
        }
    }
"""


def test_a_member_without_its_receiver_is_the_receiver_shape() -> None:
    implicit = STRING_VALUE.replace("self.", "")
    assert "receiver" in respell_shapes.shapes(STRING_VALUE, implicit, None, "JSON.swift")
    java = "int size() {\n  return this.count + 1;\n}\n"
    assert "receiver" in respell_shapes.shapes(java, java.replace("this.", ""), None, "A.java")
    # the receiver and the code around it gone, a Python method's ``self``: no such shape
    gone = "    public var stringValue: String {\n        return description\n    }\n"
    assert "receiver" not in respell_shapes.shapes(STRING_VALUE, gone, None, "JSON.swift")
    py = "def size(self):\n    return self.count\n"
    assert respell_shapes.shapes(py, py.replace("self.count", "count"), None, "a.py") == []


def test_a_getter_without_get_is_the_getter_shape() -> None:
    braced = "static var nullJSON: JSON {\n    get { return null }\n}\n"
    bare = "static var nullJSON: JSON {\n    return null\n}\n"
    assert respell_shapes.shapes(braced, bare, None, "JSON.swift") == ["getter"]
    # the same getter in both versions; another language's accessors
    assert respell_shapes.shapes(braced, braced, None, "JSON.swift") == []
    assert respell_shapes.shapes(braced, bare, None, "A.cs") == []
