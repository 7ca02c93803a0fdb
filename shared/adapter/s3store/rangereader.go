package s3store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// RangeReader reads one object through ranged GETs: an io.ReaderAt over
// its first size bytes, for shared/domain/clip.Probe. It is safe for concurrent
// ReadAt calls, as io.ReaderAt allows.
type RangeReader struct {
	store *Store
	// ctx is kept, against the usual rule, because io.ReaderAt's ReadAt
	// takes none: it bounds every request of this reader.
	ctx  context.Context
	key  string
	size int64

	requests atomic.Int64
	bytes    atomic.Int64
}

// Usage is what a RangeReader has asked S3 for.
type Usage struct {
	// Requests counts the ranged GETs made (each ReadAt's once, whatever
	// the SDK's retries), failed ones included.
	Requests int
	// Bytes counts the bytes of object data received.
	Bytes int64
}

// ReaderAt returns a RangeReader over the first size bytes of the object
// at key (size is normally the object's, from Head or the S3 event). Every
// request it makes runs under ctx: once ctx is done, ReadAt fails with
// ctx's error instead of waiting. ReaderAt itself sends nothing.
func (s *Store) ReaderAt(ctx context.Context, key string, size int64) *RangeReader {
	return &RangeReader{store: s, ctx: ctx, key: key, size: size}
}

// Size returns the size the reader was made with.
func (r *RangeReader) Size() int64 { return r.size }

// Usage returns the requests and bytes so far.
func (r *RangeReader) Usage() Usage {
	return Usage{Requests: int(r.requests.Load()), Bytes: r.bytes.Load()}
}

// ReadAt reads len(p) bytes at off with one GET of Range
// bytes=off-(off+len(p)-1), clipped to the size. As io.ReaderAt requires,
// it returns n < len(p) only with an error: io.EOF when the read reaches
// the size (n bytes were read up to it), and, with no request at all, n=0
// and io.EOF when off is at or past the size. An empty p reads nothing.
//
// It fails (with n=0) with ErrInvalid for a negative offset or an invalid
// key, with ErrNotFound when the object is gone, with ctx's error when ctx
// is done, with an error naming the range when S3 answers another range
// than asked or the object is now shorter than size, and otherwise with
// S3's error; all are wrapped with the key and range.
func (r *RangeReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read s3://%s/%s at %d: %w: negative offset", r.store.bucket, r.key, off, ErrInvalid)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := min(int64(len(p)), r.size-off)
	rng := "bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+want-1, 10)
	n, err := r.get(p[:want], off, rng)
	if err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// get fills p with the object's bytes at off by one GET of range rng.
func (r *RangeReader) get(p []byte, off int64, rng string) (int, error) {
	fail := func(err error) (int, error) { return 0, r.store.fail("get "+rng+" of", r.key, err) }
	if err := checkKey(r.key); err != nil {
		return fail(err)
	}
	if err := r.ctx.Err(); err != nil {
		return fail(err)
	}
	r.requests.Add(1)
	out, err := r.store.client.GetObject(r.ctx, &s3.GetObjectInput{Bucket: &r.store.bucket, Key: &r.key, Range: &rng})
	if err != nil {
		return fail(err)
	}
	defer out.Body.Close()
	// S3 answers a satisfiable range 206 with Content-Range; a server that
	// ignored the range would answer the whole object without one.
	first, last, total, err := parseContentRange(aws.ToString(out.ContentRange))
	switch {
	case err != nil:
		return fail(err)
	case first != off || last != off+int64(len(p))-1:
		return fail(fmt.Errorf("answered bytes %d-%d", first, last))
	case total < r.size:
		return fail(fmt.Errorf("object is %d bytes, not %d", total, r.size))
	}
	n, err := io.ReadFull(out.Body, p)
	r.bytes.Add(int64(n))
	if err != nil {
		if ctxErr := r.ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return fail(fmt.Errorf("body after %d of %d bytes: %w", n, len(p), err))
	}
	return n, nil
}

// parseContentRange parses a Content-Range header of a 206 response,
// "bytes FIRST-LAST/TOTAL" (RFC 9110, section 14.4), with a known total
// and 0 <= FIRST <= LAST < TOTAL.
func parseContentRange(s string) (first, last, total int64, err error) {
	bad := func() (int64, int64, int64, error) {
		return 0, 0, 0, fmt.Errorf("Content-Range %q: want bytes FIRST-LAST/TOTAL", s)
	}
	spec, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return bad()
	}
	rng, size, ok := strings.Cut(spec, "/")
	if !ok {
		return bad()
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return bad()
	}
	var vals [3]int64
	for i, v := range []string{a, b, size} {
		// ParseInt would accept a sign; the grammar has digits only.
		if v == "" || strings.TrimLeft(v, "0123456789") != "" {
			return bad()
		}
		if vals[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			return bad()
		}
	}
	first, last, total = vals[0], vals[1], vals[2]
	if first > last || last >= total {
		return bad()
	}
	return first, last, total, nil
}
