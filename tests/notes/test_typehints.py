"""``typehints.retyped``: two versions of a block that differ only in the types their
declarations state (PHP, Python, TypeScript, Kotlin), and the changes that are more than that."""

from __future__ import annotations

import pytest

from reflectgit.notes.typehints import retyped

RULES_PHP = "interface P {\n    public function getRules($ruleset);\n}\n"
RULES_TYPED_PHP = "interface P {\n    public function getRules(string $ruleset): array;\n}\n"
ADD_PHP = """class S {
    private $rules = [];
    public function addRule($character, $replacement = '') {
        $this->rules[$character] = $replacement;
        return $this;
    }
}
"""
ADD_TYPED_PHP = ADD_PHP.replace("private $rules", "private array $rules").replace(
    "($character, $replacement = '') {", "(string $character, ?string $replacement = ''): self {"
)
WAIT_PY = "def wait(self, retry_state):\n    n = retry_state.attempt\n    return self.base * n\n"
WAIT_TYPED_PY = (
    'def wait(self, retry_state: "RetryCallState") -> float:\n'
    "    n: int = retry_state.attempt\n    return self.base * n\n"
)
WAIT_STR_PY = WAIT_TYPED_PY.replace("-> float", "-> str")
ADD_TS = (
    "class Q {\n  private n = 0;\n  add(fn, options = {}) {\n    return this.run(fn);\n  }\n}\n"
)
ADD_TYPED_TS = (
    "class Q {\n  private n: number = 0;\n"
    "  add<T>(fn: Task<T>, options: Partial<Map<string, number>> = {}): Promise<T> {\n"
    "    return this.run(fn);\n  }\n}\n"
)
ADD_TYPED_TS = ADD_TYPED_TS.replace("add<T>(", "add(")
ARROW_TS = "const pick = (a, b) => a ?? b;\n"
ARROW_TYPED_TS = "const pick = (a: string, b: string): string => a ?? b;\n"
SUM_KT = "fun sum(a: Int, b: Int): Int {\n    return a + b\n}\n"
SUM_LONG_KT = "fun sum(a: Long, b: Long): Long {\n    return a + b\n}\n"


@pytest.mark.parametrize(
    ("old", "new", "path", "types"),
    [
        (RULES_PHP, RULES_TYPED_PHP, "src/P.php", ("array", "string")),
        (ADD_PHP, ADD_TYPED_PHP, "src/S.php", ("array", "self", "string")),
        (WAIT_PY, WAIT_TYPED_PY, "wait.py", ('"RetryCallState"', "float", "int")),
        (WAIT_TYPED_PY, WAIT_PY, "wait.py", ('"RetryCallState"', "float", "int")),
        (WAIT_TYPED_PY, WAIT_STR_PY, "wait.py", ("float", "str")),
        (
            ADD_TS,
            ADD_TYPED_TS,
            "q.ts",
            ("Map", "Partial", "Promise", "T", "Task", "number", "string"),
        ),
        (ARROW_TS, ARROW_TYPED_TS, "pick.ts", ("string",)),
        (SUM_KT, SUM_LONG_KT, "Sum.kt", ("Int", "Long")),
    ],
)
def test_types_added_changed_or_dropped_are_read(
    old: str, new: str, path: str, types: tuple[str, ...]
) -> None:
    found = retyped(old, new, path)
    assert found is not None
    assert set(found[0] + found[1]) >= {t for t in types if not t.startswith('"')}


def test_the_types_taken_away_and_put_in() -> None:
    assert retyped(WAIT_TYPED_PY, WAIT_STR_PY, "wait.py") == (("float",), ("str",))
    assert retyped(RULES_PHP, RULES_TYPED_PHP, "src/P.php") == ((), ("array", "string"))


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        # a type added and the body changed
        (RULES_PHP, RULES_TYPED_PHP.replace("$ruleset)", "$ruleset, $options)"), "src/P.php"),
        (ADD_PHP, ADD_TYPED_PHP.replace("return $this;", "return $this->rules;"), "src/S.php"),
        (WAIT_PY, WAIT_TYPED_PY.replace("self.base * n", "self.base + n"), "wait.py"),
        # the same code, or no type touched
        (WAIT_PY, WAIT_PY.replace("\n", "  # note\n", 1), "wait.py"),
        (WAIT_PY, WAIT_PY.replace("* n", "* 2"), "wait.py"),
        # a call's keyword argument, an object literal's key: no declaration
        ("f(x=1)\n", "f(x=2)\n", "a.py"),
        ("const o = { a: 1, b: 2 };\n", "const o = { a: 1, b: 3 };\n", "o.ts"),
        # a language whose declarations are not read
        ("int f(int a) { return a; }\n", "long f(long a) { return a; }\n", "f.java"),
        # a Python clause's colon annotates nothing
        ("if x:\n    pass\nelse: y = 1\n", "if x:\n    pass\nelse: z = 1\n", "a.py"),
    ],
)
def test_other_changes_are_not_read_as_types(old: str, new: str, path: str) -> None:
    assert retyped(old, new, path) is None
