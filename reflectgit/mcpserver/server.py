"""The MCP server on the official SDK's low-level ``Server``, over stdio.

- ``tools/list`` and ``tools/call``: the table in ``tools.py``. A ``ReflectGitError`` is a tool
  error (``isError: true``) whose text is the CLI's own ``error: ...`` / ``hint: ...`` lines and
  whose structured content is the CLI's ``--json`` failure document
  (``{"error", "hint", "exit_code"}``), so a model reads the same advice a person would.
- ``resources/list`` and ``resources/read``: every live note as ``note://<id>`` (markdown, the
  file as committed); ``resources/templates/list`` names the ``note://{id}`` pattern, which
  also reads archived and forgotten notes. A read that fails is a JSON-RPC error (-32002,
  resource not found, or -32602) carrying the message, with the hint in ``data``.
- Stdout is the protocol's: the SDK points fd 1 at stderr while it serves, so a stray print
  (ours, a library's, a child process's) can never corrupt a message. Logs go to stderr; an
  unexpected exception's traceback also goes to ``<state>/logs/error.log``, as the CLI's do.

Tool calls run one at a time in a worker thread (the workflows are synchronous and take the
KB's write lock), so the event loop keeps answering pings.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from reflectgit import __version__
from reflectgit.config import Config
from reflectgit.errors import EXIT_INTERNAL, NotFoundError, ReflectGitError
from reflectgit.mcpserver.tools import TOOLS, Reply, Tools

NAME = "reflect-git"
URI_SCHEME = "note://"
PAGE = 500  # resources per resources/list page
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for an unknown resource
INVALID_PARAMS = -32602
INSTRUCTIONS = (
    "reflect-git keeps the team's engineering learnings (what broke, why, the rule that "
    "prevents it) as notes in git. Before you debug or change something, `search` or `recall` "
    "what the team already knows; `show` reads one note. When you learn something worth "
    "keeping, `add` it (it is reviewed before it reaches the team); when a note helped, "
    "`confirm` it; when one is wrong, `update` it, `supersede` it by a newer note, or "
    "`archive` it."
)

log = logging.getLogger("reflectgit.mcp")


def error_lines(exc: ReflectGitError) -> str:
    """The CLI's ``error:``/``hint:`` lines for one error (``render.error`` prints the same)."""
    lines = [f"error: {exc.message}"]
    if exc.hint:
        lines.append(f"hint: {exc.hint}")
    return "\n".join(lines)


def failure_document(exc: ReflectGitError) -> dict[str, Any]:
    """The CLI's ``--json`` failure document."""
    return {"error": exc.message, "hint": exc.hint, "exit_code": exc.exit_code}


class Served:
    """The handlers, over one KB; every request is answered, none kills the server."""

    def __init__(self, cfg: Config, cwd: Path) -> None:
        self.cfg = cfg
        self.tools = Tools(cfg, cwd)
        self.limiter = anyio.CapacityLimiter(1)

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)

    def _log_internal(self, exc: BaseException, what: str) -> Path | None:
        log.error("%s: %s: %s", what, type(exc).__name__, exc)
        from reflectgit.state.errors import append_traceback

        try:
            if not self.cfg.state_dir.parent.exists():
                return None
            return append_traceback(self.cfg.state_dir / "logs", f"mcp {what}", exc)
        except OSError:
            return None

    # ------------------------------------------------------------------ tools

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    title=t.title,
                    description=t.description,
                    input_schema=t.input_schema(),
                    output_schema=t.output_schema(),
                    annotations=types.ToolAnnotations(
                        title=t.title,
                        read_only_hint=t.read_only,
                        destructive_hint=t.destructive,
                        idempotent_hint=t.read_only or t.idempotent,
                        open_world_hint=False,
                    ),
                )
                for t in TOOLS
            ]
        )

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            reply: Reply = await self._run(self.tools.call, params.name, params.arguments)
        except ReflectGitError as exc:
            log.info("tool %s: %s", params.name, exc.message)
            return _tool_error(error_lines(exc), failure_document(exc))
        except Exception as exc:
            where = self._log_internal(exc, f"tool {params.name}")
            message = f"internal error: {type(exc).__name__}: {exc}"
            hint = f"the traceback is in {where}" if where else None
            doc = {"error": message, "hint": hint, "exit_code": EXIT_INTERNAL}
            text = f"error: {message}" + (f"\nhint: {hint}" if hint else "")
            return _tool_error(text, doc)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=reply.content)],
            structured_content=reply.document,
        )

    # ------------------------------------------------------------------ resources

    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        start = _offset(cursor)
        try:
            notes = await self._run(self.tools.notes)
        except ReflectGitError as exc:
            raise _rpc_error(exc, INVALID_PARAMS) from None
        page = notes[start : start + PAGE]
        more = start + PAGE < len(notes)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=f"{URI_SCHEME}{n.id}",
                    name=n.id,
                    title=n.title or n.id,
                    description=f"{n.confidence or 'unrated'} confidence"
                    + (f"; tags: {', '.join(n.tags)}" if n.tags else ""),
                    mime_type="text/markdown",
                )
                for n in page
            ],
            next_cursor=str(start + PAGE) if more else None,
        )

    async def list_templates(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=URI_SCHEME + "{id}",
                    name="note",
                    title="A note by id",
                    description="One note as committed: markdown with YAML frontmatter.",
                    mime_type="text/markdown",
                )
            ]
        )

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if not uri.startswith(URI_SCHEME) or not uri[len(URI_SCHEME) :]:
            raise MCPError(
                code=RESOURCE_NOT_FOUND,
                message=f"{uri!r} is not a note",
                data={"uri": uri, "hint": f"note resources are {URI_SCHEME}<id>"},
            )
        ident = uri[len(URI_SCHEME) :]
        try:
            _shown, text = await self._run(self.tools.note, ident)
        except NotFoundError as exc:
            raise _rpc_error(exc, RESOURCE_NOT_FOUND, uri) from None
        except ReflectGitError as exc:
            raise _rpc_error(exc, INVALID_PARAMS, uri) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type="text/markdown")]
        )


def _tool_error(text: str, doc: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=doc,
        is_error=True,
    )


def _rpc_error(exc: ReflectGitError, code: int, uri: str | None = None) -> MCPError:
    data: dict[str, Any] = failure_document(exc)
    if uri is not None:
        data["uri"] = uri
    return MCPError(code=code, message=exc.message, data=data)


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    if not cursor.isdigit():
        raise MCPError(code=INVALID_PARAMS, message=f"bad cursor {cursor!r}")
    return int(cursor)


def build(cfg: Config, cwd: Path) -> Server[Any]:
    """The SDK server with our handlers."""
    served = Served(cfg, cwd)
    return Server(
        NAME,
        version=__version__,
        title="reflect-git",
        instructions=INSTRUCTIONS,
        on_list_tools=served.list_tools,
        on_call_tool=served.call_tool,
        on_list_resources=served.list_resources,
        on_list_resource_templates=served.list_templates,
        on_read_resource=served.read_resource,
    )


class Lines:
    """The client's messages for the SDK's stdio transport, one line each, read at most
    ``LINE_LIMIT`` bytes at a time: a line with no newline in sight (a client gone wrong, or
    800 MB sent on purpose) is refused with a JSON-RPC error and the connection is closed,
    instead of being buffered whole."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.write: Any = None  # the SDK's outgoing stream, once the transport is up

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self.raw.readline, LINE_LIMIT + 1)
        if not line:
            raise StopAsyncIteration
        if len(line) > LINE_LIMIT:
            log.warning("a request line passed %d bytes: refused, connection closed", LINE_LIMIT)
            if self.write is not None:
                await self.write.send(SessionMessage(TOO_LONG))
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


LINE_LIMIT = 8 * 1024 * 1024  # bytes of one JSON-RPC message (a note is a few kilobytes)
TOO_LONG = types.JSONRPCError(
    jsonrpc="2.0",
    id=None,
    error=types.ErrorData(
        code=types.INVALID_REQUEST,
        message=f"a request line is longer than {LINE_LIMIT} bytes: refused; the connection "
        "is closed",
    ),
)


@contextlib.contextmanager
def claimed_stdin() -> Iterator[BinaryIO]:
    """The client's end of stdin on a private descriptor, fd 0 pointed at the null device
    while we serve (as the SDK does when it reads stdin itself), so a child process or a
    library reading stdin never takes a byte of the protocol."""
    try:
        private = os.dup(0)
    except OSError:
        yield sys.stdin.buffer
        return
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        with open(private, "rb", closefd=False) as raw:
            yield raw
    finally:
        os.dup2(private, 0)
        os.close(private)


def serve(cfg: Config, cwd: Path) -> None:
    """Serve one client on stdin/stdout until it closes stdin."""
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="reflect-git mcp: %(message)s")
    server = build(cfg, cwd)

    async def main() -> None:
        with claimed_stdin() as raw:
            lines = Lines(raw)
            async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
                lines.write = write
                await server.run(read, write, server.create_initialization_options())

    anyio.run(main)
