from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.hooks import check as check_hook
from reflectgit.hooks import validate as validate_hook
from reflectgit.workflows import validation
from tests.conftest import DATA, needs_shared
from tests.support.validation import VALID_NOTE, copy_corpus, make_valid_kb

INVALID = DATA / "notes" / "invalid"


@pytest.fixture
def valid_kb(tmp_path: Path) -> Path:
    return make_valid_kb(tmp_path)


TEXT_LINE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?:(?P<field>[\w.\[\]]+): )?(?P<msg>.+)$"
)


# --------------------------------------------------------------------------- validate


@needs_shared
def test_valid_corpus_and_compat_pass(cli):
    result = cli("validate", str(DATA / "notes" / "valid"), str(DATA / "compat"))
    assert result.code == 0, result
    assert result.out == ""
    count = sum(
        1
        for f in ("notes/valid", "compat")
        for p in (DATA / f).iterdir()
        if p.suffix in (".md", ".yaml")
    )
    assert f"{count} files checked: all valid" in result.err


@needs_shared
def test_every_invalid_file_is_checked_and_reported(cli):
    result = cli("validate", str(INVALID))
    assert result.code == 1
    lines = result.out.splitlines()
    reported = {Path(TEXT_LINE.match(line).group("file")).name for line in lines}  # type: ignore[union-attr]
    expected = {p.name for p in INVALID.iterdir()}
    assert reported == expected
    assert f"{len(expected)} files checked: {len(expected)} failed" in result.err


def test_text_lines_read_path_line_col_field_message(cli, tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_text("---\ntitle: t\ncreated: 2026-03-04\nconfidence: HIGH\n---\n")
    result = cli("validate", str(bad))
    assert result.code == 1
    assert result.out == f"{bad}:4:13: confidence: 'HIGH' is not allowed; write 'high'\n"


@needs_shared
def test_json_format(cli):
    target = INVALID / "bad-created.md"
    for args in (
        ("validate", "--format", "json", str(target)),
        ("--json", "validate", str(target)),
    ):
        result = cli(*args)
        assert result.code == 1
        doc = result.json()
        assert doc["ok"] is False and doc["checked"] == 1 and doc["failed"] == 1
        assert doc["problems"] == [
            {
                "file": str(target),
                "line": 3,
                "column": 10,
                "field": "created",
                "message": "'last tuesday' is not an ISO date or timestamp; write a date such "
                "as 2026-03-04 or a timestamp such as 2026-03-04T09:12:00Z",
                "severity": "error",
            }
        ]
    ok = cli("validate", "--format", "json", str(DATA / "compat"))
    assert ok.code == 0
    assert ok.json() == {"ok": True, "checked": 40, "failed": 0, "problems": []}


def test_github_format(cli, tmp_path):
    bad = tmp_path / "a,b.md"
    bad.write_text("---\ntitle: t\ncreated: 2026-03-04\nconfidence: low\nrecall_count: 1\n---\n")
    result = cli("validate", "--format", "github", str(bad))
    assert result.code == 1
    (line,) = result.out.splitlines()
    escaped = str(bad).replace(",", "%2C")
    assert line.startswith(f"::error file={escaped},line=5,col=1::recall_count: is a ranking field")


@needs_shared
def test_no_path_validates_the_kb_documents_and_archived(cli, valid_kb):
    (valid_kb / "archived" / "old.md").write_text("---\ntitle: old\n---\n")
    (valid_kb / "review-queue" / "x.md").write_text("not a note, not validated")
    result = cli("--kb", str(valid_kb), "validate")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines == [
        "archived/old.md:1:1: confidence: is required; add `confidence: high`, `medium` or `low`",
        "archived/old.md:1:1: created: is required; add `created: 2026-03-04` (the day the "
        "learning was captured)",
    ]
    count = len(list((valid_kb / "documents").iterdir())) + 1
    assert f"{count} files checked: 1 failed with 2 problems" in result.err


def test_folders_recurse_and_skip_hidden_folders(cli, tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "n.md").write_text(VALID_NOTE)
    (tmp_path / "a" / ".hidden").mkdir()
    (tmp_path / "a" / ".hidden" / "bad.md").write_text("nope")
    (tmp_path / "a" / "notes.txt").write_text("ignored")
    result = cli("validate", str(tmp_path / "a"))
    assert result.code == 0, result
    assert "1 file checked: all valid" in result.err


@needs_shared
def test_strict_flag(cli):
    target = DATA / "compat" / "tp-02-auth-session-convention.entities.yaml"
    assert cli("validate", str(target)).code == 0
    result = cli("validate", "--strict", str(target))
    assert result.code == 1
    assert ":17:13: relationships[1].target: 'jwt-auth' is not a listed entity" in result.out


@pytest.mark.parametrize(
    "args,fragment",
    [
        (("validate", "--format", "xml", "."), "unknown format 'xml'"),
        (("validate", "does-not-exist.md"), "no such file or folder"),
        (("validate", "pyproject.toml"), "not a note (*.md) or a sidecar"),
    ],
)
def test_usage_errors_exit_2(cli, args, fragment):
    result = cli(*args)
    assert result.code == 2
    assert fragment in result.err
    assert result.err.startswith("error: ")


def test_missing_kb_is_an_error(cli, tmp_path):
    result = cli("--kb", str(tmp_path / "nowhere"), "validate")
    assert result.code == 1
    assert "no knowledge base" in result.err


def test_real_subprocess_exit_codes(tmp_path):
    good = tmp_path / "good.md"
    good.write_text(VALID_NOTE)
    bad = tmp_path / "bad.md"
    bad.write_text("---\ntitle: t\ncreated: 2026-03-04\nconfidence: sure\n---\n")
    run = [sys.executable, "-m", "reflectgit", "validate"]
    assert subprocess.run([*run, str(good)], capture_output=True, check=False).returncode == 0
    proc = subprocess.run([*run, str(good), str(bad)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{bad}:4:13: confidence: 'sure' is not a tier")


@needs_shared
def test_parallel_batches_report_exactly_what_one_process_reports(tmp_path):
    copy_corpus(tmp_path / "many", "notes/invalid", "notes/valid")
    for i in range(30):
        (tmp_path / "many" / f"extra-{i}.md").write_text(VALID_NOTE if i % 3 else "---\n- x\n---\n")
    targets = validation.collect([tmp_path / "many"], base=tmp_path)
    one = validation.validate_targets(targets, workers=1)
    two = validation.validate_targets(targets, workers=2)
    assert one.problems == two.problems
    assert len(one.failed) == 23 + 10


# --------------------------------------------------------------------------- hook entry points


@needs_shared
def test_validate_hook_main(tmp_path, capsys, monkeypatch):
    good = tmp_path / "documents" / "good.md"
    good.parent.mkdir()
    good.write_text(VALID_NOTE)
    assert validate_hook.main([str(good)]) == 0
    assert capsys.readouterr().out == ""
    bad = INVALID / "duplicate-tags.md"
    assert validate_hook.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert out == f"{bad}:5:11: tags[1]: 'a' is listed twice (first as item 0); keep one\n"
    assert validate_hook.main(["--format", "github", str(bad)]) == 1
    assert capsys.readouterr().out.startswith(f"::error file={bad},line=5,col=11::tags[1]:")
    assert validate_hook.main(["nope.md"]) == 2
    assert "error: nope.md: no such file or folder" in capsys.readouterr().err
    # File names alone (what pre-commit passes) read as the defaults' options spelled out do.
    assert validate_hook.main(["--format", "text", str(good), str(bad)]) == 1
    spelled = capsys.readouterr()
    assert validate_hook.main([str(good), str(bad)]) == 1
    assert capsys.readouterr() == spelled
    with pytest.raises(SystemExit) as usage:  # an option it does not know: argparse's exit 2
        validate_hook.main(["--bogus", str(good)])
    assert usage.value.code == 2 and "unrecognized arguments: --bogus" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    assert validate_hook.main([]) == 0  # no names: documents/ and archived/ of the cwd


@needs_shared
@pytest.mark.parametrize(
    "module,args",
    [
        ("reflectgit.hooks.validate", [str(INVALID / "bad-created.md")]),
        ("reflectgit.hooks.check", ["--kb", "."]),
    ],
)
def test_hook_entry_points_import_no_cli_or_git_library(module, args, tmp_path):
    code = (
        "import sys\n"
        f"from {module} import main\n"
        f"rc = main({args!r})\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'typer', 'rich', 'click', 'dulwich', 'git'})\n"
        "print('HEAVY', heavy, rc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY [] " in proc.stdout


# --------------------------------------------------------------------------- check


@needs_shared
def test_check_passes_a_clean_kb(cli, valid_kb):
    result = cli("--kb", str(valid_kb), "check")
    assert result.code == 0, result
    assert result.out == ""
    assert "notes checked: no problems" in result.err


@needs_shared
def test_check_finds_every_invariant_broken(cli, valid_kb):
    docs = valid_kb / "documents"
    # Same id twice (archived copy of a live note).
    (valid_kb / "archived" / "copy.md").write_bytes(
        (docs / "use-git-for-git-workflows-7e2493.md").read_bytes()
    )
    # A sidecar naming another note, and one without a note.
    side = docs / "ex-02-pyenv-shim-ordering.entities.yaml"
    side.write_text(
        side.read_text().replace("document_id: ex-02-pyenv-shim-ordering", "document_id: other")
    )
    (docs / "orphan.entities.yaml").write_text("entities: []\n")
    # A ranking field; a note outside the layout; a stray file inside it.
    (docs / "ranked.md").write_text(
        "---\ntitle: r\ncreated: 2026-03-04\nconfidence: low\nhelpful_count: 2\n---\n"
    )
    (valid_kb / "notes").mkdir()
    (valid_kb / "notes" / "lost.md").write_text(VALID_NOTE)
    (valid_kb / "README.md").write_text("# Our KB\n")
    (docs / "sub").mkdir()
    (docs / "sub" / "n.md").write_text(VALID_NOTE)
    (docs / "broken.md").write_text("no frontmatter")
    result = cli("--kb", str(valid_kb), "check")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines == [
        "archived/copy.md:3:5: id: 'lrn-use-git-for-git-workflows-7e2493' is already used by "
        "documents/use-git-for-git-workflows-7e2493.md; every note needs its own id (give one "
        "of them a new id, or merge them)",
        "documents/broken.md:1:1: no frontmatter (the file must start with a line '---'); add a "
        "'---' fenced YAML block with at least title, created and confidence",
        "documents/ex-02-pyenv-shim-ordering.entities.yaml:1:14: document_id: 'other' does not "
        "match its note documents/ex-02-pyenv-shim-ordering.md (id "
        "'ex-02-pyenv-shim-ordering'); write `document_id: ex-02-pyenv-shim-ordering`",
        "documents/orphan.entities.yaml:1:1: sidecar without a note: documents/orphan.md does "
        "not exist (a sidecar moves with its note; delete it or restore the note)",
        "documents/ranked.md:5:1: helpful_count: is a ranking field (rule S9): it lives in the "
        "state directory, never in a note; remove this line",
        "documents/sub/n.md:1:1: documents/ holds notes and sidecars directly; move this file "
        "out of sub/ (reflect-git does not read sub-folders)",
        "notes/lost.md:1:1: a note outside documents/ is never read: move it to documents/",
    ]


@needs_shared
def test_check_formats_and_hook(cli, valid_kb, capsys, monkeypatch):
    (valid_kb / "documents" / "stray.txt").write_text("x")
    result = cli("--kb", str(valid_kb), "check", "--format", "github")
    assert result.code == 1
    assert result.out.startswith("::error file=documents/stray.txt,line=1,col=1::documents/ holds")
    doc = cli("--kb", str(valid_kb), "--json", "check").json()
    assert doc["ok"] is False and doc["kb"] == str(valid_kb)
    assert [p["file"] for p in doc["problems"]] == ["documents/stray.txt"]
    assert cli("--kb", str(valid_kb), "check", "--format", "yaml").code == 2
    capsys.readouterr()
    monkeypatch.chdir(valid_kb)
    assert check_hook.main([]) == 1
    assert "documents/stray.txt:1:1:" in capsys.readouterr().out
    (valid_kb / "documents" / "stray.txt").unlink()
    assert check_hook.main(["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert check_hook.main(["--kb", str(valid_kb / "nope")]) == 2
