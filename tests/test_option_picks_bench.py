"""bench/option_picks.py (issue 34, recall): the person's typed pick among the items of the
assistant's turn just before, counted before any reading is built. The snippets are the tune
sets' own (held-apart-2, -8, -12, -14, -18)."""

from __future__ import annotations

from types import SimpleNamespace

from bench import option_picks

# held-apart-18: the assistant's findings, then the person answers them item by item.
FINDINGS = [
    "Clear. Here's what the audit found:",
    "**Summary of what needs to happen:**",
    "1. **Python deps** -- During install, walk the component tree and aggregate "
    "`pythonDependencies` from all component manifests alongside the root's.",
    "2. **Settings** -- The `--config` flag needs a namespacing convention (e.g. "
    "`component-name.key=value` or `component-name:key=value`).",
    "3. **Both must be recursive** -- Since components can nest (up to `MAX_COMPONENT_DEPTH=10`).",
    "Want me to implement these fixes?",
]
# held-apart-14: three options offered with bold heads.
OPTIONS = [
    "Three options:",
    "1. **Drive-by fix in this PR** — delete the dead line as a separate commit.",
    "2. **Separate PR first** — land a trivial fix-up PR against main, rebase this one.",
    "3. **Admin-merge this PR as-is** — the failure predates it.",
    "Which do you want? I'd default to option 1.",
]


def test_the_labels_of_an_assistant_list() -> None:
    assert option_picks.labels(FINDINGS) == {"1", "2", "3"}
    assert option_picks.labels(["**Option A** - a pty harness", "**Option B** - tmux"]) == {
        "A",
        "B",
    }


def test_one_item_or_none_is_no_list() -> None:
    assert option_picks.labels(["1. **Reset the index** with `git read-tree HEAD`"]) == set()
    assert option_picks.labels(["CI is red on main.", "Want me to fix it?"]) == set()


def test_items_answered_by_their_labels_are_picks() -> None:
    offered = option_picks.labels(FINDINGS)
    person = ["1. good.", "2. use period.", "3. yes", "Develop a complete implementation plan"]
    assert option_picks.picks(person, offered) == ["1. good.", "2. use period.", "3. yes"]
    offered = option_picks.labels(OPTIONS)
    assert option_picks.picks(["1"], offered) == ["1"]
    assert option_picks.picks(["Let's patch for option 1."], offered) == [
        "Let's patch for option 1."
    ]  # held-apart-12
    assert option_picks.picks(["I like Option 1, from a enabling perspective:"], offered)
    assert option_picks.picks(["go with 2 and 3"], offered) == ["go with 2 and 3"]


def test_a_label_not_offered_or_no_label_is_no_pick() -> None:
    offered = option_picks.labels(OPTIONS)
    assert option_picks.picks(["option 5 please"], offered) == []
    assert option_picks.picks(["do it the way the README says"], offered) == []
    # held-apart-12: Claude Code's attachment placeholder names no item
    assert option_picks.picks(["NUGET_API_KEY diye bişey yok görünüyor?[Image #2]"], offered) == []


def _line(speaker: str, turn: int, text: str) -> SimpleNamespace:
    return SimpleNamespace(speaker=speaker, turn=turn, record=turn, text=text)


def test_turns_group_a_speakers_lines() -> None:
    lines = [_line("assistant", 7, t) for t in OPTIONS] + [_line("person", 8, "1")]
    runs = option_picks.turns(lines)
    assert [(speaker, turn, len(x)) for speaker, turn, x in runs] == [
        ("assistant", 7, len(OPTIONS)),
        ("person", 8, 1),
    ]
