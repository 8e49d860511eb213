"""`haygate serve`: the apps that mount the server's REST and MCP routes and the console side by side (`http`),
and the transports that run them (stdio, HTTP, the owner's local socket, a clean stop: `transports`). Above
both the server and the console, which import neither."""
