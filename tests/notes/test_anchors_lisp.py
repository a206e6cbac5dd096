"""The symbol rule (notes/anchors.py, notes/lisp.py) on the Lisp family's definitions:
Clojure, Common Lisp and Emacs Lisp, Scheme and Racket; each with the look-alikes it must not
take for a definition, and the block it gives (the balanced form); names holding ``-``, ``?``,
``!``, ``*``, ``<``, ``>``; and the comparison's Lisp comments (``;``, ``#_``, ``(comment)``)."""

from __future__ import annotations

import pytest

from reflectgit.notes import anchors, lisp
from reflectgit.notes.tokens import tokens

GENERATE_CLJ = """(ns cheshire.generate)

;; (defn add-encoder "a comment holding a definition")
(def ^:dynamic *use-bigdecimals?* false)

(defn ^String add-encoder
  "Adds an encoder for cls. (defn fake [])"
  [cls encoder]
  (let [open \\( close \\)]
    (.put cls encoder)))

(defn- remove-encoder [cls]
  (add-encoder cls nil))

(defn parse* [^JsonParser jp key-fn]
  (let [token (.getCurrentToken jp)]
    (case token :defn nil)))

(comment
  (defn scratch [] 1))
#_(defn ignored [] 2)
"""

DEFINED = [
    # Clojure
    ("(defn add-encoder [cls encoder]\n  (.put cls encoder))\n", "add-encoder"),
    ("(defn- private-helper [x] x)\n", "private-helper"),
    ('(def default-date-format "yyyy-MM-dd")\n', "default-date-format"),
    ("(def ^:dynamic *use-bigdecimals?* false)\n", "*use-bigdecimals?*"),
    ('(defn ^String generate-string\n  "doc"\n  [obj]\n  (str obj))\n', "generate-string"),
    ("(def ^{:private true} core-failure (Exception.))\n", "core-failure"),
    ("(defmacro with-writer [& body]\n  `(do ~@body))\n", "with-writer"),
    ("(defprotocol JSONable\n  (to-json [t jg]))\n", "JSONable"),
    ("(defrecord Point [x y])\n", "Point"),
    ("(deftype Box [v])\n", "Box"),
    ("(defmulti encode-number class)\n", "encode-number"),
    ("(defmethod encode-number Long [n] (str n))\n", "encode-number"),
    ("(definline fast-inc [x] `(inc ~x))\n", "fast-inc"),
    ("(defonce registry (atom {}))\n", "registry"),
    ("(deftest t-unicode-escaping\n  (is true))\n", "t-unicode-escaping"),
    ("(defn valid? [x] (some? x))\n", "valid?"),
    ("(defn reset! [a] (swap! a empty))\n", "reset!"),
    ("(defn ->Point [x y] (Point. x y))\n", "->Point"),
    ("(defn parse* [s] s)\n", "parse*"),
    # Common Lisp, Emacs Lisp
    ("(defun square (x)\n  (* x x))\n", "square"),
    ("(defvar *counter* 0)\n", "*counter*"),
    ("(defparameter *limit* 10)\n", "*limit*"),
    ("(defmacro when-let ((var form) &body body)\n  `(let ((,var ,form)) ,@body))\n", "when-let"),
    # Scheme, Racket
    ("(define (square x)\n  (* x x))\n", "square"),
    ("(define pi 3.14159)\n", "pi"),
    ("  (define (inner y) y)\n", "inner"),
]


@pytest.mark.parametrize(("text", "name"), DEFINED)
def test_a_lisp_definition_is_found_as_its_whole_form(text: str, name: str) -> None:
    assert anchors.symbol_block(text, name) == text.lstrip("\n")


NOT_DEFINED = [
    ("(add-encoder String encode-str)\n", "add-encoder"),  # a call
    ("(let [name (str x)]\n  name)\n", "name"),  # a binding
    ('(println "(defn add-encoder [x])")\n', "add-encoder"),  # a string
    ('"\n(defn add-encoder [x])\n"\n', "add-encoder"),  # a string over lines
    (";; (defn add-encoder [x])\n", "add-encoder"),  # a comment
    ("(foo) ; (defn add-encoder [x])\n", "add-encoder"),  # a comment after code
    ("#| (defun square (x) x) |#\n", "square"),  # a block comment
    ("(case op :defn add-encoder)\n", "add-encoder"),  # a keyword
    ("(:defn add-encoder)\n", "add-encoder"),
    ("(comment\n  (defn scratch [] 1))\n", "scratch"),  # a comment form
    ("#_(defn ignored [] 2)\n", "ignored"),  # a form the reader drops
    ("#_\n(defn ignored [] 2)\n", "ignored"),
    ("(define-foo bar)\n", "bar"),  # a word that only starts like one
    ("(defn add-encoder-2 [x] x)\n", "add-encoder"),  # another name that starts like it
    ("(x (defn add-encoder [y] y))\n", "add-encoder"),  # not the first form of its line
]


@pytest.mark.parametrize(("text", "name"), NOT_DEFINED)
def test_a_lisp_look_alike_defines_nothing(text: str, name: str) -> None:
    assert anchors.symbol_block(text, name) is None


def test_the_block_is_the_balanced_form_strings_and_characters_aside() -> None:
    block = anchors.symbol_block(GENERATE_CLJ, "add-encoder")
    # the ``(`` in its docstring and the character literals ``\\(`` ``\\)`` do not count
    assert block is not None and block.startswith("(defn ^String add-encoder\n")
    assert block.endswith("    (.put cls encoder)))\n") and "remove-encoder" not in block
    assert anchors.symbol_block(GENERATE_CLJ, "remove-encoder") == (
        "(defn- remove-encoder [cls]\n  (add-encoder cls nil))\n"
    )
    parse = anchors.symbol_block(GENERATE_CLJ, "parse*")
    assert parse is not None and parse.endswith("(case token :defn nil)))\n")
    assert "scratch" not in parse  # the comment form after it is not its code
    for gone in ("scratch", "ignored", "fake"):
        assert anchors.symbol_block(GENERATE_CLJ, gone) is None


def test_every_defmethod_of_a_multimethod_is_a_definition() -> None:
    text = (
        "(defmulti encode class)\n"
        "(defmethod encode Long [n] (str n))\n"
        "(defn other [] 1)\n"
        "(defmethod encode String [s] s)\n"
    )
    assert anchors.definitions(text, "encode") == [
        "(defmulti encode class)\n",
        "(defmethod encode Long [n] (str n))\n",
        "(defmethod encode String [s] s)\n",
    ]


def test_an_unclosed_form_runs_to_the_end() -> None:
    assert anchors.symbol_block("(defn broken [x]\n  (inc x)\n", "broken") == (
        "(defn broken [x]\n  (inc x)\n"
    )


def test_other_languages_are_read_as_before() -> None:
    # a parenthesised expression at a line's start is no Lisp definition
    python = "(define, other) = pair\ndef define(x):\n    return x\n"
    assert anchors.symbol_block(python, "define") == "def define(x):\n    return x\n"
    assert lisp.definitions("def add(x):\n    return x\n", "add") == []


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("src/cheshire/parse.clj:parse*", ("src/cheshire/parse.clj", "parse*")),
        ("src/x.clj:*use-bigdecimals?*", ("src/x.clj", "*use-bigdecimals?*")),
        ("src/x.clj:reset!", ("src/x.clj", "reset!")),
        ("src/x.clj:->Point", ("src/x.clj", "->Point")),
        ("src/x.clj:add-encoder", ("src/x.clj", "add-encoder")),
        # still no name: a path after the colon
        ("a:b/c.clj", ("a:b/c.clj", None)),
    ],
)
def test_parse_spec_takes_lisp_names(spec: str, parsed: tuple[str, str | None]) -> None:
    assert anchors.parse_spec(spec) == parsed


def test_lisp_comments_are_no_code_for_the_comparison() -> None:
    code = '(defn f [x]\n  (str \'a "b;c" x))\n'
    commented = (
        "(defn f [x] ; why x\n"
        "  #_(old-way x)\n"
        '  (str \'a "b;c" x)) ;; done\n'
        "(comment (f 1))\n"
        "#| scratch |#\n"
    )
    assert tokens(commented, "src/f.clj") == tokens(code, "src/f.clj")
    # a string holding ``;`` and a character literal ``\\;`` are code
    assert '"b;c"' in tokens(code, "src/f.clj")
    assert tokens("(str \\; x)\n", "f.clj") != tokens("(str x)\n", "f.clj")
    # a quoted form is no string: the code after it is read
    assert tokens("(f 'a (g 'b))\n", "f.clj") != tokens("(f 'a (h 'b))\n", "f.clj")
    # a change of code is one
    assert tokens("(defn f [x] (inc x))\n", "f.clj") != tokens("(defn f [x] (dec x))\n", "f.clj")
    # the same text in a language whose ``;`` ends a statement is code
    assert tokens("f(); // x\n", "f.js") == ["f", "(", ")", ";"]


def test_a_clojure_docstring_is_no_code_a_value_and_a_body_string_are() -> None:
    doc = '(defn remove-encoder\n  "Remove an encoder."\n  [cls]\n  (.remove encoders cls))\n'
    reworded = doc.replace("Remove an encoder.", 'Removes the \\"encoder\\" for (cls).')
    assert tokens(doc, "g.clj") == tokens(reworded, "g.clj")
    # after metadata, and on a def with a value after it
    meta = '(def ^:private limit "the most" 10)\n'
    assert tokens(meta, "g.clj") == tokens(meta.replace("the most", "at most"), "g.clj")
    # a def's only string is its value; a string in the body is code; so is one in a comment's
    # place that is no docstring (after the parameters)
    value = '(def greeting "hello")\n'
    assert tokens(value, "g.clj") != tokens(value.replace("hello", "hi"), "g.clj")
    body = '(defn greet [x]\n  (str "hello " x))\n'
    assert tokens(body, "g.clj") != tokens(body.replace("hello", "hi"), "g.clj")
    # not Clojure's: Common Lisp's defvar value string is code
    cl = '(defvar *greeting* "hello" "The greeting.")\n'
    assert tokens(cl, "g.lisp") != tokens(cl.replace("hello", "hi"), "g.lisp")


def test_a_docstring_after_the_parameters_is_no_code_a_returned_string_is() -> None:
    misplaced = '(defn remove-encoder [cls]\n  "Remove an encoder."\n  (.remove encoders cls))\n'
    placed = '(defn remove-encoder\n  "Remove an encoder."\n  [cls]\n  (.remove encoders cls))\n'
    assert tokens(misplaced, "g.clj") == tokens(placed, "g.clj")
    returned = '(defn greeting [x]\n  "hello")\n'
    assert tokens(returned, "g.clj") != tokens(returned.replace("hello", "hi"), "g.clj")
