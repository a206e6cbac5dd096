"""git.repo_info.config_user: the commit identity read from git's config files the way git
reads them (checked against real ``git config`` and ``git var GIT_AUTHOR_IDENT``), and an add
without GIT_AUTHOR_* that commits as git would, without importing ``dulwich.config``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reflectgit.git.repo_info import config_user
from tests.support.capture import kb_fixture  # noqa: F401  (the kb fixture)

# (the repository's config additions, the global config): both read, the repository first
CASES = {
    "global only": ("", "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"),
    "local wins": ('[user]\n  email = "local@example.com"\n', "[user]\nname=G\nemail=g@e\n"),
    "case, quotes, escapes, comments": (
        "",
        '[User]\n  NAME = "  Spaced  \\"Q\\" \\\\ " # c\n  Email = a@b ; trailing\n',
    ),
    "subsection is not the section": (
        "",
        '[user "work"]\n name = No\n email = no@e\n[user]\n name = Yes\n email = y@e\n',
    ),
    "last in a file wins": ("", "[user]\nname = First\nname = Second\nemail = s@e\n"),
    "inner blanks kept, outer dropped": ("", "[user]\n\tname =   Ada \t King  \n\temail=k@e\n"),
    "key on the header line": ("", "[user] name = Inline\n\temail = i@e\n"),
    "crlf lines": ("", "[user]\r\n\tname = Crlf Name\r\n\temail = c@e\r\n"),
    "unset": ("", "[core]\n\tname = not a user\n"),
    "other sections around": ("[core]\n\temail = x\n", "[alias]\n\tname = n\n[user]\nemail=e@e\n"),
}
# what this reader leaves to the full parser
FALLBACK = {
    "include": "[include]\n\tpath = other\n[user]\n\tname = A\n",
    "continued line": "[user]\n\tname = Ada \\\n Lovelace\n",
    "open quote": '[user]\n\tname = "Ada\n',
    "bad escape": "[user]\n\tname = Ada\\q\n",
    "not utf-8": "[user]\n\tname = Ad\xe9\n",
}


def _repo(tmp_path: Path, local: str, global_text: str) -> tuple[Path, Path, dict[str, str]]:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    with (repo / ".git" / "config").open("a", encoding="utf-8", newline="") as f:
        f.write(local)
    glob = tmp_path / "global.gitconfig"
    glob.write_bytes(global_text.encode("latin-1" if "\xe9" in global_text else "utf-8"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=str(glob), GIT_CONFIG_NOSYSTEM="1", EMAIL="")
    return repo, glob, env


def _git_says(repo: Path, env: dict[str, str], key: str) -> str | None:
    got = subprocess.run(["git", "config", "--get", key], cwd=repo, env=env, capture_output=True)
    return got.stdout.decode("utf-8").removesuffix("\n") if got.returncode == 0 else None


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_identity_is_what_git_reads(tmp_path: Path, case: str) -> None:
    repo, glob, env = _repo(tmp_path, *CASES[case])
    got = config_user([repo / ".git" / "config", glob])
    expected = (_git_says(repo, env, "user.name"), _git_says(repo, env, "user.email"))
    assert got == expected
    # git var (and git commit) also trims git's "crud" (blanks, quotes, .,:;<>) off a name's ends
    if None not in expected and expected[0] == expected[0].strip(" .,:;<>\"'\\"):
        ident = subprocess.run(
            ["git", "var", "GIT_AUTHOR_IDENT"], cwd=repo, env=env, capture_output=True, text=True
        )
        assert ident.stdout.rsplit(" ", 2)[0] == f"{expected[0]} <{expected[1]}>"


@pytest.mark.parametrize("case", sorted(FALLBACK))
def test_what_it_does_not_read_goes_to_the_full_parser(tmp_path: Path, case: str) -> None:
    repo, glob, _ = _repo(tmp_path, "", FALLBACK[case])
    assert config_user([repo / ".git" / "config", glob]) is None


def test_missing_files_are_skipped(tmp_path: Path) -> None:
    repo, glob, _ = _repo(tmp_path, "", "[user]\n\tname = N\n")
    assert config_user([tmp_path / "absent", repo / ".git" / "config", glob]) == ("N", None)


PROBE = """
import sys
from reflectgit.__main__ import main
try:
    main()
finally:
    sys.stderr.write("\\n--modules--\\n" + "\\n".join(sorted(sys.modules)) + "\\n")
"""


@pytest.mark.parametrize("config", ["plain", "include"])
def test_an_add_without_git_author_commits_as_git_would(
    tmp_path: Path, kb: Path, config: str
) -> None:
    glob = Path(os.environ["GIT_CONFIG_GLOBAL"])
    identity = "[user]\n\tname = Grace Hopper\n\temail = grace@example.com\n"
    if config == "include":
        (tmp_path / "who.gitconfig").write_text(identity, encoding="utf-8")
        identity = f"[include]\n\tpath = {tmp_path / 'who.gitconfig'}\n"
    glob.write_text(glob.read_text(encoding="utf-8") + identity, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_AUTHOR", "GIT_COMM"))}
    cmd = [sys.executable, "-c", PROBE, "--kb", str(kb), "add", "--title", "Who wrote this"]
    proc = subprocess.run(
        [*cmd, "--confidence", "high", "--insight", "x"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    modules = set(proc.stderr.partition("\n--modules--\n")[2].split())
    log = subprocess.run(
        ["git", "log", "-1", "--format=%an <%ae>|%cn <%ce>|%s"],
        cwd=kb,
        env=env,
        capture_output=True,
        text=True,
    )
    ident = subprocess.run(
        ["git", "var", "GIT_AUTHOR_IDENT"], cwd=kb, env=env, capture_output=True, text=True
    )
    who = ident.stdout.rsplit(" ", 2)[0]
    assert who == "Grace Hopper <grace@example.com>"
    author, committer, subject = log.stdout.strip().split("|")
    assert author == committer == who and "Who wrote this" in subject
    assert ("dulwich.config" in modules) == (config == "include")
