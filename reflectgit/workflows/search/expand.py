"""`search --expand`: ask the drain's model, once per query, for terms a matching note may use.

Optional and never required: only the command `search --expand` calls this (never a hook, never
the plain search path). The model command is the drain's (``REFLECT_DRAIN_CMD``, else the
default ``claude -p``), run through the drain writer's one runner with its bounds; the answer is
a JSON array of short terms, cached in the state directory so a query costs one call ever.
A model that fails, times out or answers nonsense leaves the search as it was, and says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reflectgit.config import WriterSettings
from reflectgit.state import expansions

MAX_TERMS = 12
MAX_TERM_CHARS = 60
MAX_ANSWER = 64 * 1024  # bytes of model output read: a list of terms is short

PROMPT = """\
You help search a team's knowledge base of engineering notes (problems, root causes, fixes).
For the search query below, list up to {max_terms} short terms (one to three words each) that
a note answering it would probably contain but the query does not: the names of tools,
commands, settings, error messages, abbreviations and their long forms, synonyms.
Answer with one JSON array of strings and nothing else.

Query: {query}
"""


@dataclass
class Expansion:
    """What the model added to a query (nothing when it failed: ``error`` says why)."""

    terms: list[str] = field(default_factory=list)
    cached: bool = False
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"terms": self.terms, "cached": self.cached, "error": self.error}


def parse_terms(text: str) -> list[str]:
    """The first JSON array of strings in the model's answer, cleaned; [] if there is none."""
    for match in re.finditer(r"\[", text):
        try:
            value, _end = json.JSONDecoder().raw_decode(text[match.start() :])
        except ValueError:
            continue
        if isinstance(value, list):
            terms = []
            for item in value:
                if isinstance(item, str):
                    term = " ".join(item.split())
                    if term and len(term) <= MAX_TERM_CHARS and term.lower() not in terms:
                        terms.append(term.lower())
            return terms[:MAX_TERMS]
    return []


def related_terms(
    query: str,
    writer: WriterSettings,
    state_dir: Path,
    env: Mapping[str, str],
    timeout: float,
) -> Expansion:
    """The model's related terms for ``query``: from the cache, else one bounded model call."""
    from reflectgit.workflows.drain import writer as wr

    argv = wr.require_command(
        writer,
        env,
        needed_for="expanding a query",
        without="search without --expand (recall: [recall] expand off)",
    )
    key = expansions.cache_key(argv, writer.model, query)
    hit = expansions.cached(state_dir, key)
    if hit is not None:
        return Expansion(hit, cached=True)
    answer = wr.ask(
        writer,
        PROMPT.format(query=query, max_terms=MAX_TERMS),
        env=env,
        timeout=timeout,
        max_output=MAX_ANSWER,
    )
    if answer.error:
        return Expansion(error=answer.error)
    terms = parse_terms(answer.text)
    if not terms:
        return Expansion(error="the model's answer held no JSON array of terms")
    expansions.store(state_dir, key, terms)
    return Expansion(terms)
