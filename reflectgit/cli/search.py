"""Search commands: search, recall, reindex."""

from __future__ import annotations

from typing import Any

import typer

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of, own_command
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
    from pathlib import Path

    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.recall import (
        FORMATS,
        HOOK_FORMATS,
        SHOW_HINT,
        RecallResult,
        recall,
    )
    from reflectgit.workflows.recall import render as render_recall
    from reflectgit.workflows.search.synonyms import SynonymTableError

    if fmt not in FORMATS:
        fail(
            f"unknown format {fmt!r}",
            hint="use --format text, claude, codex or copilot",
            code=EXIT_USAGE,
        )
    g = globals_of(ctx)
    cfg = g.config()
    hook = fmt in HOOK_FORMATS
    if hook and cfg.disabled:  # REFLECT_DISABLED=1: a SessionStart hook hands over nothing
        if g.json:
            render.write_json({"disabled": True, "notes": []})
        return
    size = cfg.recall_budget(budget)
    # An agent is told how to print a note in full: a command line that runs here, with the KB
    # named (its PATH and its folder may not find ours), or the MCP server's tool.
    show_hint = SHOW_HINT
    if hook or mcp:
        show_hint = render.recall_show_hint(mcp, own_command(), cfg.kb)
    expansions: list[Any] = []  # what the model added ([recall] expand; never for a hook)

    def related(text: str) -> list[str]:
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

    def run(synonyms_file: str | None) -> RecallResult:
        return recall(
            cfg.kb,
            cfg.state_dir,
            Path.cwd(),
            project=project,
            limit=limit,
            budget=size,
            env=cfg.env,
            everywhere=everywhere,
            as_of=as_of,
            domain=domain,
            progress=None if hook else bar,
            related=related if cfg.search.recall_expand and not hook else None,
            synonyms_file=synonyms_file,
            show_hint=show_hint,
        )

    try:
        try:
            result = run(cfg.search.synonyms)
        except SynonymTableError as exc:
            if not hook:
                raise
            # A broken synonyms.txt must not cost the session its notes: the shipped table.
            render.echo(f"reflect-git recall: {exc.message} (the shipped table used)", err=True)
            result = run(None)
    except ReflectGitError as exc:
        if not hook:
            raise
        # As a SessionStart hook, recall must never fail the session: say why on stderr only.
        render.echo(f"reflect-git recall: {exc.message}", err=True)
        return
    finally:
        bar.close()
    for line in result.withheld_lines():  # the person hears of them; the agent never does
        with contextlib.suppress(OSError):  # a hook's closed stderr never fails the session
            render.echo(f"reflect-git recall: {line}" if line[0] != " " else line, err=True)
    if hook and not g.json:
        # The hook's JSON is the whole point of this format: print it even with --quiet.
        render.echo(render_recall(result, fmt))
        return
    doc, text = result.to_json(), render_recall(result, fmt)
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
