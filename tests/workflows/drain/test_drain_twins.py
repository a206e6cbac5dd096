"""No twins: the drain and capture ask one twin finder before they write a note, and confirm
the note that already states the rule instead of adding it again in other words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reflectgit.notes.note import parse_note
from reflectgit.workflows.drain.loop import run_drain
from reflectgit.workflows.kb.twins import Act, TwinFinder, act, normalise, same_act, same_rule
from tests.conftest import DATA, git, needs_shared
from tests.support.capture import (  # noqa: F401  (kb fixture)
    EVENTS,
    event_name,
    kb_fixture,
    run_hook,
    state_dir,
)
from tests.support.drain import Clock, create_action, make_config, stub_command

TWINS = [
    (
        "Use `./gradlew build --configuration-cache` instead of `gradle build`",
        "Instead of `gradle build`, use `./gradlew build --configuration-cache`.",
    ),
    (
        "Use `ruff format && ruff check --fix` instead of `black . && isort .`",
        "Instead of `black . && isort .`, use `ruff format && ruff check --fix`",
    ),
    ("Use uv, not pip", "Use uv instead of pip"),
    ("Always run the tests with -x before pushing", "Run the tests with -x before pushing."),
    ("Use python3.11 instead of python3.9", "use `python3.11` instead of `python3.9`"),
    ("Prefer httpx over requests in the async code", "Prefer httpx over requests in async code"),
    # a contraction is its two words, with a plain or a typographic apostrophe
    ("Don't force-push to the release branch", "Do not force-push to the release branch"),
    ("Don’t commit the generated lockfile", "Do not commit the generated lockfile"),
]
NOT_TWINS = [
    ("Use uv instead of pip", "Use pip instead of uv"),  # the same words, the other way round
    ("Use pnpm instead of npm in this repo", "Use pnpm instead of yarn in this repo"),
    (
        "Never run the database migrations by hand on the production cluster",
        "Always run the database migrations by hand on the production cluster",
    ),
    ("Do not cache the auth token between requests", "Cache the auth token between requests"),
    ("Don't cache the auth token between requests", "Cache the auth token between requests"),
    ("Don’t commit the generated lockfile", "Commit the generated lockfile"),
    ("Go with exponential backoff capped at 30 s", "Go with exponential backoff capped at 60 s"),
    ("Pin the Postgres image to 16.4", "Pin the Redis image to 16.4"),
    ("r", "r"),  # says too little to be the same rule
    ("Fix it", "fix it"),
]


@pytest.mark.parametrize(("a", "b"), TWINS)
def test_reworded_rules_are_twins(a: str, b: str) -> None:
    assert same_rule(a, b) and same_rule(b, a)


@pytest.mark.parametrize(("a", "b"), NOT_TWINS)
def test_different_rules_are_not_twins(a: str, b: str) -> None:
    assert not same_rule(a, b) and not same_rule(b, a)


def test_normalise_keeps_a_contraction_one_negation() -> None:
    assert normalise("Don't push to main") == ("do", "not", "push", "to", "main")
    assert normalise("Won’t use npm") == ("will", "not", "use", "npm")
    assert normalise("Use the team's runner") == ("use", "team's", "runner")  # no contraction


def test_normalise_reads_instead_of_first_as_use_first() -> None:
    assert normalise("Instead of `pip`, use `uv`.") == normalise("Use uv instead of pip")
    assert normalise("Use **uv** rather than pip") == normalise("use uv instead of pip")


def test_the_finder_matches_rule_or_title_and_prefers_the_closest() -> None:
    finder = TwinFinder(
        [
            ("lrn-title-only", "Use uv instead of pip", ""),
            ("lrn-other", "Cache the wheels", "Cache the pip wheels in CI"),
        ]
    )
    twin = finder.find("Package installs", "Instead of pip, use uv.")
    assert twin is not None and twin.id == "lrn-title-only" and twin.score == 1.0
    assert finder.find("Use pip instead of uv") is None
    finder.add("lrn-new", "Pin the base image digest", "Pin the base image by digest")
    found = finder.find("Pin the base image by digest")
    assert found is not None and found.id == "lrn-new"


# --------------------------------------------------------------------------- the drain


def _drain(repo: Path, tmp_path: Path, answer: dict, name: str, transcript: str):  # type: ignore[no-untyped-def]
    stub = stub_command(tmp_path, f"emit({answer!r})", name)
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    src = DATA / "transcripts"
    path = tmp_path / f"{name}.jsonl"
    path.write_text((src / "claude" / transcript).read_text())
    from reflectgit.state.queue import Queue

    Queue(cfg.state_dir).add(str(path), "stop", name)
    [row] = run_drain(cfg, clock=Clock()).rows
    return row


def _live(repo: Path) -> list[str]:
    return sorted(p.stem for p in (repo / "documents").glob("*.md"))


@needs_shared
def test_the_drain_confirms_a_reworded_twin_instead_of_creating_it(
    tmp_path: Path, repo: Path
) -> None:
    first = create_action(
        "Build with the configuration cache",
        rule="Use `./gradlew build --configuration-cache` instead of `gradle build`",
    )
    row = _drain(repo, tmp_path, {"actions": [first]}, "session-one", "correction-1.jsonl")
    [nid] = row["notes"]
    again = create_action(
        "Gradle wrapper with the configuration cache",
        rule="Instead of `gradle build`, use `./gradlew build --configuration-cache`.",
    )
    row = _drain(repo, tmp_path, {"actions": [again]}, "session-two", "correction-2.jsonl")
    assert row["outcome"] == "ok" and row["notes"] == [] and row["confirmed"] == [nid]
    assert _live(repo) == [nid]
    note = parse_note((repo / "documents" / f"{nid}.md").read_bytes())
    prov = note.frontmatter["provenance"]
    assert prov["proof_count"] == 2 and prov["source_memory_ids"][-1] == "drain:session-two"
    assert "Reflect-Op: confirm" in git("log", "-1", "--format=%B", cwd=repo)


@needs_shared
def test_two_twins_in_one_answer_make_one_note(tmp_path: Path, repo: Path) -> None:
    answer = {
        "actions": [
            create_action("Use uv instead of pip", rule="Use uv instead of pip"),
            create_action("Installer choice", rule="Instead of pip, use uv."),
            create_action("Use pip instead of uv", rule="Use pip instead of uv"),
        ]
    }
    row = _drain(repo, tmp_path, answer, "session-one", "correction-1.jsonl")
    assert len(row["notes"]) == 2, "the reversed rule is not a twin"
    assert [d["reason"] for d in row["dropped"]] == [
        f"twin of {row['notes'][0]} in the same answer"
    ]


# --------------------------------------------------------------------------- capture and drain

SESSION = "02c8261b-740c-1a65-89be-4b4bd9ee50e2"
PROMPT = "No, don't use pip here. Use uv instead of pip, always."


def _transcript(tmp_path: Path) -> Path:
    """The session the correction events come from, with the correction in its dialogue."""
    src = DATA / "transcripts"
    head = (src / "claude" / "correction-0.jsonl").read_text().splitlines()[:3]
    tail = [
        {"type": "user", "message": {"role": "user", "content": PROMPT}, "sessionId": SESSION},
        {
            "type": "assistant",
            "message": {"role": "assistant", "content": [{"type": "text", "text": "OK, uv."}]},
            "sessionId": SESSION,
        },
    ]
    path = tmp_path / "transcripts" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(head + [json.dumps(x) for x in tail]) + "\n")
    return path


def _replay_correction(transcript: Path) -> None:
    events = json.loads((EVENTS / "correction.json").read_text())
    for event in events:
        payload = json.dumps(event).replace("TRANSCRIPTS/", f"{transcript.parent}/")
        proc = run_hook(event_name(payload), payload)
        assert proc.returncode == 0, proc.stderr


@needs_shared
def test_a_correction_captured_by_the_hook_and_found_by_the_drain_is_one_note(
    kb: Path, tmp_path: Path
) -> None:
    transcript = _transcript(tmp_path)
    _replay_correction(transcript)
    [captured] = _live(kb)
    assert captured.startswith("lrn-correction-use-uv-instead-of-pip")
    cfg = make_config(kb, REFLECT_DRAIN_WRITER="heuristic")
    from reflectgit.state.queue import Queue

    assert len(Queue(cfg.state_dir).list()) == 1, "Stop queued the transcript"
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok" and row["notes"] == [], row
    assert row["confirmed"] == [captured]
    assert _live(kb) == [captured]
    assert git("status", "--porcelain", cwd=kb) == ""


@needs_shared
def test_a_repeated_capture_makes_no_twin_and_no_commit(kb: Path, tmp_path: Path) -> None:
    transcript = _transcript(tmp_path)
    _replay_correction(transcript)
    [captured] = _live(kb)
    commits = git("rev-list", "--count", "HEAD", cwd=kb)
    _replay_correction(transcript)  # the same session hits the same failure again
    assert _live(kb) == [captured]
    assert git("rev-list", "--count", "HEAD", cwd=kb) == commits
    assert git("status", "--porcelain", cwd=kb) == ""


@needs_shared
def test_a_capture_in_another_session_confirms_the_drain_note(kb: Path, tmp_path: Path) -> None:
    made = _drain(
        kb,
        tmp_path,
        {"actions": [create_action("Use uv instead of pip", rule="Use uv instead of pip.")]},
        "earlier-session",
        "correction-1.jsonl",
    )
    [nid] = made["notes"]
    transcript = _transcript(tmp_path)
    _replay_correction(transcript)
    assert _live(kb) == [nid], "capture added a twin of the drain's note"
    note = parse_note((kb / "documents" / f"{nid}.md").read_bytes())
    assert note.frontmatter["provenance"]["source_memory_ids"][-1] == SESSION
    assert "Reflect-Op: confirm" in git("log", "-1", "--format=%B", cwd=kb)


# One rule said again later in a session, in other words: the same act (verb, negation,
# objects), though too few words are shared for ``same_rule``.
ONE_ACT = [
    (
        "Do not create any pr or issue without my explicit approval",
        "I don't want to open issues or prs directly or have you do it",
    ),
    (
        "Do not create any pr or issue without my explicit approval",
        "Do not open an issues or prs or commit",
    ),
    ("Never file a ticket or a pull request yourself", "Don't raise PRs or tickets, I'll do it"),
    ("Never push to main", "You must not push to main because CI deploys it"),
    ("Don't run the migrations on staging", "never run migrations on staging, please"),
]
TWO_ACTS = [
    ("Never push to main", "Never merge to main"),  # every word shared but the verb
    ("Never push to main", "Push to main"),  # negated on one only
    (
        "Don't open the config file",
        "Don't create the config file",
    ),  # open is filing only for issues
    ("Never push to main", "Never push to release or main"),  # one thing among more
    ("Don't change the test", "Don't change the test name"),
    ("Use pnpm instead of npm", "Use pnpm instead of yarn"),
    ("Use uv for installs", "Use uv for running scripts"),
    ("No force pushes to main", "No force pushes"),  # no verb at its head: words decide
    ("Don't commit", "Never commit"),  # no object: words decide
    (
        "We are to track the session once /clear is found",
        "We are not to track the session once /clear is found",
    ),
    (
        "There is a need to track the existing session",
        "There is no need to track the existing session",
    ),
]


@pytest.mark.parametrize(("a", "b"), ONE_ACT)
def test_a_rule_said_again_is_the_same_act(a: str, b: str) -> None:
    assert same_act(a, b) and same_act(b, a)
    assert not same_rule(a, b), "the words alone do not see them as one"


@pytest.mark.parametrize(("a", "b"), TWO_ACTS)
def test_different_acts_are_two_rules(a: str, b: str) -> None:
    assert not same_act(a, b) and not same_act(b, a)


def test_an_act_is_its_verb_its_objects_and_its_negation() -> None:
    assert act("I don't want you to open pull requests without asking") == Act(
        "open", frozenset({"pr"}), True
    )
    assert act("Pushing branches to the fork is fine") == Act(
        "push", frozenset({"branch", "fork", "fine"}), False
    )
    assert act("let's not squash the commits") == Act("squash", frozenset({"commit"}), True)
    assert act("No force pushes") is None and act("don't commit") is None
