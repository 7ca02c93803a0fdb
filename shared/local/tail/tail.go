// Package tail keeps the end of a child process's output, to quote in an
// error when the process fails.
package tail

import "sync"

// Buffer keeps the last Limit bytes written to it. It is safe for
// concurrent writers (os/exec copies output from its own goroutines).
type Buffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

// New returns a Buffer keeping the last limit bytes.
func New(limit int) *Buffer { return &Buffer{limit: limit} }

// Write implements io.Writer; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns what is kept.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
