"""A session with no signal in a language the signal readers cannot read (issue 34): the
model writer is given it as with the cascade off, the heuristic writer skips it as
``skip_unread-language``; the enqueue gate queues it. Real sessions of the tune sets."""

from __future__ import annotations

from pathlib import Path

from reflectgit.notes.english import UNREAD_LANGUAGE
from reflectgit.state import ledger
from reflectgit.state.queue import Queue
from reflectgit.workflows.capture.commits import drained_as_is
from reflectgit.workflows.capture.gate import HAS_SIGNAL, NO_SIGNAL, evaluate
from reflectgit.workflows.drain import cascade
from reflectgit.workflows.drain.loop import run_drain
from tests.conftest import git, needs_shared
from tests.support.drain import (
    Clock,
    calls,
    copy_quality_transcript,
    copy_transcript,
    create_action,
    enqueue,
    make_config,
    prompt_of,
    stub_command,
)

# Portuguese, no signal: the person's rules for a release, the assistant's causes
PORTUGUESE = "held-apart-16/transcripts/claude/safo__92023f7e-249a-4df3-be41-54dff58da4b9.jsonl.gz"
# Japanese, one signal (a line of English the detector reads)
JAPANESE_SIGNAL = (
    "held-apart-15/transcripts/claude/tij__7bdbcc35-891f-40ee-bd64-b461804c0fe4.jsonl.gz"
)
SAID = "vamos explorar o homebrew, faz-me um plano"  # one of the person's lines in PORTUGUESE


def test_cascade_skips_an_unread_session_or_opens_it_for_a_model(tmp_path: Path) -> None:
    path = str(copy_quality_transcript(tmp_path, PORTUGUESE))
    skipped = cascade.prepare(path)
    assert skipped.skip == UNREAD_LANGUAGE and not skipped.text
    opened = cascade.prepare(path, model=True, max_input_chars=60_000)
    whole = cascade.prepare(path, cascade=False, max_input_chars=60_000)
    assert opened.skip is None and opened.bounded, "as the cascade off gives it: head and tail"
    assert opened.text == whole.text and 0 < len(opened.text) <= 60_000 + 100
    assert not opened.signals and opened.signal_hash is None
    # why it was read whole travels with it (the ledger's row); the cascade off says nothing
    assert opened.detail == f"read whole, no signal: {skipped.detail}" and whole.detail == ""


@needs_shared
def test_a_read_session_with_no_signal_is_still_no_signal(tmp_path: Path) -> None:
    path = str(copy_transcript(tmp_path, "claude/no-signal-0.jsonl"))
    assert cascade.prepare(path).skip == "no-signal"
    assert cascade.prepare(path, model=True).skip == "no-signal"


def test_a_session_with_a_signal_is_sliced_whatever_its_language(tmp_path: Path) -> None:
    path = str(copy_quality_transcript(tmp_path, JAPANESE_SIGNAL))
    plain, opened = cascade.prepare(path), cascade.prepare(path, model=True)
    assert plain.skip is None and plain.signals and plain.chunks and not plain.bounded
    assert (opened.text, opened.signal_hash) == (plain.text, plain.signal_hash)


@needs_shared
def test_the_enqueue_gate_queues_an_unread_session(tmp_path: Path) -> None:
    verdict = evaluate(copy_quality_transcript(tmp_path, PORTUGUESE))
    assert (verdict.enqueue, verdict.reason) == (True, UNREAD_LANGUAGE)
    assert evaluate(copy_quality_transcript(tmp_path, JAPANESE_SIGNAL)).reason == HAS_SIGNAL
    no_signal = evaluate(copy_transcript(tmp_path, "claude/no-signal-0.jsonl"))
    assert (no_signal.enqueue, no_signal.reason) == (False, NO_SIGNAL)


def test_the_model_writer_drains_an_unread_session(tmp_path: Path, repo: Path) -> None:
    action = create_action("Publish the release with the signed tag")
    stub = stub_command(tmp_path, f"emit({{'actions': [{action!r}]}})")
    cfg = make_config(repo, REFLECT_DRAIN_CMD=str(stub))
    enqueue(cfg, copy_quality_transcript(tmp_path, PORTUGUESE))
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "ok" and row["entries"] == 1 and len(row["notes"]) == 1
    assert row["detail"] == (
        "read whole, no signal: 1 of the person's 77 words are English function words"
    )
    assert calls(stub) == 1
    prompt = prompt_of(stub)
    assert SAID in prompt and len(prompt) < 60_000 + 5_000, "the same caps as cascade off"
    assert Queue(cfg.state_dir).list() == []


def test_the_heuristic_writer_skips_an_unread_session_and_says_why(
    tmp_path: Path, repo: Path
) -> None:
    cfg = make_config(repo, REFLECT_DRAIN_WRITER="heuristic")
    path = copy_quality_transcript(tmp_path, PORTUGUESE)
    enqueue(cfg, path)
    [row] = run_drain(cfg, clock=Clock()).rows
    assert row["outcome"] == "skip_unread-language" and row["entries"] == 0
    assert row["detail"] == "1 of the person's 77 words are English function words"
    assert row["notes"] == [] and row["dialogue_lines"] > 0
    assert git("log", "--all", "--oneline", cwd=repo, check=False) == "", "nothing written"
    # handled as a no-signal entry is: dropped from the queue, a terminal row in the ledger,
    # so the enqueue gate does not queue the unchanged session again
    assert Queue(cfg.state_dir).list() == []
    [kept] = list(ledger.read_rows(cfg.state_dir))
    assert kept["outcome"] == "skip_unread-language"
    assert drained_as_is(cfg.state_dir, str(path))
