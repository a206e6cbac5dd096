"""Git's own three-way text merge (``git merge-file``), for the parts of a note that are text.

The merge driver merges a note's body, and a whole file that does not parse, exactly as git
would have: the same algorithm, the user's ``merge.conflictStyle``, the marker size git asked
for. ``git merge-file`` reads files, so the three texts go through a private temporary folder.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence

from reflectgit.git.run import GitFailed, run


def merge_text(
    base: bytes,
    ours: bytes,
    theirs: bytes,
    *,
    marker_size: int = 7,
    labels: Sequence[str] = ("ours", "base", "theirs"),
    env: Mapping[str, str] | None = None,
) -> tuple[bytes, int]:
    """The merged text and its number of conflicts (0: clean); ``GitFailed`` when git fails."""
    with tempfile.TemporaryDirectory(prefix="reflect-git-merge-") as folder:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(folder, name)
            with open(path, "wb") as out:
                out.write(data)
            paths.append(path)
        ours_label, base_label, theirs_label = labels
        result = run(
            [
                "merge-file",
                "-p",
                f"--marker-size={max(1, marker_size)}",
                "-L",
                ours_label,
                "-L",
                base_label,
                "-L",
                theirs_label,
                *paths,
            ],
            cwd=folder,
            env=env,
        )
    if not 0 <= result.code < 128:
        raise GitFailed(
            f"`git merge-file` failed: {result.err or f'exit {result.code}'}",
            hint="run `git merge-file` yourself on the three versions to see why",
        )
    return result.stdout, result.code
