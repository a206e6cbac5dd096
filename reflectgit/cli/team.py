"""Team commands: team clone|sync|status, route, review list|show|approve|reject."""

from pathlib import Path

import typer

from reflectgit.cli import render
from reflectgit.cli.options import globals_of
from reflectgit.errors import ReflectGitError
from reflectgit.workflows import review_lines

commands = typer.Typer()
team_app = typer.Typer(help="Keep a clone of the team KB.", no_args_is_help=True)
review_app = typer.Typer(
    help="Review knowledge branches and their pull requests.", no_args_is_help=True
)
queue_app = typer.Typer(
    help="The low-confidence review queue in your KB.", invoke_without_command=True
)
commands.add_typer(team_app, name="team")
commands.add_typer(review_app, name="review")
review_app.add_typer(queue_app, name="queue")


@team_app.command("clone")
def team_clone_command(
    ctx: typer.Context,
    url: str = typer.Argument(..., help="The team KB's git URL."),
    path: str | None = typer.Option(None, "--path", help="Where to clone (default: <kb>-team)."),
) -> None:
    """Clone the team KB and record it in the KB's .reflect-git.toml."""
    from reflectgit.workflows import team

    result = team.clone(globals_of(ctx).config(), url, path)
    render.emit(ctx, result.to_json(), render.team_cloned(result))


@team_app.command("sync")
def team_sync_command(
    ctx: typer.Context,
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Fetch the team remote and fast-forward the local main when it is safe."""
    from reflectgit.workflows import team

    result = team.sync(globals_of(ctx).config(), team_path)
    render.emit(ctx, result.to_json(), render.team_synced(result))


@team_app.command("status")
def team_status_command(
    ctx: typer.Context,
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
    offline: bool = typer.Option(False, "--offline", help="Do not fetch first."),
) -> None:
    """The team remote, how local main compares, and the open knowledge branches."""
    from reflectgit.workflows import team

    result = team.status(globals_of(ctx).config(), team_path, fetch=not offline)
    render.emit(ctx, result.to_json(), render.team_status(result))


@team_app.command("guard")
def team_guard_command(
    ctx: typer.Context,
    uninstall: bool = typer.Option(False, "--uninstall", help="Remove the guard."),
) -> None:
    """Clone layout: a pre-push hook that refuses to publish unreviewed notes to team main."""
    from reflectgit.workflows import team

    result = team.guard(globals_of(ctx).config(), uninstall=uninstall)
    render.emit(ctx, result.to_json(), render.guarded(result))


@commands.command("route")
def route_command(
    ctx: typer.Context,
    target: str = typer.Argument(..., metavar="NOTE|ID", help="A note file or a note id."),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to route into."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would happen; do nothing."),
    force: bool = typer.Option(
        False, "--force", help="Replace a different note under the same id on the team's main."
    ),
    review: bool = typer.Option(
        False, "--review", help="Send a high note to a knowledge branch for review instead."
    ),
) -> None:
    """high: commit on the team's main and push; medium: knowledge/<slug> + draft PR; low: queue."""
    from reflectgit.errors import RemoteError
    from reflectgit.workflows import routing

    path = Path(target)
    if path.suffix == ".md" or path.exists():
        if not path.is_file():
            raise ReflectGitError(f"{target}: no such note file", hint="check the path")
        target = str(path.absolute())
    result = routing.route(
        globals_of(ctx).config(),
        target,
        team_path=team_path,
        dry_run=dry_run,
        force=force,
        review=review,
    )
    render.emit(ctx, result.to_json(), render.routed(result))
    if result.error:
        raise RemoteError(result.error, hint=result.hint)
    if result.pr_error:
        from reflectgit.errors import ForgeError

        raise ForgeError(result.pr_error, hint=result.pr_hint)


@review_app.command("list")
def review_list_command(
    ctx: typer.Context,
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Open knowledge branches: title, tier, age, PR, validation, unreviewed changes, near-duplicates."""
    from reflectgit.workflows import review

    items = review.list_branches(globals_of(ctx).config(), team_path)
    render.emit(ctx, [item.to_json() for item in items], review_lines.review_items(items))


@review_app.command("show")
def review_show_command(
    ctx: typer.Context,
    branch: str = typer.Argument(..., help="knowledge/<slug>"),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """One knowledge branch: its note, validation, unreviewed changes and near-duplicates."""
    from reflectgit.workflows import review

    item = review.show(globals_of(ctx).config(), branch, team_path)
    render.emit(ctx, item.to_json(full=True), review_lines.review_item(item, full=True))


@review_app.command("approve")
def review_approve_command(
    ctx: typer.Context,
    branch: str = typer.Argument(..., help="knowledge/<slug>"),
    accept: list[str] = typer.Option(  # noqa: B008
        [],
        "--accept",
        metavar="PATH",
        help="Merge this change beyond the note too (a path `review show` lists); repeatable.",
    ),
    tip: str | None = typer.Option(
        None, "--tip", metavar="SHA", help="Refuse unless the branch is still at this commit."
    ),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Merge the branch into main keeping its commit, push, delete the branch.

    Refuses a branch that changes more than its note (and sidecar) unless each listed path
    is accepted with --accept.
    """
    from reflectgit.workflows import review

    result = review.approve(globals_of(ctx).config(), branch, team_path, accept=accept, tip=tip)
    render.emit(ctx, result.to_json(), render.reviewed(result))


@review_app.command("reject")
def review_reject_command(
    ctx: typer.Context,
    branch: str = typer.Argument(..., help="knowledge/<slug>"),
    reason: str = typer.Option(..., "--reason", help="Why (posted on the pull request)."),
    team_path: str | None = typer.Option(None, "--team", help="A team clone to use."),
) -> None:
    """Close the pull request with the reason and delete the branch."""
    from reflectgit.workflows import review

    result = review.reject(globals_of(ctx).config(), branch, reason, team_path)
    render.emit(ctx, result.to_json(), render.reviewed(result))


@queue_app.callback()
def review_queue_command(ctx: typer.Context) -> None:
    """List the review queue (the default), or promote or drop one pointer."""
    if ctx.invoked_subcommand is None:
        review_queue_list_command(ctx)


@queue_app.command("list")
def review_queue_list_command(ctx: typer.Context) -> None:
    """Every review-queue pointer: the note, its confidence, when it was queued."""
    from reflectgit.workflows import review_queue

    items = review_queue.list_queue(globals_of(ctx).config())
    render.emit(ctx, [item.to_json() for item in items], review_lines.queue_items(items))


@queue_app.command("promote")
def review_queue_promote_command(
    ctx: typer.Context,
    ident: str = typer.Argument(..., metavar="ID", help="The note's id, or the pointer's slug."),
    to: str = typer.Option("medium", "--to", help="The new confidence: medium or high."),
) -> None:
    """Raise the note's confidence and remove its pointer, in one commit."""
    from reflectgit.workflows import review_queue

    result = review_queue.promote(globals_of(ctx).config(), ident, to)
    render.emit(ctx, result.to_json(), render.queue_changed(result))


@queue_app.command("drop")
def review_queue_drop_command(
    ctx: typer.Context,
    ident: str = typer.Argument(..., metavar="ID", help="The note's id, or the pointer's slug."),
) -> None:
    """Remove the pointer; the note stays as it is."""
    from reflectgit.workflows import review_queue

    result = review_queue.drop(globals_of(ctx).config(), ident)
    render.emit(ctx, result.to_json(), render.queue_changed(result))
