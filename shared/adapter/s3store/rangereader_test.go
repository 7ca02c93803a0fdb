package s3store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// numbered returns n bytes of "0123456789101112…", so that a wrong offset
// shows in the data.
func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strconv.Itoa(i))
	}
	return b.Bytes()[:n]
}

func TestReadAt(t *testing.T) {
	s := newStore(t)
	data := numbered(1000)
	put(t, s, "clip", "video/mp4", data)
	tests := []struct {
		name     string
		off      int64
		len      int
		wantN    int
		wantErr  error // compared with errors.Is
		wantReqs int
	}{
		{"start", 0, 100, 100, nil, 1},
		{"middle", 450, 7, 7, nil, 1},
		{"up to the end", 900, 100, 100, nil, 1},
		{"one byte", 999, 1, 1, nil, 1},
		{"past the end", 950, 100, 50, io.EOF, 1},
		{"whole and more", 0, 4096, 1000, io.EOF, 1},
		{"at the end", 1000, 10, 0, io.EOF, 0},
		{"beyond the end", 5000, 10, 0, io.EOF, 0},
		{"nothing", 5, 0, 0, nil, 0},
		{"negative offset", -1, 10, 0, ErrInvalid, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.ReaderAt(context.Background(), "clip", int64(len(data)))
			p := make([]byte, tt.len)
			n, err := r.ReadAt(p, tt.off)
			if n != tt.wantN || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d, %v", tt.len, tt.off, n, err, tt.wantN, tt.wantErr)
			}
			if n > 0 && !bytes.Equal(p[:n], data[tt.off:tt.off+int64(n)]) {
				t.Errorf("read %q; want %q", p[:n], data[tt.off:tt.off+int64(n)])
			}
			if got, want := r.Usage(), (Usage{Requests: tt.wantReqs, Bytes: int64(n)}); got != want {
				t.Errorf("Usage = %+v; want %+v", got, want)
			}
		})
	}
}

// TestReadAtAsReader reads the object through io.SectionReader with
// testing/iotest's checks of reads, seeks and ReadAt.
func TestReadAtAsReader(t *testing.T) {
	s := newStore(t)
	// Small: TestReader reads it byte by byte, a request each.
	data := numbered(300)
	put(t, s, "clip", "video/mp4", data)
	r := s.ReaderAt(context.Background(), "clip", int64(len(data)))
	if err := iotest.TestReader(io.NewSectionReader(r, 0, r.Size()), data); err != nil {
		t.Error(err)
	}
	t.Logf("%d requests", r.Usage().Requests)
}

// TestReadAtConcurrent reads disjoint ranges at once, as io.ReaderAt
// allows, and checks the data and the counts (run with -race).
func TestReadAtConcurrent(t *testing.T) {
	s := newStore(t)
	data := numbered(8 * 500)
	put(t, s, "clip", "video/mp4", data)
	r := s.ReaderAt(context.Background(), "clip", int64(len(data)))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			p := make([]byte, 500)
			off := int64(i * 500)
			if _, err := r.ReadAt(p, off); err != nil {
				errs[i] = err
			} else if !bytes.Equal(p, data[off:off+500]) {
				errs[i] = errors.New("read other bytes than the range's")
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("reader %d: %v", i, err)
		}
	}
	if got, want := r.Usage(), (Usage{Requests: 8, Bytes: int64(len(data))}); got != want {
		t.Errorf("Usage = %+v; want %+v", got, want)
	}
}

func TestReadAtErrors(t *testing.T) {
	s := newStore(t)
	put(t, s, "clip", "video/mp4", numbered(1000))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		key      string
		size     int64
		off      int64
		wantErr  error // nil: any error but ErrNotFound and ErrInvalid
		wantReqs int
	}{
		{"missing object", context.Background(), "gone", 1000, 0, ErrNotFound, 1},
		{"empty key", context.Background(), "", 1000, 0, ErrInvalid, 0},
		{"context done", cancelled, "clip", 1000, 0, context.Canceled, 0},
		// The object is shorter than the size announced (or was replaced).
		{"range past the object", context.Background(), "clip", 2000, 1500, nil, 1},
		{"range across its end", context.Background(), "clip", 2000, 900, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.ReaderAt(tt.ctx, tt.key, tt.size)
			n, err := r.ReadAt(make([]byte, 200), tt.off)
			if err == nil || n != 0 {
				t.Fatalf("ReadAt = %d, %v; want 0 and an error", n, err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("ReadAt = %v; want errors.Is %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && (errors.Is(err, ErrNotFound) || errors.Is(err, ErrInvalid) || errors.Is(err, io.EOF)) {
				t.Errorf("ReadAt = %v; want neither ErrNotFound, ErrInvalid nor io.EOF", err)
			}
			if got := r.Usage().Requests; got != tt.wantReqs {
				t.Errorf("Requests = %d; want %d", got, tt.wantReqs)
			}
		})
	}
}

// TestReadAtStalled points a client at servers that stall (no S3 here:
// just a connection that never answers, and one whose body stops), and
// checks that ReadAt returns once its context ends instead of waiting.
func TestReadAtStalled(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	halfBody := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 0-99/1000")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusPartialContent)
		w.Write(make([]byte, 10))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(halfBody.Close)

	tests := []struct {
		name     string
		endpoint string
	}{
		{"no answer", "http://" + silent.Addr().String()},
		{"body stops", halfBody.URL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("k", "secret", "")}
			store, err := New(cfg, "clips", Options{Endpoint: tt.endpoint})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			r := store.ReaderAt(ctx, "clip", 1000)
			start := time.Now()
			n, err := r.ReadAt(make([]byte, 100), 0)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("ReadAt took %s; want it to return soon after the 200ms deadline", took)
			}
			if n != 0 || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("ReadAt = %d, %v; want 0, context.DeadlineExceeded", n, err)
			}
		})
	}
}
