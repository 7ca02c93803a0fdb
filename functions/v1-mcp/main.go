// Command v1-mcp is the agent tool server's remote transport: MCP over
// streamable HTTP (stateless, JSON answers) at /v1-mcp and /v1/mcp, the
// partner API key in X-Partner-Key (docs/AGENT-TOOLS.md).
package main

import "github.com/moveleads/partnerapi/shared/wire/mcpwiring"

func main() { mcpwiring.Start() }
