"""Search commands: search, recall, reindex."""

from typing import Any

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of
from reflectgit.errors import EXIT_USAGE

commands = typer.Typer()


@commands.command("search")
def search_cmd(
    ctx: typer.Context,
    query: list[str] = typer.Argument(  # noqa: B008 - typer declares options this way
        ..., help="Words to look for (any punctuation is fine)."
    ),
    limit: int = typer.Option(10, "--limit", "-n", help="At most this many notes."),
    include_all: bool = typer.Option(
        False, "--all", help="Also superseded, archived, forgotten and retired notes."
    ),
    tag: str | None = typer.Option(None, "--tag", help="Only notes with this tag."),
    confidence: str | None = typer.Option(
        None, "--confidence", help="Only notes of this tier (high, medium, low)."
    ),
    at: str | None = typer.Option(
        None, "--at", help="Search the KB as it was at a revision, or a date (YYYY-MM-DD)."
    ),
    as_of: str | None = typer.Option(
        None, "--as-of", help="Match sidecar edges valid at this date (default: now)."
    ),
    expand: bool = typer.Option(
        False,
        "--expand",
        help="Ask the drain's model once for related terms (cached); needs a model command.",
    ),
) -> None:
    """Ranked notes: text relevance, then confidence and proof count; live ones unless --all."""
    from reflectgit.config import current_folder
    from reflectgit.workflows.search.index import search
    from reflectgit.workflows.search.results import hit_lines, result_json

    g = globals_of(ctx)
    cfg = g.config()
    text = " ".join(query)
    expansion = None
    if expand:
        from reflectgit.workflows.search.expand import related_terms

        expansion = related_terms(
            text, cfg.writer, cfg.state_dir, cfg.env, cfg.search.expand_timeout
        )
    bar = render.ProgressBar.for_ctx(ctx, "indexing")  # a first search of a big KB builds
    try:
        result = search(
            cfg.kb,
            cfg.state_dir,
            text,
            limit=limit,
            include_all=include_all,
            tag=tag,
            confidence=confidence,
            at=at,
            as_of=as_of,
            explain=g.json,
            env=cfg.env,
            synonyms_file=cfg.search.synonyms,
            related=expansion.terms if expansion else (),
            progress=bar,
            code=None if at else current_folder(),
        )
    finally:
        bar.close()
    doc = result_json(result)
    lines = hit_lines(result, include_all)
    if expansion is not None:
        doc["expansion"] = expansion.to_json()
        lines = [render.expansion_line(expansion), *lines]
    render.emit(ctx, doc, lines)


@commands.command("recall")
def recall_cmd(
    ctx: typer.Context,
    project: str | None = typer.Option(
        None, "--project", help="The project name (default: this repository's name)."
    ),
    limit: int = typer.Option(5, "--limit", "-n", help="At most this many notes."),
    fmt: str = typer.Option(
        "text",
        "--format",
        help="text, or a SessionStart hook's JSON: claude, codex or copilot.",
    ),
    budget: int | None = typer.Option(
        None,
        "--budget",
        help="At most this many characters (default REFLECT_RECALL_BUDGET or 4000).",
    ),
    everywhere: bool = typer.Option(
        False,
        "--global",
        help="Also notes of other projects and branches, ranked below this one's.",
    ),
    as_of: str | None = typer.Option(
        None, "--as-of", help="Count sidecar edges valid at this date (default: now)."
    ),
    domain: str | None = typer.Option(
        None, "--domain", "--domain-hint", help="Favour imported fleet notes of this domain."
    ),
    mcp: bool = typer.Option(
        False,
        "--mcp",
        help="The agent has the reflect-git MCP server: name its show tool, not a command line.",
    ),
) -> None:
    """What an agent should know at session start in this project."""
    import contextlib
    import sys
    from pathlib import Path

    from reflectgit.workflows import recall as recalling

    if fmt not in recalling.FORMATS:
        fail(
            f"unknown format {fmt!r}",
            hint="use --format text, claude, codex or copilot",
            code=EXIT_USAGE,
        )
    g = globals_of(ctx)
    cfg = g.config()
    options: dict[str, Any] = {
        "project": project,
        "limit": limit,
        "budget": cfg.recall_budget(budget),
        "everywhere": everywhere,
        "as_of": as_of,
        "domain": domain,
    }
    if fmt in recalling.HOOK_FORMATS:  # a SessionStart hook's (an older install's command)
        if cfg.disabled:  # REFLECT_DISABLED=1: a SessionStart hook hands over nothing
            if g.json:
                render.write_json({"disabled": True, "notes": []})
            return
        # An agent is told how to print a note in full: a command line that runs here, with
        # the KB named, or the MCP server's tool.
        hint = recalling.show_hint(mcp, cfg.kb, sys.argv[0] if sys.argv else "", sys.executable)
        said = recalling.session_recall(cfg, Path.cwd(), hint, **options)
        for line in said.messages:
            with contextlib.suppress(OSError):  # a hook's closed stderr never fails the session
                render.echo(line, err=True)
        if said.result is None:
            return
        if not g.json:  # the hook's JSON is the whole point of this format: even with --quiet
            render.echo(recalling.render(said.result, fmt))
            return
        render.emit(ctx, said.result.to_json(), recalling.render(said.result, fmt))
        return
    hint = recalling.show_hint(True, cfg.kb, "", "") if mcp else recalling.SHOW_HINT
    expansions: list[Any] = []  # what the model added ([recall] expand)

    def related(text: str) -> list[str]:
        from reflectgit.errors import ReflectGitError
        from reflectgit.workflows.search.expand import Expansion, related_terms

        try:
            found = related_terms(
                text, cfg.writer, cfg.state_dir, cfg.env, cfg.search.expand_timeout
            )
        except ReflectGitError as exc:  # no model command: recall never needs one
            found = Expansion(error=exc.message)
        expansions.append(found)
        return found.terms

    bar = render.ProgressBar.for_ctx(ctx, "indexing")
    try:
        result = recalling.recall(
            cfg.kb,
            cfg.state_dir,
            Path.cwd(),
            env=cfg.env,
            progress=bar,
            related=related if cfg.search.recall_expand else None,
            synonyms_file=cfg.search.synonyms,
            show_hint=hint,
            **options,
        )
    finally:
        bar.close()
    for line in result.withheld_lines():  # the person hears of them; the agent never does
        render.echo(line, err=True)
    doc, text = result.to_json(), recalling.render(result, fmt)
    if expansions:
        doc["expansion"] = expansions[0].to_json()
        text = render.expansion_line(expansions[0]) + "\n" + text
    render.emit(ctx, doc, text)


@commands.command("reindex")
def reindex_cmd(
    ctx: typer.Context,
    force: bool = typer.Option(False, "--force", help="Rebuild from scratch."),
) -> None:
    """Bring the derived search index up to date (incremental unless --force)."""
    from reflectgit.workflows.search.index import reindex

    g = globals_of(ctx)
    cfg = g.config()
    bar = render.ProgressBar.for_ctx(ctx, "indexing")
    try:
        result = reindex(cfg.kb, cfg.state_dir, force=force, env=cfg.env, progress=bar)
    finally:
        bar.close()
    render.emit(ctx, result.to_json, render.reindexed(result))
