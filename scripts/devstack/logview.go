package main

import (
	"context"
	"io"
	"log/slog"
)

// VerboseVar, when set (make dev VERBOSE=1, or devstack -v), logs every
// line; by default make dev's log is quiet (quietLines).
const VerboseVar = "VERBOSE"

// quietLines are the Info lines a quiet log keeps: one per request and per
// state change. Warnings and errors are always kept; the rest (each
// stream, queue and schedule record, each frame, the MCP SDK's session
// lines, the poller's start) is detail, which scrolled the banner away.
var quietLines = map[string]bool{
	"request":         true, // shared/edge/apigw, shared/local/localgw
	"s3 record":       true, // a clip or frame arrived (shared/edge/s3event)
	"clip decided":    true,
	"survey settled":  true,
	"webhook attempt": true, // a delivery, with its outcome
	"deposit moved":   true,
}

// newLog returns make dev's logger: a JSON line per record on out, only
// quietLines and warnings or worse unless verbose.
func newLog(out io.Writer, verbose bool) *slog.Logger {
	h := slog.Handler(slog.NewJSONHandler(out, nil))
	if !verbose {
		h = quiet{h}
	}
	return slog.New(h)
}

// quiet drops the detail lines of the handler it wraps.
type quiet struct{ slog.Handler }

func (q quiet) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn && !quietLines[r.Message] {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

func (q quiet) WithAttrs(attrs []slog.Attr) slog.Handler { return quiet{q.Handler.WithAttrs(attrs)} }
func (q quiet) WithGroup(name string) slog.Handler       { return quiet{q.Handler.WithGroup(name)} }
