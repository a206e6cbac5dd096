"""Recall: the few notes an agent should know at the start of a session in one project.

The project is described by what the caller passes in (the working directory's repository
name, branch and recently touched files; never read implicitly here), matched against each
note's text (ranked by search's own ranking: ``Index.ranked``), ``scope``, ``project``, tags and
entities, with confidence and proof count breaking ties as in search. A note learned in another
project (its ``project`` field) is not served unless its scope is ``global`` (``notes.scope.served_in``), nor one learned on another
branch (its ``branch`` field; the original tool's ``shards/<project>/branches/<branch>``);
``everywhere`` (``--global``) pools them in below this project's. Imported fleet notes'
``authority``, ``quarantine`` and ``domain`` are honoured, notes tagged ``speculative`` rank
lower, and an economics line says what the notes cost to discover. The result fits a character
budget with whole notes only and renders as plain text or as the JSON a SessionStart hook
prints. Each recall bumps the S9 ranking counters
(``reflectgit.state.ranking``, in the state directory); the notes themselves never change.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflectgit.errors import UsageError
from reflectgit.workflows.project_context import ProjectContext, project_context
from reflectgit.workflows.recall_hook import context_json
from reflectgit.workflows.recall_hook import show_hint as show_hint  # its callers ask here
from reflectgit.workflows.search.documents import tie_weight, utc_text
from reflectgit.workflows.search.index import Index, open_fresh
from reflectgit.workflows.search.results import Hit
from reflectgit.workflows.search.synonyms import SYNONYMS_FILE, kb_synonyms

if TYPE_CHECKING:
    from reflectgit.config import Config
    from reflectgit.workflows.search.query import Synonyms

DEFAULT_LIMIT = 5
DEFAULT_BUDGET = 4000  # characters of context; SessionStart context should stay small
CANDIDATES = 500  # the notes scoped to this project that are weighed
# The text matches recall weighs, and the notes each alternative of a project word reads
# (search reads 500): a project is described by up to 40 words (``project_context``), and a
# session start shows five notes, within the hook's 100 ms.
TEXT_CUT = 100
# What the touched files' words count against the project's name and branch (a judgement: no
# benchmark has sessions' files; a branch names the work, a path only where it happens).
TOUCHED_WEIGHT = 0.5
# A note anchored to a file the current branch changes ranks above every other note of the
# project (whose affinity is 15 for the project, 12 for its scope, at most 10 for text).
BRANCH_ANCHOR_AFFINITY = 40.0
FORMATS = ("text", "claude", "codex", "copilot")
# The formats a SessionStart hook prints (JSON its harness reads as context).
HOOK_FORMATS = ("claude", "codex", "copilot")

# --------------------------------------------------------------------------- economics

# What a note cost to find out, in tokens, when it does not say (the original tool's table).
TYPE_TOKENS = {
    "bug-fix": 3000,
    "anti-pattern": 2500,
    "correction": 2000,
    "pattern": 1500,
    "decision": 1200,
}
DEFAULT_TOKENS = 1500
CHARS_PER_TOKEN = 4


def discovery_cost(
    scoping: Mapping[str, Any], read: list[tuple[str, int | None]] | None = None
) -> tuple[int, str]:
    """Tokens a note took to discover and where the figure comes from: its
    ``discovery_tokens``, else its transcript's size / 4 (``provenance.source_path``, when the
    file is still there), else the average for its ``learning_type``. ``read`` hears the
    transcript asked and the size found (None: unreadable)."""
    tokens = scoping.get("discovery_tokens")
    if isinstance(tokens, int) and tokens > 0:
        return tokens, "measured"
    source = scoping.get("source_path")
    if isinstance(source, str) and source.strip():
        size = None
        with contextlib.suppress(OSError, ValueError):
            size = Path(source).stat().st_size
        if read is not None:
            read.append((source, size))
        if size:
            return max(1, size // CHARS_PER_TOKEN), "transcript"
    kind = scoping.get("learning_type")
    return TYPE_TOKENS.get(str(kind or ""), DEFAULT_TOKENS), "estimated"


# --------------------------------------------------------------------------- recall


@dataclass
class Recalled:
    """One recalled note and why it came back."""

    id: str
    title: str
    tier: str
    summary: str
    path: str
    score: float
    reasons: list[str]
    discovery_tokens: int = DEFAULT_TOKENS
    discovery_source: str = "estimated"
    unreviewed: str | None = None  # the machine that wrote it, while no person reviewed it
    stale: str | None = None  # the code it names moved on (workflows/code/labels.py)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "tier": self.tier,
            "summary": self.summary,
            "path": self.path,
            "score": round(self.score, 4),
            "reasons": self.reasons,
            "discovery_tokens": self.discovery_tokens,
            "discovery_source": self.discovery_source,
            "unreviewed": self.unreviewed,
            "stale": self.stale,
        }


SHOW_HINT = "`reflect-git show ID` prints a note in full"


@dataclass
class RecallResult:
    """The notes for a session start, the project they were chosen for, and the rendered text."""

    project: ProjectContext
    notes: list[Recalled]
    total_live: int
    budget: int
    everywhere: bool = False
    # Ranked notes left out because they would not fit the budget whole (never cut in half).
    over_budget: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)  # the last session's (REFLECT_SLOTS=1)
    # How the reader prints a note in full: a command line it can run, or an MCP tool.
    show_hint: str = SHOW_HINT
    # Live notes never served because they fail validation or hold a secret (path, why):
    # named to the person (stderr), never to the agent.
    withheld: list[tuple[str, str]] = field(default_factory=list)
    # What the answer read besides the KB at HEAD, the project and the memory slots (a
    # SessionStart keeps a prepared answer only while these hold, ``workflows/recall_hook``):
    # the code repository (anchors, stale labels), the transcripts whose sizes it counted,
    # and the first instant at which a relationship starts or stops holding.
    read_code: bool = False
    transcripts: list[tuple[str, int | None]] = field(default_factory=list)
    holds_until: str | None = None

    def text(self) -> str:
        """The context an agent reads: the notes, then what the last session here left
        (memory slots, issue 16)."""
        return "\n".join([self.notes_text(), *self.slots])

    def notes_text(self) -> str:
        """The notes, assembled in one place: a heading line, one whole entry per note, the
        economics line, and a footer when the budget has room for it."""
        where = self.project.name + (
            f" (branch {self.project.branch})" if self.project.branch else ""
        )
        if not self.notes:
            if self.over_budget:
                return f"reflect-git: no note fits in {self.budget} characters (raise --budget)."
            return f"reflect-git: no notes in the knowledge base for {where} yet."
        pooled = " and the rest of the knowledge base" if self.everywhere else ""
        lines = [
            f"reflect-git: {len(self.notes)} of {self.total_live} notes from the knowledge base "
            f"that bear on {where}{pooled}:"
        ]
        lines.extend(_entry(n) for n in self.notes)
        lines.append(self.economics())
        footer = f"({self.show_hint}.)"
        if sum(len(line) + 1 for line in lines) + len(footer) <= self.budget:
            lines.append(footer)
        return "\n".join(lines)

    def economics(self) -> str:
        """One line: what these notes cost to discover against what reading them costs now."""
        found = sum(n.discovery_tokens for n in self.notes)
        reading = max(1, sum(len(_entry(n)) + 1 for n in self.notes) // CHARS_PER_TOKEN)
        kinds: dict[str, int] = {}
        for note in self.notes:
            kinds[note.discovery_source] = kinds.get(note.discovery_source, 0) + 1
        how = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
        return f"Economics: ~{found:,} tokens to discover ({how}), ~{reading:,} to read here."

    def claude(self) -> str:
        """The JSON a Claude Code SessionStart hook prints on stdout."""
        return context_json(self.text(), "claude")

    def copilot(self) -> str:
        """The JSON a Copilot CLI sessionStart hook prints on stdout (its hooks reference)."""
        return context_json(self.text(), "copilot")

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project.name,
            "branch": self.project.branch,
            "files": self.project.files,
            "budget": self.budget,
            "global": self.everywhere,
            "notes": [n.to_json() for n in self.notes],
            "over_budget": self.over_budget,
            "discovery_tokens": sum(n.discovery_tokens for n in self.notes),
            "withheld": len(self.withheld),
            "context": self.text(),
        }

    def withheld_lines(self) -> list[str]:
        """For the person (stderr): how many notes were withheld from the agent, and which."""
        if not self.withheld:
            return []
        count = len(self.withheld)
        head = (
            f"reflect-git recall: {count} note{'s' if count != 1 else ''} withheld from the agent "
            "(they fail validation or hold a secret; `reflect-git check` lists them):"
        )
        return [head, *(f"  {path}: {why}" for path, why in self.withheld)]


def _entry(note: Recalled) -> str:
    from reflectgit.notes.authorship import label

    marked = f" ({label(note.unreviewed)})" if note.unreviewed else ""
    stale = f"\n  ! {note.stale}" if note.stale else ""
    return f"- [{note.tier}] {note.title} ({note.id}){marked}\n  {note.summary}{stale}"


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _as_set(text: str | None) -> set[str]:
    return {t.strip().lower() for t in (text or "").split("\n") if t.strip()}


def _scope_matches(scope: str | None, name: str) -> bool:
    if not scope:
        return False
    scope = scope.strip().lower()
    return scope == name or scope.endswith((":" + name, "/" + name))


# An imported fleet note's authority: law and promoted outrank advisory, which outranks
# archived; absent (or a value we do not know) is neutral.
AUTHORITY = {"law": 1.5, "promoted": 1.3, "advisory": 1.0, "archived": 0.5}
# A quarantined note is held back until promoted (authority law or promoted lifts it).
PROMOTED = ("law", "promoted")
SPECULATIVE = "speculative"  # the idle sweep's tag: the session may resume and change its mind
SPECULATIVE_WEIGHT = 0.6
POOLED_WEIGHT = 0.5  # a note --global pools in from another project or branch
BRANCH_AFFINITY = 8.0
DOMAIN_AFFINITY = 6.0


def out_of_scope(
    context: ProjectContext, scope: str | None, project: str | None, branch: str | None
) -> str | None:
    """Why a note is not for this project and branch (None: it is). A note learned in another
    project is not (unless its scope is global, ``notes.scope.served_in``); a note learned on a
    branch is for that branch only, as the original tool's ``shards/<project>/branches/<b>``."""
    from reflectgit.notes.scope import served_in

    if not served_in(context.name, scope, project):
        return f"from project {project}"
    if branch and branch != context.branch:
        return f"from branch {branch}"
    return None


def text_scores(hits: Sequence[Hit]) -> dict[int, float]:
    """Each hit's text relevance (row -> value), in search's order: its relevance (bm25 sum
    times coverage), never more than the hit ranked above it's, so search's order (in which
    confidence breaks near ties) is kept."""
    out: dict[int, float] = {}
    ceiling = float("inf")
    for hit in hits:
        ceiling = min(ceiling, hit.bm25)
        out[hit.rowid] = ceiling
    return out


def rank(
    index: Index,
    context: ProjectContext,
    everywhere: bool = False,
    *,
    as_of: str | dt.date | dt.datetime | None = None,
    domain: str | None = None,
    now: dt.datetime | None = None,
    related: Callable[[str], Sequence[str]] | None = None,
    synonyms: Synonyms | None = None,
    anchored: Mapping[str, str] | None = None,
) -> tuple[list[tuple[float, dict[str, Any], list[str]]], int]:
    """Live notes scored for the project and branch, best first, and the number of live notes.

    Notes of this project and branch come first; ``everywhere`` (``--global``) pools in the rest
    at half weight. Quarantined notes never come back; speculative ones rank lower; an
    authority ranks a note up or down; sidecar edges count when valid at ``as_of`` (default
    now), as in ``search --as-of``. ``related(query)`` (``[recall] expand``: the model's
    related terms, as ``search --expand``) adds terms the project's own words lack. The text
    relevance is search's ranking of the project's words (``text_scores``); confidence and
    proofs enter as search's tie weight, so they break ties and never overturn the text.
    ``anchored`` (note id -> why) names the notes anchored to files the current branch changes:
    they are candidates whatever their words, and rank first among the project's notes."""
    terms = context.terms()
    relevance = _relevance(index, context, terms, as_of, now, related, synonyms)
    live = "state = 'live' AND hidden = 0 AND withheld IS NULL"  # the index docs_live
    total = int(index.conn.execute(f"SELECT count(*) FROM docs WHERE {live}").fetchone()[0])
    anchored = anchored or {}
    rowids = _candidates(index, live, context.name.lower(), relevance, anchored)
    term_set = set(terms)
    hint = (domain or "").strip().lower()
    top = max(relevance.values(), default=0.0) or 1.0
    docs = index.documents(sorted(rowids))
    scoping = index.scoping([d["rowid"] for d in docs])
    scored: list[tuple[float, dict[str, Any], list[str]]] = []
    for doc in docs:
        if doc["state"] != "live" or doc["hidden"] or doc["withheld"]:
            continue
        extra = scoping.get(doc["rowid"], {})
        doc["scoping"] = extra
        # Text relevance is scaled to 0..10 so a note made for this project outranks a note
        # that merely shares many words with it.
        text = 10.0 * relevance.get(doc["rowid"], 0.0) / top
        weighed = _weighed(doc, extra, context, everywhere, anchored, term_set, hint, text)
        if weighed is not None:
            scored.append((weighed[0], doc, weighed[1]))
    scored.sort(key=lambda item: (-item[0], item[1]["id"]))
    return scored, total


def _relevance(
    index: Index,
    context: ProjectContext,
    terms: Sequence[str],
    as_of: str | dt.date | dt.datetime | None,
    now: dt.datetime | None,
    related: Callable[[str], Sequence[str]] | None,
    synonyms: Synonyms | None,
) -> dict[int, float]:
    """Each note's text relevance to the project (rowid -> score), ``rank``'s first step.

    The project's words are a query like any other: search's own ranking (its concepts,
    synonyms, stems and coverage; sidecar edges valid at ``as_of``). The name's and branch's
    words are one ranking, the touched files' another at TOUCHED_WEIGHT, each scaled to its
    best: a file path's words never drown what the project says it is."""
    said = context.said()
    touched = [t for t in terms if t not in said]
    added = list(related(" ".join(terms))) if related is not None and terms else []
    relevance: dict[int, float] = {}
    for words, share, more in ((said, 1.0, added), (touched, TOUCHED_WEIGHT, [])):
        if not words:
            continue
        hits = index.ranked(
            " ".join(words),
            limit=TEXT_CUT,
            as_of=as_of,
            now=now,
            synonyms=synonyms,
            related=more,
            prefix_last=False,  # a project's words are whole words
            cut=TEXT_CUT,
            served_only=True,
        )
        scores = text_scores(hits)
        best = max(scores.values(), default=0.0) or 1.0
        for rowid, value in scores.items():
            relevance[rowid] = relevance.get(rowid, 0.0) + share * value / best
    return relevance


def _candidates(
    index: Index,
    live: str,
    name: str,
    relevance: Mapping[int, float],
    anchored: Mapping[str, str],
) -> set[int]:
    """The rowids ``rank`` weighs: text matches, notes scoped to this project, the strongest
    notes overall and the notes anchored to the branch's files.

    Bounded, so a KB of 100,000 notes costs no more than a small one. The index docs_live
    (``live`` is its condition) answers the first three (equal weights in rowid order, as the
    table scans gave them)."""
    conn = index.conn
    rowids = set(relevance)
    rowids.update(
        r
        for (r,) in conn.execute(
            f"SELECT rowid FROM docs WHERE {live} AND (lower(project) = ? OR lower(scope) = ?"
            " OR lower(scope) LIKE ? OR lower(scope) LIKE ?) ORDER BY weight DESC, rowid LIMIT ?",
            (name, name, f"%:{name}", f"%/{name}", CANDIDATES),
        )
    )
    rowids.update(
        r
        for (r,) in conn.execute(
            f"SELECT rowid FROM docs WHERE {live} ORDER BY weight DESC, rowid LIMIT 50"
        )
    )
    if anchored:
        ids = sorted(anchored)[:CANDIDATES]
        marks = ",".join("?" * len(ids))
        rowids.update(
            r for (r,) in conn.execute(f"SELECT rowid FROM docs WHERE id IN ({marks})", ids)
        )
    return rowids


def _weighed(
    doc: Mapping[str, Any],
    extra: Mapping[str, Any],
    context: ProjectContext,
    everywhere: bool,
    anchored: Mapping[str, str],
    terms: set[str],
    hint: str,
    text: float,
) -> tuple[float, list[str]] | None:
    """One live note's score for the project and the reasons for it; None when it is not
    served (quarantined, or outside the project's scope without ``everywhere``). ``extra``
    is its scoping fields, ``terms`` the project's words, ``hint`` the domain asked for and
    ``text`` its text relevance (0..10)."""
    name = context.name.lower()
    authority = extra.get("authority")
    if extra.get("quarantine") and authority not in PROMOTED:
        return None  # an imported fleet note held back until someone promotes it
    outside = out_of_scope(context, doc["scope"], doc["project"], extra.get("branch"))
    if outside and not everywhere:
        return None
    reasons: list[str] = []
    affinity = 0.0
    if (doc["project"] or "").lower() == name:
        affinity += 15
        reasons.append(f"project {context.name}")
    if doc["id"] in anchored:
        affinity += BRANCH_ANCHOR_AFFINITY
        reasons.append(anchored[doc["id"]])
    if extra.get("branch") and extra.get("branch") == context.branch:
        affinity += BRANCH_AFFINITY
        reasons.append(f"branch {context.branch}")
    if _scope_matches(doc["scope"], name):
        affinity += 12
        reasons.append(f"scope {doc['scope']}")
    elif (doc["scope"] or "").lower() == "global":
        reasons.append("scope global")
    note_domain = str(extra.get("domain") or "").lower()
    if note_domain and (note_domain == hint or note_domain in terms):
        affinity += DOMAIN_AFFINITY if note_domain == hint else DOMAIN_AFFINITY / 2
        reasons.append(f"domain {extra['domain']}")
    # Tags and entities are fields of search's ranking: the text relevance counts them (a
    # bonus of their own on top counted them twice). They are named as reasons.
    tag_hits = sorted(_as_set(doc["tags"]) & terms)
    if tag_hits:
        reasons.append("tags " + ", ".join(tag_hits))
    entity_hits = sorted(_as_set(doc["entities"]) & terms)
    if entity_hits:
        reasons.append("entities " + ", ".join(entity_hits))
    if text:
        reasons.append(f"text match {text:.2f}")
    if not reasons:
        reasons.append("strong note (confidence and proofs)")
    # A pooled note earns no affinity: it is here for its text, below this project's notes.
    score = (text + (0.0 if outside else affinity) + 0.5) * tie_weight(doc["weight"])
    if authority in AUTHORITY and authority != "advisory":
        score *= AUTHORITY[authority]
        reasons.append(f"authority {authority}")
    if SPECULATIVE in _as_set(doc["tags"]):
        score *= SPECULATIVE_WEIGHT
        reasons.append("speculative (ranked down)")
    if outside:
        score *= POOLED_WEIGHT
        reasons.append(outside + " (--global)")
    return score, reasons


def branch_anchored(
    kb: Path, context: ProjectContext, env: Mapping[str, str] | None
) -> dict[str, str]:
    """Note id -> why, for the notes of this project anchored to files the current branch
    changes (against its upstream); {} outside a code repository or when it changes nothing.
    Never raises: a session start must not fail over it."""
    if context.root is None:
        return {}
    from reflectgit.workflows.code.change_notes import anchored, branch_change

    try:
        change = branch_change(context.root, env)
        if change is None:
            return {}
        found = anchored(kb, change, context.name, env)
    except Exception:
        return {}
    return {r.id: r.why.replace("this change", "this branch") for r in found}


def recall(
    kb: Path,
    state_dir: Path,
    cwd: Path,
    *,
    project: str | None = None,
    limit: int = DEFAULT_LIMIT,
    budget: int = DEFAULT_BUDGET,
    env: Mapping[str, str] | None = None,
    now: dt.datetime | None = None,
    record: bool = True,
    everywhere: bool = False,
    as_of: str | None = None,
    domain: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    related: Callable[[str], Sequence[str]] | None = None,
    synonyms_file: str | None = SYNONYMS_FILE,
    show_hint: str = SHOW_HINT,
    context: ProjectContext | None = None,
) -> RecallResult:
    """The notes most relevant to the project and branch at ``cwd``, whole, within ``budget``
    characters; ``everywhere`` pools in notes of other projects and branches; ``as_of`` dates
    the sidecar edges that count (``search --as-of``); ``domain`` favours a fleet domain;
    ``related(query)`` gives a model's related terms for the project's words (see ``rank``);
    ``synonyms_file`` (a path in the KB) extends the shipped synonym table, as for search;
    ``show_hint`` tells the reader how to print a note in full (the footer, when it fits);
    ``context``: the project at ``cwd`` when the caller has described it already."""
    from reflectgit.workflows.search.documents import parse_when

    if limit < 1:
        raise UsageError("--limit must be at least 1")
    if budget < 200:
        raise UsageError("the recall budget must be at least 200 characters")
    if as_of is not None:
        parse_when(as_of)  # a bad date is a usage error before any work
    moment = utc_text(now or dt.datetime.now(dt.timezone.utc))  # before the edges are read
    context = context or project_context(cwd, project, env)
    synonyms = kb_synonyms(kb, synonyms_file, state_dir)
    index, _ = open_fresh(kb, state_dir, env, progress)
    with index:
        # only a KB holding anchored notes asks the code repository what its branch changes
        read_code = context.root is not None and index.any_anchored()
        scored, total = rank(
            index,
            context,
            everywhere,
            as_of=as_of,
            domain=domain,
            now=now,
            related=related,
            synonyms=synonyms,
            anchored=branch_anchored(kb, context, env) if read_code else {},
        )
        withheld = index.withheld()
        holds_until = index.edges_change_after(moment) if as_of is None else None
    result = RecallResult(
        context,
        [],
        total,
        budget,
        everywhere,
        withheld=withheld,
        show_hint=show_hint,
        read_code=read_code,
        holds_until=holds_until,
    )
    from reflectgit.workflows.capture.slots import recall_lines  # memory slots (issue 16)

    result.slots = recall_lines(state_dir, context.name, now)  # inside the budget too
    labels: dict[str, str] = {}
    shown = [
        (doc["id"], doc["path"])
        for _, doc, _ in scored[: 3 * limit]
        if (doc.get("scoping") or {}).get("code")  # only a note naming code can be stale
    ]
    if context.root is not None and shown:  # a code repository: label notes whose code moved
        from reflectgit.workflows.code.labels import stale_labels

        labels = stale_labels(kb, state_dir, context.root, shown, env)
        result.read_code = True
    result = fit(scored, result, limit, labels)
    if record and result.notes:
        _record([n.id for n in result.notes], state_dir, now)
    return result


def fit(
    scored: Sequence[tuple[float, dict[str, Any], list[str]]],
    result: RecallResult,
    limit: int,
    labels: Mapping[str, str] | None = None,
) -> RecallResult:
    """Take the best notes, whole, while the rendered text fits the budget: a note that would
    not fit is left out (and named in ``over_budget``), never cut, and a smaller one after it
    may still fit."""
    for score, doc, reasons in scored:
        if len(result.notes) >= limit:
            break
        scoping = doc.get("scoping") or {}
        tokens, source = discovery_cost(scoping, result.transcripts)
        note = Recalled(
            id=doc["id"],
            title=_shorten(doc["title"], 120),
            tier=doc["tier"],
            summary=_shorten(doc["summary"], 280),
            path=doc["path"],
            score=score,
            reasons=reasons,
            discovery_tokens=tokens,
            discovery_source=source,
            unreviewed=scoping.get("unreviewed"),
            stale=(labels or {}).get(doc["id"]),
        )
        result.notes.append(note)
        if len(result.text()) > result.budget:
            result.notes.pop()
            result.over_budget.append(note.id)
            if len(result.over_budget) >= 3 * limit:
                break  # the budget is full; the rest would only be named here
    return result


def _record(ids: Sequence[str], state_dir: Path, now: dt.datetime | None) -> None:
    """Count the recall in the S9 ranking counters (the state directory, never the notes)."""
    from reflectgit.state.ranking import count_recall

    count_recall(state_dir, ids, now)


@dataclass
class SessionRecall:
    """What a SessionStart hook hands over: the recall (None when there is none to print) and
    the lines for the person, on stderr (never the agent's context)."""

    result: RecallResult | None
    messages: list[str] = field(default_factory=list)


def session_recall(cfg: Config, cwd: Path, hint: str, **options: Any) -> SessionRecall:
    """Recall for a SessionStart hook, which must never fail the session: a broken
    ``synonyms.txt`` falls back to the shipped table, any other ``ReflectGitError`` becomes a
    message and no recall. ``options``: ``recall``'s (``project``, ``limit``, ``budget`` ...)."""
    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.search.synonyms import SynonymTableError

    messages: list[str] = []
    options.setdefault("budget", cfg.recall_budget())
    options.update(env=cfg.env, show_hint=hint)
    try:
        try:
            result = recall(
                cfg.kb, cfg.state_dir, cwd, synonyms_file=cfg.search.synonyms, **options
            )
        except SynonymTableError as exc:
            messages.append(f"reflect-git recall: {exc.message} (the shipped table used)")
            result = recall(cfg.kb, cfg.state_dir, cwd, synonyms_file=None, **options)
    except ReflectGitError as exc:
        messages.append(f"reflect-git recall: {exc.message}")
        return SessionRecall(None, messages)
    messages.extend(result.withheld_lines())  # the person hears of them; the agent never does
    return SessionRecall(result, messages)


def render(result: RecallResult, fmt: str) -> str:
    """``text``, or a SessionStart hook's JSON: ``claude`` and ``codex`` (the same
    ``hookSpecificOutput`` document), ``copilot`` (``additionalContext``)."""
    if fmt in ("claude", "codex"):
        return result.claude()
    if fmt == "copilot":
        return result.copilot()
    if fmt == "text":
        return result.text()
    raise UsageError(f"unknown format {fmt!r}", hint="use one of: " + ", ".join(FORMATS))
