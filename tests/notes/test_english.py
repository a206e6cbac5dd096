"""Which sessions the signal readers cannot read: the person's words in another language.

Positive cases are the tune sets' real sessions in Turkish, Japanese, Korean and Portuguese;
negative ones every other session of the tune sets and of the shared corpus (English, with
pasted logs, code blocks, commands, and non-ASCII text), and English lines naming CJK files.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from reflectgit.notes.english import FUNCTION_WORDS, english_words, unread_language
from reflectgit.notes.signals import DialogueLine, dialogue_lines
from reflectgit.notes.transcripts import ASSISTANT, PERSON, parse_lines
from tests.conftest import DATA, needs_shared
from tests.support.drain import QUALITY

# The tune sets (never a sealed one: each folder is named).
TUNE_SETS = ["held-apart", *(f"held-apart-{n}" for n in range(2, 18))]
OTHER_LANGUAGE = [
    "held-apart-6/transcripts/claude/entirecontext__d29c2adb-9a9e-45ac-b435-bce63d920d59",  # ko
    "held-apart-6/transcripts/claude/entirecontext__da81b1d5-eb50-45b5-b9c2-a57df460d77b",  # ko
    "held-apart-12/transcripts/claude/numwordify__1277548c-ff3e-4e10-8c13-2384241b678c",  # tr
    "held-apart-12/transcripts/claude/numwordify__806ff40c-d20c-4f2d-940c-ba9eede27e70",  # tr
    "held-apart-15/transcripts/claude/tij__19512375-5c9f-4947-a8a2-72c341bdfe21",  # ja
    "held-apart-15/transcripts/claude/tij__7bdbcc35-891f-40ee-bd64-b461804c0fe4",  # ja
    "held-apart-16/transcripts/claude/safo__23e9a61f-32b3-435e-8c67-55c2e1e2f0ff",  # pt
    "held-apart-16/transcripts/claude/safo__92023f7e-249a-4df3-be41-54dff58da4b9",  # pt
    "held-apart-17/transcripts/claude/agentstuff__ffe99a00-e184-46ca-8ed8-894a06d98a6f",  # ko
]
# Neither: a Korean person attaching English files (CLAUDE.md), read as English (4.6 %).
MIXED = ["held-apart-17/transcripts/claude/agentstuff__4b1079c4-dd15-4f74-a6bb-6bfca810f7d0"]


def _lines(path: Path) -> list[DialogueLine]:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    t = parse_lines(data.split(b"\n"), max_dialogue_chars=16_000_000)
    return list(dialogue_lines(t.turns, 16_000_000))


def _english_sessions() -> list[Path]:
    foreign = {QUALITY / f"{rel}.jsonl.gz" for rel in OTHER_LANGUAGE + MIXED}
    found = [p for s in TUNE_SETS for p in sorted((QUALITY / s).rglob("*.jsonl.gz"))]
    shared = sorted((DATA / "real" / "transcripts").rglob("*.jsonl"))
    shared += sorted((DATA / "transcripts").rglob("*.jsonl"))
    return [p for p in found + shared if p not in foreign]


@pytest.mark.parametrize("rel", OTHER_LANGUAGE, ids=lambda r: r.rsplit("/", 1)[1][:24])
def test_sessions_in_another_language_are_unread(rel: str) -> None:
    lines = _lines(QUALITY / f"{rel}.jsonl.gz")
    hits, words = english_words(lines)
    assert words >= 10 and unread_language(lines), (hits, words)


@needs_shared
def test_every_english_session_of_the_tune_sets_and_the_corpus_is_read() -> None:
    sessions = _english_sessions()
    assert len(sessions) > 100
    unread = [p.name for p in sessions if unread_language(_lines(p))]
    assert unread == []


@needs_shared
def test_an_english_session_of_pasted_logs_and_non_ascii_text_is_read() -> None:
    # the person pastes a service's log in code blocks; another writes "café, 中文, العربية"
    for path in (
        QUALITY
        / "held-apart-8/transcripts/claude/sungather__51bf92be-2338-469f-95d8-17b190a2bdca.jsonl.gz",
        DATA / "real/transcripts/claude/claudecodelog__edge_cases.jsonl",
    ):
        lines = _lines(path)
        assert any(ord(ch) > 127 or "```" in x.text for x in lines for ch in x.text)
        assert not unread_language(lines)


def _said(*turns: tuple[str, str]) -> list[DialogueLine]:
    out = []
    for number, (speaker, text) in enumerate(turns):
        role = "assistant" if speaker == ASSISTANT else "user"
        out += [DialogueLine(x, role, number, number, speaker) for x in text.splitlines()]
    return out


def test_english_naming_cjk_files_and_paths_is_read() -> None:
    lines = _said(
        (PERSON, "The link in `docs/設計/概要.md` is broken, fix it and check 仕様書.pdf too"),
        (PERSON, "rename ユーザー一覧.tsx to UserList.tsx, then run the tests again"),
    )
    assert not unread_language(lines)


def test_a_person_writing_portuguese_is_unread_though_its_words_are_ascii() -> None:
    # "a", "do", "no", "as" are Portuguese words too: they are not counted as English
    lines = _said(
        (PERSON, "O que falta fazer agora? Qual farias? tem que ser utilizavel por outros"),
        (PERSON, "vamos explorar o homebrew, faz a documentação do projeto no README as regras"),
    )
    assert unread_language(lines)
    assert not {"a", "do", "no", "as"} & FUNCTION_WORDS


def test_a_lone_i_is_no_english_word() -> None:
    # Italian's article, and a Turkish suffix after an apostrophe ("API'yi", "dosya'i")
    lines = _said(
        (PERSON, "controlla i log e i test prima di fare il commit, per favore"),
        (PERSON, "README'i güncelle, sonra API'yi ve dosya'i kontrol et lütfen"),
    )
    assert unread_language(lines)
    assert "i" not in FUNCTION_WORDS
    # an English person's "I" is one word among many that are counted
    assert not unread_language(_said((PERSON, "I think the hook is wrong, I want it fixed")))


def test_only_the_persons_words_count_and_their_commands_and_code_do_not() -> None:
    korean = (
        PERSON,
        "다음에 해야할 작업은 무엇일까요? 리뷰 스레드 확인해주세요 릴리스 준비 완료 후 진행",
    )
    commit = "<bash-input>git commit -m 'fix: the hook is installed when the file is there'\n"
    commit += "-m 'It is what the tests of the hooks said and it was the bug'</bash-input>"
    fence = "```\nif the_file is None: return it and the rest of this\n```"
    answer = (ASSISTANT, "The release is ready and it is tagged; this is what the tests say.")
    assert unread_language(_said(korean, (PERSON, commit), (PERSON, fence), answer))
    # the same words typed as the person's own sentence make the session English
    assert not unread_language(_said(korean, (PERSON, commit.replace("<bash-input>", ""))))


def test_too_few_words_tell_no_language() -> None:
    assert not unread_language(_said((PERSON, "proceed"), (PERSON, "commit and push")))
    assert not unread_language(_said((PERSON, "다음 작업은?")))
    assert not unread_language([])
