"""The MCP interface: ``reflect-git mcp`` serves the KB to agents over stdio.

An interface layer beside ``cli/``: it calls workflows, never the other way round. ``tools``
is the tool table and what each tool calls (no SDK import); ``server`` binds it to the official
MCP SDK. Only this package imports the SDK, and only the ``mcp`` command imports this package,
so no other command pays for it at start-up.
"""
