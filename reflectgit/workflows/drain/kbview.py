"""The drain's read-only view of the KB's notes: ids, titles, rules and signal hashes.

Parsing every note on every drain would cost ~0.2 ms a note (20 s at 100,000 notes), so the
summaries are cached in the state directory keyed by blob id: a drain parses only the notes
that changed since the last one. A note itself is parsed only when it is confirmed or retired.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reflectgit.config import ARCHIVED, DOCUMENTS
from reflectgit.errors import ReflectGitError
from reflectgit.notes.note import Note, parse_note
from reflectgit.workflows.kb.twins import TwinFinder

CACHE_FILE = "drain-kb-cache.json"
OBSERVATIONS_MAX = 10  # consolidated observations in the belief-revision block (the original's)
CACHE_FORMAT = 2  # 2: type, scope, project, updated (observations for the belief block)


@dataclass(frozen=True)
class Summary:
    """What the drain needs to know about a note without parsing it again."""

    id: str
    path: str
    blob: str
    title: str
    rule: str
    other: str  # key insight and tags, for relatedness
    content_hash: str
    type: str = ""  # learning, observation, episode ...
    scope: str = ""
    project: str = ""
    updated: str = ""  # updated, else created (ISO text), newest observations first


@dataclass
class Known:
    """A live note, parsed (for UPDATE / DELETE)."""

    id: str
    path: str
    note: Note


def _summarize(note: Note, path: str, blob: str) -> Summary:
    front = note.frontmatter
    tags = front.get("tags")
    other = " ".join(
        [str(front.get("key_insight") or "")]
        + ([str(t) for t in tags] if isinstance(tags, list) else [])
    )
    prov = front.get("provenance")
    digest = prov.get("content_hash") if isinstance(prov, dict) else None
    return Summary(
        id=note.id or Path(path).stem,
        path=path,
        blob=blob,
        title=note.title,
        rule=str(front.get("rule") or ""),
        other=other,
        content_hash=digest if isinstance(digest, str) else "",
        type=str(front.get("type") or ""),
        scope=str(front.get("scope") or ""),
        project=str(front.get("project") or ""),
        updated=str(front.get("updated") or front.get("created") or ""),
    )


class KbView:
    """Summaries of the notes at the branch tip, loaded once (and cached by blob id)."""

    def __init__(self, store: Any, cache_dir: Path | None = None, *, save: bool = True) -> None:
        self.store = store
        self.cache_path = cache_dir / CACHE_FILE if cache_dir is not None else None
        self.save = save
        self._notes: dict[str, Summary] | None = None
        self._archived: set[str] = set()

    def _read_cache(self) -> dict[str, dict[str, str]]:
        if self.cache_path is None:
            return {}
        try:
            doc = json.loads(self.cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT:
            return {}
        blobs = doc.get("blobs")
        return blobs if isinstance(blobs, dict) else {}

    def _write_cache(self, blobs: dict[str, dict[str, str]]) -> None:
        if self.cache_path is None or not self.save:
            return
        with contextlib.suppress(OSError):
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_path.with_suffix(f".tmp.{os.getpid()}")
            tmp.write_text(json.dumps({"format": CACHE_FORMAT, "blobs": blobs}), encoding="utf-8")
            tmp.replace(self.cache_path)

    def _load(self) -> dict[str, Summary]:
        if self._notes is not None:
            return self._notes
        notes: dict[str, Summary] = {}
        self._archived = set()
        if self.store.resolve("HEAD") is None:
            self._notes = notes
            return notes
        cache = self._read_cache()
        fresh: dict[str, dict[str, str]] = {}
        changed = False
        for path, blob in sorted(self.store.list_files(DOCUMENTS + "/").items()):
            if not path.endswith(".md"):
                continue
            cached = cache.get(blob)
            if isinstance(cached, dict) and cached.get("path") == path:
                summary = Summary(**{k: str(cached.get(k, "")) for k in Summary.__annotations__})
            else:
                changed = True
                try:
                    note = parse_note(self.store.read_blob(blob), path)
                except ReflectGitError:
                    continue  # an invalid note is not ours to revise
                summary = _summarize(note, path, blob)
            fresh[blob] = summary.__dict__
            notes.setdefault(summary.id, summary)
        for path in self.store.list_files(ARCHIVED + "/"):
            if path.endswith(".md"):
                self._archived.add(Path(path).stem)
        if changed or len(fresh) != len(cache):
            self._write_cache(fresh)
        self._notes = notes
        return notes

    def get(self, nid: str) -> Known | None:
        """The live note with this id, parsed; None when there is none."""
        summary = self._load().get(nid)
        if summary is None:
            return None
        try:
            note = parse_note(self.store.read_blob(summary.blob), summary.path)
        except ReflectGitError:
            return None
        return Known(summary.id, summary.path, note)

    def exists(self, nid: str) -> bool:
        """Is the id taken, live or archived?"""
        return nid in self._load() or nid in self._archived

    def by_signal_hash(self, digest: str) -> str | None:
        """The id of a live learning made from this signal set, if any."""
        for summary in self._load().values():
            if summary.content_hash and summary.content_hash == digest:
                return summary.id
        return None

    def candidates(self) -> Iterator[tuple[str, str, str, str]]:
        """(id, title, rule, other) of every live note, for the belief-revision block."""
        for s in self._load().values():
            yield s.id, s.title, s.rule, s.other

    def observations(
        self, project: str | None, limit: int = OBSERVATIONS_MAX
    ) -> list[tuple[str, str, str]]:
        """(id, title, insight) of up to ``limit`` live notes of ``type: observation`` for the
        scope: learned in ``project``, global, or of no known project; newest first."""
        from reflectgit.notes.scope import served_in

        found = [
            s
            for s in self._load().values()
            if s.type.strip().lower() == "observation"
            and (project is None or served_in(project, s.scope or None, s.project or None))
        ]
        found.sort(key=lambda s: (s.updated, s.id), reverse=True)
        return [(s.id, s.title, s.rule or s.other) for s in found[:limit]]

    def twins(self) -> TwinFinder:
        """The twin finder over every live note (title and rule), for CREATEs to ask first."""
        return TwinFinder((s.id, s.title, s.rule) for s in self._load().values())

    def forget(self) -> None:
        """Drop what was loaded (after our own commit changed the KB)."""
        self._notes = None
