"""The servers over the gateway: one `GatewayService` (`service`: the tools as they load, warm up, reload
and are called, with their telemetry) behind every transport (`transports`: stdio, streamable HTTP and the
local socket of the `haygate` command, and a clean stop), the HTTP app (`http`, behind its `boundary`, with
`openapi`), the MCP server (`mcp`), and what the command needs to find and call a running server
(`endpoint`, `client`)."""
