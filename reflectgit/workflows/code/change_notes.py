"""The notes relevant to a change (a pull request): ``reflect-git pr-notes``.

What changed is read once from ``git diff -U0 -M <merge base> <head>`` (the files, renames
followed, and the symbols whose code the hunks touched) and ``git log`` (the commit messages).
Notes are then found in two ways, in this order of rank:

1. anchored: notes of the repository's project anchored to a changed file (found by one
   ``git grep -F`` in the KB for the changed paths): the deleted file first (``DELETED``),
   then a changed symbol, then a changed, renamed or added file; a symbol anchor whose file changed elsewhere
   than its symbol is not relevant (a module holds many symbols); a symbol anchor whose code
   changed in nothing the note states, only when the note states the change's description (its
   commit messages' words, ``DESCRIBED_MIN``), only when no other anchored note is listed; of several notes anchored to the same code, only
   those that state the most of those words; a file anchor whose file changed only on plain
   words the note states (``WORDS_ONLY``), only when no note on stronger evidence is listed;
   a symbol's attributes and decorators are its code (``HEADER``), and a settings file's
   change to the value of a key a note names is a change to what it states (``SETTING``);
2. mentioned, only when no note is anchored to what the change touched (an anchor is specific
   evidence, a text match is weak beside it: listed after the anchored notes, text matches took
   top-3 places from them): one search (the KB's own ranking) for the change's words; a hit is
   kept only when its text names what changed, by the rule ``MENTION_RULE`` below, so a change
   nothing in the KB bears on gets no notes at all (and no pull-request comment).
"""

from __future__ import annotations

import contextlib
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from reflectgit.config import DOCUMENTS
from reflectgit.errors import ReflectGitError, UsageError
from reflectgit.git import codebase
from reflectgit.notes import diffs, languages
from reflectgit.notes.anchors import (
    Anchor,
    anchored_code,
    anchored_pair,
    defined_name,
    symbol_block,
)
from reflectgit.notes.codediff import (
    CodeChange,
    compare,
    names_changed,
    names_in,
    prose_or_settings,
    reshaped_only,
)
from reflectgit.notes.sweeps import sweeps as find_sweeps
from reflectgit.notes.sweeps import swept_only
from reflectgit.notes.tokens import KEYWORDS, is_name_or_number, is_string, tokens
from reflectgit.workflows.code.notes import AnchoredNote, read_anchored

Env = Mapping[str, str] | None
Place = tuple[str, str, str]  # an anchor's path, commit and symbol

# An anchor's path, symbol and commit lines as the note writer emits them (``- path: x`` under
# ``anchors:``, then ``  symbol: name`` and ``  commit: sha``).
ANCHOR_LINE = r"^(- |  )(path|symbol|commit): "
# Anchors on paths the change does not touch are followed through the renames since their
# commit (one ``git diff -M`` per commit, and one ``git log`` for the files that diff says were
# deleted: ``codebase.follow``), for at most this many distinct commits.
RENAME_COMMITS = 32
# Scores: an anchor match always outranks a text match.
SYMBOL_CHANGED = 100.0
FILE_CHANGED = 80.0
# A symbol anchor whose code the change touched in nothing the note states, when the note
# states at least DESCRIBED_MIN words of the change's commit messages: what the author says the
# change is about is what the note is about (a constructor added to the class a note calls
# file-only). Not a file anchor: a file holds many things, and the note may be about another.
DESCRIBED_CHANGED = 60.0
# WORDS_ONLY: a file anchor (a whole file) whose change holds, of what the note states
# (``codediff.compare``'s reading), only plain words (``dev``, ``browser``, ``inspect``:
# lower-case letters, no identifier's shape, no number, no quoted string) is weaker evidence
# than a change to an identifier or a string it states: a note on a whole file says the
# words of many of its lines (a settings file's ``browser`` key and ``"browser"`` engine, a
# spec's ``inspect`` on every line), and a changed line holding one says little of which part
# the change is to. Listed only when no note on stronger evidence is (the tier of
# DESCRIBED_CHANGED). Not a symbol anchor: its block is the note's own code, a word changed in
# it is news of what the note names. Not a prose file (``diffs.PROSE``): prose says what it
# says in words, they are its content. Not a file the change renames: the note names its
# path, which the change moves (as RENAMED_ONLY keeps a file anchor listed).
WORDS_CHANGED = 70.0
# RESHAPED: an anchor hit counts only when the change touched what the note states. Of a
# change ``stale`` would call a change to the anchored code, one that added or removed nothing
# but brackets, ``;``, ``:`` and names the note does not say where none stood
# (``codediff.reshaped_only``: a namespace made file-scoped, a constant annotated ``Final``, a
# CI step's name shortened) is read as changed elsewhere (``compare(..., reshaping=True)``, in
# the block and in each member or paragraph of it compared). Not in ``stale``: over a history of
# many commits a block read without what stands before it (an attribute gating a function)
# can change there while the block gains only a ``;``.
# Within a tier, each identifier the change touched that the note states ranks it higher.
IDENTIFIER_BONUS, MAX_BONUS = 1.0, 5
# DELETED: a note whose anchored file the change deletes ranks above every note whose code the
# change modified: all it names is gone, so it is news whatever it says, while a modified
# block may still hold what the note states (a plain word of it on a changed line). Tied with
# them at SYMBOL_CHANGED, the id decided (``rb-extract-modes`` above ``rb-xcodecolors-file``).
DELETED = SYMBOL_CHANGED + IDENTIFIER_BONUS * MAX_BONUS + 1
# Notes anchored to the same code the change touched cannot be told apart by that code (five
# notes on one long parsing function, each stating its plain words): the change's own
# description decides. Of such notes only those that state the most of its commit messages'
# words are listed, once the best states at least DESCRIBED_MIN of them (one shared word is
# chance). Notes anchored to other code are not compared: each stands on its own anchor.
DESCRIBED_MIN = 2
# MENTION_RULE: a note that is not anchored is relevant when its text names at least
# MENTION_MIN of the change's terms, weighing a symbol 2 (a definition the change touched, or an
# identifier its commit messages name: CamelCase, snake_case, ``name()``, ``@name``; matched as
# the same identifier, case and all), a word of a changed file's name 1 (not of its folders:
# they are shared by every file of a package), a word of a commit message 0.5; and at least
# one symbol or file-name word among them (commit messages' words alone say too little).
# SUBJECT_RULE: a note anchored to code says what it is about; it is relevant on its text only
# when one of the change's names (a symbol, a file's name) is its subject: the symbol or the
# file's name of one of its anchors, or a name its title states. A name its body mentions in
# passing (``RouteCollector`` in a note on ``simpleDispatcher``, the test table a script
# reads) is not; nor is a word of a file's name, which many notes say. A note without anchors
# has no stated subject: its whole text is read.
# SAME_FILE: a symbol is an anchor's subject together with its file. A note anchored to
# ``useColors`` in ``node.js`` is not about the ``useColors`` a change touched in ``browser.js``
# (two definitions of one name, one per platform), as long as ``node.js`` defines it still at
# the change's base; a symbol its anchored file no longer defines has moved, and where the
# change touched it is where it is now (``expandVariables``, moved from ``godotenv.go`` into
# ``parser.go``). Files are compared by name, not path: an anchor names the path at its commit,
# and the file may have moved since (``tomli/_parser.py``, now ``src/tomli/_parser.py``). A
# symbol only a commit message names has no file: its anchor's is not checked.
# MESSAGE_SUBJECT: a name only the change's commit messages say (its code touched no symbol of
# that name) is a note's subject as the symbol of one of its anchors (``selectColor``: the
# message says the change is to that very code), but as a name of its title only when the
# change's code touched one of the note's anchored symbols too (``load`` in ``browser.js``, the
# file since moved, and ``localStorage`` in the message and the title). Alone, a title's name in
# a message says what the change is near, not what it changed: a title names what the note is
# about at large (``fix OnceCell::wait with features=parking_lot`` beside the note on the
# ``parking_lot`` feature; ``Raise TypeError not AttributeError`` in ``loads`` beside the note
# on ``load``'s ``AttributeError``).
NAMED_IN_MESSAGE = "named in a commit message"
SYMBOL_WEIGHT, PATH_WEIGHT, MESSAGE_WEIGHT = 2.0, 1.0, 0.5
# A changed file's name said whole (``setup.cfg``): weighs a word, is matched as a name (a
# term with a dot is a file's name: words and symbols have none).
FILE_WEIGHT = PATH_WEIGHT
MENTION_MIN = 2.0
# INCIDENTAL: the numbers 0 and 1 stand in most code (a first index, an empty or single count,
# a flag): a note that states one is not named
# by a change that writes one somewhere in its code (``'\\0'`` put in a sigil, a ``- 1`` added to
# a length). A change whose touched names the note states are only these is read as changed in
# nothing the note names; beside another name they count as usual.
INCIDENTAL = frozenset({"0", "1"})
# RESPELLED: a prose file (``diffs.PROSE``) whose change is only words respelled one for one, a
# typo fixed (``benchmakrs`` to ``benchmarks``: two letters side by side swapped, or nearly
# all letters in the same order, as long as each other but for one letter), says what it said: the note that
# paraphrases the sentence is not news to its reviewer. Not in code, where a name respelled
# once is another name; nor for a word added, dropped or replaced by another word.
RESPELLED_MIN = 5
RESPELLED_RATIO = 0.85
_PROSE_WORD = re.compile(r"\w+|[^\w\s]")
# SWEPT: a block whose change is only an edit the change made alike in many places (a sweep:
# every regex's ``$`` become ``\\z``, ``'use strict'`` added to every file; see
# ``notes/sweeps.py`` for when an edit is one) is no news of any one note's lesson: the change
# decided it for the whole code base. Read as the same code, unless the note states what the
# sweep replaced or wrote.
# HEADER: a symbol's block starts at its definition's line; the attributes, annotations and
# decorators just above it (``#[cfg(atomic_cas)]`` gating a Rust function, ``@Deprecated(...)``
# on a Kotlin one, ``[Obsolete]``, ``@functools.cache``) are its code too: they decide where it
# exists and how it is called. A change to them, its block unchanged, is read as a change to
# the symbol in nothing the note states (``elsewhere``), so the note is listed only by the
# rule of DESCRIBED_CHANGED (its commit messages say what the note states). Comments above it
# are not code (a doc comment reworded is no change, as inside the block); the code before
# the definition (the previous one's ``}``, an assignment) is not its header.
_HEADER_LINE = re.compile(r"^\s*(?:#|//|/\*|\*|--|;|@|\[\w)")
# SETTING: a note anchored to a whole settings or manifest file (``DESCRIPTION``, ``opam``, a CI
# workflow, ``pom.xml``) says what one of its keys holds (``Depends: R (>= 3.2)``, the
# ``cron`` that runs CI daily); the values it quotes go stale while its key stays. A change to
# the value of a key the note names (on the key's own line, or on a line under it: a list
# item, a continuation) is a change to what the note states, named by that key (a plain word
# such as ``cron`` stays in the tier of WORDS_ONLY). Not a change that only reshaped the file
# (RESHAPED), nor prose, whose paragraphs have no keys, nor code, whose names are its own.
_SETTING_KEY = re.compile(
    r"""^\s*(?:-\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*[:=]|^\s*<([A-Za-z][\w.-]*)"""
)
_SETTING_WORD = re.compile(r"[\w.-]+")
# MOVED: a symbol anchor whose file, followed from the anchor's commit through its renames,
# defines the symbol no more at the change's base (or is gone) names code that moved to another
# file git does not pair with it (``skip`` and ``run`` from ``bats-exec-test`` into
# ``test_functions.bash``, ``indirect`` from ``caste.go`` into ``indirect.go``): where the change
# touched a symbol of that name (a definition its hunks name) is where the note's code is now,
# and the anchor is judged there, as SAME_FILE reads a text match. Only for a name the change
# touched (the note's file is not searched for it), only where the block of that name at the
# change's base holds most of the anchored block's names at the note's commit (``KEPT``: a
# test's ``let debug`` is not the ``debug`` function), and not where a note is anchored to that
# code as it is now (that note reads it; the one anchored to where it was is often the older
# note it replaced). A note so followed from a file the change does not touch may still be
# found by its text when its code there shows nothing it states.
# Moved code keeps most of itself: more than this share of the distinct names, numbers and
# strings of the anchored block at the note's commit (not the language's words, not its own
# name) stand in the block of that name where the change touched it.
KEPT = 0.5
# RENAMED_ONLY: a symbol anchor whose file the change renames, its code unchanged, is not
# listed: the code the note names is the same, and its anchor's path is ``stale``'s to report
# (as moved). A file anchor stays listed: the note names the path the change renames.
SEARCH_HITS = 30  # search hits read to check the rule
MAX_QUERY_TERMS = 40
DEFAULT_LIMIT = 10
MIN_WORD = 4
# Changes of at most this many modified files are read whole to find the files changed only
# in comments and layout, and the symbols changed only in other names (they bring no terms).
COSMETIC_FILES = 200
# Words of paths and commit messages that say nothing about what a change is about.
_NOISE = frozenset({
    "src", "lib", "libs", "test", "tests", "spec", "specs", "main", "index", "init", "internal",
    "pkg", "cmd", "app", "apps", "core", "common", "util", "utils", "helper", "helpers", "docs",
    "doc", "readme", "changelog", "license", "makefile", "config", "configs", "json", "yaml",
    "toml", "lock", "file", "files", "module", "modules", "package", "packages", "build", "dist",
    "vendor", "scripts", "script", "tools", "tool", "types", "type", "impl", "base", "default",
    "misc", "tmp", "temp", "data", "fixtures", "examples", "example", "python", "java", "ruby",
    "rust", "golang", "javascript", "typescript", "add", "adds", "added", "adding", "update",
    "updates", "updated", "updating", "change", "changes", "changed", "changing", "remove",
    "removes", "removed", "removing", "delete", "deleted", "fix", "fixes", "fixed", "fixing",
    "refactor", "refactors", "refactored", "cleanup", "clean", "move", "moved", "rename",
    "renamed", "make", "makes", "made", "bump", "bumps", "merge", "merged", "pull", "request",
    "branch", "from", "into", "with", "without", "when", "then", "that", "this", "these",
    "those", "them", "they", "some", "more", "less", "also", "only", "just", "should", "would",
    "could", "does", "done", "have", "been", "being", "after", "before", "code", "small",
    "minor", "typo", "typos", "tweak", "tweaks", "wip", "testing", "use",
    "uses", "used", "using", "support", "supports", "allow", "allows", "instead", "first",
    "second", "other", "every", "each", "new", "old", "version", "release",
})  # fmt: skip
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
_IDENTIFIER = re.compile(r"@?[A-Za-z_][\w.]*(?:\(\))?")
_PLAIN = re.compile(r"[A-Z]?[a-z]+")
# A file's name as a note writes it: ``setup.cfg``, ``.travis.yml``, ``src/index.ts``.
_FILE_NAME = re.compile(r"\.?[\w-]+(?:\.[\w-]+)*\.[A-Za-z]\w*")
_FILE_IN_TEXT = re.compile(r"[\w./-]*[\w-]\.[A-Za-z]\w*")
_SPLIT_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass
class Change:
    """What a change did: files (renames followed), changed symbols, commit messages."""

    base: str
    head: str
    files: list[diffs.FileDiff]
    messages: list[str]
    symbols_known: bool = True  # False: names only were read (no patch), symbols unknown
    root: str = "."  # the code repository's top
    # files changed only in comments, docstrings or layout: they say nothing of the change
    cosmetic: set[str] = field(default_factory=set)
    # (file, symbol) a hunk named whose code did not change but in other names (a macro put
    # before its declaration) or in comments: not a symbol this change is about
    unchanged: set[tuple[str, str]] = field(default_factory=set)

    @cached_property
    def sweeps(self) -> frozenset[tuple[tuple[str, ...], tuple[str, ...]]]:
        """The edits the change made alike in many places (``notes/sweeps.py``): SWEPT. Read
        from all its hunks when a verdict first asks, not before: most changes never do."""
        return find_sweeps(self.files)

    @property
    def paths(self) -> set[str]:
        return {p for f in self.files for p in f.paths}

    @property
    def symbols(self) -> set[str]:
        return {s for f in self.files for s in f.symbols}


@dataclass
class Relevant:
    id: str
    title: str
    why: str
    score: float
    # "anchored" | "described" (anchored, on the change's description) | "worded" (anchored, a
    # whole file changed on plain words the note states: WORDS_ONLY) | "mentioned"
    kind: str
    anchor: str = ""  # anchored: the code it is anchored to, as the change names it
    described: int = 0  # anchored: how many words of the change's commit messages it states

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "why": self.why}


@dataclass
class ChangeNotes:
    repo: str
    project: str
    base: str
    head: str
    files: int
    notes: list[Relevant] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"notes": [n.to_json() for n in self.notes]}


def read_change(repo: Path, base: str, head: str | None = None, env: Env = None) -> Change:
    """The change from ``base``'s merge base with ``head`` (default HEAD) to ``head``, as a
    pull request shows it."""
    root = codebase.top(repo, env)
    head_sha = codebase.resolve(root, head or "HEAD", env)
    base_sha = codebase.resolve(root, base, env)
    for given, sha in ((base, base_sha), (head or "HEAD", head_sha)):
        if sha is None:
            raise UsageError(
                f"{given!r} names no commit in {root}",
                hint="give --base (and --head) as a branch, tag or commit the repository has "
                "(in CI, fetch the base branch first)",
            )
    assert base_sha is not None and head_sha is not None
    start = codebase.merge_base(root, base_sha, head_sha, env) or base_sha
    patch = codebase.patch(root, start, head_sha, env)
    files = diffs.parse(patch)
    messages = codebase.messages(root, start, head_sha, env)
    change = Change(start, head_sha, files, messages, root=str(root))
    _read_cosmetic(change, env)
    return change


def _read_cosmetic(change: Change, env: Env) -> None:
    """Mark the files the change modified only in comments, docstrings or layout (their
    tokens are the same, ``notes/codediff.py``), and the symbols its hunks named whose own code
    changed only that way or only in other names (``INI_API`` put before a declaration,
    ``SeqCst`` to ``Acquire``), both versions read in one ``git cat-file``; nothing when the
    change modifies more than ``COSMETIC_FILES`` files (a change that large is not a comment
    tweak, and reading it all would cost more than the rest)."""

    modified = [f for f in change.files if f.old is not None and f.new is not None]
    if not modified or len(modified) > COSMETIC_FILES:
        return
    for f, (old, new) in zip(modified, _versions(change, modified, env), strict=True):
        if old is None or new is None:
            continue
        path = f.new or ""
        read = languages.read_as(path, new)  # a script: in its shebang's language
        if tokens(old, read) == tokens(new, read):
            change.cosmetic.update(f.paths)
            continue
        for symbol in f.symbols:
            before, after = anchored_code(old, new, symbol, read)
            if before is None or after is None:
                continue
            touched = names_changed(before, after, read)
            if touched is not None and symbol not in touched:
                change.unchanged.add((path, symbol))


def _versions(
    change: Change, files: Sequence[diffs.FileDiff], env: Env
) -> list[tuple[str | None, str | None]]:
    """The text of each of ``files`` (modified or renamed) at the change's base and at its head,
    in one ``git cat-file``: each version read once however many anchors name it, by the blob
    id the diff gave (no lookup of its path) where it gave one."""
    known: dict[tuple[str, str], str] = {}
    wanted: list[tuple[str, str]] = []
    for f in files:
        for rev, path, blob in ((change.base, f.old, f.blobs[0]), (change.head, f.new, f.blobs[1])):
            if path is None:
                continue
            wanted.append((rev, path))
            if blob is not None:
                known[(rev, path)] = blob
    unique = list(dict.fromkeys(wanted))
    read = dict(zip(unique, codebase.texts(Path(change.root), unique, env, known), strict=True))
    return [
        (read.get((change.base, f.old or "")), read.get((change.head, f.new or ""))) for f in files
    ]


def pr_notes(
    kb: Path,
    state_dir: Path,
    repo: Path,
    base: str,
    head: str | None = None,
    *,
    env: Env = None,
    limit: int = DEFAULT_LIMIT,
    project: str | None = None,
) -> ChangeNotes:
    """The notes relevant to the change ``base...head`` of ``repo``, ranked, each with why."""
    # The KB's anchor lines (one git grep of every note) are read while the change is: two
    # repositories, neither answer waits on the other.
    anchor_lines = (
        codebase.start_matching_lines(kb, "HEAD", ANCHOR_LINE, DOCUMENTS, env)
        if codebase.resolve(kb, "HEAD", env) is not None
        else list  # a KB without a commit has no anchor line
    )
    try:
        change = read_change(repo, base, head, env)  # (finds the work tree's top: once)
    except BaseException:
        with contextlib.suppress(ReflectGitError):
            anchor_lines()  # waited for: no git left behind
        raise
    root = Path(change.root)
    name = project or root.name
    out = ChangeNotes(str(root), name, change.base, change.head, len(change.files))
    if not change.files:
        with contextlib.suppress(ReflectGitError):
            anchor_lines()  # (nothing changed: no note is asked of it)
        return out
    found: dict[str, Relevant] = {}
    judged: set[str] = set()  # anchored to a changed file: the anchor decides, not the text
    hits = anchored(kb, change, name, env, judged, anchor_lines)
    kept = _best_described(hits)
    # a note listed on the change's description alone is weaker evidence than one whose stated
    # code changed: beside such notes it stays only where it outdid them on their own code
    sure = {i.anchor for i in hits if i.kind == "anchored"}
    if any(i.kind == "anchored" for i in kept):
        # (WORDS_ONLY: a whole file's change to plain words the note states is weaker than
        # any anchor hit on what a note names, whatever its code)
        kept = [
            i for i in kept if i.kind == "anchored" or (i.kind == "described" and i.anchor in sure)
        ]
    for item in kept:
        found[item.id] = item
    if not found:  # a change that hits notes' anchors: text matches are weaker, not listed
        found = {i.id: i for i in mentioned(kb, state_dir, change, name, env, exclude=judged)}
    out.notes = sorted(found.values(), key=lambda r: (-r.score, r.id))[:limit]
    return out


def branch_change(root: Path, env: Env = None) -> Change | None:
    """What the current branch changes against its upstream (or the remote's default branch,
    or main): the files from their merge base to the work tree, names only; None when the
    branch changes nothing. Recall at session start asks this, so no patch is read."""
    head = codebase.resolve(root, "HEAD", env)
    upstream = codebase.upstream(root, env)
    if head is None:
        return None
    start = codebase.merge_base(root, upstream, head, env) if upstream else None
    files: dict[str, diffs.FileDiff] = {}
    if start is not None and start != head:
        for c in codebase.changes(root, start, head, env):
            files[c.new or c.old or ""] = diffs.FileDiff(c.old, c.new)
    from reflectgit.git import repo_info

    for path in repo_info.modified_files(root, env):  # uncommitted edits count too
        files.setdefault(path, diffs.FileDiff(path, path))
    if not files:
        return None
    return Change(start or head, head, list(files.values()), [], False, str(root))


def anchored(
    kb: Path,
    change: Change,
    project: str,
    env: Env,
    judged: set[str] | None = None,
    anchor_lines: Callable[[], list[tuple[str, str]]] | None = None,
) -> list[Relevant]:
    """Notes of ``project`` anchored to a file the change touched (their ids are added to
    ``judged``, relevant or not). ``anchor_lines``: the KB's ``ANCHOR_LINE`` lines, already
    asked of git (``codebase.start_matching_lines``); else they are read here."""
    if anchor_lines is None:
        if codebase.resolve(kb, "HEAD", env) is None:
            return []
        anchor_lines = codebase.start_matching_lines(kb, "HEAD", ANCHOR_LINE, DOCUMENTS, env)
    by_path = {p: f for f in change.files for p in f.paths}
    paths, pending, elsewhere = _anchor_index(anchor_lines(), by_path)
    # (recall at session start reads names only and follows no renames: it runs on a hook)
    moved_to = (
        _renamed_since(Path(change.root), change.base, pending, by_path, env)
        if change.symbols_known
        else {}
    )
    # (every note anchored to a renamed file at that commit: many notes name one file)
    followed = (
        [n for c, named in pending.items() for n, p in named if (p, c) in moved_to]
        if moved_to
        else []
    )
    paths += [n for n in dict.fromkeys(followed) if n not in paths]
    # MOVED: the notes anchoring, on a file the change does not touch, a symbol it touched
    touched = _touched(change) if elsewhere and change.symbols_known else {}
    paths += sorted({n for s in touched for n in elsewhere.get(s, ())} - set(paths))
    notes = read_anchored(kb, paths, env, project)
    located: dict[tuple[str, Anchor], tuple[diffs.FileDiff, str]] = {}
    away: set[tuple[str, Anchor]] = set()  # MOVED, to check: symbol anchors on untouched files
    for note in notes:
        for anchor in note.anchors:
            now = anchor.path
            if now not in by_path:
                now = moved_to.get((anchor.path, anchor.commit or ""), "")
            if now in by_path:
                located[(note.id, anchor)] = (by_path[now], now)
            elif anchor.symbol in touched:
                away.add((note.id, anchor))
    gone: set[tuple[str, Anchor]] = set()  # symbols their changed file defined at their commit
    verdicts = _verdicts(notes, change, located, env, gone) if change.symbols_known else {}
    if away:  # MOVED: kept when its file, followed, defines the symbol no more at the base
        places = {key: (key[1].path, key[1].commit or "", key[1].symbol or "") for key in away}
        still = _still_defined(change, list(places.values()), env)
        gone.update(key for key, place in places.items() if place not in still)
    if gone and change.symbols_known:
        verdicts.update(_moved(notes, change, gone, located, env))
    described = _words(" ".join(change.messages), project)
    out: list[Relevant] = []
    for note in notes:
        best: tuple[float, str, str] | None = None
        states = sorted(_words(f"{note.title} {note.said}", project) & described)
        for anchor in note.anchors:
            if (note.id, anchor) not in located:
                continue
            diff, now = located[(note.id, anchor)]
            if judged is not None and (note.id, anchor) not in away:
                judged.add(note.id)  # (MOVED from an untouched file: its text may still match)
            scored = _scored(anchor, diff, now, verdicts.get((note.id, anchor)), change, states)
            if scored is None:
                continue
            score, why = scored
            if best is None or score > best[0]:
                best = (score, why, f"{now}:{anchor.symbol or ''}")
        if best is not None:
            kind = "anchored" if best[0] >= FILE_CHANGED else "described"
            kind = "worded" if WORDS_CHANGED <= best[0] < FILE_CHANGED else kind
            item = Relevant(note.id, note.title, best[1], best[0], kind, best[2], len(states))
            out.append(item)
    return out


def _anchor_index(
    lines: list[tuple[str, str]], by_path: Mapping[str, diffs.FileDiff]
) -> tuple[list[str], dict[str, list[tuple[str, str]]], dict[str, set[str]]]:
    """The KB's anchor lines (every one, from one git grep) read for a change whose files are
    ``by_path``: the note files naming a changed path (they are read); for each anchor commit,
    the (note file, path) pairs naming another path (read if that path was renamed, since the
    commit, to a changed one); and for each symbol anchored on such a path, the note files
    anchoring it (MOVED: read if the change touched a symbol of that name)."""
    paths: list[str] = []
    pending: dict[str, list[tuple[str, str]]] = {}  # commit -> (note file, anchored path)
    last: dict[str, str] = {}
    elsewhere: dict[str, set[str]] = {}  # MOVED: symbol -> note files anchoring it elsewhere
    for name, line in lines:
        if name.count("/") != 1:
            continue
        field, _, rest = line.strip().removeprefix("- ").partition(":")
        value = rest.strip()
        if field == "symbol":
            if name in last:  # (a symbol anchor on a path the change does not touch)
                symbol = value[1:-1] if value[:1] in ("'", '"') else value  # (``'indirect'``)
                elsewhere.setdefault(symbol, set()).add(name)
            continue
        if field == "commit":
            if name in last:
                pending.setdefault(value, []).append((name, last.pop(name)))
            continue
        quoted = value[:1] in ("'", '"')  # an odd path the emitter quoted: the parse decides
        if quoted or value in by_path:
            if name not in paths:
                paths.append(name)
        else:
            last[name] = value
    return paths, pending, elsewhere


def _scored(
    anchor: Anchor,
    diff: diffs.FileDiff,
    now: str,
    verdict: CodeChange | None,
    change: Change,
    states: Sequence[str],
) -> tuple[float, str] | None:
    """How relevant one anchor located on the change's file ``diff`` (at path ``now``) makes
    its note, and why; None when the code it names is the same, or changed in nothing it names.
    ``verdict``: how that code changed (``_verdicts``); ``states``: the words the note and the
    change's commit messages share."""
    what = _status(diff, now)
    label = anchor.label if now == anchor.path else f"{anchor.label} (now {now})"
    if diff.status == "deleted":
        return DELETED, f"anchored to {label}, which this change deletes"
    if change.symbols_known and verdict is not None:
        why = f"anchored to {label}, which this change {what}"
        kind = verdict.kind
        if verdict.stale and verdict.names and set(verdict.names) <= INCIDENTAL:
            kind = "elsewhere"  # INCIDENTAL: a 0 or a 1 is no news of the note's code
        if kind == "changed" and _words_only(anchor, verdict.names, diff, now):
            score = WORDS_CHANGED + _precision(verdict.names)  # WORDS_ONLY
        elif kind == "changed":
            score = SYMBOL_CHANGED if anchor.symbol else FILE_CHANGED
            score += _precision(verdict.names)
        elif diff.status == "renamed" and not anchor.symbol:
            score = FILE_CHANGED  # the anchor moves with it: the note names the old path
        elif anchor.symbol and kind == "elsewhere" and len(states) >= DESCRIBED_MIN:
            score = DESCRIBED_CHANGED + IDENTIFIER_BONUS * min(len(states), MAX_BONUS)
            said = ", ".join(states[:3])
            why += f" (not what the note states; it says {said}, as the commit messages do)"
        else:
            return None  # the code it names is the same, or changed in nothing it names
        if verdict.names and kind == "changed":
            why += f" (the note names {', '.join(verdict.names[:3])})"
        return score, why
    if anchor.symbol and change.symbols_known and diff.status != "added":
        return None  # the symbol is in neither version: nothing of it changed
    return FILE_CHANGED, f"anchored to {label}, which this change {what}"


def _touched(change: Change) -> dict[str, list[diffs.FileDiff]]:
    """The symbols the change touched (``FileDiff.symbols``), each with the files it modified
    or renamed that touched it there (MOVED: where a moved symbol is now)."""
    out: dict[str, list[diffs.FileDiff]] = {}
    for f in change.files:
        if f.old is not None and f.new is not None:
            for symbol in f.symbols:
                out.setdefault(symbol, []).append(f)
    return out


def _moved(
    notes: Sequence[AnchoredNote],
    change: Change,
    gone: set[tuple[str, Anchor]],
    located: dict[tuple[str, Anchor], tuple[diffs.FileDiff, str]],
    env: Env,
) -> dict[tuple[str, Anchor], CodeChange]:
    """MOVED: the verdicts on the symbol anchors of ``gone`` (their file defines their symbol
    no more) judged in the files where the change touched a symbol of their name, each now
    ``located`` there (of several such files, the first where it changed, else the first)."""

    touched = _touched(change)
    keys = sorted(gone, key=lambda k: (k[0], k[1].label))
    # code a note is anchored to where it is now: that note reads it, not one anchored to
    # where it was (an older note, often the one it replaced)
    anchored_now = {(now, k[1].symbol) for k, (_, now) in located.items() if k not in gone}
    # the anchored code as the note's commit had it, and each candidate file at the base
    was_at = [(k[1].commit or "", k[1].path) for k in keys]
    then = dict(zip(was_at, codebase.texts(Path(change.root), was_at, env), strict=True))
    files = list({id(f): f for k in keys for f in touched.get(k[1].symbol or "", [])}.values())
    base = {f.new: old for f, (old, _) in zip(files, _versions(change, files, env), strict=True)}
    tries: list[dict[tuple[str, Anchor], tuple[diffs.FileDiff, str]]] = []
    for key in keys:
        anchor = key[1]
        text = then.get((anchor.commit or "", anchor.path))
        read = languages.read_as(anchor.path, text) if text else anchor.path  # (a shebang)
        block = symbol_block(text, anchor.symbol or "", read) if text else None
        if block is None:
            continue  # (not defined at the note's commit: the anchor never named it there)
        was = located.get(key, (None, ""))[1]
        places = [
            f
            for f in touched.get(anchor.symbol or "", [])
            if f.new != was
            and (f.new, anchor.symbol) not in anchored_now
            and _kept(block, read, anchor, base.get(f.new), f.new or "")
        ]
        for i, f in enumerate(places):
            if i == len(tries):
                tries.append({})
            tries[i][key] = (f, f.new or "")
    out: dict[tuple[str, Anchor], CodeChange] = {}
    for attempt in tries:
        for key, verdict in _verdicts(notes, change, attempt, env).items():
            if key not in out or (out[key].kind != "changed" and verdict.kind == "changed"):
                out[key] = verdict
                located[key] = attempt[key]
    return out


def _kept(block: str, was_read: str, anchor: Anchor, text: str | None, path: str) -> bool:
    """MOVED: does ``text`` (a file at the change's base) define the anchor's symbol with more
    than half the names, numbers and strings of ``block`` (its code at the note's commit, read
    as a file of the path ``was_read``)?
    Code that moved kept most of itself; another definition of the name (a test's ``let
    debug`` for the ``debug`` function) holds little of it."""

    if text is None:
        return False
    read = languages.read_as(path, text)
    now = symbol_block(text, anchor.symbol or "", read)
    if now is None:
        return False
    was = _own_names(block, anchor, was_read)
    return bool(was) and len(was & _own_names(now, anchor, read)) > KEPT * len(was)


def _own_names(block: str, anchor: Anchor, path: str) -> set[str]:
    """The names, numbers and strings a block's code holds, but the language's words and the
    anchored symbol's own name: what two blocks of one name share when they are one code."""
    return {
        t
        for t in tokens(block, path)
        if (is_name_or_number(t) or is_string(t)) and t not in KEYWORDS and t != anchor.symbol
    }


def _words_only(anchor: Anchor, names: Sequence[str], diff: diffs.FileDiff, path: str) -> bool:
    """Is a file anchor's change, to a file that is not prose and that it does not rename, to
    nothing the note states but plain words (``WORDS_ONLY``)?"""
    if anchor.symbol or not names or path.lower().endswith(diffs.PROSE):
        return False
    if diff.status == "renamed":
        return False  # the note names the path the change renames (RENAMED_ONLY)
    return all(n.isalpha() and n.islower() for n in names)


def _words(text: str, project: str) -> set[str]:
    """The words of ``text`` (identifiers split into theirs: ``set_max_level``, ``set``,
    ``max``, ``level``), lower-cased; not the short ones, the noise of commit messages, the
    language's words or the project's own name."""
    skip = {_squashed(w) for w in [project, *_parts(project)] if w}
    out: set[str] = set()
    for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        for part in _parts(name) or [name]:
            low = part.lower()
            short = len(low) < MIN_WORD
            if (
                not short
                and low not in _NOISE
                and low not in KEYWORDS
                and _squashed(low) not in skip
            ):
                out.add(low)
    return out


def _best_described(found: list[Relevant]) -> list[Relevant]:
    """Of the notes anchored to the same code, those that state the most of the words of the
    change's commit messages (``DESCRIBED_MIN``); every note alone on its code stays."""
    most: dict[str, int] = {}
    for item in found:
        most[item.anchor] = max(most.get(item.anchor, 0), item.described)
    return [i for i in found if most[i.anchor] < DESCRIBED_MIN or i.described == most[i.anchor]]


def _precision(names: Sequence[str]) -> float:
    """How precisely the change hit what a note states, for ranking notes of one tier: each
    identifier it touched (``INI_MAX_LINE``, ``max_line``, ``_values``) adds a little; a plain
    word (``line``, ``error``) or a number says where the code is less exactly. Never enough to
    pass a tier (``IDENTIFIER_BONUS`` times at most ``MAX_BONUS``)."""
    hits = [n for n in names if _looks_like_code(n, n)]
    return IDENTIFIER_BONUS * min(len(hits), MAX_BONUS)


def _renamed_since(
    root: Path,
    base: str,
    pending: Mapping[str, list[tuple[str, str]]],
    by_path: Mapping[str, diffs.FileDiff],
    env: Env,
) -> dict[tuple[str, str], str]:
    """``(anchored path, commit) -> path at base`` for the anchors whose file was renamed
    between their commit and ``base`` to a file the change touches: the note's anchor still
    names the old path (``stale`` lists it as moved), the change is to its code. Keyed by the
    anchor, not the note: every note anchored to that path at that commit is followed."""
    out: dict[tuple[str, str], str] = {}
    busiest = sorted(pending, key=lambda c: -len(pending[c]))[:RENAME_COMMITS]
    for commit in busiest:
        full = codebase.resolve(root, commit, env)
        if full is None:
            continue
        diff = {c.old: c for c in codebase.changes(root, full, base, env) if c.old}
        # Gone as the whole-range diff sees it: followed commit by commit, as ``stale`` does
        # (a file moved and then rewritten is at its new path).
        gone = [p for _, p in pending[commit] if p in diff and diff[p].status == "D"]
        trails = codebase.follow(root, full, base, gone, env) if gone else {}
        for _, path in pending[commit]:
            change = diff.get(path)
            now = trails[path].now if path in trails else change.new if change else None
            if now is not None and now != path and now in by_path:
                out[(path, commit)] = now
    return out


def _verdicts(
    notes: Sequence[AnchoredNote],
    change: Change,
    located: Mapping[tuple[str, Anchor], tuple[diffs.FileDiff, str]],
    env: Env,
    gone: set[tuple[str, Anchor]] | None = None,
) -> dict[tuple[str, Anchor], CodeChange]:
    """For each anchor on a file the change modifies or renames: how the code it names
    changed from the change's base to its head (``notes/codediff.py``, as ``stale`` judges
    it), with both versions read in one ``git cat-file``. A symbol the change removes is a
    change; one the change adds has no verdict; one in neither version (a form the symbol
    rule does not read) is judged as its file, as ``stale`` judges it, unless the file
    defined it at the anchor's commit: then it has no verdict, and is added to ``gone``."""

    wanted: list[tuple[str, Anchor, diffs.FileDiff]] = []
    for note in notes:
        for anchor in note.anchors:
            diff = located.get((note.id, anchor), (None, ""))[0]
            if diff is not None and diff.old is not None and diff.new is not None:
                wanted.append((note.id, anchor, diff))
    versions = _versions(change, [diff for _, _, diff in wanted], env) if wanted else []
    said = {n.id: n.said for n in notes}
    titles = {n.id: n.title for n in notes}
    out: dict[tuple[str, Anchor], CodeChange] = {}
    unread: list[tuple[str, Anchor, str, str, str]] = []  # symbols in neither version
    wanted_texts: dict[tuple[str, Anchor], tuple[str, str, str]] = {}  # file anchors' versions
    for (nid, anchor, diff), (old, new) in zip(wanted, versions, strict=True):
        if old is None or new is None:
            continue
        old, new = _as_reviewed(old, new, diff.new or "")
        # (a script without a suffix is read in its shebang's language, ``languages.read_as``)
        symbol, path = anchor.symbol, languages.read_as(diff.new or "", new)
        # HEADER: the two versions and blocks, their headers read only for a block found the same
        whole: tuple[str, str, list[str], list[str]] | None = None
        if symbol:
            # every definition the anchor means (``anchors.anchored_pair``): a change to any
            # overload of the name is one a reviewer of the note should see (``stale`` keeps
            # to the first, see ``staleness._code``)
            old_blocks, new_blocks = anchored_pair(old, new, symbol, path)
            if not old_blocks and not new_blocks:
                unread.append((nid, anchor, old, new, path))
                continue
            elif not old_blocks or not new_blocks:
                if old_blocks:
                    out[(nid, anchor)] = CodeChange("changed", (symbol,))
                continue
            else:
                whole = (old, new, old_blocks, new_blocks)
                old, new = "".join(old_blocks), "".join(new_blocks)
        verdict = compare(old, new, path, said[nid] or None, symbol, titles[nid], reshaping=True)
        if not symbol:
            wanted_texts[(nid, anchor)] = (old, new, path)
        if verdict.kind == "same" and whole is not None and _headers_differ(*whole, path):
            verdict = CodeChange("elsewhere")  # HEADER: its attributes changed, not its code
        else:
            verdict = _unswept(verdict, old, new, change, f"{titles[nid] or ''} {said[nid] or ''}")
        out[(nid, anchor)] = verdict
    # SETTING: a settings file's change to the value of a key the note names
    for (nid, anchor), verdict in list(out.items()):
        if anchor.symbol or verdict.kind != "elsewhere" or (nid, anchor) not in wanted_texts:
            continue
        old, new, path = wanted_texts[(nid, anchor)]
        keys = _keys_changed(old, new, path, said[nid] or "")
        if keys:
            out[(nid, anchor)] = CodeChange("changed", tuple(keys))
    # A symbol in neither version of the change: gone before it when the file defined it at
    # the note's own commit (nothing of it changed here); else a form the symbol rule does not
    # read, judged as its file (as ``stale`` judges it).
    known = [(a.commit, a.path) for _, a, _, _, _ in unread if a.commit]
    then = iter(codebase.texts(Path(change.root), known, env) if known else [])
    for nid, anchor, old, new, path in unread:
        at_commit = next(then) if anchor.commit else None
        if (
            at_commit is not None
            and symbol_block(
                at_commit, anchor.symbol or "", languages.read_as(anchor.path, at_commit)
            )
            is not None
        ):
            if gone is not None:
                gone.add((nid, anchor))  # (MOVED: it may be where the change touched it)
            continue
        verdict = compare(old, new, path, said[nid] or None, None, titles[nid], reshaping=True)
        out[(nid, anchor)] = _unswept(
            verdict, old, new, change, f"{titles[nid] or ''} {said[nid] or ''}"
        )
    return out


def _unswept(verdict: CodeChange, old: str, new: str, change: Change, said: str) -> CodeChange:
    """SWEPT: ``verdict`` on a block whose change is only the change's sweeps, which the note
    (its title and text ``said``) does not state, read as the same code."""

    if verdict.kind != "same" and swept_only(old, new, change.sweeps, said):
        return CodeChange("same")
    return verdict


def _keys_changed(old: str, new: str, path: str, said: str) -> list[str]:
    """The keys of a settings file (not prose, not code) whose values changed from ``old`` to
    ``new`` and that the note, whose text is ``said``, names (``SETTING``): a changed line's
    own key (``cron:``, ``"main":``, ``<parent>``), or for a line without one (a list item, a
    value's continuation) the key of the nearest line above it indented less; a key removed
    counts, a key the change adds does not (the note was not written about it)."""
    from difflib import SequenceMatcher

    if not prose_or_settings(path) or path.lower().endswith(diffs.PROSE):
        return []
    if reshaped_only(tokens(old, path), tokens(new, path), said):
        return []  # RESHAPED: a value respelled is not a value changed
    named = names_in(said, qualifiers=False)
    if not named:
        return []
    a, b = old.split("\n"), new.split("\n")
    keys: set[str] = set()
    ops = [o for o in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if o[0] != "equal"]
    if _renamed_values(a, b, ops, new):
        return []
    gone = {i for _, i1, i2, _, _ in ops for i in range(i1, i2)}
    came = {j for _, _, _, j1, j2 in ops for j in range(j1, j2)}
    was = [_key_of(a, i) for i in sorted(gone)]
    replaced = {key for key, at in was if at in gone}  # keys on the lines the change removed
    keys.update(key for key, _ in was)  # a key removed, or its value changed
    for key, at in (_key_of(b, j) for j in sorted(came)):
        # (a key the change adds, with what it holds, is a new key however named: ``files``
        # added under ``ava`` is not the ``files`` a note on package.json names)
        if at not in came or key in replaced:
            keys.add(key)
    keys &= named
    return sorted(keys)


def _renamed_values(
    a: Sequence[str], b: Sequence[str], ops: Sequence[tuple[str, int, int, int, int]], new: str
) -> bool:
    """Did a settings file change only by names renamed one for one, each on every line that
    said it (a CI job renamed where it is defined and where another job needs it: ``SETTING``
    reads no key's value changed)? A number replaced is a value changed, not a rename."""
    renamed: dict[str, str] = {}
    for op, i1, i2, j1, j2 in ops:
        if op != "replace" or i2 - i1 != j2 - j1:
            return False
        for was, now in zip(a[i1:i2], b[j1:j2], strict=True):
            x, y = _SETTING_WORD.findall(was), _SETTING_WORD.findall(now)
            apart = [(p, q) for p, q in zip(x, y, strict=False) if p != q]
            if len(x) != len(y) or len(apart) != 1 or not apart[0][0][:1].isalpha():
                return False
            if renamed.setdefault(apart[0][0], apart[0][1]) != apart[0][1]:
                return False
    said_now = set(_SETTING_WORD.findall(new))
    return bool(renamed) and not said_now & set(renamed)


def _key_of(text: Sequence[str], at: int) -> tuple[str, int]:
    """The key line ``at`` of a settings file sets, and the line that says it: its own, or
    that of the nearest line above indented less (``""``: a blank line, or none above)."""
    line = text[at]
    if not line.strip():
        return "", -1
    depth = len(line) - len(line.lstrip())
    if line.lstrip().startswith("- ") and not _SETTING_KEY.match(line):
        depth += 1  # (YAML writes a list's items at its key's own indentation)
    for above in range(at, -1, -1):
        candidate = text[above]
        if not candidate.strip():
            continue
        indent = len(candidate) - len(candidate.lstrip())
        if above != at and indent >= depth:
            continue
        found = _SETTING_KEY.match(candidate)
        if found:
            return found.group(1) or found.group(2), above
        if above != at:
            return "", -1  # the line it stands under sets no key
    return "", -1


def _headers_differ(
    old: str, new: str, old_blocks: Sequence[str], new_blocks: Sequence[str], path: str
) -> bool:
    """Do the code tokens above a symbol's blocks (``HEADER``) differ between the versions?"""
    before = [t for b in old_blocks for t in _header(old, b, path)]
    return before != [t for b in new_blocks for t in _header(new, b, path)]


def _header(text: str, block: str, path: str) -> list[str]:
    """The code tokens of what stands just above ``block`` in ``text`` and belongs to its
    definition (``HEADER``): the attributes, annotations and decorators (with the lines of
    their arguments) and comments up to the first blank line or the end of the code before
    it; comments drop out of the tokens. A block comment is read whole, from the line that
    closes it to the one that opens it (a Swift doc comment's lines need no ``*``); lines
    whose brackets an annotation's first line opens belong to it only when that line is one
    (a TypeScript overload's signature or a Lisp form that closes on the lines above is the
    code before the definition); a line that defines a name itself (a ``#define``) is code
    before it, not its header."""
    at = text.find(block)
    if at <= 0 or text[at - 1] != "\n":
        return []
    lines = text[: at - 1].split("\n")
    close = _comment_close(path)
    above: list[str] = []
    group: list[str] = []  # lines an annotation's first line, above them, must open
    unclosed = 0  # brackets an annotation's argument lines close, read upwards
    i = len(lines)
    while i > 0:
        i -= 1
        line = lines[i]
        bare = line.strip()
        if not bare:
            break
        if close is not None and unclosed <= 0 and bare.endswith(close[1]):
            opened_at = _comment_open(lines, i, close)
            if opened_at is None or not lines[opened_at].lstrip().startswith(close[0]):
                break  # (``x = 1; /* why */``: code before the comment)
            above.extend(reversed(lines[opened_at : i + 1]))
            i = opened_at
            continue
        opened = bare.count("(") + bare.count("[") - bare.count(")") - bare.count("]")
        header = _HEADER_LINE.match(line) is not None and defined_name(line) is None
        if not header and unclosed <= 0 and opened >= 0:
            break  # the code before the definition (``x = 1``, a ``}``)
        group.append(line)
        unclosed -= opened
        if unclosed <= 0:
            if not header:
                group.clear()
                break  # brackets a line of code opened: a signature or form before it
            above.extend(group)
            group.clear()
    return tokens("\n".join(reversed(above)), path)


def _comment_close(path: str) -> tuple[str, str] | None:
    """The block comment markers of ``path``'s language (``/*``, ``*/``), or None."""
    language = languages.of(path)
    if language.nested_comments is not None:
        return language.nested_comments
    return ("/*", "*/") if language.slash_comments else None


def _comment_open(lines: Sequence[str], at: int, markers: tuple[str, str]) -> int | None:
    """The line at or above ``at`` that opens the block comment line ``at`` closes, or None
    when none does."""
    for i in range(at, -1, -1):
        if markers[0] in lines[i]:
            return i
    return None


def _as_reviewed(old: str, new: str, path: str) -> tuple[str, str]:
    """The two versions of an anchored file as a reviewer reads them for what they say: a
    prose file changed only in its spelling (``RESPELLED``) as unchanged."""
    if path.lower().endswith(diffs.PROSE) and _respelled_only(old, new):
        return new, new
    return old, new


def _respelled_only(old: str, new: str) -> bool:
    """Did ``old`` become ``new`` only by words respelled one for one (``RESPELLED``)?"""
    from difflib import SequenceMatcher

    a, b = _PROSE_WORD.findall(old), _PROSE_WORD.findall(new)
    changed = False
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op != "replace" or i2 - i1 != j2 - j1:
            return False  # a word added or dropped says something else
        for was, now in zip(a[i1:i2], b[j1:j2], strict=True):
            if not _misspelling(was, now):
                return False
        changed = True
    return changed


def _misspelling(was: str, now: str) -> bool:
    """Is ``now`` ``was`` respelled (``RESPELLED``): letters both, as long as each other but for
    one, and two letters side by side swapped or nearly all in the same order?"""
    from difflib import SequenceMatcher

    if not (was.isalpha() and now.isalpha()) or min(len(was), len(now)) < RESPELLED_MIN:
        return False
    if abs(len(was) - len(now)) > 1:
        return False
    was, now = was.lower(), now.lower()
    apart = [i for i, (x, y) in enumerate(zip(was, now, strict=False)) if x != y]
    if len(was) == len(now) and len(apart) == 2 and apart[1] == apart[0] + 1:
        return was[apart[0]] == now[apart[1]] and was[apart[1]] == now[apart[0]]  # swapped
    return SequenceMatcher(None, was, now).ratio() >= RESPELLED_RATIO


def _status(diff: diffs.FileDiff, path: str) -> str:
    if diff.status == "renamed":
        return f"renames to {diff.new}" if path == diff.old else f"renames from {diff.old}"
    return {"added": "adds", "deleted": "deletes"}.get(diff.status, "modifies")


def terms(change: Change, project: str = "") -> dict[str, tuple[float, str]]:
    """The change's terms -> (weight, where it came from). Symbols keep their case (they are
    matched as identifiers); words are lower-cased (matched as words)."""
    out: dict[str, tuple[float, str]] = {}
    # The project's own name and its words (``connection_pool``: ``connection``, ``pool``;
    # ``FastRoute``: ``route``) are in every path of it and in its main class: they say
    # nothing about what a change is about, nor does a name made of them only.
    skip = {_squashed(w) for w in [project, *_parts(project)] if w}

    def put(term: str, weight: float, where: str) -> None:
        if weight >= SYMBOL_WEIGHT and _PLAIN.fullmatch(term.strip("_")):
            # ``path``, ``Write``, ``__init__``: a name that is also a word says no more than
            # a word of a file name (prose says it too); it counts as one.
            term, weight = term.strip("_"), PATH_WEIGHT
        low = term.lower()
        if len(term) < MIN_WORD or low in _NOISE or low in KEYWORDS or low.isdigit():
            return
        if skip and all(_squashed(w) in skip for w in _parts(term) or [term]):
            return
        key = term if weight >= SYMBOL_WEIGHT or "." in term else low
        if key not in out or out[key][0] < weight:
            out[key] = (weight, where)

    files = [f for f in change.files if not set(f.paths) & change.cosmetic]
    said = {s for f in files for s in f.symbols if (f.new or "", s) not in change.unchanged}
    for symbol in sorted(said):
        put(symbol, SYMBOL_WEIGHT, "changed symbol")
    for path in sorted({p for f in files for p in f.paths}):
        base = posixpath.basename(path)
        if _FILE_NAME.fullmatch(base):  # ``setup.cfg`` in a note's text names this very file
            put(base, FILE_WEIGHT, "changed file")
        stem = base.split(".", 1)[0]
        for word in _parts(stem):
            put(word, PATH_WEIGHT, "changed file")
    for message in change.messages:
        for name in _IDENTIFIER.findall(message):
            for part in name.strip("@()").split("."):
                if _looks_like_code(part, name):
                    put(part, SYMBOL_WEIGHT, NAMED_IN_MESSAGE)
        for word in _WORD.findall(message):
            put(word, MESSAGE_WEIGHT, "commit message")
    return out


def _looks_like_code(part: str, written: str) -> bool:
    """Is a word of a commit message an identifier (``TTLCache``, ``lru_cache``, ``getsizeof()``,
    ``@cached``), not prose?"""
    return bool(part) and (
        "_" in part.strip("_")
        or any(c.isupper() for c in part[1:])
        or written.endswith("()")
        or written.startswith("@")
        or part.startswith("__")
    )


def _squashed(word: str) -> str:
    """``word`` lower-cased, without separators (``Connection_Pool``: ``connectionpool``)."""
    return re.sub(r"[^a-z0-9]", "", word.lower())


def _parts(name: str) -> list[str]:
    words: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", name):
        words.extend(w for w in _SPLIT_CAMEL.split(chunk) if w)
    return [name, *words] if len(words) > 1 and name.isidentifier() else words


def mentioned(
    kb: Path, state_dir: Path, change: Change, project: str, env: Env, exclude: set[str]
) -> list[Relevant]:
    """Notes (of this project, or of none, or global) whose text names what changed."""
    from reflectgit.workflows.search.index import open_fresh

    weights = terms(change, project)
    if not weights:
        return []
    ranked = sorted(weights, key=lambda w: (-weights[w][0], w))[:MAX_QUERY_TERMS]
    index, _ = open_fresh(kb, state_dir, env)
    with index:
        hits = index.ranked(" ".join(ranked), limit=SEARCH_HITS, prefix_last=False)
        rows = {d["id"]: d for d in index.documents([h.rowid for h in hits])}
    moved: dict[str, list[Place]] = {}  # SAME_FILE, to check: note id -> its anchors
    touched: dict[str, set[str]] = {}  # a changed symbol -> the names of its changed files
    for f in change.files:
        for symbol in f.symbols:
            touched.setdefault(symbol, set()).update(posixpath.basename(p) for p in f.paths)
    candidates = [h for h in hits if h.id not in exclude and h.state == "live"]
    texts = codebase.texts(kb, [("HEAD", h.path) for h in candidates], env)
    out: list[Relevant] = []
    for hit, text in zip(candidates, texts, strict=True):
        row = rows.get(hit.id, {})
        learned_in = (row.get("project") or "").lower()
        scope = (row.get("scope") or "").lower()
        if learned_in and learned_in != project.lower() and scope != "global":
            continue
        words, names, subject, defined = _said(text)
        if not words:
            continue
        named = [t for t in ranked if (t in names if _is_name(t, weights) else t in words)]
        score = sum(weights[w][0] for w in named)
        strong = [w for w in named if weights[w][0] >= PATH_WEIGHT]
        if score < MENTION_MIN or not strong:
            continue
        elsewhere: list[Place] = []  # SAME_FILE: the anchors to look for at the base
        if subject is not None:
            its = [t for t in named if _is_name(t, weights)]
            # MESSAGE_SUBJECT: the change touched an anchored symbol of the note, in a file
            # of its anchor's name: the message's names that its title says are its subject
            near = any(
                {posixpath.basename(p) for p, _ in where} & touched.get(name, set())
                for name, where in defined.items()
            )
            spoken = {t for t in its if weights[t][1] == NAMED_IN_MESSAGE and not near}
            if not any(_is_subject(t, subject, defined, touched, t in spoken) for t in its):
                elsewhere = [(p, c, t) for t in its for p, c in defined.get(t, ())]
                if not elsewhere:
                    continue  # SUBJECT_RULE: what it is anchored to is not what the change names
        why = "mentions " + ", ".join(f"{w} ({weights[w][1]})" for w in named[:4])
        out.append(Relevant(hit.id, hit.title, why, score, "mentioned"))
        if elsewhere:
            moved[hit.id] = elsewhere
    if moved:  # SAME_FILE: kept when one of its anchored files defines its symbol no more
        still = _still_defined(change, [a for places in moved.values() for a in places], env)
        out = [r for r in out if r.id not in moved or not set(moved[r.id]) <= still]
    return out


def _still_defined(change: Change, places: Sequence[Place], env: Env) -> set[Place]:
    """Those of ``places`` (an anchor's path, commit and symbol) whose file, followed from the
    anchor's commit through its renames (``codebase.follow``), defines the symbol still at the
    change's base."""

    root = Path(change.root)
    wanted = list(dict.fromkeys(places))
    now: dict[Place, str] = {}
    for commit in dict.fromkeys(c for _, c, _ in wanted):
        full = codebase.resolve(root, commit, env) if commit else None
        paths = [p for p, c, _ in wanted if c == commit]
        trails = codebase.follow(root, full, change.base, paths, env) if full else {}
        for place in (w for w in wanted if w[1] == commit):
            trail = trails.get(place[0])
            where = trail.now if trail is not None else place[0]
            if where is not None:
                now[place] = where
    found = list(now)
    texts = codebase.texts(root, [(change.base, now[p]) for p in found], env) if found else []
    return {
        place
        for place, text in zip(found, texts, strict=True)
        if text is not None
        and symbol_block(text, place[2], languages.read_as(now[place], text)) is not None
    }


def _is_subject(
    name: str,
    subject: set[str],
    defined: Mapping[str, set[tuple[str, str]]],
    touched: Mapping[str, set[str]],
    spoken: bool = False,
) -> bool:
    """Is ``name``, a name of the change, a note's subject (``SUBJECT_RULE``): a name of its
    title or of its anchors' files, or its anchors' symbol in a file of the name of one the
    change touched that symbol in (``SAME_FILE``; any, for a name the change did not touch)?
    A name only the commit messages say (``spoken``) only as its anchors' symbol
    (``MESSAGE_SUBJECT``)."""
    if name in subject and not spoken:
        return True
    files = {posixpath.basename(p) for p, _ in defined.get(name, ())}
    return bool(files) and (name not in touched or bool(files & touched[name]))


def _is_name(term: str, weights: Mapping[str, tuple[float, str]]) -> bool:
    """Is a term of the change a name (a symbol, a file's name), matched as written?"""
    return weights[term][0] >= SYMBOL_WEIGHT or "." in term


def _said(
    text: str | None,
) -> tuple[set[str], set[str], set[str] | None, dict[str, set[tuple[str, str]]]]:
    """The words (lower-cased) and the identifiers (as written) a note's own text says, its
    subject (``SUBJECT_RULE``): the names of its anchors' files and of its title (None for a
    note without anchors), and the names of its anchors' symbols, each with the paths (and
    commits) it is anchored in (``SAME_FILE``)."""
    if text is None:
        return set(), set(), None, {}
    from reflectgit.notes.note import parse_note

    try:
        note = parse_note(text)
    except Exception:
        return set(), set(), None, {}
    from reflectgit.notes.anchors import anchors_of
    from reflectgit.notes.codediff import SAID_FIELDS, said

    text_said = said(note.frontmatter, note.body, (*SAID_FIELDS, "tags"))
    words = {w.lower() for w in _WORD.findall(text_said)}
    anchors = anchors_of(note.frontmatter)
    if not anchors:
        return words, _names(text_said), None, {}
    subject = _names(str(note.frontmatter.get("title") or ""))
    defined: dict[str, set[tuple[str, str]]] = {}
    for anchor in anchors:
        subject |= _names(posixpath.basename(anchor.path))
        for name in _names(anchor.symbol or ""):
            defined.setdefault(name, set()).add((anchor.path, anchor.commit or ""))
    return words, _names(text_said), subject, defined


def _names(text: str) -> set[str]:
    """The identifiers (as written) ``text`` says, and the files it names by their names
    (``.github/workflows/ci.yml`` names ``ci.yml``), whole and by their dotted parts."""
    names = set(re.findall(r"[A-Za-z_]\w*", text))
    names |= {posixpath.basename(f) for f in _FILE_IN_TEXT.findall(text)}
    return names | {part for name in list(names) for part in name.split(".")}


def comment_body(result: ChangeNotes, marker: str, limit: int | None = None) -> str:
    """The pull-request comment: the hidden marker that finds it again, a heading, one line
    per note with its why."""
    lines = [
        marker,
        f"**reflect-git**: {len(result.notes)} note{'s' if len(result.notes) != 1 else ''} "
        "from the knowledge base bear on this change",
        "",
    ]
    for note in result.notes[:limit]:
        lines.append(f"- **{note.title}** (`{note.id}`): {note.why}")
    return "\n".join(lines) + "\n"


__all__: Sequence[str] = ("ChangeNotes", "Relevant", "comment_body", "pr_notes", "read_change")
