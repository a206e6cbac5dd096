"""``reflect-git config default-kb [PATH]``: the user's own settings (``config.toml`` in
``$XDG_CONFIG_HOME/reflect-git``), today the default KB."""

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail
from reflectgit.errors import EXIT_USAGE

commands = typer.Typer()

config_app = typer.Typer(
    help="Your own reflect-git settings (config.toml): the default KB.", no_args_is_help=True
)
commands.add_typer(config_app, name="config")


@config_app.command("default-kb")
def default_kb_cmd(
    ctx: typer.Context,
    path: str | None = typer.Argument(
        None, help="The KB to use outside any KB (default: show the one set)."
    ),
    unset: bool = typer.Option(False, "--unset", help="Forget the default KB."),
) -> None:
    """Show or set the KB commands use when neither --kb, REFLECT_GIT_KB nor the current
    folder names one."""
    import os
    from pathlib import Path

    from reflectgit.config import default_kb, environ, set_default_kb, user_config_path
    from reflectgit.git.repo_info import is_repository

    if unset and path:
        fail("give a PATH or --unset, not both", code=EXIT_USAGE)
    env = environ()
    where = user_config_path(env)
    kb: Path | None
    if unset:
        set_default_kb(env, None)
        kb, action = None, "unset"
    elif path is None:
        kb, action = default_kb(env), "show"
    else:
        kb, action = Path(os.path.expanduser(path)).absolute(), "set"
        set_default_kb(env, kb)
    exists = kb is not None and is_repository(kb)
    doc = {
        "default_kb": str(kb) if kb else None,
        "config": str(where),
        "action": action,
        "exists": exists,
    }
    render.emit(ctx, doc, render.default_kb_lines(kb, where, action))
    if kb is not None and not exists:
        render.note_line(ctx, render.no_kb_yet(kb))
