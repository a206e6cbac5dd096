"""The MCP tools: one table of names, descriptions and arguments, and what each one calls.

Every tool is a thin call into a workflow, the same one the command line calls: ``search`` is
``reflect-git search``, ``add`` is ``reflect-git add`` (validated in-process and committed
through the KB's one mutation door), ``confirm`` is ``reflect-git confirm``. Nothing here knows
the SDK: ``server.py`` turns a ``Reply`` into the protocol's result, and a ``ReflectGitError``
(the message and hint the CLI prints as ``error:``/``hint:``) into a tool error.

``add`` is where an agent could hurt the team: a high note routes straight onto the team's
``main``. So an agent's note is capped at medium (a knowledge branch and a draft pull request
when it is routed) unless the call says ``user_requested_high: true``, which the tool's
description reserves for a user who asked for it in so many words.
"""

from __future__ import annotations

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
    """What a tool hands back: a JSON document, and the text a model reads."""

    document: dict[str, Any]
    text: str | None = None  # default: the document as JSON

    @property
    def content(self) -> str:
        return self.text if self.text is not None else json.dumps(self.document, indent=2)


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    read_only: bool
    run: Callable[[Tools, dict[str, Any]], Reply] = field(repr=False)

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
        from reflectgit.workflows.search.results import result_json

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
        )
        return Reply(result_json(result))

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
        )
        return Reply(result.to_json(), result.text())

    def show(self, args: dict[str, Any]) -> Reply:
        shown, raw = self.note(args["id"], args.get("at"))
        return Reply(shown.to_json(), raw)

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
        from reflectgit.workflows import review, review_queue
        from reflectgit.workflows.team import resolve_team

        queue = [item.to_json() for item in review_queue.list_queue(self.cfg)]
        doc: dict[str, Any] = {"queue": queue, "team": None, "branches": []}
        if args.get("team", True) and resolve_team(self.cfg) is not None:
            doc["team"] = True
            doc["branches"] = [b.to_json() for b in review.list_branches(self.cfg)]
        else:
            doc["team"] = False
        return Reply(doc)

    # ------------------------------------------------------------------ writing

    def add(self, args: dict[str, Any]) -> Reply:
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
        capped = asked == "high" and not args.get("user_requested_high", False)
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
            doc["notes"].append(
                "confidence capped at medium: an agent's note is reviewed before it reaches "
                "the team (pass user_requested_high only when the user asked for high)"
            )
        if args.get("route", False):
            from reflectgit.workflows import routing

            routed = routing.route(self.cfg, result.id)
            doc["routed"] = routed.to_json()
            if routed.error:
                doc["notes"].append(f"routing failed: {routed.error}")
        else:
            doc["notes"].append(f"not routed yet: `reflect-git route {result.id}` (or route: true)")
        return Reply(doc)

    def confirm(self, args: dict[str, Any]) -> Reply:
        with self.open_kb() as kb:
            result = kb.confirm(args["id"], args["source"])
        return Reply({"id": result.id, "proof_count": result.proof_count, "commit": result.commit})


# --------------------------------------------------------------------------- the table

_ID = Param("id", "string", "The note's id (as search, recall and list show it).", required=True)

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
    ),
    Tool(
        "show",
        "Show one note",
        "One note in full (frontmatter and body), now or at a revision or date.",
        (_ID, Param("at", "string", "A revision, or a date (YYYY-MM-DD).")),
        True,
        Tools.show,
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
            Param(
                "user_requested_high",
                "boolean",
                "True only when the user explicitly asked for high confidence.",
            ),
            Param(
                "route",
                "boolean",
                "Also route it now: medium -> a knowledge branch and draft pull request, "
                "low or no team -> the review queue.",
            ),
        ),
        False,
        Tools.add,
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
    ),
    Tool(
        "review_list",
        "What waits for review",
        "The personal review queue (low-confidence notes) and, when a team KB is configured, "
        "the open knowledge branches with their pull requests.",
        (Param("team", "boolean", "Also list the team's knowledge branches (default true)."),),
        True,
        Tools.review_list,
    ),
)
TOOLS_BY_NAME: dict[str, Tool] = {t.name: t for t in TOOLS}


def tool_names() -> Sequence[str]:
    return [t.name for t in TOOLS]
