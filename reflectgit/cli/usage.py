"""The root help page (``reflect-git``, ``--help``, ``-h``) from the command registry alone.

Listing the commands used to import typer (about 35 ms) and every command module (about
40 ms more) only to read their names and summaries. ``app.GROUPS`` keeps each command's
summary, so the page is laid out here by click's own help formatter (the one typer uses when
``rich_markup_mode`` is None), over the same words and the same global options
(``options.GLOBAL_OPTIONS`` / ``GLOBAL_HELP``). tests/test_cli_registry.py proves the page is,
byte for byte, the one typer prints, at several terminal widths. When a registry line gives no
summary, ``page`` returns None and typer prints the page as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reflectgit.cli.options import GLOBAL_HELP, GLOBAL_OPTIONS, HELP_OPTIONS, VERSION_OPTION

# The two options typer adds with `add_completion=True`, in its own words.
COMPLETION_OPTIONS = (
    ("--install-completion", "Install completion for the current shell."),
    ("--show-completion", "Show completion for the current shell, to copy it or customize the installation."),
)  # fmt: skip


def page(prog: str, help_text: str, commands: Mapping[str, str]) -> str | None:
    """The help page typer would print for the root, or None when a summary is missing."""
    if not all(commands.values()):
        return None
    import click

    class Listed(click.Group):
        def list_commands(self, ctx: Any) -> list[str]:
            return list(self.commands)  # the registry's order, as typer keeps it

    flags: dict[str, list[str]] = {}
    for flag, (field, _takes_value) in GLOBAL_OPTIONS.items():
        flags.setdefault(field, []).append(flag)
    params: list[Any] = [
        click.Option(names, is_flag=not GLOBAL_OPTIONS[names[0]][1], help=GLOBAL_HELP[field])
        for field, names in flags.items()
    ]
    params.append(click.Option([VERSION_OPTION], is_flag=True, help=GLOBAL_HELP["version"]))
    params += [click.Option([flag], is_flag=True, help=text) for flag, text in COMPLETION_OPTIONS]
    group = Listed(
        prog,
        commands={word: click.Command(word, help=summary) for word, summary in commands.items()},
        params=params,
        help=help_text,
        context_settings={"help_option_names": list(HELP_OPTIONS)},
    )
    with click.Context(group, info_name=prog, help_option_names=list(HELP_OPTIONS)) as ctx:
        return ctx.get_help()
