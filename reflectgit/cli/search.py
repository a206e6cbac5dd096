"""Search commands: search, recall, reindex.

The plain forms of ``search`` usually run in ``fastpath`` without typer; this command is the
same search with every option, and prints through the same ``render.search_hits``.
"""

from __future__ import annotations

import typer

from reflectgit.cli import render
from reflectgit.cli.options import RECALL_LIMIT, SEARCH_LIMIT, globals_of

commands = typer.Typer()


@commands.command("search")
def search_cmd(
    ctx: typer.Context,
    query: list[str] = typer.Argument(  # noqa: B008 - typer declares options this way
        ..., help="Words to look for (any punctuation is fine)."
    ),
    limit: int = typer.Option(SEARCH_LIMIT, "--limit", "-n", help="At most this many notes."),
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
    from reflectgit.workflows.search.index import search
    from reflectgit.workflows.search.results import result_json

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
        )
    finally:
        bar.close()
    doc = result_json(result)
    lines = render.search_hits(result, include_all)
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
    limit: int = typer.Option(RECALL_LIMIT, "--limit", "-n", help="At most this many notes."),
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
) -> None:
    """What an agent should know at session start in this project."""
    from reflectgit.cli.bodies import recall_notes  # the body the fast path runs too

    recall_notes(ctx, project, limit, fmt, budget, everywhere, as_of, domain)


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
