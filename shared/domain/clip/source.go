package clip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	// windowSize is the one buffer Probe reads into, and so the most bytes
	// of the clip it holds at a time.
	windowSize = 64 << 10
	// jumpRead is how much a read at a new place asks for: enough for a box
	// or element header and the small boxes that follow it. Over S3 a
	// request costs far more time than its bytes, so reads are not tiny;
	// the first read, at the start of the file, takes a whole window.
	jumpRead = 16 << 10
)

// source reads a clip through an io.ReaderAt, one window at a time,
// counting and bounding the reads.
type source struct {
	r     io.ReaderAt
	size  int64
	lim   Limits
	buf   []byte // the window: buf[:n] holds the clip from off
	off   int64
	n     int
	ahead int // size of the next read that goes on forward

	reads    int
	bytes    int64
	elements int
}

func newSource(r io.ReaderAt, size int64, lim Limits) *source {
	return &source{r: r, size: size, lim: lim, buf: make([]byte, windowSize), ahead: jumpRead}
}

// at returns the n bytes (n <= windowSize) at off, valid until the next
// call. It fails with ErrCorrupt when they pass the end of the clip,
// ErrTooComplex past the limits, or the reader's error.
func (s *source) at(off int64, n int) ([]byte, error) {
	if n < 0 || n > windowSize || off < 0 || off > s.size || int64(n) > s.size-off {
		return nil, errCorrupt("need %d bytes at offset %d of a %d-byte file", n, off, s.size)
	}
	if n == 0 {
		return nil, nil
	}
	if off >= s.off && off+int64(n) <= s.off+int64(s.n) {
		return s.buf[off-s.off:][:n], nil
	}
	want := jumpRead
	if s.reads == 0 {
		want = windowSize
	}
	if end := s.off + int64(s.n); s.n > 0 && off >= s.off && off-end < windowSize {
		// Going on forward, as when walking blocks: read more each time.
		s.ahead = min(2*s.ahead, windowSize)
		want = s.ahead
	} else {
		s.ahead = jumpRead
	}
	want = int(min(int64(max(want, n)), s.size-off))
	if err := s.fill(off, want); err != nil {
		return nil, err
	}
	return s.buf[:n], nil
}

// span makes the window hold exactly [off, off+n) (n <= windowSize) unless
// it already does, and returns it.
func (s *source) span(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || n > windowSize || int64(n) > s.size-off {
		return nil, errCorrupt("need %d bytes at offset %d of a %d-byte file", n, off, s.size)
	}
	if off >= s.off && off+int64(n) <= s.off+int64(s.n) {
		return s.buf[off-s.off:][:n], nil
	}
	if err := s.fill(off, n); err != nil {
		return nil, err
	}
	return s.buf[:n], nil
}

func (s *source) fill(off int64, n int) error {
	s.n = 0
	if s.reads >= s.lim.MaxReads || s.bytes+int64(n) > s.lim.MaxBytes {
		return fmt.Errorf("%w: over %d reads or %d bytes", ErrTooComplex, s.lim.MaxReads, s.lim.MaxBytes)
	}
	s.reads++
	s.bytes += int64(n)
	got, err := s.r.ReadAt(s.buf[:n], off)
	if got < n {
		if err == nil || errors.Is(err, io.EOF) {
			return errCorrupt("object ended at %d, before its size %d", off+int64(got), s.size)
		}
		return fmt.Errorf("read %d bytes at %d: %w", n, off, err)
	}
	s.off, s.n = off, n
	return nil
}

// step counts one box, element or candidate looked at, failing with
// ErrTooComplex past Limits.MaxElements.
func (s *source) step() error {
	s.elements++
	if s.elements > s.lim.MaxElements {
		return fmt.Errorf("%w: over %d elements", ErrTooComplex, s.lim.MaxElements)
	}
	return nil
}

func (s *source) u32(off int64) (uint32, error) {
	b, err := s.at(off, 4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

func (s *source) u64(off int64) (uint64, error) {
	b, err := s.at(off, 8)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}

// uintN reads a big-endian unsigned integer of n bytes (1 to 8).
func (s *source) uintN(off int64, n int) (uint64, error) {
	if n < 1 || n > 8 {
		return 0, errCorrupt("%d-byte integer at %d", n, off)
	}
	b, err := s.at(off, n)
	if err != nil {
		return 0, err
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v, nil
}
