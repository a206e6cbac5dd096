"""The drain's $0 front end: shrink a transcript to what a writer needs, or skip it.

Per entry, before any model spend: the gate (reflect-on-reflect, no-signal, unread-language,
unreadable), the content hash of the signal set (a hash we already hold confirms that learning
instead), the slice (dialogue lines around each signal with ``CONTEXT`` lines either side,
overlaps merged, ``SLICE_CAP`` characters at most), delta retain (chunks already reflected on
are dropped), privacy filters, and the belief-revision block of related existing learnings.
Without a slice (cascade off, or, for a model writer, a session with no signal in a language
the readers cannot read) an oversized transcript gets a head-quarter / tail-three-quarters view.
Reading only: recording chunk hashes is the drain's job, after a success.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reflectgit.notes.english import UNREAD_LANGUAGE, english_words
from reflectgit.notes.privacy import clean, scrub_secrets
from reflectgit.notes.signals import HIGH, DialogueLine, Signal, dialogue_lines, signals_in
from reflectgit.notes.toolwork import ToolWork
from reflectgit.notes.transcripts import ASSISTANT, Transcript, Turn, parse_lines
from reflectgit.workflows.capture.gate import DRAIN_MARKER, is_reflect_run, unsignalled
from reflectgit.workflows.transcript_file import read_transcript

if TYPE_CHECKING:
    from reflectgit.workflows.drain.evidence import Episode

CONTEXT = 3
SLICE_CAP = 60_000
# The enqueue gate looks at the first 600,000 characters of dialogue; the slicer reads much
# further, because corrections cluster at the end of long sessions.
DRAIN_DIALOGUE_CAP = 16_000_000
RELATED_MAX = 5
GAP = "\n[...]\n"
WORKED_DETAIL = "a command failed or a file was edited"
OMITTED = "\n[... middle of the session omitted ...]\n"


@dataclass(frozen=True)
class Chunk:
    """A run of dialogue lines around one or more signals."""

    start: int
    end: int  # exclusive
    text: str
    signals: tuple[Signal, ...]
    records: tuple[int, ...] = ()  # the transcript record each line came from

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:20]

    @property
    def strongest_high(self) -> bool:
        return any(s.tier == HIGH for s in self.signals)


@dataclass(frozen=True)
class Related:
    """An existing learning offered to the writer for UPDATE / DELETE."""

    id: str
    title: str
    rule: str = ""
    score: int = 0


@dataclass
class Prepared:
    """What the cascade made of one transcript."""

    skip: str | None = None  # reason code when the entry stops here (no model call)
    detail: str = ""
    transcript: Transcript | None = None
    chunks: list[Chunk] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    signal_hash: str | None = None
    duplicate_of: str | None = None  # an existing learning with this signal hash
    text: str = ""  # the writer's input (privacy-filtered)
    bounded: bool = False  # head/tail view instead of a slice
    related: list[Related] = field(default_factory=list)
    observations: list[Related] = field(default_factory=list)  # type: observation, this scope
    # The session's event record (``state/sessionrecord.py``): context, never a lesson alone.
    events: list[dict[str, Any]] = field(default_factory=list)
    # The records of the tool evidence lines the writer's input holds (``tools``).
    evidence_records: list[int] = field(default_factory=list)
    input_bytes: int = 0
    dialogue_lines: int = 0  # how far this read got: the next drain slices only past it
    # The transcript record of the first dialogue line no earlier drain read (0: all of it).
    floor_record: int = 0
    # The gate's tool readings of ``transcript`` (commands, recoveries, repairs), for the
    # writer to read on rather than again (``notes/toolwork``).
    work: ToolWork | None = None

    @property
    def revision_ids(self) -> list[str]:
        """The ids the writer may UPDATE or DELETE: related learnings, then observations."""
        return list(dict.fromkeys(r.id for r in [*self.related, *self.observations]))

    @property
    def chunk_hashes(self) -> list[str]:
        return [c.hash for c in self.chunks]


def signal_hash(signals: Iterable[Signal]) -> str | None:
    """Content hash of the signal set (order and whitespace free)."""
    texts = sorted({" ".join(s.text.lower().split()) for s in signals})
    if not texts:
        return None
    return hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:32]


def _render(line: DialogueLine) -> str:
    return f"{line.role}: {line.text.strip()}"


def _dialogue(turns: Iterable[Turn], cap: int) -> Iterator[DialogueLine]:
    """Dialogue lines with secrets masked per turn BEFORE the turn is cut into lines, so a
    multi-line block (a PEM or PGP private key) is masked whole, never line by line."""
    return dialogue_lines((replace(t, text=scrub_secrets(t.text)) for t in turns), cap)


def slice_lines(
    lines: Sequence[DialogueLine],
    signals: Sequence[Signal],
    *,
    context: int = CONTEXT,
    cap: int = SLICE_CAP,
    floor: int = 0,
) -> list[Chunk]:
    """Chunks of ``context`` lines around each signal, merged, at most ``cap`` characters.

    No chunk reaches back before line ``floor`` (what an earlier drain already read).

    Over the cap, chunks holding a HIGH signal and later chunks win (corrections cluster at the
    end of a session); the kept chunks stay in session order.
    """
    windows: list[list[int]] = []
    for sig in sorted(signals, key=lambda s: s.line_index):
        lo = max(floor, sig.line_index - context)
        hi = min(len(lines), sig.line_index + context + 1)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    chunks = []
    for lo, hi in windows:
        inside = tuple(s for s in signals if lo <= s.line_index < hi)
        text = "\n".join(_render(lines[i]) for i in range(lo, hi))
        records = tuple(lines[i].record for i in range(lo, hi))
        chunks.append(Chunk(lo, hi, text, inside, records))
    total = sum(len(c.text) + len(GAP) for c in chunks)
    if total <= cap:
        return chunks
    order = sorted(range(len(chunks)), key=lambda i: (not chunks[i].strongest_high, -i))
    kept: set[int] = set()
    used = 0
    for i in order:
        size = len(chunks[i].text) + len(GAP)
        if used + size <= cap:
            kept.add(i)
            used += size
    if not kept and chunks:
        # One giant chunk: keep its tail, where the signal usually is (its lines no longer
        # line up with their records, so it names none).
        last = chunks[order[0]]
        return [Chunk(last.start, last.end, last.text[-(cap - len(GAP)) :], last.signals)]
    return [chunks[i] for i in sorted(kept)]


_WORD = re.compile(r"[a-z][a-z0-9_.+-]{3,}")
_STOP = frozenset(
    [
        "this",
        "that",
        "with",
        "from",
        "have",
        "been",
        "were",
        "will",
        "would",
        "should",
        "could",
        "there",
        "their",
        "they",
        "them",
        "then",
        "than",
        "what",
        "when",
        "where",
        "which",
        "while",
        "into",
        "only",
        "also",
        "just",
        "like",
        "make",
        "sure",
        "your",
        "about",
        "after",
        "before",
        "always",
        "never",
        "don't",
        "does",
        "using",
        "used",
        "use",
        "instead",
        "because",
        "repo",
    ]
)


def keywords(text: str) -> set[str]:
    return {w.strip(".-+") for w in _WORD.findall(text.lower())} - _STOP


def related_learnings(
    signals: Sequence[Signal],
    candidates: Iterable[tuple[str, str, str, str]],
    limit: int = RELATED_MAX,
) -> list[Related]:
    """Up to ``limit`` learnings sharing at least two keywords with the signal lines.

    ``candidates`` yields (id, title, rule, other text such as tags and key insight).
    """
    wanted = set().union(*(keywords(s.text) for s in signals)) if signals else set()
    if not wanted:
        return []
    scored = []
    for nid, title, rule, other in candidates:
        score = len(wanted & keywords(f"{title} {rule} {other}"))
        if score >= 2:
            scored.append(Related(nid, title, rule, score))
    scored.sort(key=lambda r: (-r.score, r.id))
    return scored[:limit]


def bounded_view(path: Path, budget: int) -> str:
    """Head (a quarter of ``budget``) and tail (three quarters) of the dialogue, filtered.

    The tail is read straight off the end of the file, so a huge session's last words, where
    corrections cluster, are never cut off by a reader that stops from the front.
    """
    head_budget = budget // 4
    tail_budget = budget - head_budget
    head_t = read_transcript(path, max_dialogue_chars=head_budget)
    head = "\n".join(_render(line) for line in _dialogue(head_t.turns, head_budget))
    size = path.stat().st_size
    # Tool output dwarfs dialogue, so read generously from the end and keep the dialogue.
    window = min(size, max(tail_budget * 16, 1 << 20))
    with path.open("rb") as fh:
        fh.seek(size - window)
        data = fh.read()
    raw_lines = data.split(b"\n")
    if size > window:
        raw_lines = raw_lines[1:]  # the first line is cut mid-record
    tail_t = parse_lines(raw_lines, max_dialogue_chars=1 << 62)
    tail_text = "\n".join(_render(line) for line in _dialogue(tail_t.turns, 1 << 62))
    tail = tail_text[-tail_budget:]
    return clean(head[:head_budget] + OMITTED + tail)


def prepare(
    path: str,
    *,
    cascade: bool = True,
    max_input_chars: int = 60_000,
    seen_chunks: Callable[[str], bool] = lambda _h: False,
    known_hash: Callable[[str], str | None] = lambda _h: None,
    candidates: Callable[[], Iterable[tuple[str, str, str, str]]] = lambda: (),
    slice_cap: int = SLICE_CAP,
    dialogue_cap: int = DRAIN_DIALOGUE_CAP,
    after_line: int = 0,
    model: bool = False,
    tools: bool = False,
) -> Prepared:
    """Run the cascade on one transcript (never raises for what the file contains).

    A session with no signal is read or skipped as the gate decides for the writer
    (``gate.unsignalled``): one whose person writes a language the signal readers cannot read
    (``english.unread_language``) skips as ``unread-language``, one where nothing failed and
    nothing was edited as ``no-signal``; with ``model`` (a model writer) the first, and one
    where a command failed or a file was edited, are given whole as with ``cascade`` off.

    ``after_line`` is how many dialogue lines an earlier drain of this transcript already
    read: only signals past it are sliced, their context clipped there too, so a session that
    grew is drained for its new turns only; nothing new is the skip ``nothing-new``.

    ``tools`` (a model writer) puts the tool evidence of each chunk's stretch of the session
    (``evidence.read``: failed calls with their error line, what then worked) between its
    dialogue lines in the writer's input, and the failures got past elsewhere as pieces of
    their own, within ``slice_cap``; the chunks stay dialogue (the heuristic writer's input).
    The gate's tool readings (``notes/toolwork``: commands, recoveries, repairs) are the
    evidence's too, read once.
    """
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError:
        return Prepared(skip="stale", detail="transcript missing on disk")
    if not cascade:
        return _whole(file, size, max_input_chars, dialogue_cap, after_line)
    t = read_transcript(file, max_dialogue_chars=dialogue_cap)
    if t.error:
        return Prepared(skip=_error_code(t.error), detail=t.error, transcript=t, input_bytes=size)
    if is_reflect_run(t):
        return Prepared(skip="reflect-on-reflect", transcript=t, input_bytes=size)
    lines = list(_dialogue(t.turns, dialogue_cap))
    work = ToolWork(t)  # the gate's tool readings, made once, kept for the evidence
    signals = signals_in(t, lines, work)  # the gate's own reading: the dialogue's, else tools
    if not signals:
        # The gate decides for the writer (``gate.unsignalled``): a session in words the
        # readers cannot read, or where a command failed or a file was edited, is no evidence
        # of nothing to learn, and a model writer is given it as with the cascade off; the
        # heuristic writer, which reads nothing but signals, skips it under the reason.
        reason, read = unsignalled(lines, work, model=model)
        why = WORKED_DETAIL
        if reason == UNREAD_LANGUAGE:
            hits, words = english_words(lines)
            why = f"{hits} of the person's {words} words are English function words"
        if read:
            whole = _whole(file, size, max_input_chars, dialogue_cap, after_line)
            if not whole.skip:  # the ledger's row says why the session was read whole
                whole.detail = f"read whole, no signal: {why}"
            return whole
        return Prepared(
            skip=reason,
            detail=why if reason == UNREAD_LANGUAGE else "",
            transcript=t,
            input_bytes=size,
            dialogue_lines=len(lines),
        )
    if after_line:
        signals = [s for s in signals if s.line_index >= after_line]
        if not signals:
            return Prepared(
                skip="nothing-new",
                detail=f"no new signal past dialogue line {after_line}",
                transcript=t,
                input_bytes=size,
                dialogue_lines=len(lines),
            )
    digest = signal_hash(signals)
    prepared = Prepared(
        transcript=t,
        signals=signals,
        signal_hash=digest,
        input_bytes=size,
        dialogue_lines=len(lines),
        floor_record=lines[after_line].record if 0 < after_line < len(lines) else 0,
        work=work,
    )
    existing = known_hash(digest) if digest else None
    if existing:
        prepared.skip = "dup-signal-hash"
        prepared.duplicate_of = existing
        return prepared
    chunks = slice_lines(lines, signals, cap=slice_cap, floor=after_line)
    fresh = [c for c in chunks if not seen_chunks(c.hash)]
    if not fresh:
        prepared.skip = "dup-chunk-hash"
        prepared.chunks = chunks
        return prepared
    prepared.chunks = fresh
    shown = [c.text for c in fresh]
    if tools:
        shown = with_tools(
            fresh, lines, t, slice_cap, prepared.evidence_records, prepared.floor_record, work
        )
    prepared.text = clean(GAP.join(shown))
    prepared.related = related_learnings(signals, candidates())
    return prepared


# Failures got past elsewhere in the session, outside every chunk, are shown as pieces of
# their own (the failure, the assistant's next words, what then worked) up to this many
# characters: a trap shown by doing holds no signal words, and the slice misses it.
EPISODES_CAP = 4_000


def with_tools(
    chunks: Sequence[Chunk],
    lines: Sequence[DialogueLine],
    transcript: Transcript,
    cap: int,
    shown: list[int],
    floor: int = 0,
    work: ToolWork | None = None,
) -> list[str]:
    """The model's excerpt, piece by piece in session order: each chunk's text with the tool
    evidence (``evidence.read``) of its stretch of the session (from the dialogue line before
    it to the one after it) between its dialogue lines; then, as pieces of their own, the
    failures something got past that no chunk shows (``EPISODES_CAP``). Evidence is added
    first come first while the whole stays within ``cap`` characters; the records of what
    is shown are appended to ``shown``. Nothing before the record ``floor`` is shown (what an
    earlier drain read). A chunk cut to its tail (no records) stays as it is. ``work`` is the
    gate's tool readings of ``transcript`` (none: read here)."""
    from reflectgit.workflows.drain import evidence

    found = evidence.read(transcript, work)
    every = found.lines()
    records = [line.record for line in lines]
    budget = cap - sum(len(c.text) + len(GAP) for c in chunks)
    pieces: list[tuple[int, str]] = []
    for chunk in chunks:
        if not chunk.records:
            pieces.append((records[chunk.start] if chunk.start < len(records) else 0, chunk.text))
            continue
        first = records[chunk.start - 1] + 1 if 0 < chunk.start <= len(records) else 0
        first = max(first, floor)
        last = records[chunk.end] - 1 if chunk.end < len(records) else 1 << 62
        inside = evidence.between(every, first, last)
        out: list[str] = []
        at = 0
        for record, text in [
            *zip(chunk.records, chunk.text.split("\n"), strict=False),
            (1 << 62, None),
        ]:
            while at < len(inside) and inside[at].record < record:
                if len(inside[at].text) + 1 <= budget:
                    out.append(inside[at].text)
                    shown.append(inside[at].record)
                    budget -= len(inside[at].text) + 1
                at += 1
            if text is not None:
                out.append(text)
        pieces.append((chunk.records[0], "\n".join(out)))
    budget = min(budget, EPISODES_CAP)
    seen = set(shown)
    for episode in found.episodes:
        if episode.failed.record in seen or episode.failed.record < floor:
            continue
        said = _cause(lines, records, episode)
        text = "\n".join(
            [
                episode.failed.text,
                *([_render(said)] if said else []),
                *(t.text for t in episode.passed),
            ]
        )
        if len(text) + len(GAP) > budget:
            continue
        budget -= len(text) + len(GAP)
        pieces.append((episode.failed.record, text))
        shown.extend(t.record for t in episode.lines)
        seen.update(t.record for t in episode.lines)
        if said:
            shown.append(said.record)
    return [text for _record, text in sorted(pieces, key=lambda p: p[0])]


def _cause(
    lines: Sequence[DialogueLine], records: Sequence[int], episode: Episode
) -> DialogueLine | None:
    """The assistant's first dialogue line after ``episode``'s failure and before what then
    worked (the words that read the failure), or None."""
    end = episode.passed[0].record if episode.passed else 1 << 62
    at = bisect.bisect_right(records, episode.failed.record)
    while at < len(lines) and records[at] < end:
        if lines[at].speaker == ASSISTANT:
            return lines[at]
        at += 1
    return None


def _whole(
    file: Path, size: int, max_input_chars: int, dialogue_cap: int, after_line: int
) -> Prepared:
    """The writer's input without a slice (the cascade off, or a session in a language the
    readers cannot read): the dialogue up to ``max_input_chars``, an oversized transcript as
    its head/tail view, a drained one that grew as its new lines."""
    if size > max_input_chars and after_line == 0:
        text = bounded_view(file, max_input_chars)
        return Prepared(text=text, bounded=True, input_bytes=size)
    t = read_transcript(file, max_dialogue_chars=dialogue_cap if after_line else max_input_chars)
    if t.error:
        return Prepared(skip=_error_code(t.error), detail=t.error, transcript=t)
    every = list(_dialogue(t.turns, dialogue_cap if after_line else max_input_chars))
    fresh_lines = every[after_line:]
    if after_line and len(every) <= after_line:
        return Prepared(
            skip="nothing-new", transcript=t, input_bytes=size, dialogue_lines=len(every)
        )
    text = clean("\n".join(_render(x) for x in fresh_lines))[-max_input_chars:]
    return Prepared(transcript=t, text=text, input_bytes=size, dialogue_lines=len(every))


def _error_code(error: str) -> str:
    """``binary: not a text transcript`` -> ``binary`` (a stable skip reason)."""
    return re.split(r"[:\s]", error, maxsplit=1)[0] or "unreadable"


# What the judges of issue 34 kept and threw away over the judged sets' notes: a lesson a
# teammate keeps, in three kinds, and the junk kinds the writers kept mistaking for one.
LESSONS = """\
You are a knowledge-extraction function, not an agent. Read the excerpt of a coding session \
below and extract the lessons a teammate on this project would be glad to read. A lesson is:
- a rule the person states for the project, beyond the task at hand;
- a root cause the assistant found (from a failure or by reading the code), confirmed by a \
green run or by the person;
- a trap of the set-up (tool, sandbox, platform) shown by a failure, with the fix that worked.
Not a lesson: an event (a todo finished, a run that went green with nothing learned); the \
person's instructions for this task, or a brief written for an agent, read as standing rules; \
text the person pasted (documents, reviews, logs); a fact true only of this task; text \
injected by hooks or CI; a guess nobody confirmed.
A rule said in passing, or a trap shown only by doing, is a lesson too. Each lesson stands \
alone, in plain words and whole sentences: the title names the thing and what to do; never \
"this" or "it" without the thing named. Never copy secrets or credentials."""

ACTION_CONTRACT = """\
Return exactly one JSON object and nothing else:
{"actions": [
  {"action": "CREATE", "title": "...", "key_insight": "...", "problem": "...",
   "root_cause": "...", "fix": "...", "rule": "...", "confidence": "high|medium|low",
   "confidence_num": 0.0-1.0, "category": "...", "tags": ["..."], "symptoms": ["..."],
   "entities": [{"name": "...", "type": "technology|error|pattern|function|concept|tool|artifact|code|config|service|platform|framework|library", "description": "..."}],
   "causal_relations": [{"source": "...", "target": "...", "type": "caused_by|causes|enables|prevents|contradicts|supersedes|part_of|uses|solves|requires|relates_to|implements|configures|triggers"}]},
  {"action": "UPDATE", "id": "<an id from the EXISTING LEARNINGS list>", "reason": "..."},
  {"action": "DELETE", "id": "<an id from the EXISTING LEARNINGS list>", "reason": "..."}
]}
At most 12 CREATE actions. UPDATE confirms an existing learning this session shows again;
DELETE retires one this session proves wrong. Only ids from the list below may be used.
An empty list {"actions": []} is a fine answer when nothing durable was learned."""

EVENTS_MARKER = "=== SESSION EVENTS (context, not lessons) ==="
EVENTS_NOTE = (
    "What happened in this session, as its hooks saw it: todos finished, tests that failed "
    "and went green again. Do not CREATE a learning for an event alone; use them to tell a "
    "confirmed root cause or fix from a guess."
)
EVENTS_MAX = 40  # the last ones of a long session
REVISION_MARKER = "=== EXISTING LEARNINGS (belief revision) ==="
OBSERVATIONS_MARKER = "=== CONSOLIDATED OBSERVATIONS (belief revision) ==="
OBSERVATIONS_NOTE = (
    "Observations already consolidated for this project. UPDATE one this session shows "
    "again, DELETE one it proves wrong (these ids may be used too); do not CREATE it again."
)


def event_lines(prepared: Prepared) -> list[str]:
    """The session's last events, one line each: ``- 15:53 tests-fixed: pytest: ...``."""
    from reflectgit.notes.dates import format_epoch

    out = []
    for event in prepared.events[-EVENTS_MAX:]:
        ts = event.get("ts")
        when = format_epoch(float(ts))[11:16] + " " if isinstance(ts, (int, float)) else ""
        out.append(f"- {when}{event.get('kind')}: {clean(str(event.get('summary') or ''))}")
    return out


def build_prompt(prepared: Prepared, *, idle: bool = False) -> str:
    """The single prompt of the extract writer (it carries the gate's drain marker)."""
    parts = [
        DRAIN_MARKER,
        LESSONS,
    ]
    if idle:
        parts.append(
            "The session may still resume: tag every learning 'speculative' and use at most "
            "medium confidence."
        )
    parts.append(ACTION_CONTRACT)
    label = "HEAD AND TAIL OF THE SESSION" if prepared.bounded else "SESSION EXCERPT"
    parts.append(f"=== {label} ===\n{prepared.text}")
    if prepared.events:
        parts.append(scrub_secrets("\n".join([EVENTS_MARKER, EVENTS_NOTE, *event_lines(prepared)])))
    if prepared.related and not prepared.bounded:
        lines = [REVISION_MARKER]
        for r in prepared.related:
            rule = f" | rule: {r.rule}" if r.rule else ""
            lines.append(f"- id: {r.id} | title: {r.title}{rule}")
        parts.append(scrub_secrets("\n".join(lines)))  # hand-written notes may hold one
    if prepared.observations and not prepared.bounded:
        lines = [OBSERVATIONS_MARKER, OBSERVATIONS_NOTE]
        for r in prepared.observations:
            said = f" | observed: {r.rule}" if r.rule else ""
            lines.append(f"- id: {r.id} | title: {r.title}{said}")
        parts.append(scrub_secrets("\n".join(lines)))
    return "\n\n".join(parts) + "\n"
