package agenttools

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// message is the one JSON-RPC message of an HTTP request.
type message struct {
	id     json.RawMessage // a JSON string or integer; nil: a notification
	method string
	params json.RawMessage
}

// rpcError is a JSON-RPC-level refusal: an error object for the message's
// id (null when it has none or a bad one).
type rpcError struct {
	id      json.RawMessage
	code    int64
	message string
	data    any
}

func (e *rpcError) Error() string { return e.message }

// body is e as a JSON-RPC response.
func (e *rpcError) body() []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireErr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireErr         `json:"error"`
	}{"2.0", id, wireErr{e.code, e.message, e.data}})
	return b
}

// readMessage reads body as one JSON-RPC message. A body that is not one
// JSON object (empty, not JSON, null, an array: a batch) is an
// *errcode.Error (invalid_json, the API's answer to such a body); an
// object that is not a JSON-RPC request or notification this server takes
// is an *rpcError. It never quotes the body back.
func readMessage(body []byte) (*message, error) {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return nil, errcode.New(errcode.InvalidJSON, "The request body is a JSON array: a JSON-RPC batch. This server takes no batches (MCP 2025-06-18 removed them): send one message per request.")
	}
	fields, err := lead.DecodeObject(body)
	if err != nil {
		return nil, err
	}
	m := &message{}
	if raw, ok := fields["id"]; ok {
		if !validID(raw) {
			return nil, &rpcError{code: jsonrpc.CodeInvalidRequest, message: `The message's "id" must be a string or an integer.`}
		}
		m.id = raw
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, &rpcError{id: m.id, code: jsonrpc.CodeInvalidRequest, message: `The message's "jsonrpc" must be the string "2.0".`}
	}
	raw, ok := fields["method"]
	if !ok {
		return nil, &rpcError{id: m.id, code: jsonrpc.CodeInvalidRequest, message: `The message has no "method": send a request (with an "id") or a notification.`}
	}
	if json.Unmarshal(raw, &m.method) != nil || m.method == "" {
		return nil, &rpcError{id: m.id, code: jsonrpc.CodeInvalidRequest, message: `The message's "method" must be a non-empty string.`}
	}
	if p, ok := fields["params"]; ok {
		if bytes.TrimSpace(p)[0] != '{' {
			return nil, &rpcError{id: m.id, code: jsonrpc.CodeInvalidParams, message: `The message's "params" must be a JSON object.`}
		}
		m.params = p
	}
	switch m.method {
	case "subscriptions/listen":
		// It would hold the request open: this server answers at once.
		return nil, &rpcError{id: m.id, code: jsonrpc.CodeMethodNotFound, message: "This server has no subscriptions; it answers each request at once."}
	case "tools/call":
		var p struct {
			Name json.RawMessage `json:"name"`
		}
		var name string
		if m.params == nil || json.Unmarshal(m.params, &p) != nil || json.Unmarshal(p.Name, &name) != nil || name == "" {
			return nil, &rpcError{id: m.id, code: jsonrpc.CodeInvalidParams, message: `tools/call needs "params" with "name", the tool's name (a string), and "arguments", an object.`}
		}
	}
	return m, nil
}

// validID reports whether raw is a JSON string or integer.
func validID(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true
	}
	_, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return err == nil
}

// sdkRefusal translates an answer the SDK wrote as plain text (status and
// text) for m: a JSON-RPC-level refusal as an *rpcError, anything else as
// the API's error. The SDK's text is matched, never sent: it may quote the
// request.
func sdkRefusal(m *message, status int, text string) error {
	switch {
	case status >= 500:
		return errcode.New(errcode.Internal, "An internal error occurred; nothing was written. Retry the request.")
	case strings.Contains(text, "Unsupported protocol version"):
		return errcode.New(errcode.BadRequest, "The MCP-Protocol-Version header names a version this server does not speak; send one of %s, or leave the header out.",
			strings.Join(mcp.SupportedProtocolVersions(), ", "))
	case status != http.StatusBadRequest:
		return errcode.New(errcode.BadRequest, "The agent tool server cannot accept this request.")
	case strings.Contains(text, "not handled"):
		return &rpcError{id: m.id, code: jsonrpc.CodeMethodNotFound, message: "Method not found: this server answers initialize, ping, tools/list and tools/call (and the notifications of the protocol)."}
	case strings.Contains(text, `"params"`):
		return &rpcError{id: m.id, code: jsonrpc.CodeInvalidParams, message: `This method needs "params", a JSON object.`}
	case strings.Contains(text, "missing id"):
		return &rpcError{id: m.id, code: jsonrpc.CodeInvalidRequest, message: `This method is a request: give the message an "id".`}
	case strings.Contains(text, "unexpected id"):
		return &rpcError{id: m.id, code: jsonrpc.CodeInvalidRequest, message: `This method is a notification: send it without an "id".`}
	}
	return &rpcError{id: m.id, code: jsonrpc.CodeInvalidRequest, message: "The server cannot accept this message."}
}

// rpcMessages are the messages this server answers for the standard
// JSON-RPC error codes in place of the SDK's, which may quote the request
// or name Go types.
var rpcMessages = map[int64]string{
	jsonrpc.CodeParseError:     "The message could not be read.",
	jsonrpc.CodeInvalidRequest: "The message is not a valid request.",
	jsonrpc.CodeMethodNotFound: "Method not found: this server answers initialize, ping, tools/list and tools/call (and the notifications of the protocol).",
	jsonrpc.CodeInvalidParams:  "The params are not valid for this method.",
	jsonrpc.CodeInternalError:  "An internal error occurred. Retry the request.",
}

// unknownTool is the answer to a tools/call of a tool the key cannot see.
const unknownTool = "No tool of that name is available to this key; tools/list names the tools it may call."

// sanitize returns the SDK's JSON answer out with the message of a
// standard JSON-RPC error replaced by this server's (tools says whether
// the call's tool is one the key may call); other answers as they are.
func sanitize(m *message, out []byte, toolKnown func(string) bool) []byte {
	var resp struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(out, &resp) != nil || resp.Error == nil {
		return out
	}
	text, ok := rpcMessages[resp.Error.Code]
	if !ok {
		return out
	}
	if m.method == "tools/call" && resp.Error.Code == jsonrpc.CodeInvalidParams {
		var p struct{ Name string }
		if json.Unmarshal(m.params, &p) == nil && !toolKnown(p.Name) {
			text = unknownTool
		}
	}
	return (&rpcError{id: resp.ID, code: resp.Error.Code, message: text}).body()
}
