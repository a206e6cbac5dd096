"""Close distractors for the retrieval benchmark: notes about the same tools as the real notes
(same names, same everyday words: timeout, pool, memory, cache, worker, deploy, config),
saying something else. A query written from a real note's meaning must beat all of them.

Deterministic: ``notes()`` returns the same (path, bytes) every run.
"""

from __future__ import annotations

import random

SEED = 20261201

# (tool as written, tags, the thing of that tool the note talks about)
TOPICS = [
    ("tmux", ["tmux", "terminal"], "pane layout"),
    ("pyenv", ["pyenv", "python"], "virtualenv plugin"),
    ("zsh", ["zsh", "shell"], "completion cache"),
    ("Docker", ["docker", "containers"], "image layer"),
    ("BuildKit", ["docker", "buildkit"], "build secret"),
    ("gh CLI", ["gh-cli", "github"], "auth token"),
    ("launchd", ["launchd", "macos"], "agent plist"),
    ("SQLite", ["sqlite", "database"], "database file"),
    ("git", ["git", "vcs"], "submodule"),
    ("Redis", ["redis", "cache"], "key eviction"),
    ("API gateway", ["gateway", "http"], "route table"),
    ("circuit breaker", ["resilience"], "fallback handler"),
    ("nginx", ["nginx", "http"], "upstream block"),
    ("Celery", ["celery", "queues"], "beat schedule"),
    ("Kubernetes", ["kubernetes", "k8s"], "pod spec"),
    ("Grafana", ["grafana", "observability"], "dashboard panel"),
    ("JWT", ["auth", "jwt"], "signing key"),
    ("session store", ["auth", "sessions"], "session cookie"),
    ("Heroku", ["heroku", "deploy"], "dyno size"),
    ("Fly.io", ["fly", "deploy"], "machine volume"),
    ("kubectl", ["kubectl", "k8s"], "context"),
    ("npm", ["node", "npm"], "lockfile"),
    ("Postgres", ["postgres", "database"], "connection limit"),
    ("pytest", ["pytest", "testing"], "fixture scope"),
    ("ruff", ["ruff", "lint"], "rule selection"),
    ("Terraform", ["terraform", "iac"], "state file"),
    ("tokio", ["tokio", "rust"], "worker thread"),
    ("pip", ["pip", "python"], "wheel cache"),
]

# (title, key insight, body); {t} the tool, {x} its thing.
TEMPLATES = [
    (
        "{t} upgrade renames the {x} option",
        "After upgrading {t} the old {x} option is ignored silently; read the changelog for"
        " renamed keys before rolling the upgrade out.",
        "Symptom: {t} starts but behaves as if the {x} setting were unset. The release notes"
        " list the rename.",
    ),
    (
        "{t} logs fill the disk without rotation",
        "The default {t} logging writes forever; configure rotation or ship the logs to the"
        " journal before the disk fills.",
        "A full disk took the {x} down with it at night.",
    ),
    (
        "Pin the {t} version in the lockfile",
        "An unpinned {t} pulled a new major release overnight and changed the {x} defaults;"
        " pin the version and upgrade on purpose.",
        "The build passed on Friday and failed on Monday with no change of ours.",
    ),
    (
        "{t} behind a corporate proxy needs HTTPS_PROXY",
        "{t} ignores the lowercase proxy variables; export HTTPS_PROXY and NO_PROXY for the"
        " internal hosts.",
        "Downloads of the {x} hang and then time out on the office network only.",
    ),
    (
        "{t} {x} timeout too low for cold starts",
        "The first {x} call after a deploy takes seconds; raise the timeout for the warm-up"
        " only, not for every request.",
        "Retries during the warm-up made the load worse.",
    ),
    (
        "Check {t} readiness before routing traffic",
        "A {t} instance that accepts connections may still be loading the {x}; probe readiness"
        " explicitly before sending traffic.",
        "Requests failed for a minute after every restart.",
    ),
    (
        "Label {t} metrics by {x}",
        "Without a {x} label the dashboard averages across instances and hides the one that"
        " is failing.",
        "The average looked healthy while one instance was down.",
    ),
    (
        "Name an owner for {t} {x} alerts",
        "Pages about the {t} {x} went unanswered because nobody owned them; add an owner line"
        " to the runbook.",
        "Two incidents waited hours for someone to pick them up.",
    ),
    (
        "{t} memory spikes while rebuilding the {x}",
        "Rebuilding the {x} loads everything into memory at once; batch the rebuild or run it"
        " off-peak.",
        "The process was killed halfway and left the {x} half written.",
    ),
    (
        "{t} test fixtures leak state between runs",
        "A {x} left over from a previous test makes the next one pass or fail at random; create"
        " it per test and remove it after.",
        "The suite was green locally and red in CI one run in five.",
    ),
    (
        "{t} permissions differ between laptop and CI",
        "CI runs {t} as another user with a read-only home; point the {x} at a writable directory.",
        "Permission denied errors only on the CI runner.",
    ),
    (
        "{t} retries hide the first {x} error",
        "Automatic retries in {t} swallow the original failure; log the first {x} error before"
        " retrying.",
        "The logs only showed the last attempt's timeout, not the cause.",
    ),
]

TIERS = ("high", "medium", "low")


def notes() -> list[tuple[str, bytes]]:
    """Every distractor as (path under documents/, bytes)."""
    rng = random.Random(SEED)
    out: list[tuple[str, bytes]] = []
    for t_i, (tool, tags, thing) in enumerate(TOPICS):
        for k, (title, insight, body) in enumerate(TEMPLATES):
            ident = f"dx-{t_i:02d}-{k:02d}"
            tier = rng.choice(TIERS)
            fill = {"t": tool, "x": thing}
            text = (
                "---\n"
                f"id: {ident}\n"
                f'title: "{title.format(**fill)}"\n'
                f"confidence: {tier}\n"
                f'created: "2026-0{1 + (k % 9)}-1{t_i % 10}"\n'
                "tags:\n"
                + "".join(f"  - {tag}\n" for tag in tags)
                + f'key_insight: "{insight.format(**fill)}"\n'
                "---\n"
                f"## Learning\n\n{body.format(**fill)}\n\n"
                f"**How to apply:** {insight.format(**fill)}\n"
            )
            out.append((f"documents/{ident}.md", text.encode("utf-8")))
    return out
