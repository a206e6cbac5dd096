"""The MCP tools: one table of names, descriptions and arguments, and what each one calls.

Every tool is a thin call into a workflow, the same one the command line calls: ``search`` is
``reflect-git search``, ``add`` is ``reflect-git add`` (validated in-process and committed
through the KB's one mutation door), ``update``, ``supersede``, ``archive`` and ``confirm``
are their commands. Nothing here knows the SDK: ``server.py`` turns a ``Reply`` into the
protocol's result, and a ``ReflectGitError`` (the message and hint the CLI prints as
``error:``/``hint:``) into a tool error.

A reply is what the command line would print (``text``: the lines a model reads, small) and
the command's ``--json`` document (``document``: the tool's ``structuredContent``, described
by its ``outputSchema``).

``add`` and ``update`` are where an agent could hurt the team: a high note routes straight onto
the team's ``main``. So an agent's note is capped at medium (a knowledge branch and a draft
pull request when it is routed), and an update cannot raise a note above medium, unless the
call says ``user_requested_high: true``, which the descriptions reserve for a user who asked
for it in so many words.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import Config
from reflectgit.errors import NoteError, UsageError

SOURCE = "mcp"  # the Reflect-Source trailer of the commits the tools make
TIERS = ("high", "medium", "low")
CAPPED_TIER = "medium"
SEARCH_LIMIT = 10
MAX_SEARCH_LIMIT = 100


@dataclass(frozen=True)
class Param:
    """One argument of a tool: its JSON type, whether it is required, what it means."""

    name: str
    type: str  # string | integer | boolean | array (of strings)
    description: str
    required: bool = False
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.type == "array":
            out["items"] = {"type": "string"}
        if self.enum:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass(frozen=True)
class Reply:
    """What a tool hands back: the JSON document (structured content), and the text a model
    reads (the command line's own lines)."""

    document: dict[str, Any]
    lines: Sequence[str]

    @property
    def content(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    read_only: bool
    run: Callable[[Tools, dict[str, Any]], Reply] = field(repr=False)
    output: dict[str, Any] = field(default_factory=dict, repr=False)  # the document's schema
    destructive: bool = False  # changes or moves what is there (not only adds to it)
    idempotent: bool = False

    def output_schema(self) -> dict[str, Any]:
        return {"type": "object", **self.output}

    def input_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
            "additionalProperties": False,
        }

    def arguments(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments checked against the table: a ``UsageError`` names the bad one."""
        given = dict(given or {})
        known = {p.name: p for p in self.params}
        unknown = sorted(set(given) - set(known))
        takes = ", ".join(known) or "no arguments"
        if unknown:
            raise UsageError(
                f"{self.name}: unknown argument {unknown[0]!r}", hint=f"{self.name} takes: {takes}"
            )
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name not in given or given[p.name] is None:
                if p.required:
                    raise UsageError(
                        f"{self.name}: {p.name!r} is required", hint=f"{p.name}: {p.description}"
                    )
                continue
            out[p.name] = _checked(self.name, p, given[p.name])
        return out


def _checked(tool: str, p: Param, value: Any) -> Any:
    kinds: dict[str, Callable[[Any], bool]] = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "array": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
    }
    if not kinds[p.type](value):
        what = {"array": "a list of strings", "integer": "an integer"}.get(p.type, f"a {p.type}")
        raise UsageError(
            f"{tool}: {p.name!r} must be {what}, not {json.dumps(value)}",
            hint=f"{p.name}: {p.description}",
        )
    if p.type == "string" and p.required and not value.strip():
        raise UsageError(f"{tool}: {p.name!r} is empty", hint=f"{p.name}: {p.description}")
    if p.enum and value.lower() not in p.enum:
        raise UsageError(
            f"{tool}: {p.name!r} is {value!r}", hint=f"use one of: {', '.join(p.enum)}"
        )
    low, high = p.minimum, p.maximum
    if p.type == "integer" and (
        (low is not None and value < low) or (high is not None and value > high)
    ):
        raise UsageError(
            f"{tool}: {p.name!r} must be between {low} and {high}, not {value}",
            hint=f"{p.name}: {p.description}",
        )
    return value.lower() if p.enum else value


# --------------------------------------------------------------------------- the tools


class Tools:
    """The tools over one KB (the ``Config`` the command resolved once, at start)."""

    def __init__(self, cfg: Config, cwd: Path) -> None:
        self.cfg = cfg
        self.cwd = cwd

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Reply:
        tool = TOOLS_BY_NAME.get(name)
        if tool is None:
            raise UsageError(
                f"no tool named {name!r}", hint=f"the tools are: {', '.join(TOOLS_BY_NAME)}"
            )
        return tool.run(self, tool.arguments(arguments))

    def open_kb(self) -> Any:
        from reflectgit.workflows.kb import KnowledgeBase

        cfg = self.cfg
        return KnowledgeBase.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir, source=SOURCE)

    # ------------------------------------------------------------------ reading

    def search(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows.search.index import search
        from reflectgit.workflows.search.results import hit_lines, result_json

        result = search(
            self.cfg.kb,
            self.cfg.state_dir,
            args["query"],
            limit=args.get("limit", SEARCH_LIMIT),
            include_all=args.get("include_all", False),
            tag=args.get("tag"),
            confidence=args.get("confidence"),
            env=self.cfg.env,
            synonyms_file=self.cfg.search.synonyms,
            served_only=True,  # an agent never gets a note that fails validation or holds a secret
            code=self.cwd,  # the server's project: hits whose anchored code moved on are labelled
        )
        return Reply(result_json(result), hit_lines(result, args.get("include_all", False)))

    def recall(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows.recall import recall

        result = recall(
            self.cfg.kb,
            self.cfg.state_dir,
            Path(args["cwd"]).expanduser() if args.get("cwd") else self.cwd,
            project=args.get("project"),
            limit=args.get("limit", 5),
            budget=self.cfg.recall_budget(args.get("budget")),
            env=self.cfg.env,
            everywhere=args.get("everywhere", False),
            synonyms_file=self.cfg.search.synonyms,
            show_hint="the `show` tool prints a note in full",
        )
        return Reply(result.to_json(), [result.text()])

    def show(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows.kb.lines import shown as shown_lines

        shown, raw = self.note(args["id"], args.get("at"))
        return Reply(shown.to_json(), shown_lines(shown, raw))

    def note(self, ident: str, at: str | None = None) -> tuple[Any, str]:
        """One note (``show``) and its file's text, as ``reflect-git show`` reads them; a note
        that fails validation or holds a secret is refused (``notes/withheld.py``)."""
        from reflectgit.notes.withheld import reason_of_bytes

        with self.open_kb() as kb:
            shown = kb.show(ident, at)
            raw = kb.store.read(shown.path, shown.revision) or b""
        if reason_of_bytes(shown.path, raw) is not None:
            raise NoteError(
                f"note {ident} is withheld from agents: it fails validation or holds a secret",
                hint="a person can see why with `reflect-git check`",
            )
        return shown, raw.decode("utf-8", "replace")

    def notes(self) -> list[Any]:
        """The live notes (``reflect-git list``) an agent may read: what the resources list."""
        from reflectgit.workflows.search.index import open_fresh

        cfg = self.cfg
        index, _ = open_fresh(cfg.kb, cfg.state_dir, cfg.env)
        with index:
            withheld = {path for path, _why in index.withheld()}
        with self.open_kb() as kb:
            return [n for n in kb.list_notes() if n.path not in withheld]

    def review_list(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows import review, review_lines, review_queue
        from reflectgit.workflows.team import resolve_team

        items = review_queue.list_queue(self.cfg)
        doc: dict[str, Any] = {"queue": [i.to_json() for i in items], "team": False, "branches": []}
        lines = ["review queue:", *(f"  {line}" for line in review_lines.queue_items(items))]
        if args.get("team", True) and resolve_team(self.cfg) is not None:
            branches = review.list_branches(self.cfg)
            doc["team"] = True
            doc["branches"] = [b.to_json() for b in branches]
            lines += ["knowledge branches:"]
            lines += [f"  {line}" for line in review_lines.review_items(branches)]
        return Reply(doc, lines)

    # ------------------------------------------------------------------ writing

    def add(self, args: dict[str, Any]) -> Reply:
        from reflectgit.notes import authorship
        from reflectgit.notes.note import TIER_NUM, parse_note

        text = args.get("note")
        if text is None and not args.get("title"):
            raise UsageError(
                "add: give `title` and `insight` (and `category`), or a whole `note`",
                hint="e.g. {title: ..., insight: ..., category: ..., confidence: medium}",
            )
        data = text.encode("utf-8") if text is not None else None
        asked = args.get("confidence")
        if asked is None and data is not None:
            try:
                asked = parse_note(data, "<note>").tier
            except NoteError:
                asked = None  # kb.add says what is wrong with it, with the line
        asked = asked or CAPPED_TIER
        capped = _capped(asked, args)
        tier = CAPPED_TIER if capped else asked
        fields = {
            "title": args.get("title"),
            "key_insight": args.get("insight"),
            "category": args.get("category"),
            "confidence": tier,
            "tags": list(args.get("tags", [])),
        }
        if capped:
            # A whole note's own `confidence_num: 0.9` would contradict the capped tier.
            fields["confidence_num"] = TIER_NUM[CAPPED_TIER]
        # An agent wrote it: a person reviews it before it reaches the team's main, whatever
        # its tier (docs/team.md). A whole note's own provenance is kept beside the mark.
        own: Any = None
        if data is not None:
            with contextlib.suppress(NoteError):
                own = parse_note(data, "<note>").frontmatter.get("provenance")
        fields["provenance"] = authorship.mark_written(
            {"provenance": own if isinstance(own, dict) else {}}, authorship.AGENT
        )["provenance"]
        with self.open_kb() as kb:
            result = kb.add(
                data,
                fields=fields,
                source_name="<flags>" if data is None else "<note>",
            )
        doc: dict[str, Any] = {
            "id": result.id,
            "path": result.path,
            "commit": result.commit,
            "status": result.status,
            "confidence": tier,
            "capped": capped,
            "routed": None,
            "notes": [],
        }
        if capped:
            doc["notes"].append(CAPPED_NOTE)
        if args.get("route", False):
            from reflectgit.workflows import routing

            routed = routing.route(self.cfg, result.id)
            doc["routed"] = routed.to_json()
            if routed.error:
                doc["notes"].append(f"routing failed: {routed.error}")
        else:
            doc["notes"].append(f"not routed yet: `reflect-git route {result.id}` (or route: true)")
        from reflectgit.workflows.kb import lines

        return Reply(doc, [lines.added(result), *(f"note: {n}" for n in doc["notes"])])

    def update(self, args: dict[str, Any]) -> Reply:
        from reflectgit.notes.note import TIER_NUM
        from reflectgit.workflows.kb import lines
        from reflectgit.workflows.kb.mutations import parse_assignment

        fields: dict[str, Any] = {
            key: args[name]
            for name, key in (
                ("title", "title"),
                ("insight", "key_insight"),
                ("category", "category"),
                ("tags", "tags"),
                ("confidence", "confidence"),
            )
            if name in args
        }
        for text in args.get("set", []):
            parts, _value = parse_assignment(text)
            if parts[0] in ("confidence", "confidence_num"):
                raise UsageError(
                    f"update: set {parts[0]} through the `confidence` argument",
                    hint="confidence: high, medium or low (high only when the user asked)",
                )
        capped = _capped(fields.get("confidence"), args)
        if capped:
            fields["confidence"] = CAPPED_TIER
            fields["confidence_num"] = TIER_NUM[CAPPED_TIER]
        elif fields.get("confidence") in TIER_NUM:
            fields["confidence_num"] = TIER_NUM[fields["confidence"]]
        with self.open_kb() as kb:
            result = kb.update(args["id"], args.get("set", []), args.get("body"), fields=fields)
        notes = [*([CAPPED_NOTE] if capped else []), *result.notes]
        doc = {
            "id": result.id,
            "path": result.path,
            "commit": result.commit,
            "capped": capped,
            "notes": notes,
        }
        return Reply(doc, [lines.updated(result)[0], *(f"note: {n}" for n in notes)])

    def supersede(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows.kb import lines

        with self.open_kb() as kb:
            result = kb.supersede(args["old"], args["by"])
        doc = {"old": result.old, "new": result.new, "commit": result.commit}
        return Reply(doc, [lines.superseded(result)])

    def archive(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows.kb import lines

        with self.open_kb() as kb:
            result = kb.archive(args["id"])
        doc = {"id": result.id, "path": result.path, "commit": result.commit}
        return Reply(doc, [lines.moved("archived", result)])

    def confirm(self, args: dict[str, Any]) -> Reply:
        from reflectgit.workflows.kb import lines

        with self.open_kb() as kb:
            result = kb.confirm(args["id"], args["source"])
        doc = {"id": result.id, "proof_count": result.proof_count, "commit": result.commit}
        return Reply(doc, [lines.confirmed(result, args["source"])])


CAPPED_NOTE = (
    "confidence capped at medium: an agent's note is reviewed before it reaches the team "
    "(pass user_requested_high only when the user asked for high)"
)


def _capped(asked: str | None, args: dict[str, Any]) -> bool:
    """An agent asks for high and the user did not: the tier it gets is medium."""
    return asked == "high" and not args.get("user_requested_high", False)


# --------------------------------------------------------------------------- the table

_ID = Param("id", "string", "The note's id (as search, recall and list show it).", required=True)


# add's and update's: the one way past the medium cap on an agent's note
_USER_REQUESTED_HIGH = Param(
    "user_requested_high",
    "boolean",
    "True only when the user explicitly asked for high confidence.",
)


# The output schemas: each tool's structuredContent (the command's --json document).
def _props(required: Sequence[str] = (), /, **props: Any) -> dict[str, Any]:
    return {"properties": props, "required": list(required or props)}


_STR = {"type": "string"}
_STR_OR_NULL = {"type": ["string", "null"]}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}
_OBJ = {"type": "object"}
_OBJ_OR_NULL = {"type": ["object", "null"]}
_STRS = {"type": "array", "items": _STR}
_OBJS = {"type": "array", "items": _OBJ}

SEARCH_OUT = _props(
    query=_STR,
    tree=_STR_OR_NULL,
    at=_STR_OR_NULL,
    refreshed=_OBJ_OR_NULL,
    understood=_OBJS,
    hits={
        "type": "array",
        "items": {
            "type": "object",
            **_props(
                ("id", "title", "tier", "state", "path"),
                id=_STR,
                title=_STR,
                tier=_STR,
                state=_STR,
                path=_STR,
                snippet=_STR,
                withheld=_STR_OR_NULL,
                score={"type": "number"},
                why=_OBJ,
            ),
        },
    },
)
RECALL_OUT = _props(
    project=_STR,
    branch=_STR_OR_NULL,
    files=_STRS,
    budget=_INT,
    notes=_OBJS,
    over_budget=_STRS,
    discovery_tokens=_INT,
    context=_STR,
    **{"global": _BOOL},
)
SHOW_OUT = _props(
    id=_STR,
    path=_STR,
    state=_STR,
    revision=_STR,
    frontmatter=_OBJ,
    body=_STR,
    sidecar=_OBJ_OR_NULL,
)
ADD_OUT = _props(
    id=_STR,
    path=_STR,
    commit=_STR_OR_NULL,
    status={"type": "string", "enum": ["added", "updated", "unchanged"]},
    confidence=_STR,
    capped=_BOOL,
    routed=_OBJ_OR_NULL,
    notes=_STRS,
)
UPDATE_OUT = _props(id=_STR, path=_STR, commit=_STR_OR_NULL, capped=_BOOL, notes=_STRS)
SUPERSEDE_OUT = _props(old=_STR, new=_STR, commit=_STR_OR_NULL)
ARCHIVE_OUT = _props(id=_STR, path=_STR, commit=_STR_OR_NULL)
CONFIRM_OUT = _props(id=_STR, proof_count=_INT, commit=_STR_OR_NULL)
REVIEW_OUT = _props(queue=_OBJS, team=_BOOL, branches=_OBJS)

TOOLS: tuple[Tool, ...] = (
    Tool(
        "search",
        "Search the knowledge base",
        "Ranked notes for some words (text relevance x confidence x proof count): what the "
        "team already learned about an error, a tool or a pattern. Live notes unless include_all.",
        (
            Param("query", "string", "Words to look for (any punctuation is fine).", True),
            Param(
                "limit", "integer", "At most this many notes.", minimum=1, maximum=MAX_SEARCH_LIMIT
            ),
            Param("tag", "string", "Only notes with this tag."),
            Param("confidence", "string", "Only notes of this tier.", enum=TIERS),
            Param(
                "include_all",
                "boolean",
                "Also superseded, archived, forgotten and retired notes.",
            ),
        ),
        True,
        Tools.search,
        output=SEARCH_OUT,
    ),
    Tool(
        "recall",
        "What to know in this project",
        "The notes most relevant to a project (its name, branch and recently changed files), "
        "within a character budget: what a session should know before it starts.",
        (
            Param("project", "string", "The project name (default: the repository's name)."),
            Param("cwd", "string", "The project's folder (default: the server's)."),
            Param("limit", "integer", "At most this many notes.", minimum=1, maximum=50),
            Param("budget", "integer", "At most this many characters.", minimum=200),
            Param("everywhere", "boolean", "Also notes learned in other projects."),
        ),
        True,
        Tools.recall,
        output=RECALL_OUT,
    ),
    Tool(
        "show",
        "Show one note",
        "One note in full (frontmatter and body), now or at a revision or date.",
        (_ID, Param("at", "string", "A revision, or a date (YYYY-MM-DD).")),
        True,
        Tools.show,
        output=SHOW_OUT,
    ),
    Tool(
        "add",
        "Add a learning",
        "Validate and commit one note to the personal knowledge base: what broke, why, and the "
        "rule that prevents it. Confidence is capped at medium, so the note is reviewed (a "
        "knowledge branch and a draft pull request) before it reaches the team; set "
        "user_requested_high only when the user explicitly asked for high confidence.",
        (
            Param("title", "string", "A short title (with insight and category)."),
            Param("insight", "string", "The key insight: the rule, in one or two sentences."),
            Param("category", "string", "A category, e.g. debugging, tooling, testing."),
            Param("confidence", "string", "high, medium or low (default medium).", enum=TIERS),
            Param("tags", "array", "Tags."),
            Param(
                "note",
                "string",
                "A whole note instead: markdown with YAML frontmatter (fields above override).",
            ),
            _USER_REQUESTED_HIGH,
            Param(
                "route",
                "boolean",
                "Also route it now: medium -> a knowledge branch and draft pull request, "
                "low or no team -> the review queue.",
            ),
        ),
        False,
        Tools.add,
        output=ADD_OUT,
    ),
    Tool(
        "confirm",
        "Confirm a note",
        "Count one more proof of a note (once per source): it helped again.",
        (
            _ID,
            Param("source", "string", "Where the confirmation comes from (a session, a PR).", True),
        ),
        False,
        Tools.confirm,
        output=CONFIRM_OUT,
        idempotent=True,
    ),
    Tool(
        "update",
        "Change a note",
        "Change fields or the body of one note; its id stays. A new insight also replaces the "
        "paragraph of the body that states the old one. Confidence is capped at medium as in "
        "add: set user_requested_high only when the user explicitly asked for high.",
        (
            _ID,
            Param("title", "string", "A new title."),
            Param("insight", "string", "A new key insight (the body's paragraph follows it)."),
            Param("category", "string", "A new category."),
            Param("confidence", "string", "high, medium or low.", enum=TIERS),
            Param("tags", "array", "The tags (replace the note's)."),
            Param("body", "string", "A new body (markdown), replacing the old one."),
            Param(
                "set",
                "array",
                "Other fields as KEY=VALUE (YAML-typed; dotted keys reach into mappings).",
            ),
            _USER_REQUESTED_HIGH,
        ),
        False,
        Tools.update,
        output=UPDATE_OUT,
        destructive=True,
        idempotent=True,
    ),
    Tool(
        "supersede",
        "Replace a note by a newer one",
        "Record that a newer note replaces an older one (both notes name each other); the old "
        "one leaves search and recall.",
        (
            Param("old", "string", "The id of the note being replaced.", True),
            Param("by", "string", "The id of the note that replaces it (add it first).", True),
        ),
        False,
        Tools.supersede,
        output=SUPERSEDE_OUT,
        destructive=True,
        idempotent=True,
    ),
    Tool(
        "archive",
        "Archive a note",
        "Move a note that no longer holds to archived/ (kept in git; `reflect-git restore` "
        "brings it back).",
        (_ID,),
        False,
        Tools.archive,
        output=ARCHIVE_OUT,
        destructive=True,
    ),
    Tool(
        "review_list",
        "What waits for review",
        "The personal review queue (low-confidence notes) and, when a team KB is configured, "
        "the open knowledge branches with their pull requests.",
        (Param("team", "boolean", "Also list the team's knowledge branches (default true)."),),
        True,
        Tools.review_list,
        output=REVIEW_OUT,
    ),
)
TOOLS_BY_NAME: dict[str, Tool] = {t.name: t for t in TOOLS}
