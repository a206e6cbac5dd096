"""One comment per pull request with the notes relevant to it: ``pr-notes --comment N``.

The comment carries a hidden marker (``MARKER``, an HTML comment the forge does not show); on
every push the job lists the pull request's comments, finds its own by the marker and edits it,
so there is never a second one (a duplicate a race left behind is deleted). When no note bears
on the change, no comment is posted, and one posted by an earlier push is deleted: a list that
no longer applies is worse than none. A comment already saying the same is left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reflectgit.errors import ForgeError, UsageError
from reflectgit.forge.base import Comment, Forge
from reflectgit.workflows.code.change_notes import ChangeNotes, comment_body

MARKER = "<!-- reflect-git:pr-notes -->"
KINDS = ("github", "gitlab", "gitea", "forgejo")


@dataclass
class CommentOutcome:
    action: str  # created | updated | unchanged | deleted | none
    number: int
    comment: int | None
    duplicates_deleted: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "number": self.number,
            "comment": self.comment,
            "duplicates_deleted": self.duplicates_deleted,
        }


def sync_comment(forge: Forge, number: int, result: ChangeNotes) -> CommentOutcome:
    """Make the pull request's reflect-git comment say ``result`` (or not be there)."""
    ours = [c for c in forge.comments(number) if MARKER in c.body]
    keep: Comment | None = ours[0] if ours else None
    for extra in ours[1:]:
        forge.delete_comment(number, extra)
    dropped = len(ours) - 1 if ours else 0
    if not result.notes:
        if keep is None:
            return CommentOutcome("none", number, None, dropped)
        forge.delete_comment(number, keep)
        return CommentOutcome("deleted", number, keep.id, dropped)
    body = comment_body(result, MARKER)
    if keep is None:
        made = forge.add_comment(number, body)
        return CommentOutcome("created", number, made.id, dropped)
    if keep.body.strip() == body.strip():
        return CommentOutcome("unchanged", number, keep.id, dropped)
    forge.edit_comment(number, keep, body)
    return CommentOutcome("updated", number, keep.id, dropped)


def comment_forge(
    root: Path,
    env: Mapping[str, str],
    kind: str | None = None,
    repo: str | None = None,
    api_url: str | None = None,
) -> Forge:
    """The forge the code repository's pull requests live on: from the flags (CI passes
    them), else from its ``origin`` remote; the token from the environment, as routing finds
    one (``GH_TOKEN``/``GITHUB_TOKEN``, ``GITLAB_TOKEN``, ``GITEA_TOKEN``/``FORGEJO_TOKEN``)."""
    from reflectgit.forge.choose import choose_forge
    from reflectgit.git.repo_info import config_value

    if kind is not None and kind not in KINDS:
        raise UsageError(f"--forge {kind}: not one of {', '.join(KINDS)}")
    remote = config_value(root, "remote.origin.url", env) or ""
    settings: dict[str, Any] = {}
    if kind:
        settings["provider"] = kind
    if repo:
        settings["repo"] = repo
    if api_url:
        settings["api_url"] = api_url
    choice = choose_forge(remote, settings, env)
    if choice.forge is None:
        raise ForgeError(
            f"cannot comment: {choice.reason}",
            hint="give --forge, --forge-repo and --api-url (the CI templates pass them) and "
            "the forge's token in the environment",
        )
    return choice.forge
