"""The bodies of ``add`` and ``recall``: the one code both their typer commands and the fast
path run (``fastpath.try_fast``), as ``fastpath.validate_paths`` is for ``validate``.

Each takes the context (typer's, or ``fastpath.Context`` with the global options) and the
parameters exactly as the typer command receives them (``options.ADD`` / ``options.RECALL``
declare them for the fast path); it prints through ``render`` and raises ``ReflectGitError``.
No typer here: the fast path must not import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reflectgit.cli import render
from reflectgit.cli.options import fail, globals_of, open_kb, read_input
from reflectgit.errors import EXIT_USAGE

if TYPE_CHECKING:
    from typing import Any


def add_note(
    ctx: Any,
    file: str | None,
    entities: str | None,
    title: str | None,
    insight: str | None,
    category: str | None,
    confidence: str | None,
    tag: Sequence[str],
    force: bool,
    restore: bool,
) -> None:
    """``reflect-git add``: validate and commit one note (from a file, stdin, or flags)."""
    fields = {
        "title": title,
        "key_insight": insight,
        "category": category,
        "confidence": confidence,
        "tags": list(tag),
    }
    if file is None and not title:
        fail(
            "give a note FILE, `-` for stdin, or --title with --insight",
            hint="reflect-git add note.md  |  reflect-git add --title T --insight I "
            "--category C --confidence high",
            code=EXIT_USAGE,
        )
    data = read_input(file, "the note") if file is not None else None
    side = read_input(entities, "the sidecar") if entities else None
    with open_kb(ctx, writes_only=True) as kb:
        result = kb.add(
            data,
            fields=fields,
            sidecar=side,
            force=force,
            source_name="<flags>" if file is None else "<stdin>" if file == "-" else file,
            sidecar_name=entities if entities and entities != "-" else "<entities>",
            restore=restore,
        )
    doc = {"id": result.id, "path": result.path, "commit": result.commit}
    render.emit(ctx, doc, render.added(result))


def recall_notes(
    ctx: Any,
    project: str | None,
    limit: int,
    fmt: str,
    budget: int | None,
    everywhere: bool,
    as_of: str | None,
    domain: str | None,
) -> None:
    """``reflect-git recall``: what an agent should know at session start in this project."""
    from pathlib import Path

    from reflectgit.errors import ReflectGitError
    from reflectgit.workflows.recall import FORMATS, HOOK_FORMATS, RecallResult, recall
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
    if hook and not g.json:
        # The hook's JSON is the whole point of this format: print it even with --quiet.
        render.echo(render_recall(result, fmt))
        return
    doc, text = result.to_json(), render_recall(result, fmt)
    if expansions:
        doc["expansion"] = expansions[0].to_json()
        text = render.expansion_line(expansions[0]) + "\n" + text
    render.emit(ctx, doc, text)
