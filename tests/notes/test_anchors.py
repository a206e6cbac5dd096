"""Anchors (notes/anchors.py): the language-agnostic symbol rule, with negative examples,
``PATH:SYMBOL`` specs, the files a session's edit tools named."""

from __future__ import annotations

import pytest

from reflectgit.notes import anchors
from reflectgit.notes.note import Note
from reflectgit.notes.schema import validate_note


def validate_frontmatter(front: dict[str, object]) -> list[object]:
    return list(validate_note(Note(front, "Body.\n")))


DEFINED = [
    ("def prefill(pool):\n    return pool\n", "prefill"),
    ("async def fetch(url):\n    pass\n", "fetch"),
    ("class Pool:\n    pass\n", "Pool"),
    ("export async function fetchUser(id) {\n}\n", "fetchUser"),
    ("export const MAX_RETRIES = 3;\n", "MAX_RETRIES"),
    ("func helper() {}\n", "helper"),
    ("func (r *Repo) Open(path string) error {\n}\n", "Open"),
    ("pub fn parse(input: &str) -> Result<()> {\n}\n", "parse"),
    ("static int parse_args(int argc, char **argv) {\n", "parse_args"),
    ("public static void Main(string[] args) {\n", "Main"),
    ("TIMEOUT = 30\n", "TIMEOUT"),
    ("retries: 3\n", "retries"),
    ("interface Props {\n}\n", "Props"),
    ("    def add(self, conn):\n        pass\n", "Pool.add"),
]
NOT_DEFINED = [
    ("def other():\n    return prefill(1)\n", "prefill"),  # a call is no definition
    ("    if prefill(pool):\n        pass\n", "prefill"),
    ("    return prefill(pool)\n", "prefill"),
    ("x = prefill(pool)\n", "prefill"),
    ("# def prefill(pool) was removed\n", "prefill"),
    ("def prefill_all(pool):\n    pass\n", "prefill"),  # a longer name
    ("if (x == TIMEOUT) {\n", "TIMEOUT"),
    ("await fetchUser(3)\n", "fetchUser"),
    ("", "anything"),
]


@pytest.mark.parametrize(("text", "symbol"), DEFINED)
def test_definitions_are_found(text: str, symbol: str) -> None:
    assert anchors.defines(text, symbol)


@pytest.mark.parametrize(("text", "symbol"), NOT_DEFINED)
def test_uses_and_lookalikes_are_not_definitions(text: str, symbol: str) -> None:
    assert not anchors.defines(text, symbol)


def test_a_block_ends_at_the_next_definition_no_deeper() -> None:
    text = (
        "def a():\n    x = 1\n    def inner():\n        pass\n    return x\n\ndef b():\n    pass\n"
    )
    assert anchors.symbol_block(text, "a") == (
        "def a():\n    x = 1\n    def inner():\n        pass\n    return x\n"
    )
    assert anchors.symbol_block(text, "b") == "def b():\n    pass\n"


def test_the_comments_and_decorators_before_the_next_definition_are_not_the_blocks() -> None:
    go = 'const special = "$`"\n\n// Load reads the file.\n// It never overrides.\nfunc Load() {\n}\n'
    assert anchors.symbol_block(go, "special") == 'const special = "$`"\n'
    py = "def a():\n    return 1\n\n\n@cached\n# why\ndef b():\n    pass\n"
    assert anchors.symbol_block(py, "a") == "def a():\n    return 1\n"
    edited = py.replace("# why", "# why, said better")
    assert anchors.same_code(anchors.symbol_block(py, "a"), anchors.symbol_block(edited, "a"))


def test_same_code_ignores_whitespace_only() -> None:
    assert anchors.same_code("def a():\n  return 1\n", "def a():\n\n    return  1\n")
    assert not anchors.same_code("def a():\n  return 1\n", "def a():\n  return 2\n")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("src/pool.py", ("src/pool.py", None)),
        ("src/pool.py:prefill", ("src/pool.py", "prefill")),
        ("src/pool.py:Pool.add", ("src/pool.py", "Pool.add")),
        ("a:b/c.py", ("a:b/c.py", None)),  # the part after the colon is a path, not a name
        ("src/jsx.erl:prettify/1", ("src/jsx.erl", "prettify/1")),  # an Erlang arity
        ("a:b/1/2", ("a:b/1/2", None)),  # a path whose last part is a number
    ],
)
def test_specs(spec: str, expected: tuple[str, str | None]) -> None:
    assert anchors.parse_spec(spec) == expected


@pytest.mark.parametrize("bad", ["/etc/passwd", "../x.py", "a/../../x.py", ""])
def test_paths_leaving_the_repository_are_refused(bad: str) -> None:
    assert anchors.clean_path(bad) is None


def test_edited_paths_from_edit_tools_and_patches_not_reads() -> None:
    calls = [
        ("Read", {"file_path": "/r/src/read_only.py"}),
        ("Edit", {"file_path": "/r/src/a.py"}),
        ("Bash", {"command": "sed -i s/x/y/ src/c.py"}),
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: src/b.rs\n@@\n"}),
        ("str_replace_based_edit_tool", {"command": "view", "path": "/r/src/viewed.py"}),
        ("Write", {"file_path": "/r/src/a.py"}),
    ]
    assert anchors.edited_paths(calls) == ["/r/src/a.py", "src/b.rs"]


def test_schema_takes_anchors_and_refuses_bad_ones() -> None:
    base = {"title": "T", "created": "2026-03-04", "confidence": "high"}
    good = {**base, "anchors": [{"path": "src/a.py", "symbol": "f", "commit": "a" * 40}]}
    assert validate_frontmatter(good) == []
    for bad in (
        [{"path": "/abs.py"}],
        [{"path": "../up.py"}],
        [{"symbol": "f"}],
        [{"path": "a.py", "commit": "not-a-sha"}],
        [{"path": "a.py", "line": 3}],
        "src/a.py",
    ):
        assert validate_frontmatter({**base, "anchors": bad}), bad


def test_merged_keeps_one_per_path_and_symbol() -> None:
    old = [anchors.Anchor("a.py", None, "1" * 40), anchors.Anchor("a.py", "f", "1" * 40)]
    new = [anchors.Anchor("a.py", None, "2" * 40)]
    assert anchors.merged(old, new) == [anchors.Anchor("a.py", None, "2" * 40), old[1]]


def test_a_diff_names_its_files_renames_and_the_symbols_its_hunks_touched() -> None:
    from reflectgit.notes import diffs

    patch = (
        "diff --git a/src/pool.py b/src/pool.py\n"
        "index 1..2 100644\n--- a/src/pool.py\n+++ b/src/pool.py\n"
        "@@ -5 +5 @@ def prefill(pool, size):\n-    for _ in range(size):\n+    for _ in range(2):\n"
        "@@ -20,0 +21,2 @@ class Pool:\n+def drain(pool):\n+    pass\n"
        "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-x = 1\n"
    )
    pool, moved, gone = diffs.parse(patch)
    assert (pool.status, pool.symbols) == ("modified", {"prefill", "Pool", "drain"})
    assert (moved.status, moved.old, moved.new) == ("renamed", "old.py", "new.py")
    assert (gone.status, gone.symbols) == ("deleted", set())  # an assignment names no symbol


def test_a_block_ends_where_its_definition_does() -> None:
    # a body opened and closed on its line, then more code: the line alone
    js = "function id(x) { return x }\nid.cache = new Map();\nfunction other() {\n  return 1;\n}\n"
    symbol_block = anchors.symbol_block
    assert symbol_block(js, "id") == "function id(x) { return x }\n"
    # a prototype ends at its ``;``, not at the next definition
    c = "int parse(const char *s);\nDEPRECATED(parse)\n\nstatic int count = 0;\n"
    assert symbol_block(c, "parse") == "int parse(const char *s);\n"
    # a variable given a value runs on to the next definition: the code after it uses it
    dart = "  var option = find(name);\n  check(option);\n  var other = 1;\n"
    assert symbol_block(dart, "option") == "  var option = find(name);\n  check(option);\n"
    # a body that opens on the line and goes on is still its braces
    ts = "class Q {\n  size(): number {\n    return this.n;\n  }\n  clear(): void {}\n}\n"
    assert symbol_block(ts, "size") == "  size(): number {\n    return this.n;\n  }\n"


def test_documentation_sections_define_nothing() -> None:
    symbol_block = anchors.symbol_block
    rb = "=begin\nIf possible, run(x) will do it. Otherwise, it\n=end\ndef run(x)\n  x\nend\n"
    assert symbol_block(rb, "run") == "def run(x)\n  x\nend\n"
    # POD's ``=end html`` closes a format inside the section, not the section; ``==`` no line
    pm = (
        "=head1 run\n\n=begin html\n<b>x</b>\n=end html\n\n"
        "If possible, run(x) will do it. Otherwise, it\n\n=cut\n\nsub run {\n  1;\n}\n"
    )
    assert symbol_block(pm, "run") == "sub run {\n  1;\n}\n"
    code = "x = 1\n==\nIf possible, run(x) will do it. Otherwise, it\nsub run {\n  1;\n}\n"
    assert symbol_block(code, "run").startswith("If possible")  # type: ignore[union-attr]


def test_a_docstrings_prose_defines_nothing() -> None:
    # humanize's filesize.py: a docstring line reads as a C-like signature of ``suffixes``
    # ("decimal suffixes (kB, MB)"), which outranks the assignment; inside a triple-quoted
    # string it is text, and the assignment is the definition
    py = (
        '"""Bits and bytes related humanization."""\n\n'
        'suffixes = {\n    "decimal": ("kB", "MB", "YB"),\n}\n\n\n'
        "def naturalsize(value):\n"
        '    """Format a number of bytes.\n\n'
        "    By default, decimal suffixes (kB, MB) are used.\n"
        '    """\n'
        "    return suffixes\n"
    )
    symbol_block = anchors.symbol_block
    assert symbol_block(py, "suffixes", "src/humanize/filesize.py") == (
        'suffixes = {\n    "decimal": ("kB", "MB", "YB"),\n}\n'
    )
    # a definition after a docstring, or a string opened on the definition's line, still is one
    after = 'def f():\n    """Doc\n    lines."""\n\n\ndef g(x):\n    return x\n'
    assert symbol_block(after, "g", "m.py") == "def g(x):\n    return x\n"
    opened = 'HELP = """\nusage: tool [-h]\n"""\n'
    assert symbol_block(opened, "HELP", "m.py") == opened
    # a name that only a multi-line string "defines" is defined nowhere
    only = 'NOTE = """\nint parse(const char *s) is the C signature\n"""\n'
    assert symbol_block(only, "parse", "m.py") is None


INCLUDE_HS = """module Path.Include where

import qualified System.FilePath as FilePath

-- | Append two paths. Not @parent (Path a)@: a name in a comment defines nothing.
infixr 5 </>
(</>) :: Path b Dir -> Path Rel t -> Path b t
(</>) (Path a) (Path b) = Path (a ++ b)

-- | The parent directory.
parent :: Path b t
       -> Path b Dir
parent (Path "") = Path ""
parent (Path fp) | FilePath.isDrive fp = Path fp
parent (Path fp) =
    Path (FilePath.takeDirectory fp)
  where
    parent = "a local of the same name, indented"

{-# INLINE filename #-}
filename :: Path b File -> Path Rel File
filename p = let s = "parent x = 1" in Path (FilePath.takeFileName (toFilePath (parent p)))

(Path a) <.> (Path b) = Path (a ++ "." ++ b)

isPrefixOf, isSuffixOf :: Path b Dir -> Path b t -> Bool
isPrefixOf p l = p `elem` inits l
isSuffixOf p l = p `elem` tails l

p `joins` q = p </> q

data PathException
  = InvalidAbsDir FilePath
  | InvalidRelDir FilePath
  deriving (Show, Eq)

class Monad m => MonadPath m where
  normalize :: Path b t -> m (Path b t)
  normalize = return

instance Show (Path b t) where
  show (Path p) = show p

newtype Wrapped = Wrapped { unwrap :: Int }
"""


@pytest.mark.parametrize(
    ("symbol", "block"),
    [
        # an operator's signature, then its prefix equation; the fixity before it defines nothing
        (
            "</>",
            "(</>) :: Path b Dir -> Path Rel t -> Path b t\n(</>) (Path a) (Path b) = Path (a ++ b)\n",
        ),
        # a signature over two lines, equations with guards, a where clause: up to the pragma
        # and the signature of the next definition
        (
            "parent",
            'parent :: Path b t\n       -> Path b Dir\nparent (Path "") = Path ""\n'
            "parent (Path fp) | FilePath.isDrive fp = Path fp\nparent (Path fp) =\n"
            "    Path (FilePath.takeDirectory fp)\n  where\n"
            '    parent = "a local of the same name, indented"\n',
        ),
        # an operator defined infix, with no signature
        ("<.>", '(Path a) <.> (Path b) = Path (a ++ "." ++ b)\n'),
        # a function defined infix in backticks
        ("joins", "p `joins` q = p </> q\n"),
        # a type, a class, a newtype: blocks of their own
        (
            "PathException",
            "data PathException\n  = InvalidAbsDir FilePath\n  | InvalidRelDir FilePath\n"
            "  deriving (Show, Eq)\n",
        ),
        (
            "MonadPath",
            "class Monad m => MonadPath m where\n  normalize :: Path b t -> m (Path b t)\n"
            "  normalize = return\n",
        ),
        ("Wrapped", "newtype Wrapped = Wrapped { unwrap :: Int }\n"),
    ],
)
def test_haskell_declarations_are_blocks(symbol: str, block: str) -> None:
    assert anchors.symbol_block(INCLUDE_HS, symbol) == block


def test_a_haskell_signature_of_several_names_and_their_equations() -> None:
    # ``isPrefixOf, isSuffixOf ::`` declares both; each name's equations follow
    assert anchors.anchored_blocks(INCLUDE_HS, "isPrefixOf") == [
        "isPrefixOf, isSuffixOf :: Path b Dir -> Path b t -> Bool\n"
        "isPrefixOf p l = p `elem` inits l\n"
    ]
    assert anchors.anchored_blocks(INCLUDE_HS, "isSuffixOf") == [
        "isPrefixOf, isSuffixOf :: Path b Dir -> Path b t -> Bool\n",
        "isSuffixOf p l = p `elem` tails l\n",
    ]


@pytest.mark.parametrize(
    "symbol",
    [
        "normalize",  # a method's signature and default inside a class body
        "show",  # an instance's method
        "unwrap",  # a record field
        "inits",  # used in another equation's body
        "takeFileName",  # a qualified use
        "module",  # a keyword
    ],
)
def test_haskell_uses_and_locals_are_not_definitions(symbol: str) -> None:
    assert anchors.symbol_block(INCLUDE_HS, symbol) is None


def test_haskell_names_in_comments_and_strings_define_nothing() -> None:
    # ``parent`` is in a haddock comment, a string and a where clause before and after its
    # definition: its block is its own signature and equations, and it is found once
    blocks = anchors.anchored_blocks(INCLUDE_HS, "parent")
    assert len(blocks) == 1 and blocks[0].startswith("parent :: Path b t\n")
    # a file defining the name only in a comment, a string or indented defines nothing
    text = (
        "module M where\n\n-- parent x = 1\n{- parent y = 2 -}\n"
        'f :: Int\nf = length "\\nparent z = 3"\n  where parent = 4\n'
    )
    assert anchors.symbol_block(text, "parent") is None
    assert anchors.symbol_block(text, "f") == (
        'f :: Int\nf = length "\\nparent z = 3"\n  where parent = 4\n'
    )


def test_other_languages_are_not_read_as_haskell() -> None:
    # no signature and no module header: a Python assignment is no Haskell equation
    py = "def parent(p):\n    return p\n\nparent_of = parent\n"
    assert anchors.symbol_block(py, "parent") == "def parent(p):\n    return p\n"
    # Ruby's ``module Foo`` is no Haskell module header (no export list, no ``where``)
    rb = "module Paths\n  def parent(p)\n    p\n  end\nend\n"
    assert anchors.symbol_block(rb, "parent").startswith("  def parent(p)\n")  # type: ignore[union-attr]
    # ``--`` followed by a symbol is an operator, not a comment (``-->``)
    text = "module M where\nx --> y = y\n(-->) :: a -> b -> b\n"
    assert anchors.symbol_block(text, "-->") == "x --> y = y\n(-->) :: a -> b -> b\n"
