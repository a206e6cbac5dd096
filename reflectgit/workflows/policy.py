"""Enforced rules: compiled from the KB and the JSONL policy files, checked against a tool call.

Where rules come from:

- live notes on the KB's HEAD (``documents/``) that carry ``enforce: {deny: [...], ask: [...]}``,
  and permission notes whose answer was "no, never" (``permission.decision: deny``, written by
  the capture hooks from Claude Code's permission dialog);
- the JSONL policy files, one rule a line: ``REFLECT_POLICY_FILE``, then the original tool's
  ``~/.reflect/policy-rules.jsonl`` and ``~/.reflect/permission-policy.jsonl``.

A note named by a ``review-queue/`` pointer is unreviewed, and so is everything that is only on
a knowledge branch (it is not on HEAD): those rules are listed but never act. Matching and the
decision are pure (``notes/policy.py``); this module only reads.

The rules are compiled into the state directory (``state/policy.py``), keyed by HEAD's tree and
the policy files' size and mtime, by ``refresh`` in a background process
(``workflows/background.py``): the KB's mutation door starts it after a commit, ``team sync``
after a fast-forward, and a hook that finds the compiled rules stale. The hooks never compile:
they read the compiled file and a few stats (``check(..., compile=False)``), and until the
compile finishes the last complete compile answers (none yet: no rules act). The per-blob cache
makes a compile after a commit read only the notes it has not seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from reflectgit import location
from reflectgit.config import DOCUMENTS, REVIEW_QUEUE
from reflectgit.git.headstamp import RACY, head_stamp
from reflectgit.notes.policy import (
    Rule,
    RuleError,
    command_table,
    covered_tools,
    decide,
    matching,
    parse_pattern,
    rule_from_line,
)
from reflectgit.state import policy as compiled
from reflectgit.state import rulestamp

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from reflectgit.config import Config
    from reflectgit.notes.policy import Call, Decision

MAX_FILE_BYTES = 1024 * 1024
VOUCH_ROUNDS = 3  # a background compile waits out the stamp's racy window at most this often
SKIPPED = (f"{DOCUMENTS}/memories/",)  # the original tool's raw ingest copies are not notes
_HINTS = (b"enforce", b"permission")  # a note without these words carries no rule


class RuleSet(NamedTuple):
    """The rules in force, and how they were obtained."""

    rules: list[Rule]
    tree: str | None
    complete: bool = True  # False: nothing was compiled yet (or an older release's partial one)
    compiled: bool = False  # this call recompiled
    files: tuple[str, ...] = ()  # policy files read
    problems: tuple[str, ...] = ()  # lines of policy files that are no rule


def policy_files(cfg: Config) -> list[Path]:
    """The JSONL policy files, in the order they are read (absent ones included)."""
    return [Path(p) for p in location.policy_files(dict(cfg.env))]


def _head_tree(cfg: Config) -> str | None:
    from reflectgit.errors import ReflectGitError
    from reflectgit.git.repo_info import head_tree

    try:
        return head_tree(cfg.kb, cfg.env)
    except ReflectGitError:
        return None


def load(cfg: Config) -> RuleSet:
    """The rules in force: the compiled file when its key is current, else a compile (after
    waiting for another process's compile to finish). Never run inside a hook: the hooks read
    ``compiled_rules`` and leave the compiling to a background ``refresh``."""
    found = _lookup(cfg, read_tree=True)
    if found.current and found.doc is not None:
        return _from_doc(found.doc, found.key)
    return _compile(cfg, found.key, policy_files(cfg), found.doc, found.commit, found.stamp)


def refresh(cfg: Config) -> RuleSet | None:
    """Compile the rules for the KB's HEAD unless they are current (the background job). Many
    commits in a row start many of these: one compiles, one waits behind it, and the others
    return None at once (the waiting one compiles the KB as it is when its turn comes)."""
    with compiled.wait_slot(cfg.state_dir) as mine:
        if not mine:
            return None
        with compiled.compile_lock(cfg.state_dir, wait=True):
            pass  # the running compile has finished
    ruleset = load(cfg)
    # Right after a commit HEAD's files are too new for their stamp to vouch for them
    # (``git/headstamp.RACY``): the compile is the last complete one, but the hooks' quick
    # answer cannot say it is HEAD's. Wait that out here, not in a hook, and say it then.
    for _ in range(VOUCH_ROUNDS):
        doc = compiled.load_rules(cfg.state_dir)
        if doc is None or doc.get("complete") is not True or doc.get("stamp") is not None:
            break
        if head_stamp(_git_dir(cfg), vouch=False) is None:
            break  # a detached HEAD, say: no stamp will ever vouch
        import time

        time.sleep(RACY)
        ruleset = load(cfg)
    return ruleset


def compiled_rules(cfg: Config) -> tuple[RuleSet, bool]:
    """The rules of the last complete compile, and whether they are current (HEAD and the
    policy files unchanged since). Never compiles: nothing compiled yet is no rules, not
    current."""
    found = _lookup(cfg, read_tree=False)
    if found.doc is None:
        return RuleSet([], None, complete=False), False
    return _from_doc(found.doc, found.key), found.current


class _Found(NamedTuple):
    """What ``_lookup`` found: the compiled document, HEAD's key, and whether they match."""

    doc: dict[str, Any] | None
    key: dict[str, Any]
    current: bool
    commit: str | None
    stamp: list[object] | None


def _lookup(cfg: Config, read_tree: bool) -> _Found:
    """Is the compiled document current? Decided from HEAD's files when they are as they were
    (the stamp), else from the commit HEAD names, else (``read_tree``) from HEAD's tree, which
    may cost a git process: a hook leaves that last question to the compile it starts."""
    fingerprint = rulestamp.fingerprint(location.policy_files(dict(cfg.env)))
    doc = compiled.load_rules(cfg.state_dir)
    fresh = doc is not None and doc.get("complete") is True
    where = _git_dir(cfg)
    # Taken before the commit is read: a ref that moves in between leaves an older stamp.
    stamp = head_stamp(where)
    known = doc.get("key") if doc else None
    key = {"tree": known.get("tree") if isinstance(known, dict) else None, "files": fingerprint}
    if fresh and doc and stamp is not None and doc.get("stamp") == stamp and known == key:
        # HEAD's files are as they were when the commit was read: no need to read it
        _mend_quick_answer(cfg, doc, rulestamp.key(stamp, fingerprint))
        return _Found(doc, key, True, doc.get("commit"), stamp)
    from reflectgit.git.objects import head_commit

    commit = head_commit(where)
    # The commit HEAD names is read from the ref alone; its tree may cost a git process (a
    # packed commit), so the compiled file remembers the commit it last saw for its tree.
    if fresh and doc and commit and doc.get("commit") == commit and known == key:
        if stamp is not None:
            _remember(cfg, doc, commit, stamp)
        return _Found(doc, key, True, commit, stamp)
    if not read_tree:
        return _Found(doc, key, False, commit, stamp)
    key = {"tree": _head_tree(cfg), "files": fingerprint}
    if fresh and doc and known == key:
        if commit:
            _remember(cfg, doc, commit, stamp)
        return _Found(doc, key, True, commit, stamp)
    return _Found(doc, key, False, commit, stamp)


def _git_dir(cfg: Config) -> Path:
    """Where HEAD's files are: the KB's git directory (the KB itself when bare)."""
    from reflectgit.config import git_dir_of

    git_dir = git_dir_of(cfg.kb)
    return git_dir if git_dir.is_dir() else Path(cfg.kb)


def _remember(cfg: Config, doc: Mapping[str, Any], commit: str, stamp: list[object] | None) -> None:
    """The compiled rules are current for ``commit`` as HEAD's files now stand: say so."""
    compiled.save_commit(cfg.state_dir, doc, commit, stamp)
    try:  # noqa: SIM105 - contextlib is not imported on the hook path
        _quick_answer(cfg, {**doc, "stamp": stamp})
    except OSError:
        pass


def _mend_quick_answer(cfg: Config, doc: Mapping[str, Any], line: str) -> None:
    """The compiled rules are current: rewrite the quick answer when it does not say so (gone,
    torn, or written by an older release), so that the next hooks take the quick path again."""
    state = str(cfg.state_dir)
    quick = rulestamp.read(state)
    if quick is not None and rulestamp.vouches(quick, line) and rulestamp.summarises(state, quick):
        return
    try:  # noqa: SIM105 - contextlib is not imported on the hook path
        _quick_answer(cfg, doc)
    except OSError:
        pass


def _quick_answer(cfg: Config, doc: Mapping[str, Any]) -> None:
    """``state/rulestamp.py``: for the HEAD and policy files ``doc`` was compiled or checked
    against (a HEAD the stamp could not vouch for: for none, but it still summarises the last
    complete compile), the tool names its rules can apply to, so that the next hooks need not
    read them for a call of any other tool (a wildcard rule: for none)."""
    stamp, key = doc.get("stamp"), doc.get("key")
    if doc.get("complete") is not True or not isinstance(key, Mapping):
        rulestamp.save(str(cfg.state_dir), None)
        return
    tools: set[str] = set()
    wildcard = False
    patterns = []
    for rule in doc.get("rules") or []:
        text = rule.get("pattern") if isinstance(rule, Mapping) else None
        try:
            pattern = parse_pattern(text if isinstance(text, str) else "")
        except RuleError:
            continue  # an unreadable pattern never matches
        patterns.append(pattern)
        names = covered_tools(pattern.tool)
        if names is None:
            wildcard = True
            break
        tools |= names
    table = None if wildcard else command_table(patterns)
    commands = None if table is None else rulestamp.command_line(table["tools"], table["rules"])
    line = rulestamp.key(stamp if isinstance(stamp, list) else None, list(key.get("files") or []))
    rulestamp.save(str(cfg.state_dir), line, None if wildcard else sorted(tools), commands)


def _from_doc(doc: Mapping[str, Any], key: Mapping[str, Any]) -> RuleSet:
    return RuleSet(
        rules=compiled.rules_of(doc),
        tree=key.get("tree"),
        complete=bool(doc.get("complete")),
        files=tuple(str(f) for f in doc.get("files", [])),
        problems=tuple(str(p) for p in doc.get("problems", [])),
    )


def _compile(
    cfg: Config,
    key: Mapping[str, Any],
    files: Sequence[Path],
    previous: Mapping[str, Any] | None,
    commit: str | None,
    stamp: list[object] | None = None,
) -> RuleSet:
    with compiled.compile_lock(cfg.state_dir, wait=True) as held:
        if not held:  # pragma: no cover - a waiting lock is always held
            if previous is not None:
                return _from_doc(previous, key)
            return RuleSet([], key.get("tree"), False)
        doc = compiled.load_rules(cfg.state_dir)  # it may have finished while we waited
        if doc is not None and doc.get("key") == key and doc.get("complete") is True:
            return _from_doc(doc, key)
        file_rules, read, problems = _file_rules(files)
        cache = compiled.load_cache(cfg.state_dir)
        note_rules, cache = _note_rules(cfg, key.get("tree"), cache)
        rules = note_rules + file_rules
        document = {
            "key": dict(key),
            "commit": commit,
            "stamp": stamp if commit else None,  # what HEAD's files looked like for `commit`
            "complete": True,
            "rules": [r.to_json() for r in rules],
            "files": read,
            "problems": problems,
        }
        try:
            compiled.save(cfg.state_dir, document, cache)
            _quick_answer(cfg, document)
        except OSError:  # a read-only state directory: answer all the same
            pass
        return RuleSet(rules, key.get("tree"), True, True, tuple(read), tuple(problems))


def _file_rules(files: Sequence[Path]) -> tuple[list[Rule], list[str], list[str]]:
    import json

    rules: list[Rule] = []
    read: list[str] = []
    problems: list[str] = []
    for path in files:
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_FILE_BYTES + 1)
        except OSError:
            continue
        read.append(str(path))
        if len(raw) > MAX_FILE_BYTES:
            problems.append(f"{path}: larger than {MAX_FILE_BYTES} bytes, not read")
            continue
        text = raw.decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            where = f"{path.name}:{number}"
            try:
                data = json.loads(line)
            except ValueError:
                problems.append(f"{path}:{number}: not a JSON object")
                continue
            rule = rule_from_line(data, where) if isinstance(data, dict) else None
            if rule is None:
                problems.append(f"{path}:{number}: no deny or ask rule with a readable pattern")
                continue
            rules.append(rule)
    return rules, read, problems


def _note_rules(
    cfg: Config, tree: str | None, cache: Mapping[str, Any]
) -> tuple[list[Rule], dict[str, Any]]:
    """The rules of the notes on HEAD, and the cache entries still in use."""
    if tree is None:
        return [], {}
    from reflectgit.git.store import Store

    kept: dict[str, Any] = {}
    rules: list[Rule] = []
    with Store.open(cfg.kb, cfg.env) as store:
        unreviewed = _queued(store, tree)
        for path, blob in sorted(store.list_tree(tree, DOCUMENTS).items()):
            if not path.endswith(".md") or path.startswith(SKIPPED):
                continue
            slot = f"{path}:{blob}"
            found = cache.get(slot)
            if not isinstance(found, list):
                found = [r.to_json() for r in _rules_of(store.read_blob(blob), path)]
            kept[slot] = found
            reviewed = path not in unreviewed
            for data in found:
                if isinstance(data, dict):
                    rule = Rule.from_json(data)
                    rules.append(rule if reviewed else _unreviewed(rule))
    return rules, kept


def _unreviewed(rule: Rule) -> Rule:
    return rule.replace(reviewed=False)


def _rules_of(data: bytes, path: str) -> list[Rule]:
    """The rules one note carries (none when it is no live, readable note)."""
    if not any(hint in data for hint in _HINTS):
        return []
    from reflectgit.errors import NoteError
    from reflectgit.notes.note import note_state, parse_note
    from reflectgit.notes.policy import rules_from_note

    try:
        note = parse_note(data, path)
    except NoteError:
        return []
    if note_state("live", note.frontmatter) != "live":
        return []
    from pathlib import PurePosixPath

    return rules_from_note(note.frontmatter, note.id or PurePosixPath(path).stem)


def _queued(store: Any, tree: str) -> set[str]:
    """The note paths review-queue pointers name: those notes wait for a person."""
    from reflectgit.errors import NoteError
    from reflectgit.notes.note import load_yaml

    out: set[str] = set()
    for path, blob in store.list_tree(tree, REVIEW_QUEUE).items():
        if not path.endswith(".yaml"):
            continue
        try:
            data = load_yaml(store.read_blob(blob).decode("utf-8"), path)
        except (NoteError, UnicodeDecodeError):
            continue
        source = data.get("source") if isinstance(data, Mapping) else None
        if isinstance(source, str) and source:
            out.add(source)
    return out


# --------------------------------------------------------------------------- checking


class Check(NamedTuple):
    """The answer for one call, and what it was decided from."""

    call: Call
    decision: Decision
    ruleset: RuleSet
    project: str | None = None
    current: bool = True  # the rules are HEAD's (False: an older compile answered)


def check(
    cfg: Config,
    tool: str,
    tool_input: Any,
    cwd: str | None = None,
    *,
    compile: bool = True,
) -> Check:
    """What the rules in force say about one tool call. ``compile`` False (a hook): the rules
    compiled last, whatever changed since; ``Check.current`` says whether they are HEAD's."""
    from reflectgit.notes.policy import call_from

    call = call_from(tool, tool_input, cwd, home=str(cfg.home))
    if compile:
        ruleset, current = load(cfg), True
    else:
        ruleset, current = compiled_rules(cfg)
    matched = matching(ruleset.rules, call)
    project = None
    if any(r.project and (r.scope or "").lower() != "global" for r in matched) and cwd:
        from reflectgit.notes.scope import served_in
        from reflectgit.workflows.project import project_name

        project = project_name(cwd, cfg.env)
        if project:
            matched = [r for r in matched if served_in(project, r.scope, r.project)]
    return Check(call, decide(matched), ruleset, project, current)
