"""Measurement: the secret corpus through `check`, `add` and detect-secrets (the anchor).

Over tests/data/secrets.yaml (one realistic, generated secret per shape, and negatives), in one
run: how many shapes `reflect-git check` finds in hand-written notes, how many `reflect-git add`
refuses, how many detect-secrets flags (when installed), false positives of each on the
negatives, and the scanner's speed against detect-secrets' on the same text.

Run: `.venv/bin/python bench/secrets.py`. Point PYTHONPATH at another checkout to measure it
(the corpus is read from this script's folder): `PYTHONPATH=/path/to/old python bench/secrets.py`.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

CORPUS = yaml.safe_load(
    (Path(__file__).resolve().parents[1] / "tests" / "data" / "secrets.yaml").read_text("utf-8")
)


def _run(args: list[str]) -> tuple[int, str]:
    from reflectgit.cli.app import run

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(args)
    return code, out.getvalue() + err.getvalue()


def _note(shape: str, text: str) -> str:
    return (
        f"---\ntype: learning\nid: lrn-{shape}\ncreated: 2026-11-30\n"
        f"title: Learning about {shape}\nconfidence: high\n---\nWe saw this:\n\n{text}\n"
    )


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def measure(tmp: Path) -> dict[str, int]:
    positives = CORPUS["positives"]
    # check: every shape as a hand-written note committed with plain git
    kb = tmp / "check-kb"
    (kb / "documents").mkdir(parents=True)
    _git("init", "-q", "-b", "main", cwd=kb)
    for entry in positives:
        (kb / "documents" / f"lrn-{entry['shape']}.md").write_text(
            _note(entry["shape"], entry["text"])
        )
    _git("add", "-A", cwd=kb)
    _git("-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "notes", cwd=kb)
    _code, out = _run(["--kb", str(kb), "--json", "check"])
    problems = json.loads(out[: out.rfind("}") + 1])["problems"]
    found = {
        p["file"] for p in problems if "secret" in p["message"] or "<redacted>" in p["message"]
    }
    leaked_in_output = sum(e["secret"] in out for e in positives)
    # add: each shape as a file; refused means exit 1 and nothing committed
    kb2 = tmp / "add-kb"
    kb2.mkdir()
    _git("init", "-q", "-b", "main", cwd=kb2)
    _run(["--kb", str(kb2), "init"])
    refused = 0
    echoed = 0
    for entry in positives:
        path = tmp / f"{entry['shape']}.md"
        path.write_text(_note(entry["shape"], entry["text"]))
        code, out = _run(["--kb", str(kb2), "add", str(path)])
        refused += code == 1
        echoed += entry["secret"] in out
    return {
        "shapes": len(positives),
        "check_found": len(found),
        "check_echoed": leaked_in_output,
        "add_refused": refused,
        "add_echoed": echoed,
    }


def detect_secrets_figures(tmp: Path) -> dict[str, float] | None:
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def flags(text: str) -> bool:
        path = tmp / "one.md"
        path.write_text(text + "\n")
        collection = SecretsCollection()
        with default_settings():
            collection.scan_file(str(path))
        return bool(collection.data)

    start = time.perf_counter()
    found = sum(flags(e["text"]) for e in CORPUS["positives"])
    false = sum(flags(text) for text in CORPUS["negatives"])
    return {"found": found, "false_positives": false, "seconds": time.perf_counter() - start}


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure(Path(tmp))
        ds = detect_secrets_figures(Path(tmp))
    n = figures["shapes"]
    print(f"corpus: {n} shapes, {len(CORPUS['negatives'])} negatives")
    print(f"check found {figures['check_found']} of {n} (values echoed: {figures['check_echoed']})")
    print(f"add refused {figures['add_refused']} of {n} (values echoed: {figures['add_echoed']})")
    try:
        from reflectgit.notes import secrets
    except ImportError:
        return 0
    start = time.perf_counter()
    ours = sum(bool(secrets.scan(e["text"])) for e in CORPUS["positives"])
    ours_false = sum(bool(secrets.scan(text)) for text in CORPUS["negatives"])
    ours_time = time.perf_counter() - start
    print(f"scanner: {ours} of {n} found, {ours_false} false positives, {ours_time * 1000:.1f} ms")
    if ds is not None:
        print(
            f"detect-secrets: {ds['found']:.0f} of {n} found, {ds['false_positives']:.0f} false "
            f"positives, {ds['seconds'] * 1000:.1f} ms (one file per text, its own API)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
