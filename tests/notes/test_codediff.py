"""What a change to anchored code did (notes/codediff.py): comments and layout aside, a
consistent renaming, the members and the names a note speaks of; each rule with the change it
must not excuse."""

from __future__ import annotations

import pytest

from reflectgit.notes import codediff
from reflectgit.notes.tokens import lines, tokens

LRU = """class LRUCache(Cache):
    def __getitem__(self, key):
        value = Cache.__getitem__(self, key)
        if key in self:
            self.__update(key)
        return value

    def expire(self, time):
        for item in self.__items:
            del self[item.key]

    def __update(self, key):
        self.__order.move_to_end(key)
"""
NOTE = "`LRUCache.__getitem__` updates the order only when `key in self` after the lookup."


def test_comments_docstrings_and_layout_are_no_change() -> None:
    new = LRU.replace(
        "        if key in self:", "        # only stored keys\n        if key  in self:"
    )
    new = new.replace(
        "    def __update(self, key):\n",
        '    def __update(self, key):\n        """Mark as used"""\n',
    )
    assert codediff.compare(LRU, new, "cache.py", NOTE, "LRUCache").kind == "same"
    go = "func Load() error {\n\treturn nil\n}\n"
    commented = (
        "// Load loads.\n// See the README.\nfunc Load() error {\n\treturn nil /* ok */\n}\n"
    )
    assert codediff.compare(go, commented, "env.go").kind == "same"


PACKAGE = """{
  "name": "debug",
  "main": "./src/index.js",
  "dependencies": {
    "ms": "2.0.0"
  },
  "devDependencies": {
    "mocha": "^5.2.0"
  }
}
"""


def test_a_json_documents_keys_are_the_names_a_note_states() -> None:
    """In JSON every key is a string: a note about `dependencies` and `ms` names them, so a key
    added elsewhere is no change to it, while its own entry changed is (in code, a string that
    holds one word does not say which part a note is about)."""
    said = "`dependencies` lists `ms` alone: nothing else is installed with the package."
    engines = PACKAGE.replace('  "main"', '  "engines": {\n    "node": ">=6.0"\n  },\n  "main"')
    assert codediff.compare(PACKAGE, engines, "package.json", said).kind == "elsewhere"
    added = PACKAGE.replace('"ms": "2.0.0"', '"ms": "2.0.0",\n    "supports-color": "^5"')
    assert codediff.compare(PACKAGE, added, "package.json", said).stale
    # the same text as code: a string holding one name is a value, not the part it names
    code = "const deps = {'dependencies': {'ms': '2.0.0'}}\n"
    assert codediff.compare(code, code.replace("2.0.0", "2.1.3"), "deps.js", said).stale


def test_a_comment_marker_inside_a_string_is_code() -> None:
    old = 'URL = "https://example.com"\n'
    new = 'URL = "https://example.org"\n'
    assert codediff.compare(old, new, "conf.go").kind == "changed"
    assert tokens('x = "a # b"  # note\n', "a.py") == ["x", "=", '"a # b"']


def test_a_consistent_renaming_is_cosmetic_and_an_inconsistent_one_is_not() -> None:
    renamed = LRU.replace("__update", "__touch")
    assert codediff.compare(LRU, renamed, "cache.py", NOTE, "LRUCache").kind == "renamed"
    # one of three uses renamed: two names for one thing, a real change
    half = LRU.replace("self.__update(key)", "self.__touch(key)")
    assert codediff.compare(LRU, half, "cache.py").kind == "changed"
    assert not codediff.renamed_only(["a", "+", "b"], ["a", "-", "b"])
    # a variable the block assigns may be renamed; a function it calls may not (another one)
    go = "func Write() int {\n\tcontent, error := Marshal(m)\n\treturn error\n}\n"
    assert (
        codediff.compare(
            go, go.replace("error :=", "err :=").replace("return error", "return err"), "w.go"
        ).kind
        == "renamed"
    )
    assert codediff.compare(go, go.replace("Marshal", "MarshalInts"), "w.go").kind == "changed"
    assert not codediff.renamed_only(["x", "=", "a", ";", "a"], ["y", "=", "a", ";", "x"])
    # a parameter renamed throughout is a renaming; the function it calls is not one
    get = "def get(self, key):\n    return fetch(self.d, key)\n"
    assert codediff.compare(get, get.replace("key", "k"), "m.py").kind == "renamed"
    assert codediff.compare(get, get.replace("fetch", "fetch_all"), "m.py").kind == "changed"
    method = "func (r *Repo) Open(path string) error {\n\treturn r.open(path)\n}\n"
    assert codediff.compare(method, method.replace("path", "p"), "r.go").kind == "renamed"
    assert codediff.compare(method, method.replace("r.open", "r.create"), "r.go").kind == "changed"


def test_a_renaming_of_a_name_the_note_states_is_a_change() -> None:
    # Haskell guards read as bindings (``| IS_WINDOWS = ...``): the block's names renamed
    # consistently, and the note states the old one, which is gone from the code
    old = (
        "normalizeFilePath :: FilePath -> FilePath\nnormalizeFilePath\n"
        "  | IS_WINDOWS = normalizeWindowsSeps . normalise\n"
        "  | otherwise  = normalizeLeadingSeps . normalise\n"
    )
    new = old.replace("IS_WINDOWS", "isWindows")
    said = "`normalizeFilePath` picks the Windows separators when the `IS_WINDOWS` macro is True."
    change = codediff.compare(old, new, "src/Path.hs", said, "normalizeFilePath")
    assert (change.kind, change.names) == ("changed", ("IS_WINDOWS",))
    # the same renaming, the note stating neither name: a renaming, no change to the lesson
    other = "`normalizeFilePath` normalises first, then fixes the separators."
    assert codediff.compare(old, new, "src/Path.hs", other, "normalizeFilePath").kind == "renamed"
    # a local the note does not name, renamed: still a renaming
    go = "func Write() int {\n\tcontent, error := Marshal(m)\n\treturn error\n}\n"
    renamed = go.replace("error :=", "err :=").replace("return error", "return err")
    assert codediff.compare(go, renamed, "w.go", "`Write` returns `Marshal`'s error.").kind == (
        "renamed"
    )


def test_a_change_in_a_member_the_note_does_not_name_is_elsewhere() -> None:
    new = LRU.replace("del self[item.key]", "yield item.key, self.pop(item.key)")
    verdict = codediff.compare(LRU, new, "cache.py", NOTE, "LRUCache")
    assert verdict.kind == "elsewhere" and not verdict.stale
    # the member it names changed: stale, with what was touched
    named = LRU.replace("        if key in self:\n", "        if True:\n")
    verdict = codediff.compare(LRU, named, "cache.py", NOTE, "LRUCache")
    assert verdict.stale and verdict.names == ("key",)


def test_lines_without_a_name_the_note_says_are_elsewhere_and_with_one_changed() -> None:
    old = "func Marshal(m map[string]string) string {\n\tlines := quoted(m)\n\tsort.Strings(lines)\n\treturn join(lines)\n}\n"
    note = "`Marshal` calls `sort.Strings` on the entries before joining them."
    unrelated = old.replace("lines := quoted(m)", "lines := quoted(m, true)")
    assert codediff.compare(old, unrelated, "m.go", note, "Marshal").kind == "elsewhere"
    unsorted = old.replace("\tsort.Strings(lines)\n", "")
    verdict = codediff.compare(old, unsorted, "m.go", note, "Marshal")
    assert verdict.stale and "Strings" in verdict.names


def test_a_qualifier_alone_is_not_a_name_the_note_says() -> None:
    old = "func loadFile() {\n\tcurrent := os.Environ()\n\tos.Setenv(k, v)\n}\n"
    new = old.replace("\tos.Setenv(k, v)", "\t_ = os.Setenv(k, v)")
    note = "`loadFile` reads `os.Environ()` once per file."
    assert codediff.compare(old, new, "env.go", note, "loadFile").kind == "elsewhere"
    environ = old.replace("os.Environ()", "os.Getenv(name)")
    assert codediff.compare(old, environ, "env.go", note, "loadFile").stale


def test_an_operator_change_is_a_change_whatever_the_note_says() -> None:
    old = "def expired(item, now):\n    return item.expires < now\n"
    new = old.replace("<", "<=")
    note = "`expired` compares the expiry with `now` and the item's time"
    assert codediff.compare(old, new, "ttl.py", note, "expired").stale


def test_a_note_that_names_nothing_of_its_code_takes_any_change_as_a_change() -> None:
    old = "def prefill(pool, size):\n    for _ in range(size):\n        pool.add(1)\n"
    new = old.replace("range(size)", "range(size * 2)")
    assert codediff.compare(old, new, "pool.py", "Prefill early: it pays", "prefill").stale
    assert codediff.compare(old, new, "pool.py", None, "prefill").stale


def test_a_note_that_names_nothing_of_its_code_is_marked_so() -> None:
    old = "def prefill(pool, size):\n    for _ in range(size):\n        pool.add(1)\n"
    new = old.replace("range(size)", "range(size * 2)")
    assert codediff.compare(old, new, "pool.py", "Prefill early: it pays", "prefill").unnamed
    # a note naming what changed is stale for that, not for naming nothing
    named = codediff.compare(old, new, "pool.py", "`prefill` loops over `size`", "prefill")
    assert named.stale and not named.unnamed


def test_size_counts_lines_of_code_removed_rewritten_or_added() -> None:
    old = "def f(a):\n    x = a\n    y = 2\n    return g(x, y)\n"
    # a rewritten line and one added: the group's longer side, 2; of the longer version, 5
    new = "def f(a):\n    x = a * 2\n    z = 3\n    y = 2\n    return g(x, y)\n"
    assert codediff.size(old, new, "f.py") == (2, 5)
    # comments, blank lines and layout are no lines of code changed (a call spread over three
    # lines is three lines of code of its version)
    noted = "def f(a):\n    # why\n\n    x = a\n    y = 2\n    return g(\n        x,\n        y)\n"
    assert codediff.size(old, noted, "f.py") == (0, 6)
    assert codediff.size(old, "def f(a):\n    return a\n", "f.py") == (3, 4)


def test_a_line_rewritten_only_in_its_names_touches_those_names() -> None:
    header = "class Reader {\npublic:\n    bool HasValue(std::string name) const;\n};\n"
    note = "Reader.HasValue(name) is true only for a name with a value"
    exported = header.replace("    bool HasValue", "    API bool HasValue")
    assert codediff.compare(header, exported, "r.h", note, "Reader").kind == "elsewhere"
    # a literal, an operator or a bracket changed on the line: the line counts as a whole
    default = header.replace("std::string name)", 'std::string name = "")')
    assert codediff.compare(header, default, "r.h", note, "Reader").kind == "changed"
    # a name the note states swapped for another: that name is touched
    renamed = header.replace("HasValue(std::string name)", "HasValue(std::string key)")
    assert codediff.compare(header, renamed, "r.h", note, "Reader").names == ("name",)


def test_names_changed_only_when_nothing_but_names_changed() -> None:
    code = "fn logger() {\n    if STATE.load(SeqCst) != DONE {\n        return NOP;\n    }\n}\n"
    assert codediff.names_changed(code, code.replace("SeqCst", "Acquire"), "l.rs") == {
        "SeqCst",
        "Acquire",
    }
    assert codediff.names_changed(code, code.replace("{\n", "{ // c\n", 1), "l.rs") == set()
    assert codediff.names_changed(code, code.replace("!=", "=="), "l.rs") is None
    assert (
        codediff.names_changed(
            code, code.replace("return NOP;", "log();\n        return NOP;"), "l.rs"
        )
        is None
    )


def test_ruby_and_php_language_words_name_nothing() -> None:
    said = "checkin raises in a begin/ensure block; BadRouteException extends LogicException"
    stated = "checkin takes conn from pop in a begin/ensure block"
    assert codediff.names_in(said) == {
        "checkin", "raises", "block", "BadRouteException", "LogicException",
    }  # fmt: skip
    body = "def checkin\n  conn = pop\nend\n"
    wrapped = "def checkin\n  begin\n    conn = pop\n  ensure\n    log\n  end\nend\n"
    # begin/ensure added around the line: the words of the language are no name the note states
    assert codediff.compare(body, wrapped, "p.rb", stated, "checkin").kind == "elsewhere"
    assert (
        codediff.compare(body, wrapped, "p.rb", stated + " and logs", "checkin").kind == "elsewhere"
    )
    assert codediff.compare(body, wrapped, "p.rb", stated + " and log", "checkin").stale


def test_a_string_rewritten_outside_the_words_the_note_quotes_is_not_what_it_states() -> None:
    old = (
        "public class MissingType : InvalidOperationException\n{\n"
        "    public MissingType(Type t)\n"
        "        : base($\"Could not find any registered services for type '{Name(t)}'.\")\n"
        "    {\n        ServiceType = t;\n    }\n}\n"
    )
    note = (
        "MissingType derives from InvalidOperationException and exposes the ServiceType it "
        "could not find any registered services for."
    )
    interpolated = old.replace("{Name(t)}", "{t.ToFriendlyName()}")
    verdict = codediff.compare(old, interpolated, "Missing.cs", note, "MissingType")
    assert verdict.kind == "elsewhere"
    # the words it quotes changed: stated
    reworded = old.replace("Could not find any", "Found no")
    verdict = codediff.compare(old, reworded, "Missing.cs", note, "MissingType")
    assert verdict.stale
    # a string the note quotes whole is the value it states, whatever it keeps
    whole = note.replace("could not find", "'Could not find any registered services for type'")
    old_whole = old.replace("type '{Name(t)}'.", "type")
    new_whole = old_whole.replace("for type", "for type now")
    assert codediff.compare(old_whole, new_whole, "Missing.cs", whole, "MissingType").stale


def test_a_call_put_around_a_value_or_taken_off_it_touches_that_call() -> None:
    before = 'cp.read(str(pathlib.Path(__file__).parent / "setup.cfg"))\n'
    after = 'cp.read(pathlib.Path(__file__).parent / "setup.cfg")\n'
    assert codediff.changed_lines(before, after, "conf.py") == [["str"]]
    assert codediff.changed_lines("x = f(a)\n", "x = f(g(a))\n", "m.py") == [["g"]]
    # not a call around a value: the whole lines
    assert codediff.changed_lines("x = f(a)\n", "x = f(a)(b)\n", "m.py") == [
        ["x", "=", "f", "(", "a", ")"],
        ["x", "=", "f", "(", "a", ")", "(", "b", ")"],
    ]
    assert codediff.changed_lines("return when (this) {\n", "return when {\n", "R.kt") == [
        ["return", "when", "(", "this", ")", "{"],
        ["return", "when", "{"],
    ]


def test_a_test_respelled_or_become_the_default_branch_touches_what_is_beside_it() -> None:
    before = "        is Ok -> value\n        is Err -> this\n"
    after = "        isOk -> value\n        else -> this.asErr()\n"
    assert codediff.changed_lines(before, after, "R.kt") == [[], [".", "asErr", "(", ")"]]
    # another test in place of the old one touched ``Ok``
    assert codediff.changed_lines("is Ok -> value\n", "isEmpty -> value\n", "R.kt") == [
        ["is", "Ok", "isEmpty"]
    ]


def test_renaming_finds_a_name_renamed_across_its_file_and_nothing_else() -> None:
    def names(old: str, new: str, before: str | None = None, after: str | None = None) -> dict:
        t = tokens
        return codediff.renaming(
            t(old, "q.ts"),
            t(new, "q.ts"),
            lines(before or old, "q.ts"),
            lines(after or new, "q.ts"),
        )

    old = "private _queue: Q;\nf() {\n\tthis._paused = true;\n\treturn this._queue.size;\n}\n"
    new = "#queue: Q;\nf() {\n\tthis.#isPaused = true;\n\treturn this.#queue.size;\n}\n"
    assert names(old, new) == {"_paused": "#isPaused", "_queue": "#queue"}
    assert tokens("this.#queue", "q.ts") == ["this", ".", "#queue"]
    # the old name kept elsewhere in the file: two names, no renaming
    assert names(old, new, after=new + "g() { this._paused = false; }\n") == {"_queue": "#queue"}
    # the new name was in the file already: another field, no renaming
    assert names(old, new, before=old + "#isPaused = false;\n") == {"_queue": "#queue"}
    # one old name put as two new ones
    two = "f() {\n\tthis.#a = this.#b;\n}\n"
    assert names("f() {\n\tthis._x = this._x;\n}\n", two) == {}
    # a name put for another by chance in a rewrite (other places of it changed beyond it,
    # no word shared) is no renaming; a private twin (``next`` to ``#next``) needs no place
    rewrite = "f() {\n\tlet a = empty;\n\tg(empty, 1);\n}\n"
    chance = "f() {\n\tlet a = EventName;\n\tg();\n}\n"
    declared = names(
        rewrite, chance, "const empty = 1;\n" + rewrite, "type EventName = 1;\n" + chance
    )
    assert declared == {}
    called = "f() {\n\tthis.next();\n}\n"
    private = "f() {\n\tqueueMicrotask(() => this.#next());\n}\n"
    defined = "next(): void {\n}\n"
    assert names(called, private, called + defined, private + "#" + defined) == {"next": "#next"}
    # a name the file does not declare (another method called: ``put`` to ``putNow``)
    assert names("f() {\n\tthis.free.put(c);\n}\n", "f() {\n\tthis.free.putNow(c);\n}\n") == {}
    # the language's words are not renamed
    assert names("f() {\n\tlet a = 1;\n}\n", "f() {\n\tconst a = 1;\n}\n") == {}


def test_a_renaming_applied_leaves_what_else_changed() -> None:
    old = "export function next(step) {\n\t_count += step;\n\treturn _count;\n}\n"
    head = "let _count = 0;\n"

    def judge(new: str, note: str, files: bool = True) -> codediff.CodeChange:
        around = (head + new).replace("_count", "total") if files else None
        before = head + old if files else None
        return codediff.compare(old, new, "c.ts", note, "next", "t", around, before)

    renamed = old.replace("_count", "total")
    note = "`next(step)` adds `step` to the total."
    assert judge(renamed, note).kind == "renamed"
    verdict = judge(renamed.replace("+= step", "+= step * 2"), note)
    assert verdict.stale and "step" in verdict.names
    # the note states the old name: the name it says is gone
    verdict = judge(renamed, "`next(step)` adds `step` to `_count`.")
    assert verdict.stale and verdict.names == ("_count",)
    # without the file's two versions, no renaming is read
    assert judge(renamed, note, files=False).kind != "renamed"


STEPS = """jobs:
  msrv:
    steps:
      - name: Install toolchain
        run: rustup default 1.31.0
      - run: cargo build
      - run: cargo clippy
      - run: cargo fmt
"""


def test_a_whole_files_line_repeated_from_anywhere_in_it_touched_only_what_differs() -> None:
    said = "The msrv job installs toolchain 1.31.0"
    new = STEPS + "      - name: Install toolchain\n        run: rustup default stable\n"
    # the file said "Install toolchain" already; the copy differs in stable alone
    assert codediff.compare(STEPS, new, "ci.yml", said).kind == "elsewhere"
    # a line that is no copy of any of the file's lines counts whole
    new = STEPS + "      - run: echo toolchain ready\n"
    assert codediff.compare(STEPS, new, "ci.yml", said).names == ("toolchain",)
    # in a symbol's block a line copied from further away puts that code somewhere new
    new = STEPS + "      - name: Install toolchain\n        run: rustup default stable\n"
    assert codediff.compare(STEPS, new, "ci.yml", said, "jobs").names == ("toolchain",)


def test_a_field_written_under_another_name_in_one_method_is_no_renaming() -> None:
    t = tokens
    old = "pause(): void {\n\tthis._paused = true;\n}\n"
    assert not codediff.renamed_only(t(old, "q.ts"), t(old.replace("_paused", "#isPaused"), "q.ts"))
    # a local the block binds is its own to rename
    local = "f() {\n\tlet count = 1;\n\treturn count;\n}\n"
    assert codediff.renamed_only(t(local, "q.ts"), t(local.replace("count", "total"), "q.ts"))


STRATEGY_CS = """using System;

namespace Scrutor
{
    public abstract class RegistrationStrategy
    {
        public static readonly RegistrationStrategy Skip = new SkipStrategy();

        public abstract void Apply(IServiceCollection services, int limit);
    }
}
"""
STRATEGY_SAID = "RegistrationStrategy offers Skip; none of them fails on a duplicate"


def test_a_change_that_only_reshaped_the_code_is_changed_elsewhere_for_a_pull_request() -> None:
    # a namespace made file-scoped: ``{`` became ``;``, a ``}`` went, the class moved out
    scoped = STRATEGY_CS.replace("namespace Scrutor\n{", "namespace Scrutor;").rstrip()[:-1]
    scoped = "\n".join(line.removeprefix("    ") for line in scoped.split("\n"))
    path = "RegistrationStrategy.cs"
    verdict = codediff.compare(STRATEGY_CS, scoped, path, STRATEGY_SAID, reshaping=True)
    assert verdict.kind == "elsewhere"
    # a constant annotated, its value put in brackets
    old, new = 'TIME = r"(\\d\\d):(\\d\\d)"\n', 'TIME: Final = (\n    r"(\\d\\d):(\\d\\d)"\n)\n'
    said = "TIME requires seconds; both LOCALTIME and DATETIME are built on it"
    assert codediff.compare(old, new, "re.py", said, "TIME", reshaping=True).kind == "elsewhere"
    # a CI step's name shortened by a word the note does not say (a paragraph of the file)
    ci = "jobs:\n  test:\n    steps:\n    - name: Install Rust (rustup)\n      run: make\n"
    ci += "\n  msrv:\n    steps:\n    - name: Install Rust 1.31\n      run: make\n"
    said = "Every job installs Rust and runs make"
    shorter = ci.replace(" (rustup)", "") + "\n  doc:\n    steps:\n    - run: make docs\n"
    assert codediff.compare(ci, shorter, "ci.yml", said, reshaping=True).kind == "elsewhere"
    # ``stale`` reads a history, where a block gaining a ``;`` may have changed beside what
    # the block holds (an attribute put before it): judged as before
    assert codediff.compare(old, new, "re.py", "TIME requires seconds", "TIME").kind == "changed"
    assert codediff.compare(ci, shorter, "ci.yml", said).kind == "changed"


def test_a_reshaping_that_touches_a_value_an_operator_a_keyword_or_a_stated_name_is_not() -> None:
    path = "RegistrationStrategy.cs"
    for old, new in (
        ("Skip = new SkipStrategy()", "Skip = (new SkipStrategy() ?? null)"),  # an operator
        ("Skip = new SkipStrategy()", "Skip = (new SkipStrategy(1))"),  # a value
        ("new SkipStrategy()", "new SkipStrategy(Skip)"),  # a name the note says
    ):
        new_text = STRATEGY_CS.replace(old, new)
        assert new_text != STRATEGY_CS
        verdict = codediff.compare(STRATEGY_CS, new_text, path, STRATEGY_SAID, reshaping=True)
        assert verdict.kind == "changed", (old, new)

    def reshaped(old: str, new: str) -> bool:
        t, said = tokens, "total is what compute returns"
        return codediff.reshaped_only(t(old, "a.py"), t(new, "a.py"), said)

    line = "total = compute(items)"
    assert reshaped(line, "total: Sum = (compute(items))")  # an annotation, brackets
    assert not reshaped(line, line + "  # same")  # nothing touched
    for new in (
        "total = compute(items, limit)",  # an argument
        "total = cache.compute(items)",  # a qualifier
        "total = compute(not items)",  # a word of the language
        "total = compute(None)",  # a value
        "total = compute(items)[0]",  # a number
        "total = compute(-items)",  # an operator
        "total = summed(items)",  # one name in place of another
        "total: compute = (compute(items))",  # a name the note says
    ):
        assert not reshaped(line, new), new


CLI = """func main() {
	var rawEnvFilenames string
	flag.Parse()
	envFilenames := strings.Split(rawEnvFilenames, ",")
	err := godotenv.Exec(envFilenames, cmd, cmdArgs)
	if err != nil {
		log.Fatal(err)
	}
}
"""
CLI_NOTE = (
    "`godotenv -f .env.prod my-cmd` uses Exec, which uses Load: the shell wins over the file."
)


def test_a_statement_rewritten_around_what_a_note_states_still_counts_whole() -> None:
    """The same logic written another way (issue 35) cannot be told from a change of what the
    note states by the tokens around the names it states: each of these rewrites keeps the
    stated names in place and changes only names, separators or brackets beside them (or an
    operator or literal), and each changes what the note states. (Read as touching only the
    tokens beside the stated names, the first lost three truly stale notes of the replayed
    histories, godotenv's CLI, log's ``set_max_level``, cachetools' ``LRUCache``, and cleared
    no false alarm.)"""
    # an argument added to the call the note names: the CLI now overloads
    new = CLI.replace("cmd, cmdArgs)", "cmd, cmdArgs, overload)")
    verdict = codediff.compare(CLI, new, "cmd/godotenv/cmd.go", CLI_NOTE)
    assert verdict.stale and "Exec" in verdict.names
    # the arguments of the named call swapped: another call
    new = CLI.replace("Exec(envFilenames, cmd, cmdArgs)", "Exec(cmd, envFilenames, cmdArgs)")
    assert codediff.compare(CLI, new, "cmd/godotenv/cmd.go", CLI_NOTE).stale
    # the statement rewritten with its comparison flipped
    old = "enqueue(run, p) {\n\tif (this.size && this._queue[this.size - 1].priority >= p) {\n"
    old += "\t\tthis._queue.push(run);\n\t}\n}\n"
    note = "`enqueue` appends when the tail's priority is >= the new one."
    new = old.replace(
        "this.size && this._queue[this.size - 1].priority >= p", "this.tail().priority > p"
    )
    assert codediff.compare(old, new, "q.ts", note, "enqueue").stale
    # the same statement under a new guard that holds a stated name
    guarded = old.replace(
        "\t\tthis._queue.push(run);\n", "\t\tif (p) {\n\t\t\tthis._queue.push(run);\n\t\t}\n"
    )
    assert codediff.compare(old, guarded, "q.ts", note, "enqueue").stale
    # a comparison kept, only a message written another way: no change to what it states
    check = "f(cap) {\n\tif (cap >= 1) {\n\t\tthrow new TypeError(`Expected ${cap}`);\n\t}\n}\n"
    worded = check.replace("`Expected ${cap}`", "`Expected ${cap?.toString()}`")
    said = "`f` throws TypeError unless cap >= 1"
    assert codediff.compare(check, worded, "q.ts", said, "f").kind == "elsewhere"
    assert codediff.compare(check, check.replace(">= 1", ">= 2"), "q.ts", said, "f").stale


# A loop that skips what fails to load, before and after a helper was extracted from it.
LOADER = """def load_all(names):
    loaded = [main]
    for name in names:
        try:
            loaded.append(load(name))
        except LoadError:
            pass
    return loaded
"""
EXTRACTED = """def load_each(wanted):
    out = []
    for each in wanted:
        try:
            out.append(load(each))
        except LoadError:
            pass
    return out


def load_all(names):
    loaded = [main]
    loaded += load_each(names)
    return loaded
"""
SKIPS = "`load_all` skips a name whose `load` raises `LoadError`: nothing is logged."


def moved(old_file: str, new_file: str, note: str = SKIPS) -> codediff.CodeChange:
    """``load_all`` of two versions of its file, compared as ``stale`` does (with the files)."""
    from reflectgit.notes.anchors import symbol_block

    old, new = symbol_block(old_file, "load_all"), symbol_block(new_file, "load_all")
    assert old is not None and new is not None
    return codediff.compare(old, new, "load.py", note, "load_all", None, new_file, old_file)


def test_lines_moved_into_a_helper_the_block_now_calls_are_no_change() -> None:
    # the helper names its parameter and locals its own way, one for one: still the same lines
    assert moved(LOADER, EXTRACTED).kind == "elsewhere"
    # without the files the lines are gone from the block: what the note states changed
    old, new = LOADER, EXTRACTED.split("\n\n\n")[1]
    alone = codediff.compare(old, new, "load.py", SKIPS, "load_all")
    assert alone.stale and {"LoadError", "load"} <= set(alone.names)


def test_lines_moved_and_changed_on_the_way_are_a_change() -> None:
    # the helper no longer skips LoadError: a stated name differs in the moved line
    logged = EXTRACTED.replace(
        "except LoadError:\n            pass", "except OSError:\n            pass"
    )
    assert moved(LOADER, logged) == codediff.CodeChange("changed", ("LoadError",))
    # an operator changed on the way (``not`` is a word of the language: a keyword counts too)
    guarded = LOADER.replace("loaded.append(load(name))", "loaded.append(load(name) or main)")
    moved_guard = EXTRACTED.replace("out.append(load(each))", "out.append(load(each) and main)")
    assert moved(guarded, moved_guard).stale
    # a helper name standing for two names of the block is no renaming
    twice = EXTRACTED.replace("out.append(load(each))", "out.append(load(wanted))")
    assert moved(LOADER, twice).stale


def test_lines_in_a_function_the_block_does_not_call_are_gone() -> None:
    # the same loop, in a function of the file the block does not call: the block lost it
    uncalled = EXTRACTED.replace("    loaded += load_each(names)\n", "    loaded += names\n")
    assert moved(LOADER, uncalled).stale
    # a function the block called before as well is not where its lost lines went
    called = LOADER.replace("    return loaded\n", "    load_each(names)\n    return loaded\n")
    helper = EXTRACTED.split("\n\n\n")[0] + "\n\n\n"
    assert moved(helper + called, EXTRACTED).stale


INLINED = LOADER  # the same loop, the helper taken back into it
DELEGATING = """def load_each(loaded, names):
    for name in names:
        try:
            loaded.append(load(name))
        except LoadError:
            pass


def load_all(names):
    loaded = [main]
    load_each(loaded, names)
    return loaded
"""


def test_lines_taken_in_from_a_helper_no_longer_called_are_no_change() -> None:
    # the note names what the helper did; the block now does it itself, the helper is gone
    assert moved(DELEGATING, INLINED).kind == "elsewhere"
    # inlined with a change on the way: the stated exception is another
    caught = INLINED.replace("except LoadError:", "except Exception:")
    assert moved(DELEGATING, caught) == codediff.CodeChange("changed", ("LoadError",))


def test_a_call_removed_with_nothing_taken_in_is_a_change() -> None:
    dropped = DELEGATING.replace("    load_each(loaded, names)\n", "")
    assert moved(DELEGATING, dropped).stale


@pytest.mark.parametrize(
    "literal", ["0x7F", "0b1010", "0o17", "10_000", "1e9", "1.5e-3", "2E+5", "3.14f", "0xFFu"]
)
def test_a_number_literal_is_one_value_token_and_one_name(literal: str) -> None:
    assert tokens(f"x = {literal};", "x.c") == ["x", "=", literal, ";"]
    assert codediff.names_in(f"mask is {literal} here") == {"mask", "here", literal}


def test_a_hex_literal_takes_no_exponent_sign() -> None:
    # ``0x1E-1`` is a subtraction: E is a hex digit, not an exponent
    assert tokens("x = 0x1E-1", "x.c") == ["x", "=", "0x1E", "-", "1"]
    assert codediff.names_in("0x1E-1") == {"0x1E", "1"}


def test_a_changed_literal_touches_that_literal_not_its_first_digit() -> None:
    old = "def low(byte):\n    flag = byte & 0x80\n    keep = byte & 0x7F\n    return keep\n"
    new = old.replace("0x7F", "0x3F")
    # the note states 0x80, not the mask that changed: both are no "0"
    assert codediff.compare(old, new, "p.py", "low reads the flag bit, 0x80", "low").kind == (
        "elsewhere"
    )
    assert codediff.compare(old, new, "p.py", "low keeps seven bits, 0x7F", "low").stale
    old = "def wait(t):\n    limit = 1e9\n    sleep(1.5e-3)\n"
    new = old.replace("1.5e-3", "2.5e-3")
    # an exponent's digits are the literal's, not a "3" the note states
    assert not codediff.compare(old, new, "p.py", "wait sleeps 3 ms under limit", "wait").stale
    assert codediff.compare(old, new, "p.py", "wait sleeps 1.5e-3 s under limit", "wait").stale


DECODE_ERL = """-spec decode(Source::json_text()) -> json_term() | {incomplete, decoder()}.
-spec decode(Source::json_text(), Config::jsx_to_term:config()) -> json_term().

decode(Source) -> decode(Source, []).
decode(Source, Config) -> jsx_to_term:to_term(Source, Config).
"""
DECODE_SAID = "decode/2 only calls jsx_to_term:to_term(Source, Config): options are read there"


def test_an_erlang_spec_changed_alone_is_a_change_elsewhere() -> None:
    # the second spec's types changed and it moved beside its arity: the clauses are the same
    moved = DECODE_ERL.replace(
        "-spec decode(Source::json_text(), Config::jsx_to_term:config()) -> json_term().\n", ""
    ).replace(
        "decode(Source, Config) ->",
        "-spec decode(Source::json_text(), Config::jsx_config:options()) -> json_term().\n"
        "decode(Source, Config) ->",
    )
    change = codediff.compare(DECODE_ERL, moved, "src/jsx.erl", DECODE_SAID, "decode/2")
    assert change.kind == "elsewhere" and not change.stale
    # a clause changed with it, on the note's words: stale
    body = moved.replace("jsx_to_term:to_term(Source, Config)", "jsx_decoder:run(Source)")
    assert codediff.compare(DECODE_ERL, body, "src/jsx.erl", DECODE_SAID, "decode/2").stale


def test_a_clause_ending_with_a_semicolon_is_code_not_a_spec() -> None:
    old = "-spec f(atom()) -> integer().\nf(a) -> 1;\nf(b) -> 2.\n"
    new = old.replace("f(a) -> 1;", "f(a) -> 3;")
    assert codediff.compare(old, new, "src/f.erl", "f gives 1 for a", "f").stale
    # a spec of another function in the block's text is not this one's
    other = "-spec g(atom()) -> ok.\nf(a) -> 1.\n"
    assert codediff.compare(
        other, other.replace("-> 1.", "-> 2."), "src/f.erl", "f gives 1", "f"
    ).stale


def test_a_typescript_overload_is_compared_as_code() -> None:
    # not a contract apart: an overload that no longer takes the limit the note states is a
    # change to what ``add`` accepts
    old = (
        "add(fn: Task<T>, limit: number): Promise<T>;\n"
        "add(fn: Task<T>, o?: Opts): Promise<T> {\n  return run(fn, o);\n}\n"
    )
    new = old.replace(", limit: number)", ")")
    assert codediff.compare(old, new, "src/q.ts", "add passes its limit to run", "add").stale


MACRO_BODY = """fn parse(s: &str) -> Result<Self, ParseError> {
    if s.is_empty() {
        return Err(ParseError::empty_flag());
    }
    Ok(Self::from_name(s))
}
"""
MOVED_CALL = """fn parse(s: &str) -> Result<Self, ParseError> {
    $crate::parser::from_str(s)
}
"""


def test_moved_out_reads_a_line_the_same_but_for_its_qualifiers() -> None:
    # the lines holding `ParseError` stand in a new `from_str`, spelled with their paths
    added = [(
        "src/parser.rs",
        "pub fn from_str(s: &str) -> Result<B, ParseError> {\n    if s.is_empty() {\n"
        "        return Err($crate::parser::ParseError::empty_flag());\n    }\n"
        "    Ok(B::from_name(s))\n}\n",
    )]  # fmt: skip
    assert codediff.moved_out(MACRO_BODY, MOVED_CALL, "src/lib.rs", ["ParseError"], added, "parse")
    # what it states changed where it went: an empty input is no longer an error
    kept = [
        (
            "src/parser.rs",
            added[0][1].replace("Err($crate::parser::ParseError::empty_flag())", "Ok(B::empty())"),
        )
    ]
    assert not codediff.moved_out(
        MACRO_BODY, MOVED_CALL, "src/lib.rs", ["ParseError"], kept, "parse"
    )
    assert not codediff.moved_out(MACRO_BODY, MOVED_CALL, "src/lib.rs", ["ParseError"], [], "parse")
