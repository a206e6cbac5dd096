"""The code-aware benchmark data (bench/data/code_aware): every note valid, and every staleness
judgement and change set consistent with its notes and with the history in its bundle."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from reflectgit.hooks.validate import main as validate
from tests.conftest import REPO_ROOT, git

DATA_DIR = REPO_ROOT / "bench" / "data" / "code_aware"
# The replay datasets (judged by reading the diffs); other folders hold datasets of their own form.
PROJECTS = sorted(p.name for p in DATA_DIR.iterdir() if (p / "judged.json").is_file())
KINDS = {
    True: {"deleted", "moved", "symbol-removed", "changed"},
    False: {"untouched", "changed-elsewhere-in-file", "cosmetic", "renamed", "changed-unrelated"},
}


def front_matter(note: Path) -> dict[str, object]:
    return yaml.safe_load(note.read_text(encoding="utf-8").split("---\n")[1])


# Each project's upstream licence, as its LICENSE file names it.
LICENCES = {
    "argparse": "Permission is hereby granted, free of charge",
    "anyhow": "Permission is hereby granted, free of charge",
    "args": "Redistribution and use in source and binary forms",
    "assert": "The MIT License (MIT)",
    "bats-core": "Permission is hereby granted, free of charge",
    "bitflags": "Permission is hereby granted, free of charge",
    "cachetools": "MIT License",
    "cast": "The MIT License (MIT)",
    "chalk": "MIT License",
    "color": "The MIT License (MIT)",
    "cJSON": "Permission is hereby granted, free of charge",
    "cheshire": "Permission is hereby granted, free of charge",
    "compile-testing": "Apache License",
    "con_cache": "Permission is hereby granted, free of charge",
    "connection_pool": "Permission is hereby granted, free of charge",
    "cookie": "(The MIT License)",
    "cxxopts": "Permission is hereby granted, free of charge",
    "debug": "(The MIT License)",
    "dotenv": "MIT License",
    "FastRoute": "Redistribution and use in source and binary forms",
    "godotenv": "MIT License",
    "GuardClauses": "MIT License",
    "hashie": "Permission is hereby granted, free of charge",
    "httparty": "Permission is hereby granted, free of charge",
    "humanize": "Permission is hereby granted, free of charge",
    "inih": "New BSD license",
    "itsdangerous": "Redistribution and use in source and binary forms",
    "inspect.lua": "Permission is hereby granted, free of charge",
    "jason": "Licensed under the Apache License, Version 2.0",
    "javapoet": "Apache License",
    "joda-convert": "Apache License",
    "joda-money": "Apache License",
    "jsx": "Permission is hereby granted, free of charge",
    "ky": "MIT License",
    "logrus": "The MIT License (MIT)",
    "KeychainAccess": "The MIT License (MIT)",
    "kotlin-result": "Permission to use, copy, modify, and/or distribute",
    "log": "Permission is hereby granted, free of charge",
    "mapstructure": "The MIT License (MIT)",
    "nimble_options": "Apache License",
    "node-semver": "The ISC License",
    "once_cell": "Permission is hereby granted, free of charge",
    "OrderedCollections.jl": "Permission is hereby granted, free of charge",
    "p-queue": "MIT License",
    "parse": "Permission is hereby granted, free of charge",
    "path": "Redistribution and use in source and binary forms",
    "path-to-regexp": "MIT License",
    "PathKit": "Redistribution and use in source and binary forms",
    "promises": "The MIT License (MIT)",
    "body-parser": "(The MIT License)",
    "glob": "Permission is hereby granted, free of charge",
    "jansson": "Permission is hereby granted, free of charge",
    "Path-Tiny": "Apache License",
    "python-dotenv": "Redistribution and use in source and binary forms",
    "qs": "BSD 3-Clause License",
    "rack-attack": "The MIT License",
    "Rainbow": "The MIT License (MIT)",
    "schema": "Permission is hereby granted, free of charge",
    "Scrutor": "The MIT License",
    "scopt": "Permission is hereby granted, free of charge",
    "semver": "Permission is hereby granted, free of charge",
    "slugify": "The MIT License (MIT)",
    "stateless": "Licensed under the Apache License, Version 2.0",
    "SwiftyJSON": "The MIT License (MIT)",
    "tabulate": "Permission is hereby granted, free of charge",
    "tenacity": "Apache License",
    "fmt": "Permission to use, copy, modify, and/or distribute",
    "zig-clap": "Permission is hereby granted, free of charge",
    "toml": "The MIT License (MIT)",
    "tomli": "MIT License",
    "turbine": "Apache License",
    "withr": "Permission is hereby granted, free of charge",
}


def test_projects_each_with_licence_source_and_bundle() -> None:
    assert sorted(LICENCES) == PROJECTS
    for project in PROJECTS:
        folder = DATA_DIR / project
        for name in ("LICENSE", "SOURCE.md", "history.bundle", "judged.json", "prs.json"):
            assert (folder / name).is_file(), f"{project}/{name}"
        assert LICENCES[project] in (folder / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.parametrize("project", PROJECTS)
def test_notes_are_valid(project: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert validate(["--format", "json", str(DATA_DIR / project / "notes")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["checked"] >= 20


@pytest.mark.parametrize("project", PROJECTS)
def test_judgements_and_changes_agree_with_the_history(project: str, tmp_path: Path) -> None:
    folder = DATA_DIR / project
    repo = tmp_path / project
    git(
        "clone", "-q", "--branch", "replay", str(folder / "history.bundle"), str(repo), cwd=tmp_path
    )
    judged = json.loads((folder / "judged.json").read_text(encoding="utf-8"))
    assert git("rev-parse", "HEAD", cwd=repo).strip() == judged["replay_to"]

    notes = {p.stem: front_matter(p) for p in (folder / "notes").glob("*.md")}
    assert [n["id"] for n in judged["notes"]] and {n["id"] for n in judged["notes"]} == set(notes)
    anchor_commits = set()
    for note_id, front in notes.items():
        assert front["id"] == note_id and front["project"] == project
        for anchor in front["anchors"]:  # type: ignore[attr-defined]
            anchor_commits.add(anchor["commit"])
            text = git("show", f"{anchor['commit']}:{anchor['path']}", cwd=repo)
            if "symbol" in anchor:
                # the whole name, which may start or end with no word character (Lisp's
                # ``parse*``, ``*use-bigdecimals?*``: ``\b`` cannot match around those)
                whole = rf"(?<![\w$]){re.escape(anchor['symbol'])}(?![\w$])"
                assert re.search(whole, text), (note_id, anchor)
    for verdict in judged["notes"]:
        assert verdict["kind"] in KINDS[verdict["stale"]], verdict
        assert verdict["reason"].strip()
    assert 0.3 <= sum(n["stale"] for n in judged["notes"]) / len(judged["notes"]) <= 0.6

    changes = json.loads((folder / "prs.json").read_text(encoding="utf-8"))
    assert len(changes) >= 8 and any(not c["relevant"] for c in changes)
    for change in changes:
        assert set(change["relevant"]) <= set(notes), change
        assert change["why"].strip()
        git("merge-base", "--is-ancestor", change["base"], change["head"], cwd=repo)
        git("merge-base", "--is-ancestor", change["head"], judged["replay_to"], cwd=repo)
        for commit in anchor_commits:
            git("merge-base", "--is-ancestor", commit, change["base"], cwd=repo)
