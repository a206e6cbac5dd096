"""`reflect-git serve`: the local web UI. The web framework is imported only here, inside the
command, so no other command pays for it."""

import typer

from reflectgit.cli import render
from reflectgit.cli.options import globals_of, kb_folder

commands = typer.Typer()


@commands.command("serve")
def serve_cmd(
    ctx: typer.Context,
    port: int = typer.Option(8484, "--port", min=0, max=65535, help="The port (0: a free one)."),
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on."),
    read_only: bool = typer.Option(False, "--read-only", help="Browse only: no actions."),
    open_browser: bool = typer.Option(False, "--open", help="Open the UI in a browser."),
    repo: str | None = typer.Option(
        None,
        "--repo",
        help="A code repository: label notes whose anchored code moved on (default: the "
        "current folder's repository).",
    ),
) -> None:
    """A local web UI for the KB, its history and team review (Ctrl-C stops it)."""
    from reflectgit.installation import require

    require("serve", "serve")
    from reflectgit.web.server import bind, serve

    cfg = globals_of(ctx).config()
    kb_folder(ctx)  # a clear error when there is no KB
    bound = bind(host, port)

    def started() -> None:
        render.write_lines(render.serve_banner(bound.url, str(cfg.kb), read_only, bound.loopback))
        if open_browser:
            import webbrowser

            webbrowser.open(bound.url)

    import os
    from pathlib import Path

    from reflectgit.config import current_folder

    code = Path(os.path.expanduser(repo)).absolute() if repo else current_folder()
    serve(cfg, bound, read_only=read_only, on_started=started, code=code)
    render.write_lines(["reflect-git serve: stopped"])
