"""The person's reply that answers the assistant's last message (a question of their own, a
pick among the ways the assistant's either-or question offered) is no rule; a rule said with
it is one. The lines are held-apart-28's (promptgrimoire ffc93f57)."""

from __future__ import annotations

from pathlib import Path

from reflectgit.workflows.drain.heuristic.rules import answers_only
from tests.workflows.drain.test_heuristic import _actions

# held-apart-28, promptgrimoire ffc93f57: the assistant's either-or question, and the reply
ASKED = (
    "Done. The button now:\n1. **Disables** when clicked (prevents double-click)\n"
    "2. **Shows a spinner** via Quasar's `loading` prop\n\n"
    'The `ui.notification("Generating PDF...")` in `_handle_pdf_export` is now redundant since '
    "the button shows the loading state. Should I remove that notification, or keep both "
    "indicators?"
)
PICKED = (
    "no, keep both for now, I'll see how we go. I also thought we respect newlines in the txt "
    "document"
)
# held-apart-28: the assistant asks for a try, the person reports and asks
TRY = (
    "**Work complete.** Three commits made:\n1. `d8ebd6f` - Word tokenization fix (`\\S+`)\n"
    "2. `2e6da86` - Marker insertion timing fix\n3. `58f05eb` - Deseret/Osage/Shavian font "
    "fallbacks\n\nRe-export the PDF to verify the Deseret characters now render correctly."
)
ASKS = "no change, what do I need to run to install these, sorry?"


def _replied(tmp_path: Path, before: str, reply: str) -> list[dict]:
    return _actions(
        tmp_path, [("user", "fix the PDF export"), ("assistant", before), ("user", reply)]
    )


def test_a_pick_among_the_ways_the_assistant_offered_is_no_rule(tmp_path):
    assert _replied(tmp_path, ASKED, PICKED) == []
    assert answers_only(PICKED, ASKED)


def test_a_way_none_of_the_options_holds_is_still_a_correction(tmp_path):
    reply = "no, use a toast from `ui.notify` instead, since the spinner is too small to notice"
    assert not answers_only(reply, ASKED)
    [action] = _replied(tmp_path, ASKED, reply)
    assert action["learning_type"] == "correction"


def test_a_rule_said_with_the_pick_is_kept(tmp_path):
    reply = "no, keep both for now. Never remove a user-visible notification without asking"
    assert not answers_only(reply, ASKED)
    [action] = _replied(tmp_path, ASKED, reply)
    assert "Never remove a user-visible notification" in action["title"]


def test_a_question_after_a_try_is_no_rule(tmp_path):
    assert _replied(tmp_path, TRY, ASKS) == []
    assert answers_only(ASKS, TRY)


def test_a_result_report_with_a_rule_keeps_the_rule(tmp_path):
    reply = "No change. Don't edit generated files, change the template in `latex/` instead"
    assert not answers_only(reply, TRY)
    [action] = _replied(tmp_path, TRY, reply)
    assert action["learning_type"] == "correction"


def test_a_rule_that_overrides_the_stated_behaviour_is_kept():
    # held-apart-28, judged useful: said after the assistant's summary of a test it wrote
    said = (
        "It should fail -- the tests are not runnable which means they've failed. If we want to "
        "skip, we'll mark it explicitly"
    )
    assert not answers_only(said, "- Skips if `fc-list` is not available")
    assert not answers_only("why aren't we using table-driven tests?", "Done. All tests pass.")
