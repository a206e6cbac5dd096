"""``reflect-git mcp``: serve the KB to agents over MCP (stdio).

The SDK is imported inside the command, so every other command starts as fast as before.
"""

from pathlib import Path

import typer

from reflectgit.cli.options import globals_of

commands = typer.Typer()


@commands.command("mcp")
def mcp_cmd(ctx: typer.Context) -> None:
    """Serve search, recall, show, add, confirm, update, supersede, archive and review_list
    over MCP on stdin/stdout."""
    from reflectgit.installation import require

    require("mcp", "mcp")
    from reflectgit.mcpserver.server import serve

    serve(globals_of(ctx).config(), Path.cwd())
