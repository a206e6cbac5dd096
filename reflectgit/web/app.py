"""The routes of ``reflect-git serve``: server-rendered pages, a JSON API under ``/api/``.

Every page reads through a workflow and every action calls the very workflow function the CLI
calls (``KnowledgeBase.archive``, ``review.approve``, ``Queue.retry``...), so a button makes the
same validated commit as the command, and a refusal shows the same ``error:`` and ``hint:``.
Workflows block; they run in Starlette's thread pool.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markdown_it import MarkdownIt
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from reflectgit import __version__
from reflectgit.config import Config
from reflectgit.errors import ConflictError, NotFoundError, ReflectGitError
from reflectgit.web.security import COOKIE, CSRF_FIELD, CSRF_HEADER, Guard, bearer

TEMPLATES = Path(__file__).parent / "templates"
PER_PAGE = 50
HISTORY_CACHE = 256  # note histories kept, keyed by (HEAD, id)
SESSIONS_SHOWN = 100  # the newest sessions with an event record
SOURCE = "web"  # the Reflect-Source trailer of the commits the UI makes


@dataclass
class Settings:
    """What one server was started with."""

    cfg: Config
    guard: Guard
    read_only: bool = False
    code: Path | None = None  # a code repository: notes whose anchored code moved on are labelled


# --------------------------------------------------------------------------- rendering


def _markdown() -> MarkdownIt:
    # commonmark without raw HTML: a note's <script> is shown as text, never run.
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    md = _markdown()
    env.filters["markdown"] = lambda text: _safe(md.render(text or ""))
    env.filters["tojson_pretty"] = lambda v: json.dumps(v, indent=2, ensure_ascii=False)
    env.filters["short"] = lambda sha: (sha or "")[:10]
    env.globals["version"] = __version__
    return env


def _safe(html: str) -> Any:
    from markupsafe import Markup

    return Markup(html)  # markdown-it escaped every text node itself


def _status_of(exc: ReflectGitError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    return 400


# --------------------------------------------------------------------------- the guard


class GuardMiddleware(BaseHTTPMiddleware):
    """Host, then token (``?token=`` sets the cookie), then read-only and Origin for POSTs."""

    def __init__(self, app: Any, settings: Settings) -> None:
        super().__init__(app)
        self.settings = settings

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        guard = self.settings.guard
        api = request.url.path.startswith("/api/")
        if not guard.host_ok(request.headers.get("host")):
            return _refusal(
                api,
                421,
                "this server answers only to its own address",
                "open the URL `reflect-git serve` printed (127.0.0.1 or localhost)",
            )
        query_token = request.query_params.get("token")
        if query_token is not None and guard.token_ok([query_token]):
            if request.method == "GET" and not api:
                rest = [(k, v) for k, v in request.query_params.multi_items() if k != "token"]
                url = request.url.path + (f"?{urlencode(rest)}" if rest else "")
                response: Response = RedirectResponse(url, status_code=303)
                _set_cookie(response, guard.token)
                return response
        elif not guard.token_ok(
            [request.cookies.get(COOKIE), bearer(request.headers.get("authorization"))]
        ):
            return _refusal(
                api,
                403,
                "wrong or missing token",
                "open the URL with ?token=... that `reflect-git serve` printed at start",
            )
        if request.method not in ("GET", "HEAD"):
            if self.settings.read_only:
                return _refusal(
                    api, 403, "this server is read-only", "restart it without --read-only"
                )
            if not guard.origin_ok(request.headers.get("origin")):
                return _refusal(
                    api, 403, "cross-site request refused", "use the page this server served"
                )
            if _declared_too_large(request):  # refused before a byte of it is read
                too_large = BodyTooLarge()
                return _refusal(api, 413, too_large.message, too_large.hint or "")
        response = await call_next(request)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        # same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on our own forms
        response.headers["Referrer-Policy"] = "same-origin"
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        )
        return response


def _set_cookie(response: Response, token: str) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")


def _refusal(api: bool, status: int, message: str, hint: str) -> Response:
    if api:
        return JSONResponse({"error": message, "hint": hint}, status_code=status)
    body = (
        "<!doctype html><meta charset=utf-8><title>reflect-git: refused</title>"
        f"<h1>{status}</h1><p class=error>error: {message}</p><p class=hint>hint: {hint}</p>"
    )
    return HTMLResponse(body, status_code=status)


# --------------------------------------------------------------------------- the app


class Web:
    """The handlers, over one KB."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cfg = settings.cfg
        self.env = _environment()
        self._histories: dict[tuple[str | None, str], list[Any]] = {}
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- helpers

    @contextlib.contextmanager
    def kb(self) -> Iterator[Any]:
        from reflectgit.workflows.kb import KnowledgeBase

        cfg = self.cfg
        with KnowledgeBase.open(cfg.kb, env=cfg.env, state_dir=cfg.state_dir, source=SOURCE) as kb:
            yield kb

    def history(self, kb: Any, ident: str) -> list[Any]:
        """``kb.history(ident)``, remembered per (HEAD, id): git objects never change, so a
        note's history at one HEAD is the same for every later view until HEAD moves."""
        key = (kb.store.head(), ident)
        with self._lock:
            found = self._histories.get(key)
        if found is None:
            found = kb.history(ident)
            with self._lock:
                if len(self._histories) >= HISTORY_CACHE:
                    self._histories.pop(next(iter(self._histories)))
                self._histories[key] = found
        return found

    def stale_labels(self, notes: list[tuple[str, str]]) -> dict[str, str]:
        """Labels for the notes whose anchored code moved on (``serve --repo``)."""
        from reflectgit.workflows.code.labels import stale_labels

        cfg = self.cfg
        return stale_labels(cfg.kb, cfg.state_dir, self.settings.code, notes, cfg.env)

    def page(self, request: Request, name: str, code: int = 200, **context: Any) -> Response:
        template = self.env.get_template(name)
        html = template.render(
            request=request,
            read_only=self.settings.read_only,
            csrf=self.settings.guard.csrf,
            csrf_field=CSRF_FIELD,
            kb=str(self.cfg.kb),
            done=request.query_params.get("done"),
            error=request.query_params.get("error"),
            hint=request.query_params.get("hint"),
            **context,
        )
        return HTMLResponse(html, status_code=code)

    async def read(
        self, request: Request, name: str, work: Callable[[], Any], **context: Any
    ) -> Response:
        """Run a reading workflow; its refusal becomes the page's error box."""
        api = request.url.path.startswith("/api/")
        try:
            data = await run_in_threadpool(work)
        except ReflectGitError as exc:
            if api:
                return JSONResponse(
                    {"error": exc.message, "hint": exc.hint}, status_code=_status_of(exc)
                )
            return self.page(
                request,
                "error.html",
                code=_status_of(exc),
                failure={"error": exc.message, "hint": exc.hint},
            )
        if api:
            return JSONResponse(_jsonable(data))
        return self.page(request, name, **data, **context)

    # ---------------------------------------------------------------- pages

    async def csrf(self, request: Request) -> Response:
        """The CSRF token a script sends with its POSTs (as ``X-CSRF-Token``)."""
        return JSONResponse(
            {"csrf": self.settings.guard.csrf, "read_only": self.settings.read_only}
        )

    async def home(self, request: Request) -> Response:
        return RedirectResponse("/notes", status_code=303)

    async def notes(self, request: Request) -> Response:
        from reflectgit.workflows.browse import MAX_MATCHES, browse

        q = request.query_params

        def work() -> Any:
            page = browse(
                self.cfg,
                q.get("q", ""),
                tier=q.get("tier") or None,
                tag=q.get("tag") or None,
                state=q.get("state") or "live",
                project=q.get("project") or None,
                sort=q.get("sort") or None,
                page=_int("page", q.get("page"), 1),
                per_page=_int("per_page", q.get("per_page"), PER_PAGE),
            )
            found = page.to_json()
            labels = self.stale_labels([(n["id"], n["path"]) for n in found["notes"]])
            for n in found["notes"]:
                n["stale"] = labels.get(n["id"])
            return found | {
                "tags": page.tags,
                "projects": page.projects,
                "max_matches": MAX_MATCHES,
            }

        def link(**change: Any) -> str:
            params = {k: v for k, v in q.items() if k != "token"}
            params.update({k: v for k, v in change.items() if v is not None})
            return "/notes?" + urlencode({k: v for k, v in params.items() if v not in ("", None)})

        return await self.read(request, "notes.html", work, link=link, tab="notes")

    async def note(self, request: Request) -> Response:
        ident = request.path_params["id"]
        at = request.query_params.get("at") or None

        def work() -> Any:
            from reflectgit.notes import edit
            from reflectgit.notes.note import parse_note

            with self.kb() as kb:
                shown = kb.show(ident, at)
                raw = kb.store.read(shown.path, shown.revision) or b""
                history = self.history(kb, shown.id)
            note = parse_note(raw, shown.path)
            stale = None if at else self.stale_labels([(shown.id, shown.path)]).get(shown.id)
            return {
                "note": {
                    **shown.to_json(),
                    "proof_count": edit.proof_count(note),
                    "sources": edit.proof_sources(note),
                    "stale": stale,
                },
                "history": [
                    {
                        "commit": r.commit,
                        "subject": r.subject,
                        "date": r.date,
                        "author": r.author,
                        "trailers": r.trailers,
                        "path": r.path,
                        "diff": r.diff,
                    }
                    for r in history
                ],
                "at": at,
            }

        return await self.read(request, "note.html", work, tab="notes")

    async def review_page(self, request: Request) -> Response:
        def work() -> Any:
            from reflectgit.workflows import review, review_queue
            from reflectgit.workflows.team import require_team

            branches: list[Any] = []
            problem = None
            try:
                require_team(self.cfg, None)
                items = review.list_branches(self.cfg)
                branches = [i.to_json(full=True) | {"diff": i.diff} for i in items]
            except ReflectGitError as exc:
                problem = {"error": exc.message, "hint": exc.hint}
            queue = [i.to_json() for i in review_queue.list_queue(self.cfg)]
            return {"branches": branches, "queue": queue, "team_problem": problem}

        return await self.read(request, "review.html", work, tab="review")

    async def drain_page(self, request: Request) -> Response:
        def work() -> Any:
            from reflectgit.state import ledger
            from reflectgit.state.queue import open_queue
            from reflectgit.workflows.drain.loop import cost_report

            since = request.query_params.get("since") or "30d"
            queue = open_queue(self.cfg)
            rows = list(ledger.read_rows(self.cfg.state_dir))
            return {
                "pending": [e.to_dict() for e in queue.list()],
                "dead": [e.to_dict() for e in queue.failed()],
                "charts": {
                    by: cost_report(self.cfg, since=since, by=by)
                    for by in ("day", "outcome", "writer")
                },
                "runs": rows[-20:][::-1],
                "since": since,
            }

        return await self.read(request, "drain.html", work, tab="drain")

    async def status_page(self, request: Request) -> Response:
        def work() -> Any:
            with self.kb() as kb:
                st = kb.status()
            return {"status": st.__dict__}

        return await self.read(request, "status.html", work, tab="status")

    async def activity(self, request: Request) -> Response:
        """The KB's history, newest first: every commit on the branch, reflect-git's read
        from their trailers (what, which notes, where from), people's plain-git ones too."""
        q = request.query_params
        op = q.get("op") or None

        def work() -> Any:
            page = _int("page", q.get("page"), 1)
            with self.kb() as kb:
                entries = kb.log(limit=page * PER_PAGE + 1, op=op, everyone=op is None)
            shown = entries[(page - 1) * PER_PAGE : page * PER_PAGE]
            return {
                "entries": [
                    {
                        "commit": e.commit,
                        "date": e.date,
                        "op": e.op,
                        "ids": e.ids,
                        "subject": e.subject,
                        "author": e.author,
                        "source": e.trailer("Reflect-Source"),
                        "session": e.trailer("Reflect-Session"),
                        "trailers": e.trailers,
                    }
                    for e in shown
                ],
                "page": page,
                "more": len(entries) > page * PER_PAGE,
                "op": op,
            }

        def link(**change: Any) -> str:
            params = {k: v for k, v in q.items() if k != "token"} | change
            return "/activity?" + urlencode({k: v for k, v in params.items() if v})

        return await self.read(request, "activity.html", work, link=link, tab="activity")

    async def sessions_page(self, request: Request) -> Response:
        """The agent sessions capture kept events of, newest first."""

        def work() -> Any:
            from reflectgit.notes.dates import format_epoch
            from reflectgit.state import sessionrecord

            rows = []
            for session, mtime in sessionrecord.sessions(self.cfg.state_dir)[:SESSIONS_SHOWN]:
                events = sessionrecord.read(self.cfg.state_dir, session)
                kinds: dict[str, int] = {}
                for e in events:
                    kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
                notes = [e["note"] for e in events if isinstance(e.get("note"), str)]
                rows.append(
                    {"id": session, "last": format_epoch(mtime), "kinds": kinds, "notes": notes}
                )
            return {"sessions": rows}

        return await self.read(request, "sessions.html", work, tab="sessions")

    async def session_page(self, request: Request) -> Response:
        """One session's events: what capture kept as events, and the notes they gave."""
        ident = request.path_params["id"]

        def work() -> Any:
            from reflectgit.notes.dates import format_epoch
            from reflectgit.state import sessionrecord
            from reflectgit.state.eventlog import safe_session

            events = sessionrecord.read(self.cfg.state_dir, ident) if safe_session(ident) else []
            if not events:
                raise NotFoundError(
                    f"no events recorded for session {ident!r}",
                    hint="the sessions page lists the sessions capture kept events of",
                )
            shown = []
            for e in events:
                ts = e.get("ts")
                when = format_epoch(float(ts)) if isinstance(ts, (int, float)) else ""
                shown.append({**e, "when": when})
            return {"session": ident, "events": shown}

        return await self.read(request, "session.html", work, tab="sessions")

    async def editor(self, request: Request) -> Response:
        """The form that writes a new note (``/notes/new``) or edits one (``/notes/ID/edit``)."""
        ident = request.path_params.get("id")
        if self.settings.read_only:
            return _refusal(
                False, 403, "this server is read-only", "restart it without --read-only"
            )

        def work() -> Any:
            if ident is None:
                return {"form": EMPTY_FORM, "ident": None}
            with self.kb() as kb:
                shown = kb.show(ident)
            if shown.state != "live":
                from reflectgit.errors import ConflictError

                raise ConflictError(
                    f"{shown.id} is {shown.state}: only a live note is edited",
                    hint="restore it first" if shown.state == "archived" else None,
                )
            return {"form": _form_of(shown), "ident": shown.id}

        return await self.read(request, "edit.html", work, tab="notes")

    async def save(self, request: Request) -> Response:
        """POST /notes/new and /notes/ID/edit: ``add`` or ``update`` through the KB's one
        mutation door; a refusal shows the form again, as it was sent, with the error."""
        api = request.url.path.startswith("/api/")
        form = await _form(request)
        sent = form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        if not self.settings.guard.csrf_ok(sent):
            return _refusal(
                api, 403, "missing or wrong CSRF token", "reload the page and try again"
            )
        ident = request.path_params.get("id")
        try:
            message, result = await run_in_threadpool(self._save, ident, form)
        except ReflectGitError as exc:
            if api:
                return JSONResponse(
                    {"error": exc.message, "hint": exc.hint}, status_code=_status_of(exc)
                )
            values = {k: form.get(k, "") for k in EMPTY_FORM}
            return self.page(
                request,
                "edit.html",
                code=_status_of(exc),
                form=values,
                ident=ident,
                failure={"error": exc.message, "hint": exc.hint},
                tab="notes",
            )
        if api:
            return JSONResponse({"ok": True, "message": message, "result": _jsonable(result)})
        target = f"/notes/{quote(result['id'], safe='')}"
        return RedirectResponse(_with(target, {"done": message}), status_code=303)

    def _save(self, ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
        """The form's fields (those it sent: an API call may send only what changes) written
        by ``add``, or by ``update`` for the ones that differ from the note as it is."""
        fields = {
            key: _form_value(key, form[name]) for name, key in FORM_FIELDS.items() if name in form
        }
        body = form.get("body")
        if body is not None:
            body = body.replace("\r\n", "\n")  # a textarea sends CRLF
            if body.strip() and not body.endswith("\n"):
                body += "\n"
        if ident is None:
            for name, what in REQUIRED_FOR_NEW:
                _require(form, name, what)
        with self.kb() as kb:
            if ident is None:
                added = kb.add(None, fields=fields, source_name="<form>", body=body)
                if added.status == "unchanged":
                    return f"{added.id} is already in the KB, unchanged", {"id": added.id}
                return f"added {added.id}", {"id": added.id, "commit": added.commit}
            shown = kb.show(ident)
            changed = {
                key: value
                for key, value in fields.items()
                if value != _form_value(key, shown.frontmatter.get(key))
            }
            # The body as it was shown is not a new body: then a new insight restates it.
            if body is not None and body.strip() == shown.body.replace("\r\n", "\n").strip():
                body = None
            if not changed and body is None:
                return f"{shown.id} unchanged", {"id": shown.id, "commit": None, "notes": []}
            done = kb.update(shown.id, body=body, fields=changed)
        message = f"updated {done.id}" if done.commit else f"{done.id} unchanged"
        message += "".join(f"; {n}" for n in done.notes)
        return message, {"id": done.id, "commit": done.commit, "notes": list(done.notes)}

    # ---------------------------------------------------------------- actions

    async def act(self, request: Request) -> Response:
        """POST /notes/ID/ACTION, /review/ACTION, /drain/ACTION (and the same under /api/)."""
        api = request.url.path.startswith("/api/")
        try:
            form = await _form(request)
        except BodyTooLarge as exc:
            return _refusal(api, 413, exc.message, exc.hint or "")
        kind = request.path_params.get("kind", "notes")
        action = request.path_params["action"]
        back = _back(request, form)
        sent = form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
        if not self.settings.guard.csrf_ok(sent):
            return _refusal(
                api, 403, "missing or wrong CSRF token", "reload the page and try again"
            )
        handler = ACTIONS.get((kind, action))
        if handler is None:
            return _refusal(api, 404, f"no action {action!r}", "see docs/serve.md")
        ident = request.path_params.get("id")
        try:
            message, result = await run_in_threadpool(handler, self, ident, form)
        except ReflectGitError as exc:
            if api:
                return JSONResponse(
                    {"error": exc.message, "hint": exc.hint}, status_code=_status_of(exc)
                )
            params = {"error": exc.message} | ({"hint": exc.hint} if exc.hint else {})
            return RedirectResponse(_with(back, params), status_code=303)
        if api:
            return JSONResponse({"ok": True, "message": message, "result": _jsonable(result)})
        target = back
        if kind == "notes" and action == "forget":
            target = "/notes"
        return RedirectResponse(_with(target, {"done": message}), status_code=303)


def _require(form: dict[str, str], name: str, what: str) -> str:
    from reflectgit.errors import UsageError

    value = (form.get(name) or "").strip()
    if not value:
        raise UsageError(f"{what} is required", hint=f"fill in the {name} field")
    return value


# The editor's fields: the form's names, and the note's fields they write.
FORM_FIELDS = {
    "title": "title",
    "insight": "key_insight",
    "category": "category",
    "confidence": "confidence",
    "tags": "tags",
}
EMPTY_FORM = {name: "" for name in FORM_FIELDS} | {"confidence": "medium", "body": ""}
REQUIRED_FOR_NEW = (("title", "a title"), ("insight", "a key insight"), ("category", "a category"))


def _form_value(key: str, value: Any) -> Any:
    """A field as the editor sends it: tags a list (from ``a, b``), the rest stripped text."""
    if key == "tags":
        items = value.split(",") if isinstance(value, str) else value
        return [str(t).strip() for t in items or [] if str(t).strip()]
    return value.strip() if isinstance(value, str) else ""


def _form_of(shown: Any) -> dict[str, Any]:
    """The editor's values for a note as it is."""
    front = shown.frontmatter
    values = {name: _form_value(key, front.get(key)) for name, key in FORM_FIELDS.items()}
    return values | {"tags": ", ".join(values["tags"]), "body": shown.body}


def _archive(web: Web, ident: str, form: dict[str, str]) -> tuple[str, Any]:
    with web.kb() as kb:
        result = kb.archive(ident)
    return f"archived {result.id}", {"id": result.id, "commit": result.commit}


def _restore(web: Web, ident: str, form: dict[str, str]) -> tuple[str, Any]:
    with web.kb() as kb:
        result = kb.restore(ident)
    return f"restored {result.id}", {"id": result.id, "commit": result.commit}


def _confirm(web: Web, ident: str, form: dict[str, str]) -> tuple[str, Any]:
    source = _require(form, "source", "a source")
    with web.kb() as kb:
        result = kb.confirm(ident, source)
    doc = {"id": result.id, "proof_count": result.proof_count, "commit": result.commit}
    if result.reviewed_by:  # this confirm reviewed a machine's note (docs/team.md)
        doc["reviewed_by"] = result.reviewed_by
    return f"confirmed {result.id} ({result.proof_count} proofs)", doc


def _forget(web: Web, ident: str, form: dict[str, str]) -> tuple[str, Any]:
    with web.kb() as kb:
        result = kb.forget(ident, (form.get("reason") or "").strip() or None)
    return f"forgot {ident}", {"forgotten": result.forgotten, "commit": result.commit}


def _supersede(web: Web, ident: str, form: dict[str, str]) -> tuple[str, Any]:
    new = _require(form, "by", "the note that replaces it")
    with web.kb() as kb:
        result = kb.supersede(ident, new)
    doc = {"old": result.old, "new": result.new, "commit": result.commit}
    return f"{result.old} is superseded by {result.new}", doc


def _approve(web: Web, _ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
    from reflectgit.workflows import review

    accept = (form.get("accept") or "").splitlines()  # the paths the page listed, by name
    result = review.approve(
        web.cfg, _require(form, "branch", "a branch"), accept=accept, tip=form.get("tip") or None
    )
    return f"approved {result.branch}", result.to_json()


def _reject(web: Web, _ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
    from reflectgit.workflows import review

    branch = _require(form, "branch", "a branch")
    result = review.reject(web.cfg, branch, form.get("reason") or "")
    return f"rejected {result.branch}", result.to_json()


def _promote(web: Web, _ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
    from reflectgit.workflows import review_queue

    ident = _require(form, "id", "a note")
    result = review_queue.promote(web.cfg, ident, form.get("to") or "medium", source=SOURCE)
    return f"promoted {result.id} to {result.confidence}", result.to_json()


def _drop(web: Web, _ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
    from reflectgit.workflows import review_queue

    result = review_queue.drop(web.cfg, _require(form, "id", "a note"), source=SOURCE)
    return f"dropped {result.pointer} from the review queue", result.to_json()


def _retry(web: Web, _ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
    from reflectgit.state.queue import open_queue

    entry = open_queue(web.cfg).retry(_require(form, "entry", "an entry id"))
    return f"requeued {entry.id}", {"id": entry.id, "entry": entry.to_dict()}


def _purge(web: Web, _ident: str | None, form: dict[str, str]) -> tuple[str, Any]:
    from reflectgit.state.queue import open_queue

    entry, dead = open_queue(web.cfg).purge(_require(form, "entry", "an entry id"))
    where = "dead letter" if dead else "pending entry"
    return f"purged {where} {entry.id}", {"id": entry.id, "purged": where.replace(" ", "_")}


ActionFn = Callable[[Web, Any, dict[str, str]], tuple[str, Any]]
ACTIONS: dict[tuple[str, str], ActionFn] = {
    ("notes", "archive"): _archive,
    ("notes", "restore"): _restore,
    ("notes", "confirm"): _confirm,
    ("notes", "forget"): _forget,
    ("notes", "supersede"): _supersede,
    ("review", "approve"): _approve,
    ("review", "reject"): _reject,
    ("review", "promote"): _promote,
    ("review", "drop"): _drop,
    ("drain", "retry"): _retry,
    ("drain", "purge"): _purge,
}


BODY_LIMIT = 8 * 1024 * 1024  # bytes of one form or JSON body (a note is a few kilobytes)


class BodyTooLarge(ReflectGitError):
    """A request body past ``BODY_LIMIT``: refused (413) before it is buffered."""

    def __init__(self) -> None:
        super().__init__(
            f"the request body is larger than {BODY_LIMIT} bytes",
            hint="the web UI's forms and the API take a few kilobytes; send less",
        )


def _declared_too_large(request: Request) -> bool:
    declared = request.headers.get("content-length", "")
    return declared.isdigit() and int(declared) > BODY_LIMIT


async def _body(request: Request) -> bytes:
    """The request body, read at most ``BODY_LIMIT`` bytes far (a chunked body says no
    length up front)."""
    if _declared_too_large(request):
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > BODY_LIMIT:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded form or a JSON object, as flat strings."""
    body = await _body(request)
    kind = request.headers.get("content-type", "")
    if kind.startswith("application/json"):
        try:
            data = json.loads(body or b"{}")
        except json.JSONDecodeError:
            data = {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[-1] for k, v in parsed.items()}


def _back(request: Request, form: dict[str, str]) -> str:
    """Where a form goes back to: a local path only (never another site)."""
    back = form.get("back") or ""
    if back.startswith("/") and not back.startswith("//") and "\\" not in back:
        return back
    kind = request.path_params.get("kind", "notes")
    if kind == "notes":
        return f"/notes/{request.path_params.get('id', '')}"
    return f"/{kind}"


def _with(url: str, params: dict[str, str]) -> str:
    base = url.split("?", 1)[0]
    return f"{base}?{urlencode(params)}"


MAX_QUERY_INT = 10**9  # a page (or page size) beyond this is no page at all


def _int(name: str, value: str | None, default: int) -> int:
    """A whole number from the query string; anything else is the caller's mistake (400)."""
    from reflectgit.errors import UsageError

    if value is None or not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        raise UsageError(f"{name} {value[:40]!r} is not a whole number", hint=f"{name}=2") from None
    if not 0 < number <= MAX_QUERY_INT:
        raise UsageError(
            f"{name} {value[:40]!r} is out of range", hint=f"{name} is from 1 to {MAX_QUERY_INT}"
        )
    return number


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def create_app(settings: Settings) -> Starlette:
    web = Web(settings)

    def get(path: str, fn: Callable[[Request], Awaitable[Response]]) -> list[Route]:
        return [Route(path, fn, methods=["GET"]), Route("/api" + path, fn, methods=["GET"])]

    routes = [
        Route("/", web.home, methods=["GET"]),
        Route("/api/csrf", web.csrf, methods=["GET"]),
        *get("/notes", web.notes),
        Route("/notes/new", web.editor, methods=["GET"]),
        *get("/notes/{id:str}", web.note),
        Route("/notes/{id:str}/edit", web.editor, methods=["GET"]),
        *get("/review", web.review_page),
        *get("/drain", web.drain_page),
        *get("/status", web.status_page),
        *get("/activity", web.activity),
        *get("/sessions", web.sessions_page),
        *get("/sessions/{id:str}", web.session_page),
    ]
    for prefix in ("", "/api"):
        routes += [
            Route(prefix + "/notes/new", web.save, methods=["POST"]),
            Route(prefix + "/notes/{id:str}/edit", web.save, methods=["POST"]),
            Route(prefix + "/notes/{id:str}/{action:str}", web.act, methods=["POST"]),
            Route(prefix + "/{kind:str}/{action:str}", web.act, methods=["POST"]),
        ]
    return Starlette(routes=routes, middleware=[Middleware(GuardMiddleware, settings=settings)])
