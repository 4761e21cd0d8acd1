"""errkb for coding agents: a Model Context Protocol server over the same store and matcher.

- :mod:`bot.mcp.tools`: what each tool does, as plain calls returning models;
- :mod:`bot.mcp.models`: those models (``triage`` and ``show`` return the
  report models of :mod:`bot.report`, as ``errkb triage --json`` prints);
- :mod:`bot.mcp.text`: short text renderings beside the JSON (pure);
- :mod:`bot.mcp.server`: the MCP server, its tools, resource and prompt;
- :mod:`bot.mcp.http`: streamable HTTP with a bearer token.

``errkb mcp`` (:mod:`bot.cli.mcp`) wires them.
"""
