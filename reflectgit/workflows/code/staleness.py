"""Which notes the code has moved away from: ``reflect-git stale``.

For each anchor of a note learned in the repository (its ``project`` is the repository's
name), git compares the anchor's commit with HEAD:

- ``deleted``: the file is gone: ``git diff -M`` finds no rename for it, and followed commit by
  commit (``codebase.follow``, as ``git log --follow`` follows a file) its trail ends in a
  deletion (a file moved and later rewritten is followed to its path at HEAD and judged there);
- ``symbol-gone``: the file (at its new path, after a rename) no longer defines the symbol
  (it did at the anchor's commit: a symbol the file did not define then, as far as
  ``notes/anchors.py`` reads it, cannot be said to be gone; that anchor is judged as its file,
  and ``compared: file`` says so);
- ``changed``: the anchored code (the symbol's block for a symbol anchor, else the whole
  file) changed in what the note names (``notes/codediff.py``), or gained a parameter its body
  reads beside a note that says what always happens (``codediff.option_gained``: an option can
  end it, in lines naming nothing the note states), or gained a member of a list or table
  the note enumerates (``enumerations.gained``: what it says is all there is has one more),
  or changed at all in a file
  git pairs as a rename it scored under ``REWRITTEN_RENAME`` alike in the commit that made it
  (a file rewritten under a new name): ``commits`` are the commits that changed it.

Those are stale. Two findings are reported at a lower level, not as stale:

- ``changed-elsewhere`` (listed under ``changed``): the code changed, but not in what the note
  states (a method of the class other than those the note names; lines holding none of the
  note's names): worth a look, not a verdict; its ``names`` are the words of the note that the
  lines the change removed or added hold (``codediff.words_touched``), which its label names;
- ``renamed`` (listed under ``moved``): the file moved (followed as ``git diff -M`` follows
  renames, or commit by commit as above) and the anchored code did not change: the note holds,
  its anchor should name the new path (``now``); ``commits`` are the commits that renamed it.

An anchor whose file is untouched, or changed only elsewhere than its symbol, or only in
comments, white space or by a consistent renaming, is not listed. An anchor whose commit the
repository does not have (a shallow clone, another repository) cannot be judged and is counted
as unchecked, never reported as stale.

Asked to (``stale --ask-model``), a configured model then reads each note stale for a change
(``model_reading``): one it says still holds moves to ``changed``; a failed call keeps the flag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflectgit.git import codebase
from reflectgit.git.codebase import CommitInfo, FileChange, Trail
from reflectgit.notes import codediff, diffs, enumerations, languages
from reflectgit.notes.anchors import Anchor, defined_name, same_code, stale_label, symbol_block
from reflectgit.notes.codediff import (
    CodeChange,
    compare,
    moved_out,
    option_gained,
    words_touched,
)
from reflectgit.notes.diffs import FileDiff
from reflectgit.notes.sweeps import Edit, sweeps, swept_only
from reflectgit.notes.tokens import tokens
from reflectgit.workflows.code.notes import AnchoredNote, anchored_notes

if TYPE_CHECKING:
    from reflectgit.workflows.code.model_reading import Asking, ModelVerdict, Reading

Env = Mapping[str, str] | None
# The order a note's reasons are reported in: the most certain first.
REASONS = ("deleted", "symbol-gone", "changed", "changed-elsewhere", "renamed")
STALE = frozenset({"deleted", "symbol-gone", "changed"})
# SWEPT: the most commits changing an anchored block whose diffs are read for sweeps; a block
# changed by more commits than this is judged as before (the cost stays one diff per commit
# for the few commits that touched a note's code).
SWEEP_COMMITS = 8
# REWRITTEN: a rename git scores less alike than this (percent, in the commit that made it) is a
# file rewritten under another name (bats-core's ``bats-format-tap-stream`` paired at 53 % with
# the new ``bats-format-pretty``): code of it that changed is stale, whatever the note names.
# On the tune histories every anchored rename scored 68 % or less or 97 % or more.
REWRITTEN_RENAME = 75
# MOVED: the most commits changing an anchored block whose diffs are read for the definitions
# they added (where the block's code may have moved); a block changed by more stays as judged.
MOVED_COMMITS = 32


@dataclass
class StaleAnchor:
    anchor: Anchor
    reason: str
    now: str | None  # the file's path at HEAD (None when deleted)
    commits: list[CommitInfo]
    names: tuple[str, ...] = ()  # what the change touched that the note names
    # The symbol was not found in the file at the anchor's commit: the file was compared.
    whole_file: bool = False
    # How much of the anchored code changed: lines of code removed, rewritten or added, of
    # the lines of its longer version (``codediff.size``); None when not compared.
    lines: tuple[int, int] | None = None
    # The anchored code at the note's commit and at HEAD, kept for a change (``changed`` or
    # ``changed-elsewhere``) so a model can read it (``model_reading``); never in the JSON.
    before: str | None = field(default=None, repr=False, compare=False)
    after: str | None = field(default=None, repr=False, compare=False)


@dataclass
class StaleNote:
    id: str
    title: str
    path: str
    tier: str | None
    anchors: list[StaleAnchor]
    # What a configured model said of the change (``stale --ask-model``), when it answered.
    model: ModelVerdict | None = None

    @property
    def reason(self) -> str:
        return min((a.reason for a in self.anchors), key=REASONS.index)

    @property
    def commits(self) -> list[CommitInfo]:
        seen: dict[str, CommitInfo] = {}
        for a in self.anchors:
            for c in a.commits:
                seen.setdefault(c.sha, c)
        return list(seen.values())

    @property
    def label(self) -> str:
        first = next(a for a in self.anchors if a.reason == self.reason)
        where = first.anchor.path if self.reason == "deleted" else first.now
        words = sorted({w for a in self.anchors if a.reason == self.reason for w in a.names})
        label = stale_label(self.reason, len(self.commits), where, words, self.lines)
        return f"{label}; {self.model.said()}" if self.model is not None else label

    @property
    def lines(self) -> tuple[int, int] | None:
        """How many lines of the code its anchors of its reason name changed, of how many
        (summed over those anchors; None when none was measured)."""
        sizes = [a.lines for a in self.anchors if a.reason == self.reason and a.lines]
        if not sizes:
            return None
        return sum(c for c, _ in sizes), sum(n for _, n in sizes)

    def lines_json(self) -> dict[str, Any]:
        """``{"lines": {"changed", "of"}}`` when its change was measured, else nothing: as
        ``to_json`` and a proposal's ``stale:`` flag write it."""
        return _lines_json(self.lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reason": self.reason,
            "commits": [c.sha for c in self.commits],
            "title": self.title,
            "label": self.label,
            **self.lines_json(),
            **({"model": self.model.to_json()} if self.model is not None else {}),
            "anchors": [
                {
                    **a.anchor.to_yaml(),
                    "reason": a.reason,
                    "now": a.now,
                    **({"names": list(a.names)} if a.names else {}),
                    **({"compared": "file"} if a.whole_file else {}),
                    **_lines_json(a.lines),
                    "commits": [{"sha": c.sha, "subject": c.subject} for c in a.commits],
                }
                for a in self.anchors
            ],
        }


def _lines_json(lines: tuple[int, int] | None) -> dict[str, Any]:
    """``{"lines": {"changed", "of"}}`` when the change was measured, else nothing."""
    return {"lines": {"changed": lines[0], "of": lines[1]}} if lines else {}


@dataclass
class StaleReport:
    repo: str
    project: str
    head: str
    checked: int  # notes of the project with anchors
    unchecked: list[str] = field(default_factory=list)  # ids whose anchor commits are unknown
    stale: list[StaleNote] = field(default_factory=list)
    changed: list[StaleNote] = field(default_factory=list)  # changed in nothing they name
    moved: list[StaleNote] = field(default_factory=list)  # their file renamed, code the same
    # What a configured model read (``stale --ask-model``); None when it was not asked.
    reading: Reading | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "project": self.project,
            "head": self.head,
            "checked": self.checked,
            "unchecked": self.unchecked,
            "stale": [s.to_json() for s in self.stale],
            "changed": [s.to_json() for s in self.changed],
            "moved": [s.to_json() for s in self.moved],
            **({"model_reading": self.reading.to_json()} if self.reading is not None else {}),
        }


def stale(
    kb: Path,
    repo: Path,
    env: Env = None,
    project: str | None = None,
    *,
    ask: Asking | None = None,
) -> StaleReport:
    """The stale notes of ``repo``'s project in ``kb``; with ``ask``, a configured model reads
    each note the heuristics call stale for a change before it is called so
    (``model_reading``)."""
    if ask is not None:
        from reflectgit.workflows.code.model_reading import require_command

        require_command(ask)  # before any work: asking needs a model command
    root = codebase.top(repo, env)
    name = project or root.name
    notes = anchored_notes(kb, env, project=name)
    report = judge(root, notes, env, name)
    if ask is not None:
        from reflectgit.workflows.code.model_reading import reread

        reread(report, notes, ask)
    return report


def judge(
    root: Path, notes: Sequence[AnchoredNote], env: Env = None, project: str | None = None
) -> StaleReport:
    """Judge ``notes``' anchors against ``root``'s HEAD (the notes are taken as given)."""
    head = codebase.resolve(root, "HEAD", env)
    report = StaleReport(str(root), project or root.name, head or "", len(notes))
    if head is None:
        return report
    judge_ = _Judge(root, head, env)
    for note in notes:
        found: list[StaleAnchor] = []
        unknown = False
        for anchor in note.anchors:
            verdict = judge_.anchor(anchor, note.said, note.title)
            if verdict is _UNKNOWN:
                unknown = True
            elif isinstance(verdict, StaleAnchor):
                found.append(verdict)
        if found:
            entry = StaleNote(note.id, note.title, note.path, note.tier, found)
            if entry.reason in STALE:
                report.stale.append(entry)
            elif entry.reason == "changed-elsewhere":
                report.changed.append(entry)
            else:
                report.moved.append(entry)
        elif unknown:
            report.unchecked.append(note.id)
    return report


_UNKNOWN = object()


class _Judge:
    """One HEAD; each distinct anchor commit's diff is asked of git once, and the trails of
    its deleted and renamed files (``codebase.follow``) once, when an anchor needs them."""

    def __init__(self, root: Path, head: str, env: Env) -> None:
        self.root, self.head, self.env = root, head, env
        self._diffs: dict[str, tuple[str, dict[str, FileChange]] | None] = {}
        self._trails: dict[str, dict[str, Trail]] = {}
        self._sweeps: dict[str, frozenset[Edit]] = {}  # SWEPT: each commit's sweeps
        self._patches: dict[str, list[FileDiff]] = {}  # each commit's diff, parsed

    def _diff(self, commit: str) -> tuple[str, dict[str, FileChange]] | None:
        """The commit's full name and what changed since it, by old path."""
        if commit not in self._diffs:
            full = codebase.resolve(self.root, commit, self.env)
            if full is None:
                self._diffs[commit] = None
            else:
                changes = codebase.changes(self.root, full, self.head, self.env)
                self._diffs[commit] = (full, {c.old: c for c in changes if c.old is not None})
        return self._diffs[commit]

    def _trail(self, full: str, diff: Mapping[str, FileChange], path: str) -> Trail:
        """Where ``path`` went from ``full`` to HEAD, commit by commit. Every file the diff
        says was deleted or renamed is followed in the same ``git log``: the next anchor of
        that commit asks nothing more."""
        if full not in self._trails:
            gone = [old for old, c in diff.items() if c.status in ("D", "R")]
            self._trails[full] = codebase.follow(self.root, full, self.head, gone, self.env)
        return self._trails[full][path]

    def anchor(self, anchor: Anchor, said: str = "", title: str | None = None) -> object:
        commit = anchor.commit
        if commit is None:
            # No commit to compare with: only a deletion or a vanished symbol can be seen.
            return self._present_only(anchor)
        known = self._diff(commit)
        if known is None:
            return _UNKNOWN
        full, diff = known
        change = diff.get(anchor.path)
        if change is None:
            return None  # untouched since the note was written
        trail: Trail | None = None
        if change.status == "D" or change.new is None:
            # Gone from HEAD as a whole-range diff sees it; followed commit by commit, a file
            # moved and then rewritten is still found (each step was a rename git saw).
            trail = self._trail(full, diff, anchor.path)
            if trail.now is None:
                commits = (
                    [trail.ended]
                    if trail.ended is not None
                    else codebase.commits_touching(
                        self.root, commit, self.head, [anchor.path], self.env
                    )[:1]
                )
                return StaleAnchor(anchor, "deleted", None, commits)
            now = trail.now
            paths = list(trail.names)
        else:
            now = change.new
            paths = [anchor.path, now]
        old_text, new_text = codebase.texts(
            self.root, [(commit, anchor.path), (self.head, now)], self.env
        )
        symbol = anchor.symbol
        # (a script without a suffix is read in its shebang's language, ``languages.read_as``)
        read = languages.read_as(now, new_text if new_text is not None else old_text)
        old_code, new_code = _code(old_text, new_text, symbol, read)
        whole = symbol is not None and old_text is not None and old_code is None
        if whole:
            # The file did not define the symbol (as far as it can be read) when the note was
            # written either: nothing says it is gone now. Judge the anchor as its file.
            symbol, old_code, new_code = None, old_text, new_text
        if symbol and new_text is not None and new_code is None:
            commits = self._changing(commit, paths, symbol)
            return StaleAnchor(anchor, "symbol-gone", now, commits)
        verdict = (
            compare(old_code, new_code, read, said or None, symbol, title, new_text, old_text)
            if old_code is not None and new_code is not None
            else None
        )
        changed = verdict is not None and verdict.kind in ("changed", "elsewhere")
        commits = []
        if changed or (verdict is None and not same_code(old_code, new_code)):
            commits = self._changing(commit, paths, symbol)
        text = f"{title or ''} {said}"
        swept = (
            changed
            and old_code is not None
            and new_code is not None
            and self._swept(commits, old_code, new_code, text)
        )
        if swept:
            verdict, changed = CodeChange("same"), False  # SWEPT: a respelling
        own = symbol.rsplit(".", 1)[-1] if symbol else None
        if (
            changed
            and verdict is not None
            and verdict.stale
            and not verdict.unnamed
            and symbol
            and old_code is not None
            and new_code is not None
            and moved_out(old_code, new_code, read, verdict.names, self._added(commits, own), own)
        ):
            # MOVED: what the note states left the block for a definition the same commits
            # added, and stands there
            verdict = CodeChange("elsewhere")
        if changed and verdict is not None and not verdict.stale:
            verdict = _ended(verdict, old_code, new_code, read, text, symbol)
        if changed and verdict is not None:
            both = (old_code, new_code) if old_code is not None and new_code is not None else None
            size = codediff.size(*both, read) if both else None
            stale = verdict.stale or (
                now != anchor.path and self._rewritten(full, diff, anchor.path)
            )
            if stale:
                return StaleAnchor(
                    anchor, "changed", now, commits, verdict.names, whole, size, old_code, new_code
                )
            # (the words of the note the changed lines hold: its label says "in nothing the
            # note names" only when there are none)
            shared = verdict.names or (words_touched(*both, read, text) if both else ())
            return StaleAnchor(
                anchor, "changed-elsewhere", now, commits, shared, whole, size, old_code, new_code
            )
        if now != anchor.path:
            return StaleAnchor(
                anchor,
                "renamed",
                now,
                self._renaming(full, diff, anchor.path, now),
                whole_file=whole,
            )
        if verdict is None and not same_code(old_code, new_code):
            return StaleAnchor(
                anchor, "changed", now, commits, whole_file=whole, before=old_code, after=new_code
            )
        return None

    def _swept(self, commits: list[CommitInfo], old: str, new: str, said: str) -> bool:
        """SWEPT: whether the anchored code changed only by edits that the commits changing it
        each made alike in many places (``notes/sweeps.py``), and the note states none of them:
        a commit that makes one edit everywhere (every regex's ``$`` become ``\\z``, a helper
        renamed across the code) decided it for the whole code base, and the lesson of a note
        on one block of it holds. Each commit's diff is read once (``git diff -U0``), only for
        anchors whose code changed, and for at most ``SWEEP_COMMITS`` commits: a block changed
        by more is not read as swept."""
        if not commits or len(commits) > SWEEP_COMMITS:
            return False
        found: set[Edit] = set()
        for c in commits:
            if c.sha not in self._sweeps:
                self._sweeps[c.sha] = sweeps(self._parsed(c.sha))
            found |= self._sweeps[c.sha]
        return swept_only(old, new, frozenset(found), said)

    def _parsed(self, sha: str) -> list[FileDiff]:
        """The commit's diff from its parent (``git diff -U0``), parsed; read once."""
        if sha not in self._patches:
            patch = codebase.patch(self.root, f"{sha}^", sha, self.env)
            self._patches[sha] = diffs.parse(patch)
        return self._patches[sha]

    def _added(self, commits: list[CommitInfo], own: str | None) -> list[tuple[str, str]]:
        """MOVED: the definitions the commits that changed an anchored block added, in any
        file (a name a hunk's added lines define that none of the file's removed lines did,
        not the symbol's own, ``own``), each as it stands at HEAD: ``(path, code)``. For at
        most ``MOVED_COMMITS`` commits (their diffs read once, shared with the sweeps)."""
        if not commits or len(commits) > MOVED_COMMITS:
            return []
        wanted: dict[str, set[str]] = {}
        for c in commits:
            for f in self._parsed(c.sha):
                if f.new is None:
                    continue
                had = {defined_name(x) for h in f.hunks for x in h.gone}
                for h in f.hunks:
                    for x in h.came:
                        name = defined_name(x)
                        if name and name != own and name not in had:
                            wanted.setdefault(f.new, set()).add(name)
        paths = sorted(wanted)
        texts = codebase.texts(self.root, [(self.head, p) for p in paths], self.env)
        out: list[tuple[str, str]] = []
        for p, text in zip(paths, texts, strict=True):
            if text is None:
                continue
            read = languages.read_as(p, text)
            for name in sorted(wanted[p]):
                block = symbol_block(text, name, read)
                if block is not None:
                    out.append((read, block))
        return out

    def _rewritten(self, full: str, diff: Mapping[str, FileChange], path: str) -> bool:
        """REWRITTEN: was ``path`` renamed on its way to HEAD by a rename git scored less alike
        than ``REWRITTEN_RENAME`` (a file rewritten under a new name, not moved)?"""
        similarity = self._trail(full, diff, path).similarity
        return similarity is not None and similarity < REWRITTEN_RENAME

    def _renaming(
        self, full: str, diff: Mapping[str, FileChange], path: str, now: str
    ) -> list[CommitInfo]:
        """The commits that renamed ``path`` on its way to ``now``, newest first; when the
        trail and the whole-range diff disagree (a file deleted in one commit and added
        again, alike enough, in another), the last commit that touched it."""
        trail = self._trail(full, diff, path)
        if trail.now == now and trail.renames:
            return list(reversed(trail.renames))
        return codebase.commits_touching(self.root, full, self.head, [path, now], self.env)[:1]

    def _present_only(self, anchor: Anchor) -> object:
        [text] = codebase.texts(self.root, [(self.head, anchor.path)], self.env)
        if text is None:
            return StaleAnchor(anchor, "deleted", None, [])
        read = languages.read_as(anchor.path, text)
        if anchor.symbol and symbol_block(text, anchor.symbol, read) is None:
            return StaleAnchor(anchor, "symbol-gone", anchor.path, [])
        return None

    def _changing(self, since: str, paths: list[str], symbol: str | None) -> list[CommitInfo]:
        """The commits since ``since`` that changed the anchored code (newest first): of the
        commits touching the file, those whose version of the code differs from the one
        before them."""
        commits = codebase.commits_touching(self.root, since, self.head, paths, self.env)
        if not commits:
            return []
        # Each commit's version and its parent's, one cat-file for all of them.
        wanted: list[tuple[str, str]] = []
        for c in commits:
            for p in dict.fromkeys(paths):
                wanted += [(c.sha, p), (f"{c.sha}^", p)]
        texts = codebase.texts(self.root, wanted, self.env)
        out: list[CommitInfo] = []
        step = 2 * len(dict.fromkeys(paths))
        for i, c in enumerate(commits):
            chunk = texts[i * step : (i + 1) * step]
            after = next((t for t in chunk[0::2] if t is not None), None)
            before = next((t for t in chunk[1::2] if t is not None), None)
            read = languages.read_as(paths[-1], after if after is not None else before)
            if not _same(*_code(before, after, symbol, read), read):
                out.append(c)
        return out or commits


def _ended(
    verdict: CodeChange, old: str | None, new: str | None, path: str, text: str, symbol: str | None
) -> CodeChange:
    """A change elsewhere than the note (``text``, its title and body) names is stale when it
    can end what the note says holds always or of all there is, in lines that name nothing it
    states: the anchored definition gained a parameter its body reads beside a note that
    states an unconditional behaviour (``codediff.option_gained``: "every cell is escaped"
    beside a new ``unsafe``), or a list or table the note enumerates gained a member
    (``enumerations.gained``: a third hook signature beside "the Type or the Kind signature,
    nothing else", ``\\e`` beside "maps ``\\b \\t ...`` and nothing else")."""
    if old is None or new is None:
        return verdict
    found = option_gained(old, new, path, text, symbol) if symbol else []
    found = found or enumerations.gained(old, new, path, text)
    return CodeChange("changed", tuple(found)) if found else verdict


def _same(a: str | None, b: str | None, path: str) -> bool:
    """The same code, comments and layout aside."""
    if a is None or b is None:
        return a is b
    return tokens(a, path) == tokens(b, path)


def _code(
    old: str | None, new: str | None, symbol: str | None, path: str
) -> tuple[str | None, str | None]:
    """The code of ``symbol`` (the whole text without one) in two versions of its file (at
    ``path``, its newest name: it tells the file's language, ``anchors.symbol_block``): its
    first definition (``symbol_block``). ``pr-notes`` reads every definition of the name
    (``anchors.anchored_pair``), as a change to any overload is one a reviewer of the note
    should see; a stale flag asks a person to review the note, and over the thirty judged
    histories every change to another overload alone left the note's lesson true (four false
    alarms, no stale note found), so ``stale`` keeps to the definition the anchor finds."""
    if not symbol:
        return old, new
    return (
        symbol_block(old, symbol, path) if old is not None else None,
        symbol_block(new, symbol, path) if new is not None else None,
    )
