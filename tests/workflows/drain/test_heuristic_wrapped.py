"""A person's text is read by its paragraphs (issue 34, precision): a line the person (or the
text they pasted) wrapped at a width is one sentence with the lines that continue it, as
markdown reads a paragraph, so a wrapped line that happens to open with a verb is no rule and a
rule wrapped over two lines is read whole; a list's items, each on its own line, stay rules of
their own. Each case is a Claude Code transcript in tmp_path run through the real cascade and
``heuristic.write``."""

from __future__ import annotations

from reflectgit.notes.signals import paragraph_lines
from tests.workflows.drain.test_heuristic import _actions

# held-apart-25's flits-019ef080 (line 7): a code review's output the person pasted, wrapped at
# about 75 columns, whose wrapped lines open with "assume" and "never".
REVIEW = (
    "here is the review, can you go through it?\n\n"
    "  A key integration risk is emerging: the uncommitted validation/table scripts\n"
    "  assume manuscript and docs files that currently exist only in the remote-\n"
    "  only commit, not in this local branch's reviewed commit set. I'm checking\n"
    "  that precisely before deciding whether it is a finding.\n"
    "  That can interleave commits into, or disturb, an in-progress rewrite.\n"
    "  Recommend: never  --commit  in  post-rewrite  (append-only ledger, or skip\n"
    "  during rebase)."
)


def test_a_wrapped_paste_yields_no_fragment_note(tmp_path):
    turns = [
        ("user", "review the hooks"),
        ("assistant", "I reviewed the hooks and left them as they are."),
        ("user", REVIEW),
    ]
    titles = [a["title"] for a in _actions(tmp_path, turns)]
    assert not [t for t in titles if t.rstrip().endswith(("remote-", "or skip"))], titles
    assert not [t for t in titles if t.lower().startswith("assume manuscript")], titles


def test_a_rule_the_person_wrapped_is_read_whole(tmp_path):
    [action] = _actions(
        tmp_path,
        [
            ("user", "add the index"),
            ("assistant", "I ran the migration against the staging database by hand."),
            (
                "user",
                "no, never run migrations by hand against the shared staging\n"
                "database: `make migrate` takes the advisory lock first",
            ),
        ],
    )
    assert "staging database" in action["title"] or "staging database" in action["rule"]
    assert "make migrate" in action["rule"], action


def test_a_list_of_short_rules_reads_each_item(tmp_path):
    actions = _actions(
        tmp_path,
        [
            ("user", "format the code"),
            ("assistant", "I ran black and isort on the package."),
            (
                "user",
                "two things:\n- use `ruff format`, never black\n- never commit straight to main",
            ),
        ],
    )
    rules = " ".join(a["rule"] for a in actions)
    assert "ruff format" in rules and "commit straight to main" in rules, actions
    assert not any("ruff format" in a["rule"] and "main" in a["rule"] for a in actions), actions


def test_lines_typed_one_by_one_without_a_period_stay_apart(tmp_path):
    # held-apart-9's cyspbot-019f074b: each line its own sentence, none ended with a period;
    # read as one paragraph they ran together and the rule on the last line was lost
    said = (
        "I’m interested in externalising the token allowance policy here, moving it to "
        "../cyspbot-deploy\n"
        "I’d consider upgrading to a formal policy language like cedar but that is not a "
        "requirement \n"
        "Explore and research options for this enhancement \n"
        "Ground decisions and recommendations in fact, authoritative documentation or "
        "experimental observations, do not make assumptions"
    )
    turns = [("user", said), ("assistant", "I will read the policy code and the deploy repo.")]
    [action] = _actions(tmp_path, turns)
    assert action["title"].startswith("Ground decisions and recommendations in fact")


def test_paragraph_lines_join_a_paragraph_and_keep_blocks():
    text = (
        "1. Don't let the hooks stay in limbo. Either commit .githooks/ +\n"
        "   scripts/entire_checkpoint.py, or\n"
        "unset core.hooksPath.\n"
        "2. second item\n"
        "- a\n"
        "* b\n"
        "# Heading\n"
        "one line\n"
        "its next line\n"
        "Explore the options for this enhancement\n"
        "Ground decisions in fact, do not make assumptions\n"
        "A sentence ends here.\n"
        "then a line typed on its own\n"
        "\n"
        "    indented code\n"
        "    more code\n"
        "| a |\n"
        "| b |\n"
        "> quoted\n"
        "```\n"
        "in a fence\n"
        "wrapped\n"
        "```\n"
        "after"
    )
    assert paragraph_lines(text) == [
        "1. Don't let the hooks stay in limbo. Either commit .githooks/ +"
        " scripts/entire_checkpoint.py, or unset core.hooksPath.",
        "2. second item",
        "- a",
        "* b",
        "# Heading",
        "one line its next line",
        "Explore the options for this enhancement",
        "Ground decisions in fact, do not make assumptions",
        "A sentence ends here.",
        "then a line typed on its own",
        "",
        "    indented code",
        "    more code",
        "| a |",
        "| b |",
        "> quoted",
        "```",
        "in a fence",
        "wrapped",
        "```",
        "after",
    ]
