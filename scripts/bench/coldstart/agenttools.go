package coldstart

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// toolsListBody is the agent tool server's cold start request: one
// JSON-RPC tools/list, which the stateless transport serves without a
// prior initialize. It builds every tool's schema for the key, so the
// first response includes the MCP server's whole set-up.
const toolsListBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`

// mcpAccept is the Accept header the streamable HTTP transport requires
// of a POST (it answers JSON here, never an event stream).
const mcpAccept = "Accept: application/json, text/event-stream"

// agentToolsRequest is the cold start request of the agent tool server's
// route: a tools/list with a fresh key of its partner in X-Partner-Key
// (the route's auth kind, see fixture.Event). Its partner has the deposits
// beta, so every tool is listed (checkToolsList).
func agentToolsRequest(rt manifest.Route) request {
	return request{route: rt, method: http.MethodPost, path: rt.PilotPath, body: toolsListBody, key: true,
		headers: []string{mcpAccept}, check: checkToolsList}
}

// checkToolsList fails unless body is an API Gateway response with status
// 200 whose body is a JSON-RPC result listing a tool per operation of
// manifest.AgentToolOperations: a 200 carrying a JSON-RPC error, or fewer
// tools, is not the work the cold start is meant to time.
func checkToolsList(body []byte) error {
	if err := checkStatus(body, http.StatusOK); err != nil {
		return err
	}
	var resp struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("response is not an API Gateway response: %w: %s", err, clip(body))
	}
	var rpc struct {
		Result *struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(resp.Body), &rpc); err != nil {
		return fmt.Errorf("tools/list answer is not JSON-RPC: %w: %s", err, clip([]byte(resp.Body)))
	}
	if rpc.Error != nil || rpc.Result == nil {
		return fmt.Errorf("tools/list answered no result: %s", clip([]byte(resp.Body)))
	}
	if got, want := len(rpc.Result.Tools), len(manifest.AgentToolOperations); got != want {
		return fmt.Errorf("tools/list listed %d tools; want %d (one per manifest.AgentToolOperations): %s", got, want, clip([]byte(resp.Body)))
	}
	return nil
}
