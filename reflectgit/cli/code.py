"""Commands over a code repository: stale (notes the code moved away from), pr-notes (the
notes relevant to a change)."""

from pathlib import Path

import typer

from reflectgit.cli import render
from reflectgit.cli.options import globals_of, require_kb

commands = typer.Typer()


def _repo(repo: str | None) -> Path:
    import os

    from reflectgit.config import current_folder

    if repo:
        return Path(os.path.expanduser(repo)).absolute()
    here = current_folder()
    return here if here is not None else Path(".")


@commands.command("stale")
def stale_cmd(
    ctx: typer.Context,
    repo: str | None = typer.Option(
        None, "--repo", help="The code repository (default: the current folder's)."
    ),
    project: str | None = typer.Option(
        None, "--project", help="The notes' project (default: the repository's folder name)."
    ),
    propose: bool = typer.Option(
        False,
        "--propose",
        help="Send each stale note to review (a knowledge branch and draft PR, or the review "
        "queue without a team), and each moved one with its anchor re-pointed: never deleted.",
    ),
    ask_model: bool | None = typer.Option(
        None,
        "--ask-model/--no-ask-model",
        help="Ask the drain's model, once per note, whether the change to its code makes it "
        "wrong; a note it says still holds is listed as changed (default REFLECT_STALE_ASK_MODEL"
        ", never in --json).",
    ),
) -> None:
    """Notes whose anchored code was deleted, renamed or changed since they were written."""
    from reflectgit.workflows.code.staleness import stale

    g = globals_of(ctx)
    cfg = g.config()
    require_kb(cfg)
    ask = None
    if ask_model if ask_model is not None else cfg.code.ask_model and not g.json:
        from reflectgit.workflows.code.model_reading import Asking

        ask = Asking(cfg.writer, cfg.code, cfg.env)
    report = stale(cfg.kb, _repo(repo), cfg.env, project, ask=ask)
    if report.reading is not None:
        render.note_line(ctx, render.model_reading_line(report.reading))
    doc = {"stale": [s.to_json() for s in report.stale]}
    proposals = None
    if propose and (report.stale or report.moved):
        from reflectgit.workflows.code.proposals import propose_review

        proposals = propose_review(cfg, report)
        doc["proposed"] = [p.to_json() for p in proposals]
    doc.update({k: v for k, v in report.to_json().items() if k != "stale"})
    render.emit(ctx, doc, render.stale_lines(report, proposals))


@commands.command("pr-notes")
def pr_notes_cmd(
    ctx: typer.Context,
    repo: str | None = typer.Option(
        None, "--repo", help="The code repository (default: the current folder's)."
    ),
    base: str = typer.Option(..., "--base", help="What the change is compared with (a branch)."),
    head: str | None = typer.Option(None, "--head", help="The change's tip (default: HEAD)."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="At most this many notes."),
    project: str | None = typer.Option(
        None, "--project", help="The notes' project (default: the repository's folder name)."
    ),
    comment: int | None = typer.Option(
        None,
        "--comment",
        metavar="NUMBER",
        min=1,
        help="Keep one comment with the list on this pull (merge) request: created, updated "
        "on each push, deleted when nothing is relevant.",
    ),
    forge: str | None = typer.Option(
        None, "--forge", help="github, gitlab, gitea or forgejo (default: from origin's host)."
    ),
    forge_repo: str | None = typer.Option(
        None, "--forge-repo", metavar="OWNER/NAME", help="The repository on the forge."
    ),
    api_url: str | None = typer.Option(None, "--api-url", help="The forge's REST API URL."),
) -> None:
    """The notes relevant to a change, ranked, each with why; nothing when none is."""
    from reflectgit.workflows.code.change_notes import pr_notes

    cfg = globals_of(ctx).config()
    require_kb(cfg)
    code = _repo(repo)
    result = pr_notes(
        cfg.kb, cfg.state_dir, code, base, head, env=cfg.env, limit=limit, project=project
    )
    doc = result.to_json()
    lines = render.pr_notes_lines(result)
    if comment is not None:
        from reflectgit.workflows.code.pr_comment import comment_forge, sync_comment

        outcome = sync_comment(
            comment_forge(code, cfg.env, forge, forge_repo, api_url), comment, result
        )
        doc["comment"] = outcome.to_json()
        render.note_line(ctx, render.pr_comment_line(outcome))
    render.emit(ctx, doc, lines)


@commands.command("code-ci")
def code_ci_cmd(
    ctx: typer.Context,
    kind: str = typer.Argument(..., metavar="github|gitlab|gitea"),
    repo: str | None = typer.Option(
        None, "--repo", help="The code repository (default: the current folder's)."
    ),
) -> None:
    """Write the CI jobs that put the team's notes on pull requests and report stale notes."""
    from reflectgit.git import codebase
    from reflectgit.workflows.code.ci import write_code_ci

    cfg = globals_of(ctx).config()
    root = codebase.top(_repo(repo), cfg.env)
    written = write_code_ci(root, kind)
    doc = {"files": [str(p) for p in written]}
    render.emit(ctx, doc, render.code_ci_lines(kind, written))
