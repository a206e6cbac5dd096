"""The drain's pure parts: output classifier, action safety, slicer, heuristic writer."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflectgit.config import WriterSettings, load
from reflectgit.notes.note import Note, parse_note, render_note
from reflectgit.notes.signals import DialogueLine, detect
from reflectgit.workflows.drain import actions as act
from reflectgit.workflows.drain import cascade, heuristic
from reflectgit.workflows.drain import writer as wr
from tests.conftest import needs_shared
from tests.support.drain import TRANSCRIPTS

NOW = dt.datetime(2026, 11, 18, 6, 0, tzinfo=dt.timezone.utc)
CTX = act.Context(session_id="s1", transcript_path="/t/s1.jsonl", now=NOW, harness="claude")


@needs_shared
@pytest.mark.parametrize(
    ("text", "klass"),
    [
        ('{"actions": []}', wr.VALID),
        ('Here:\n```json\n{"actions": [{"action": "CREATE"}]}\n```\nbye', wr.VALID),
        ('prose {not json} then {"actions": [1]} trailing', wr.VALID),
        ("   \n", wr.IDLE),
        ("I could not find anything worth keeping.", wr.PROSE),
        ('{"actions": [ {"action": ', wr.MALFORMED),
        ('{"result": "no actions key"}', wr.MALFORMED),
        ("Prompt is too long", wr.POISONED),
    ],
)
def test_classify(text: str, klass: str) -> None:
    assert wr.classify(text)[0] == klass


def test_envelope_accounting() -> None:
    run = wr.WriterRun(argv=["x"], exit_code=0, stdout="", stderr="")
    run.stdout = json.dumps(
        {
            "type": "result",
            "is_error": False,
            "num_turns": 1,
            "result": '{"actions": []}',
            "total_cost_usd": 0.4,
            "usage": {"input_tokens": 70000, "output_tokens": 2000, "cache_read_input_tokens": 5},
            "modelUsage": {"claude-sonnet-4-5": {}},
            "rate_limit_info": {"rateLimitType": "five_hour", "utilization": 0.5},
        }
    )
    wr.read_envelope(run)
    assert run.text == '{"actions": []}' and run.turns == 1 and run.cost_usd == 0.4
    assert run.total_tokens == 72005 and run.model == "claude-sonnet-4-5"
    assert run.rate_limit == {"rateLimitType": "five_hour", "utilization": 0.5}


def test_default_command_is_tool_free_single_turn_with_the_model() -> None:
    argv = wr.command_for(load(WriterSettings, {"REFLECT_DRAIN_MODEL": "opus"}))
    assert argv[:2] == ["claude", "-p"]
    assert argv[argv.index("--allowedTools") + 1] == ""
    assert argv[argv.index("--max-turns") + 1] == "1"
    assert argv[-2:] == ["--model", "opus"]
    assert wr.command_for(load(WriterSettings, {"REFLECT_DRAIN_CMD": "my-model --fast 'a b'"})) == [
        "my-model",
        "--fast",
        "a b",
    ]


def test_ids_are_shared_by_note_and_sidecar() -> None:
    draft = act.build_draft({"title": "Pool timeout on cold start", "rule": "Prefill"}, CTX)
    assert isinstance(draft, act.Draft)
    import hashlib

    expect = hashlib.sha1(b"Pool timeout on cold startPrefill").hexdigest()[:6]
    assert draft.id == f"lrn-pool-timeout-on-cold-start-{expect}"
    assert draft.sidecar.document_id == draft.id == draft.note.frontmatter["id"]
    assert act.validate_draft(draft) == []


def test_every_model_string_goes_through_the_yaml_emitter() -> None:
    raw = {
        "title": 'x"\nid: pwned\n---\nevil: true',
        "rule": "a: b\n- c",
        "key_insight": "'quoted' \"both\" # not a comment",
        "tags": ["ok", "also\nbad: yes"],
        "symptoms": "one, two",
        "confidence": "HIGH",
    }
    draft = act.build_draft(raw, CTX)
    assert isinstance(draft, act.Draft)
    back = parse_note(render_note(draft.note))
    assert set(back.frontmatter) <= set(act.Note({}).frontmatter) | set(draft.note.frontmatter)
    assert "evil" not in back.frontmatter and back.frontmatter["id"] == draft.id
    assert back.frontmatter["rule"] == "a: b - c"
    assert back.frontmatter["symptoms"] == ["one", "two"]
    assert back.frontmatter["confidence"] == "high"


def test_idle_entries_are_speculative_and_capped_at_medium() -> None:
    ctx = act.Context(session_id="s", transcript_path="/t", now=NOW, trigger="idle")
    draft = act.build_draft({"title": "T", "confidence": "high"}, ctx)
    assert isinstance(draft, act.Draft)
    assert draft.tier == "medium" and "speculative" in draft.note.frontmatter["tags"]


def test_plan_rules() -> None:
    actions = [
        {"action": "CREATE"},  # no title
        "not an object",
        {"action": "UPDATE", "id": "lrn-listed-aaaaaa"},
        {"action": "DELETE", "id": "lrn-quoted-in-transcript-bbbbbb"},
        {"action": "DELETE", "id": "lrn-listed-aaaaaa"},  # second action on the same id
        {"action": "CREATE", "title": "Same", "rule": "r"},
        {"action": "CREATE", "title": "Same", "rule": "r"},
        {"action": "CREATE", "title": "Known", "rule": "k"},
        {"action": "MERGE"},
    ]
    known = act.learning_id("Known", "k")
    plan = act.plan_actions(
        actions, CTX, revision_ids=["lrn-listed-aaaaaa"], exists=lambda i: i == known
    )
    assert [d.title for d in plan.creates] == ["Same"]
    assert plan.confirms == [
        ("lrn-listed-aaaaaa", "confirmed by a later session"),
        (known, "re-learned (same title and rule)"),
    ]
    assert plan.archives == []
    reasons = [d["reason"] for d in plan.dropped]
    assert len(reasons) == 6
    assert any("not listed" in r for r in reasons)
    assert any("without a title" in r for r in reasons)
    assert any("unknown action" in r for r in reasons)


def test_the_original_tools_nested_answer_shape_is_read() -> None:
    """Its contract nests a CREATE's fields under "learning" and names UPDATE's "target_id"."""
    answer = wr.find_actions(
        json.dumps(
            {
                "actions": [
                    {
                        "action": "CREATE",
                        "reason": "worth keeping",
                        "learning": {
                            "title": "Pin numpy below 2 for the legacy wheels",
                            "rule": "Pin numpy<2 in requirements.txt",
                            "root_cause": "numpy 2 dropped the C API the wheels use",
                            "confidence_num": 0.7,
                            "entities": ["numpy"],
                        },
                    },
                    {"CREATE": {"title": "Use uv instead of pip", "rule": "Use uv"}},
                    {"action": "UPDATE", "target_id": "lrn-listed-aaaaaa", "reason": "again"},
                ]
            }
        )
    )
    assert answer is not None
    plan = act.plan_actions(answer["actions"], CTX, revision_ids=["lrn-listed-aaaaaa"])
    first, second = plan.creates
    assert first.title == "Pin numpy below 2 for the legacy wheels"
    assert first.note.frontmatter["root_cause"] == "numpy 2 dropped the C API the wheels use"
    assert first.tier == "medium" and first.note.frontmatter["entities"] == ["numpy"]
    assert second.title == "Use uv instead of pip"
    assert plan.confirms == [("lrn-listed-aaaaaa", "again")]


@pytest.mark.parametrize(
    "raw",
    [
        {"action": "CREATE", "learning": "not an object"},  # nothing nested: no title
        {"action": "CREATE", "note": {"rule": "no title anywhere"}},
        {"CREATE": "a string, not fields"},
        {"MERGE": {"title": "an unknown action"}},
    ],
)
def test_nested_shapes_without_a_note_in_them_are_dropped(raw) -> None:
    plan = act.plan_actions([raw], CTX, revision_ids=[])
    assert plan.creates == [] and len(plan.dropped) == 1


def test_confirm_is_idempotent_per_source() -> None:
    from reflectgit.notes import edit

    note = Note({"id": "x", "title": "t", "provenance": {"proof_count": 1}}, "")
    once = edit.confirm(note, "drain:a")
    assert once is not None and once.frontmatter["provenance"]["proof_count"] == 2
    assert edit.confirm(once, "drain:a") is None
    twice = edit.confirm(once, "drain:b")
    assert twice is not None and twice.frontmatter["provenance"]["proof_count"] == 3
    assert note.frontmatter["provenance"] == {"proof_count": 1}  # the input is left alone


def _lines(texts: list[str]) -> list[DialogueLine]:
    return [DialogueLine(t, "user", i, i) for i, t in enumerate(texts)]


def test_slice_keeps_three_lines_of_context_and_merges_overlaps() -> None:
    texts = [f"plain line {i}" for i in range(40)]
    texts[10] = "never do that again"
    texts[15] = "always use the lock file"
    texts[33] = "the root cause was a stale cache"
    lines = _lines(texts)
    chunks = cascade.slice_lines(lines, detect(texts))
    assert [(c.start, c.end) for c in chunks] == [(7, 19), (30, 37)]
    assert "plain line 6" not in chunks[0].text and "plain line 7" in chunks[0].text


def test_slice_cap_prefers_high_and_late_chunks() -> None:
    texts = []
    for i in range(200):
        texts.append("never do X " + "y" * 500 if i % 20 == 0 else f"filler {i} " + "z" * 500)
    chunks = cascade.slice_lines(_lines(texts), detect(texts), cap=9_000)
    total = sum(len(c.text) + len(cascade.GAP) for c in chunks)
    assert total <= 9_000 and chunks
    assert chunks[-1].end == 200 - 20 + 4, "the latest chunk is kept"
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


@needs_shared
def test_privacy_runs_on_the_slice() -> None:
    prepared = cascade.prepare(str(TRANSCRIPTS / "claude" / "private-and-secrets.jsonl"))
    assert prepared.skip is None
    for secret in ("Tr0ub4dor&3", "4471", "sk-ant-api03", "eyJhbGciOiJIUzI1NiJ9"):
        assert secret not in prepared.text
    assert "[private content removed]" in prepared.text


def test_bounded_view_keeps_a_quarter_head_and_the_tail(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {"type": "user", "message": {"role": "user", "content": f"line {i:05d} " + "w" * 80}}
        )
        for i in range(3000)
    ]
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n")
    view = cascade.bounded_view(path, 20_000)
    head, tail = view.split(cascade.OMITTED.strip())
    assert "line 00000" in head and "line 02999" in tail
    assert len(head) <= 5_000 + 5 and len(tail) <= 15_000 + 5


@needs_shared
def test_heuristic_writer_is_deterministic_and_honest() -> None:
    prepared = cascade.prepare(str(TRANSCRIPTS / "claude" / "correction-0.jsonl"))
    first = heuristic.write(prepared)
    assert first == heuristic.write(prepared)
    [action] = first["actions"]
    assert action["title"] == "Always use `uv pip sync requirements.lock` in this repo"
    assert action["confidence"] == "medium"
    prepared = cascade.prepare(str(TRANSCRIPTS / "claude" / "test-fix-0.jsonl"))
    [action] = heuristic.write(prepared)["actions"]
    assert action["confidence"] == "low"
    assert "root cause" in action["root_cause"]
    assert action["fix"].startswith("Use `tokio::task::spawn_blocking`")


@needs_shared
def test_prompt_lists_revision_ids_after_the_marker() -> None:
    prepared = cascade.prepare(str(TRANSCRIPTS / "claude" / "correction-0.jsonl"))
    prepared.related = [cascade.Related("lrn-a-123456", "Use uv", "uv pip sync")]
    prompt = cascade.build_prompt(prepared, idle=True)
    marker = prompt.index(cascade.REVISION_MARKER)
    assert prompt.index("- id: lrn-a-123456") > marker
    assert "speculative" in prompt
    assert prompt.startswith("<reflect-git:drain>")


def test_related_learnings_need_two_shared_keywords() -> None:
    signals = detect(["Always use `uv pip sync requirements.lock` here, never pip install"])
    cands = [
        ("lrn-1", "Install with uv pip sync", "requirements.lock", ""),
        ("lrn-2", "Kubernetes probes", "readiness", "pip"),
    ]
    assert [r.id for r in cascade.related_learnings(signals, cands)] == ["lrn-1"]


def test_validation_rejects_ranking_fields_and_bad_enums() -> None:
    draft = act.build_draft({"title": "Fine", "rule": "r"}, CTX)
    assert isinstance(draft, act.Draft)
    draft.note.frontmatter["importance"] = 3
    draft.note.frontmatter["causal_relations"] = [{"source": "a", "target": "b", "type": "pwns"}]
    draft.sidecar.data["entities"] = [{"name": "x", "type": "weapon", "description": ""}]
    problems = " | ".join(act.validate_draft(draft))
    assert "S9" in problems and "pwns" in problems and "weapon" in problems


def test_sidecar_lists_every_edge_endpoint_with_a_description() -> None:
    draft = act.build_draft(
        {
            "title": "T",
            "entities": [{"name": "uv", "type": "tool"}],
            "causal_relations": [{"source": "uv", "target": "lock drift", "type": "prevents"}],
        },
        CTX,
    )
    assert isinstance(draft, act.Draft)
    ents = draft.sidecar.data["entities"]
    assert [e["name"] for e in ents] == ["uv", "lock drift"]
    assert all(e["description"] == "" for e in ents)
    assert draft.sidecar.data["relationships"][0]["description"] == ""


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=80),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
_action = st.fixed_dictionaries(
    {"action": st.sampled_from(["CREATE", "UPDATE", "DELETE", "create", "Nope"])},
    optional={
        "title": st.text(max_size=150) | _values,
        "rule": st.text(max_size=80) | _values,
        "id": st.sampled_from(["lrn-listed-aaaaaa", "../x", "lrn-other-bbbbbb"]) | _values,
        "tags": _values,
        "entities": _values,
        "causal_relations": _values,
        "confidence": _values,
        "confidence_num": _values,
        "evil": _values,
    },
)


@settings(max_examples=50, deadline=None)
@given(st.lists(_action | _values, max_size=6))
def test_any_writer_answer_yields_only_safe_notes(actions: list) -> None:  # type: ignore[type-arg]
    plan = act.plan_actions(actions, CTX, revision_ids=["lrn-listed-aaaaaa"])
    allowed = set(act.NOTE_FIELDS)
    for draft in plan.creates:
        assert act.validate_draft(draft) == []
        back = parse_note(render_note(draft.note))
        assert set(back.frontmatter) <= allowed
        assert back.frontmatter["id"] == draft.id == draft.sidecar.document_id
        assert "/" not in draft.id and not draft.id.startswith(".")
    for nid, _reason in plan.confirms + plan.archives:
        assert nid == "lrn-listed-aaaaaa"
    assert len(plan.creates) <= act.MAX_CREATES


def test_the_slicer_reads_past_the_gate_window(tmp_path: Path) -> None:
    chatter = {"type": "user", "message": {"role": "user", "content": "x" * 9_000}}
    last = {"type": "user", "message": {"role": "user", "content": "Never deploy on Fridays."}}
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([json.dumps(chatter)] * 100 + [json.dumps(last)]) + "\n")
    prepared = cascade.prepare(str(path))
    assert prepared.skip is None and "Never deploy on Fridays." in prepared.text
