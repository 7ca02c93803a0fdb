package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Call is one DynamoDB round trip as the Meter saw it.
type Call struct {
	Op    string  // e.g. PutItem
	Read  float64 // read capacity units consumed
	Write float64 // write capacity units consumed
}

// Meter is an HTTP transport for the DynamoDB client that records every
// round trip and the capacity DynamoDB reports for it (requests ask for
// ReturnConsumedCapacity=TOTAL). A failed conditional write is charged too.
type Meter struct {
	Next  http.RoundTripper // nil: http.DefaultTransport
	mu    sync.Mutex
	calls []Call
}

type capacity struct {
	CapacityUnits      float64
	ReadCapacityUnits  float64
	WriteCapacityUnits float64
}

// RoundTrip implements http.RoundTripper.
func (m *Meter) RoundTrip(req *http.Request) (*http.Response, error) {
	next := m.Next
	if next == nil {
		next = http.DefaultTransport
	}
	target := req.Header.Get("X-Amz-Target")
	resp, err := next.RoundTrip(req)
	c := Call{Op: target[strings.LastIndexByte(target, '.')+1:]}
	if err == nil {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr == nil {
			c.Read, c.Write = parseCapacity(c.Op, body)
		}
	}
	m.mu.Lock()
	m.calls = append(m.calls, c)
	m.mu.Unlock()
	return resp, err
}

// parseCapacity reads ConsumedCapacity (an object, or a list for batch and
// transaction calls). A write whose split is not reported counts as write
// units; a read likewise.
func parseCapacity(op string, body []byte) (read, write float64) {
	var out struct {
		ConsumedCapacity json.RawMessage
	}
	if json.Unmarshal(body, &out) != nil || len(out.ConsumedCapacity) == 0 {
		return 0, 0
	}
	var list []capacity
	if out.ConsumedCapacity[0] == '{' {
		var one capacity
		_ = json.Unmarshal(out.ConsumedCapacity, &one)
		list = []capacity{one}
	} else {
		_ = json.Unmarshal(out.ConsumedCapacity, &list)
	}
	isWrite := strings.Contains(op, "Put") || strings.Contains(op, "Update") ||
		strings.Contains(op, "Delete") || strings.Contains(op, "Write")
	for _, c := range list {
		switch {
		case c.ReadCapacityUnits != 0 || c.WriteCapacityUnits != 0:
			read += c.ReadCapacityUnits
			write += c.WriteCapacityUnits
		case isWrite:
			write += c.CapacityUnits
		default:
			read += c.CapacityUnits
		}
	}
	return read, write
}

// Take returns the calls recorded since the last Take and forgets them.
func (m *Meter) Take() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.calls
	m.calls = nil
	return c
}
