"""The folders are the layers: this test walks every module's imports and keeps the arrows one way.

Rules (docs/architecture.md explains them):

1. A module imports only its own package and the layers below it (``LAYERS``, top to bottom;
   packages that share a row are peers and do not import each other). Every import counts:
   top-level, inside functions, under ``if TYPE_CHECKING:``, and ``importlib.import_module("...")``.
2. Only ``reflectgit/git/`` touches git: imports dulwich or GitPython, starts ``git`` (a
   subprocess whose argv is ``git ...``, or any ``["git", ...]`` argv, or ``shutil.which("git")``),
   or builds a path into ``.git``. Inside ``git/``, only ``run.py`` starts processes (the one
   runner, the one environment policy).
3. Only ``reflectgit/cli/`` imports typer or click; only ``reflectgit/mcpserver/`` imports the MCP
   SDK (``mcp``, ``mcp_types``), so no other command pays for it at start-up.
4. ``reflectgit/notes/`` does no I/O: no file, process, socket or database modules, no ``open``,
   no path method that touches the disk (reading the package's own schemas through
   ``importlib.resources`` is allowed: that is part of the code, like an import).

The checker is a plain function over (module path, source), so the self-checks below feed it
synthetic modules that break each rule and prove it fails.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import reflectgit

PACKAGE = Path(reflectgit.__file__).parent

# Top to bottom. A module may import its own package and any package on a lower row.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),  # `python -m reflectgit` and the console script: raise SystemExit(main())
    ("cli",),  # the interface for people: the only typer import
    ("web",),  # the web interface (`reflect-git serve`): the only web framework import
    # interfaces for machines (peers): git, pre-commit and agent harnesses (hooks); agents over
    # MCP (mcpserver, which `reflect-git mcp` in cli/ starts)
    ("hooks", "mcpserver"),
    ("workflows",),  # orchestration: KB operations, capture, drain, search, routing
    ("forge",),  # pull requests on a forge; borrows git's credential helpers from git/
    ("git", "state"),  # the repository; the state directory (peers: neither imports the other)
    ("notes",),  # the domain, pure
    # where things are and how they are set; how this reflect-git is installed (peers)
    ("config", "installation"),
    (
        "errors",
        "jsonio",
        "backoff",
        "location",
        "flock",
        "__init__",
    ),  # errors; JSON; retry pauses; where the KB's state is (read by every hook); the root
)
RANK = {name: rank for rank, row in enumerate(LAYERS) for name in row}

GIT_LIBRARIES = {"dulwich", "git", "gitdb", "pygit2"}
UI_LIBRARIES = {"typer", "click", "rich"}
MCP_LIBRARIES = {"mcp", "mcp_types"}
# The web framework of `reflect-git serve`: only reflectgit/web/ imports it.
WEB_LIBRARIES = {"starlette", "uvicorn", "jinja2", "markupsafe"}
# Parsers any layer may import where it reads (never on a hook's path): CommonMark.
PARSER_LIBRARIES = {"markdown_it"}
IO_MODULES = {
    "os",
    "io",
    "shutil",
    "subprocess",
    "sqlite3",
    "tempfile",
    "socket",
    "urllib",
    "http",
    "fcntl",
    "glob",
    "mmap",
}
IO_METHODS = {
    "open",
    "read_text",
    "read_bytes",
    "write_text",
    "write_bytes",
    "mkdir",
    "unlink",
    "rmdir",
    "iterdir",
    "glob",
    "rglob",
    "exists",
    "is_file",
    "is_dir",
    "is_symlink",
    "stat",
    "lstat",
    "touch",
    "chmod",
    "symlink_to",
    "samefile",
    "resolve",
    "expanduser",
}
SPAWNERS = {
    ("subprocess", "run"),
    ("subprocess", "Popen"),
    ("subprocess", "call"),
    ("subprocess", "check_call"),
    ("subprocess", "check_output"),
    ("subprocess", "getoutput"),
    ("subprocess", "getstatusoutput"),
    ("os", "system"),
    ("os", "popen"),
    ("os", "posix_spawn"),
    ("os", "posix_spawnp"),
    ("asyncio", "create_subprocess_exec"),
    ("asyncio", "create_subprocess_shell"),
}

# Each exception names one function and one rule, and says why. The self-check below fails
# when an exception is no longer needed, so the list can only shrink.
EXCEPTIONS: dict[tuple[str, str, str], str] = {
    ("location.py", "git_dir", "git-path"): (
        "the default state directory is <git dir>/reflect-git; finding the git directory of a "
        "linked worktree or submodule means reading its .git file. location is below git (git "
        "imports config, which reads it), so this one lookup stays here and git/repo_info.py "
        "reuses it"
    ),
}


@dataclass(frozen=True)
class Finding:
    module: str  # path relative to reflectgit/, e.g. "workflows/recall.py"
    line: int
    rule: str  # "layer", "git-import", "git-run", "git-runner", "git-path", "ui-import",
    # "mcp-import", "notes-io"
    function: str  # the enclosing function ("" at module level)
    detail: str

    def __str__(self) -> str:
        where = f" in {self.function}()" if self.function else ""
        return f"reflectgit/{self.module}:{self.line}{where}: {self.rule}: {self.detail}"


def layer_of(module: str) -> str:
    """``workflows/kb/core.py`` -> ``workflows``; ``config.py`` -> ``config``."""
    first = module.split("/", 1)[0]
    return first[: -len(".py")] if first.endswith(".py") else first


def _package_of(module: str) -> list[str]:
    """The package a module's relative imports start from (``__init__.py`` is its own package)."""
    return ["reflectgit", *module[: -len(".py")].split("/")][:-1]


def _imported(module: str, tree: ast.AST) -> list[tuple[ast.AST, str]]:
    """Every module name the source imports (absolute), with the node that does it."""
    out: list[tuple[ast.AST, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = _package_of(module)
                pkg = pkg[: len(pkg) - (node.level - 1)] if node.level > 1 else pkg
                base = ".".join([*pkg, base] if base else pkg)
            out.append((node, base))
            # `from reflectgit import cli` imports the subpackage reflectgit.cli.
            out += [(node, f"{base}.{alias.name}") for alias in node.names if base == "reflectgit"]
        elif (
            isinstance(node, ast.Call)
            and _dotted(node.func) in {"importlib.import_module", "import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append((node, node.args[0].value))
    return out


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _root_call(node: ast.AST) -> str:
    """The dotted name a call chain starts from: ``resources.files(...).joinpath(...)`` -> ``resources.files``."""
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Call | ast.Attribute):
                node = node.value
            else:
                return _dotted(node)
        else:
            return _dotted(node)


def _is_git_word(node: ast.AST) -> bool:
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return False
    return node.value == "git" or node.value.endswith("/git")


# Files and folders inside a git directory: joining one onto a path reads git's own data.
GIT_DIR_ENTRIES = {"HEAD", "ORIG_HEAD", "FETCH_HEAD", "commondir", "gitdir", "packed-refs"}
GIT_DIR_ENTRIES |= {"index.lock", "objects", "refs"}


def _is_dot_git(node: ast.AST) -> bool:
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        return False
    v = node.value
    return (
        v == ".git"
        or v.startswith((".git/", "refs/", "objects/"))
        or "/.git/" in v
        or v.endswith("/.git")
        or v in GIT_DIR_ENTRIES
    )


def _functions(tree: ast.AST) -> dict[ast.AST, str]:
    """Each node -> the name of the function it sits in (innermost)."""
    owner: dict[ast.AST, str] = {}

    def visit(node: ast.AST, name: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = (
                child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else name
            )
            owner[child] = inner
            visit(child, inner)

    visit(tree, "")
    return owner


def check_source(module: str, source: str) -> list[Finding]:
    """Every rule this module breaks. ``module`` is its path under reflectgit/."""
    tree = ast.parse(source, filename=module)
    owner = _functions(tree)
    layer = layer_of(module)
    in_git = layer == "git"
    found: list[Finding] = []

    def add(node: ast.AST, rule: str, detail: str) -> None:
        found.append(Finding(module, getattr(node, "lineno", 0), rule, owner.get(node, ""), detail))

    for node, name in _imported(module, tree):
        top = name.split(".", 1)[0]
        if top == "reflectgit":
            parts = name.split(".")
            target = parts[1] if len(parts) > 1 else "__init__"
            if target not in RANK:
                target = "__init__"  # `from reflectgit import __version__`
            if target != layer and RANK.get(target, 99) <= RANK.get(layer, -1):
                add(node, "layer", f"{layer} imports {name} ({target} is not below {layer})")
        elif top in GIT_LIBRARIES and not in_git:
            add(node, "git-import", f"imports {name}; only reflectgit/git/ may")
        elif top in UI_LIBRARIES and layer != "cli":
            add(node, "ui-import", f"imports {name}; only reflectgit/cli/ may")
        elif top in MCP_LIBRARIES and layer != "mcpserver":
            add(node, "mcp-import", f"imports {name}; only reflectgit/mcpserver/ may")
        elif top in WEB_LIBRARIES and layer != "web":
            add(node, "web-import", f"imports {name}; only reflectgit/web/ may")
        if layer == "notes" and top in IO_MODULES:
            add(node, "notes-io", f"imports {name}; notes/ does no I/O")

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            args = list(node.args) + [k.value for k in node.keywords if k.arg == "args"]
            first = args[0] if args else None
            spawner = tuple(name.rsplit(".", 1)) in SPAWNERS or name.split(".")[-1] in {
                "Popen",
                "check_output",
                "system",
            }
            if in_git and spawner and module != "git/run.py":
                add(node, "git-runner", f"{name}(); only git/run.py starts processes")
            if not in_git and first is not None:
                if spawner and (
                    (
                        isinstance(first, ast.List | ast.Tuple)
                        and first.elts
                        and _is_git_word(first.elts[0])
                    )
                    or (
                        isinstance(first, ast.Constant)
                        and isinstance(first.value, str)
                        and (first.value == "git" or first.value.startswith("git "))
                    )
                ):
                    add(node, "git-run", f"{name}() starts git; ask reflectgit.git instead")
                if name in {"shutil.which", "which"} and _is_git_word(first):
                    add(node, "git-run", "looks git up to run it; ask reflectgit.git instead")
                if name.split(".")[-1] in {"Path", "join", "joinpath", "open", "PurePath"} and any(
                    _is_dot_git(a) for a in args
                ):
                    add(node, "git-path", f"{name}() builds a path into .git")
            if layer == "notes":
                if name in {"open", "io.open"}:
                    add(node, "notes-io", f"calls {name}(); notes/ does no I/O")
                elif (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr in IO_METHODS
                    and _root_call(node.func)
                    not in {"resources.files", "importlib.resources.files"}
                ):
                    add(node, "notes-io", f"calls .{node.func.attr}(); notes/ does no I/O")
        elif isinstance(node, ast.List | ast.Tuple):
            if not in_git and len(node.elts) > 1 and _is_git_word(node.elts[0]):
                add(node, "git-run", "builds a git argv; ask reflectgit.git instead")
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and not in_git
            and (_is_dot_git(node.left) or _is_dot_git(node.right))
        ):
            add(node, "git-path", "builds a path into .git; ask reflectgit.git instead")
    return found


def package_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def tree_findings() -> list[Finding]:
    out: list[Finding] = []
    for path in package_modules():
        module = path.relative_to(PACKAGE).as_posix()
        out += check_source(module, path.read_text(encoding="utf-8"))
    return out


def _excepted(f: Finding) -> bool:
    return (f.module, f.function, f.rule) in EXCEPTIONS


# --------------------------------------------------------------------------- the tree


def test_every_module_is_in_a_layer() -> None:
    unknown = sorted(
        {layer_of(p.relative_to(PACKAGE).as_posix()) for p in package_modules()} - set(RANK)
    )
    assert unknown == [], f"add these packages to LAYERS: {unknown}"


def test_the_tree_keeps_the_rules() -> None:
    broken = [str(f) for f in tree_findings() if not _excepted(f)]
    assert broken == [], "\n".join(broken)


def test_every_exception_is_still_needed() -> None:
    used = {(f.module, f.function, f.rule) for f in tree_findings()}
    stale = sorted(set(EXCEPTIONS) - used)
    assert stale == [], f"remove these from EXCEPTIONS: {stale}"


def test_the_checker_sees_the_real_tree() -> None:
    """It found imports at all (a checker that parses nothing passes everything)."""
    cli_kb = (PACKAGE / "cli" / "kb.py").read_text(encoding="utf-8")
    names = {name for _node, name in _imported("cli/kb.py", ast.parse(cli_kb))}
    assert "typer" in names
    assert any(n.startswith("reflectgit.workflows.kb") for n in names)


# --------------------------------------------------------------------------- the checker can fail


def rules(module: str, source: str) -> set[str]:
    return {f.rule for f in check_source(module, source)}


@pytest.mark.parametrize(
    ("module", "source", "rule"),
    [
        # layers: top-level, inside a function, under TYPE_CHECKING, relative, importlib
        ("notes/x.py", "from reflectgit.workflows import kb\n", "layer"),
        ("git/x.py", "def f():\n    from reflectgit.workflows.kb import core\n", "layer"),
        (
            "state/x.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from reflectgit.cli import app\n",
            "layer",
        ),
        ("state/x.py", "from reflectgit.git import store\n", "layer"),  # peers
        ("git/x.py", "import reflectgit.state.queue\n", "layer"),
        ("notes/x.py", "from ..git import store\n", "layer"),
        ("workflows/kb/x.py", "from ...hooks import agent\n", "layer"),
        (
            "config.py",
            "import importlib\nimportlib.import_module('reflectgit.notes.note')\n",
            "layer",
        ),
        ("errors.py", "from reflectgit import config\n", "layer"),
        # git
        ("workflows/x.py", "import dulwich.objects\n", "git-import"),
        ("workflows/x.py", "def f():\n    import git\n", "git-import"),
        ("forge/x.py", "from git import Repo\n", "git-import"),
        ("workflows/x.py", "import subprocess\nsubprocess.run(['git', 'status'])\n", "git-run"),
        ("hooks/x.py", "import subprocess as sp\nsp.Popen(('git', 'log'))\n", "git-run"),
        ("workflows/x.py", "import os\nos.system('git gc')\n", "git-run"),
        ("workflows/x.py", "cmd = ['git', f'--git-dir={d}', 'diff-tree']\n", "git-run"),
        ("forge/x.py", "import shutil\nshutil.which('git')\n", "git-run"),
        ("git/x.py", "import subprocess\nsubprocess.run(['git', 'gc'])\n", "git-runner"),
        (
            "git/x.py",
            "import os\nos.posix_spawn('/usr/bin/git', ['git', 'gc'], {})\n",
            "git-runner",
        ),
        ("workflows/x.py", "head = (kb / '.git' / 'HEAD').read_text()\n", "git-path"),
        ("workflows/x.py", "import os\nos.path.join(kb, '.git', 'refs')\n", "git-path"),
        ("workflows/x.py", "from pathlib import Path\nPath(kb, '.git/HEAD')\n", "git-path"),
        ("workflows/x.py", "sha = (git_dir / 'refs/heads/main').read_text()\n", "git-path"),
        ("workflows/x.py", "head = (git_dir / 'HEAD').read_text()\n", "git-path"),
        # ui
        ("workflows/x.py", "import typer\n", "ui-import"),
        ("hooks/x.py", "def f():\n    from click import echo\n", "ui-import"),
        ("mcpserver/x.py", "import typer\n", "ui-import"),
        # the MCP SDK: only mcpserver/, which calls workflows and never the layers above it
        ("cli/x.py", "def f():\n    from mcp.server.lowlevel import Server\n", "mcp-import"),
        ("workflows/x.py", "import mcp_types\n", "mcp-import"),
        ("mcpserver/x.py", "from reflectgit.cli import render\n", "layer"),
        ("mcpserver/x.py", "from reflectgit.hooks import agent\n", "layer"),  # peers
        ("workflows/x.py", "from reflectgit.mcpserver import tools\n", "layer"),
        ("web/x.py", "import typer\n", "ui-import"),
        ("cli/x.py", "def f():\n    import uvicorn\n", "web-import"),
        ("workflows/x.py", "from starlette.applications import Starlette\n", "web-import"),
        ("web/x.py", "from reflectgit.cli import render\n", "layer"),
        # notes do no I/O
        ("notes/x.py", "data = open(p).read()\n", "notes-io"),
        ("notes/x.py", "import sqlite3\n", "notes-io"),
        ("notes/x.py", "def f():\n    import subprocess\n", "notes-io"),
        ("notes/x.py", "from pathlib import Path\nPath(p).read_bytes()\n", "notes-io"),
        ("notes/x.py", "def f(p):\n    return p.exists()\n", "notes-io"),
    ],
)
def test_the_checker_catches(module: str, source: str, rule: str) -> None:
    assert rule in rules(module, source)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("cli/x.py", "import typer\nfrom reflectgit.workflows.kb import core\n"),
        ("cli/x.py", "def f():\n    from reflectgit.mcpserver.server import serve\n"),
        (
            "mcpserver/x.py",
            "import mcp_types\nfrom mcp.server.lowlevel import Server\n"
            "from reflectgit.workflows.kb import KnowledgeBase\n",
        ),
        ("cli/x.py", "def f():\n    from reflectgit.web.server import serve\n"),
        ("web/x.py", "import uvicorn\nfrom reflectgit.workflows import review\n"),
        ("workflows/x.py", "from reflectgit.git.run import run\nrun(['status'])\n"),
        ("workflows/kb/x.py", "from reflectgit.workflows.kb import core\nfrom . import core\n"),
        ("git/run.py", "import dulwich\nimport subprocess\nsubprocess.run(['git', 'gc'])\n"),
        ("git/x.py", "head = (kb / '.git' / 'HEAD').read_text()\n"),
        ("forge/x.py", "from reflectgit.git.credential import fill\n"),
        ("forge/x.py", "url = 'https://h/o/r.git'\nurl.endswith('.git')\n"),
        (
            "notes/x.py",
            "from importlib import resources\n"
            "resources.files('reflectgit').joinpath('schemas').joinpath('x').read_text()\n",
        ),
        (
            "notes/x.py",
            "from pathlib import PurePosixPath\nPurePosixPath(p).name\ns.replace('a', 'b')\n",
        ),
        (
            "notes/x.py",
            "from reflectgit import __version__\nfrom reflectgit.errors import NoteError\n",
        ),
        ("workflows/x.py", "hint = 'remove .git/index.lock by hand'\n"),
    ],
)
def test_the_checker_allows(module: str, source: str) -> None:
    assert check_source(module, source) == []


def test_a_violating_module_in_the_tree_fails_the_tree_test(tmp_path: Path) -> None:
    """End to end: the same walk over a copy of the package with one bad module added fails."""
    import shutil

    copy = tmp_path / "reflectgit"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "notes" / "sneaky.py").write_text(
        "def later():\n    from reflectgit.workflows.kb import core\n    return core\n",
        encoding="utf-8",
    )
    bad = []
    for path in sorted(copy.rglob("*.py")):
        module = path.relative_to(copy).as_posix()
        bad += [f for f in check_source(module, path.read_text("utf-8")) if not _excepted(f)]
    assert [(f.module, f.rule, f.function) for f in bad] == [("notes/sneaky.py", "layer", "later")]


# --------------------------------------------------------------------------- what an entry imports


def _modules_after(code: str, cwd: Path) -> list[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, check=True
    )
    loaded: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return loaded


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    code = (
        "import contextlib, io\n"
        "from reflectgit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main(['--kb', {str(tmp_path / 'kb')!r}, 'list'])\n"
    )
    cli = {m for m in _modules_after(code, tmp_path) if m.startswith("reflectgit.cli.")}
    assert cli == {
        "reflectgit.cli.app",
        "reflectgit.cli.kb",
        "reflectgit.cli.options",
        "reflectgit.cli.render",
    }


def test_the_hook_entry_points_import_no_cli_framework(tmp_path: Path) -> None:
    """``reflect-git-hook``, ``reflect-git-session-start``, ``reflect-git-validate``,
    ``reflect-git-check`` and the git shims' ``python -m reflectgit.hooks.capture`` are entry
    points of their own, without typer."""
    code = (
        "import reflectgit.hooks.agent, reflectgit.hooks.validate, reflectgit.hooks.check\n"
        "import reflectgit.hooks.capture, reflectgit.hooks.sessionstart, reflectgit.cli\n"
    )
    heavy = sorted(
        m
        for m in _modules_after(code, tmp_path)
        if m.split(".")[0] in UI_LIBRARIES | WEB_LIBRARIES | PARSER_LIBRARIES
    )
    assert heavy == []


@pytest.mark.parametrize("command", ["list", "search", "mcp"])
def test_only_the_mcp_command_imports_the_sdk(tmp_path: Path, command: str) -> None:
    """``reflect-git mcp --help`` loads the SDK's package (the command is there) but not the SDK;
    other commands do not even load the mcp command's module."""
    code = (
        "import contextlib, io\n"
        "from reflectgit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main(['--kb', {str(tmp_path / 'kb')!r}, {command!r}, '--help'])\n"
    )
    loaded = _modules_after(code, tmp_path)
    sdk = sorted(m for m in loaded if m.split(".")[0] in MCP_LIBRARIES or "mcpserver" in m)
    assert sdk == []
    assert ("reflectgit.cli.mcp" in loaded) == (command == "mcp")
