package childproc

import "sync"

// Tail keeps the last limit bytes written to it: the end of a child
// process's output, to quote in an error when the process fails. It is
// safe for concurrent writers (os/exec copies output from its own
// goroutines).
type Tail struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

// NewTail returns a Tail keeping the last limit bytes.
func NewTail(limit int) *Tail { return &Tail{limit: limit} }

// Write implements io.Writer; it never fails.
func (b *Tail) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// String returns what is kept.
func (b *Tail) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
