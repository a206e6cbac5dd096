"""Task queries: what someone is about to do, in their own words, against a note that names the
tool. Orderings on small KBs (never scores), each with its negative example.

A synonym finds the other forms of itself a note uses (spike: spikes), the shipped table knows
what common tools are (launchd is the macOS service manager, redis an in-memory cache, 5xx a
server error), and a team says how its own tasks are said in its KB's table ("into
production", "our rules").
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from reflectgit.workflows.search.index import search
from reflectgit.workflows.search.query import (
    SYNONYM,
    SYNONYM_FORM,
    SYNONYM_VARIANT,
    Synonyms,
    understand,
)
from tests.support.search import committed_notes, note_text

NOW = dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc)


def make_kb(tmp_path: Path, notes: dict[str, tuple[str, str]]) -> Path:
    """A KB holding ``{id: (title, body)}``, committed in one commit."""
    return committed_notes(
        tmp_path, {nid: note_text(nid, title, body) for nid, (title, body) in notes.items()}
    )


def ids(kb: Path, query: str) -> list[str]:
    result = search(kb, kb / ".git" / "reflect-git", query, now=NOW)
    return [h.id for h in result.hits]


# --------------------------------------------------------------------------- synonym forms


def test_a_synonym_finds_the_forms_of_itself_a_note_uses(tmp_path: Path) -> None:
    # The KB's group is "spike, burst, surge": "surge" looks for "spike", and the note says
    # "spikes". The light stemmer reads "spice" as a form of "spike" (its k-to-c rule, for
    # revoke / revocation): such a guess counts as a variant of the synonym, below the plural.
    kb = make_kb(
        tmp_path,
        {
            "spikes": ("Pool waits", "The gateway timed out during traffic spikes."),
            "spice": ("Kitchen shelf", "The rack by the door holds one spice."),
            "other": ("Unrelated", "The build cache lives in a volume."),
        },
    )
    (kb / "synonyms.txt").write_text("spike, burst, surge\n", encoding="utf-8")
    assert ids(kb, "surge")[0] == "spikes"
    assert "other" not in ids(kb, "surge")
    # A term of several words varies its last word: the note says "terminal sessions" where
    # the table says "terminal session".
    kb2 = make_kb(
        tmp_path / "two",
        {
            "tmux": ("Kill one at a time", "Closing terminal sessions one by one keeps the rest."),
            "term": ("Terminal colours", "The terminal shows 256 colours."),
        },
    )
    (kb2 / "synonyms.txt").write_text("tmux session, terminal session, workspace\n", "utf-8")
    assert ids(kb2, "close a workspace")[0] == "tmux"


def test_synonym_forms_are_their_own_alternative() -> None:
    table = Synonyms.parse("surge, spike\n")

    def index_words(token: str) -> list[str]:
        return {"spike": ["spike", "spikes", "spiked"]}.get(token, [])

    read = understand("surge", table, index_words)
    (concept,) = read.concepts
    assert concept.alternatives[SYNONYM] == ['"spike"']
    assert concept.alternatives[SYNONYM_FORM] == ['"spikes"']  # the plural: as the synonym
    assert concept.alternatives[SYNONYM_VARIANT] == ['"spiked"']  # any other form: a variant
    # Without the index's words (no variants callable) nothing is guessed.
    alone = understand("surge", table).concepts[0].alternatives
    assert SYNONYM_FORM not in alone and SYNONYM_VARIANT not in alone


# --------------------------------------------------------------------------- tool knowledge


def test_the_shipped_table_knows_what_common_tools_are(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "launchd": ("Plists run bare", "launchd agent plists do not inherit PATH."),
            "brew": ("Brew upgrade", "brew upgrade replaced the python on the laptop."),
            "redis": ("Pool of ten", "The redis client pool of 10 connections exhausts."),
            "leak": ("Memory grows", "The worker's memory grows until the OOM killer runs."),
            "gateway": ("Gateway waits", "Gateway 504 errors were queued waits upstream."),
            "cpu": ("Server CPU", "The database server CPU sat at 100% during the import."),
        },
    )
    # The macOS service manager is launchd; nothing else here manages services.
    assert ids(kb, "the macos service manager ignores PATH")[0] == "launchd"
    assert ids(kb, "brew upgrade")[0] == "brew"  # the word alone means itself
    # An in-memory cache is redis (or memcached), not any note about memory.
    assert ids(kb, "share sockets to the in-memory cache")[0] == "redis"
    assert ids(kb, "memory grows")[0] == "leak"
    # Server errors are the 5xx codes; a note about a server's CPU shares only the word.
    assert ids(kb, "the proxy answers with server errors")[0] == "gateway"
    assert ids(kb, "database server CPU")[0] == "cpu"


# --------------------------------------------------------------------------- task phrasings


def test_a_team_says_how_its_tasks_are_said_in_its_own_table(tmp_path: Path) -> None:
    kb = make_kb(
        tmp_path,
        {
            "session": ("Auth convention", "Use server-side sessions for first-party auth."),
            "logs": ("Log format", "Write log lines as JSON; logging stays at info."),
            "deploy": ("Deploy process", "Deploys go out from CI on merge to main."),
            "prodb": ("Production database", "The production database has read replicas."),
            "lint": ("Ruff rules", "Select the ruff rules per folder."),
        },
    )
    # Without the team's table, "our rules" finds the ruff rules and "into production" the
    # production database: everyday words the shipped table leaves alone.
    assert ids(kb, "keep users logged in according to our rules")[0] == "lint"
    assert ids(kb, "get my change into production")[0] == "prodb"
    (kb / "synonyms.txt").write_text(
        "convention, our rules, house rules\ndeploy, into production\n", encoding="utf-8"
    )
    # Logged in is signed in (auth, shipped), not logging; "our rules" are the team's
    # conventions (its own table).
    got = ids(kb, "keep users logged in according to our rules")
    assert got[0] == "session"
    assert "logs" not in got
    assert ids(kb, "log lines")[0] == "logs"
    assert ids(kb, "ruff rules")[0] == "lint"  # a rule alone is not a convention
    # Getting a change into production is a deploy; the production database only shares a word.
    assert ids(kb, "get my change into production")[0] == "deploy"
    assert ids(kb, "production database replicas")[0] == "prodb"
