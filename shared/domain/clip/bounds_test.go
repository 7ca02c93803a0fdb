package clip_test

import (
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/clip"
)

type synthCase struct {
	name     string
	slug     string // benchmark name
	clip     func(testing.TB, int64) (*synthetic, time.Duration)
	maxReads int
	maxBytes int64
}

// synthCases are large clips and what probing one may read.
var synthCases = []synthCase{
	{"WebM, MediaRecorder-like, 128 KB clusters", "webm-128KB-clusters",
		func(_ testing.TB, size int64) (*synthetic, time.Duration) { return synthWebM(size, 128<<10) },
		16, 1 << 20},
	{"WebM, 1 MB clusters", "webm-1MB-clusters",
		func(_ testing.TB, size int64) (*synthetic, time.Duration) { return synthWebM(size, 1<<20) },
		48, 3 << 20},
	{"MP4, moov after a large mdat", "mp4-moov-last",
		func(t testing.TB, size int64) (*synthetic, time.Duration) { return synthMP4(t, size), 2 * time.Second },
		4, 128 << 10},
	{"fragmented MP4 with mfra, 256 KB fragments", "fmp4-mfra",
		func(t testing.TB, size int64) (*synthetic, time.Duration) {
			return synthFragmented(t, size, 256<<10, true)
		},
		8, 256 << 10},
	{"fragmented MP4 without mfra, 1 MB fragments", "fmp4-1MB-fragments-no-mfra",
		func(t testing.TB, size int64) (*synthetic, time.Duration) {
			return synthFragmented(t, size, 1<<20, false)
		},
		80, 2 << 20}, // one 16 KiB read per fragment
}

// TestProbeReadsStayBounded probes 64 MB clips that exist only as
// generators and checks that Probe reads a small, bounded part of them.
func TestProbeReadsStayBounded(t *testing.T) {
	const size = 64 << 20
	for _, tc := range synthCases {
		t.Run(tc.name, func(t *testing.T) {
			syn, want := tc.clip(t, size)
			if syn.size < size*9/10 {
				t.Fatalf("synthetic clip is %s; want about %s", mb(syn.size), mb(size))
			}
			c := &counting{r: syn}
			info, usage, err := clip.DefaultLimits.Probe(c, syn.size)
			if err != nil {
				t.Fatalf("Probe: got error %v; want nil", err)
			}
			if info.Duration != want {
				t.Errorf("duration: got %v; want %v", info.Duration, want)
			}
			if c.reads > tc.maxReads || c.bytes > tc.maxBytes {
				t.Errorf("read %d times, %s of %s; want at most %d times, %s", c.reads, mb(c.bytes), mb(syn.size), tc.maxReads, mb(tc.maxBytes))
			}
			if c.largest > 64<<10 {
				t.Errorf("largest read %d bytes; want at most 64 KiB", c.largest)
			}
			if usage.Reads != c.reads || usage.Bytes != c.bytes {
				t.Errorf("Usage %+v; want the reader's count {Reads:%d Bytes:%d}", usage, c.reads, c.bytes)
			}
			t.Logf("%s: %d reads, %s (%s clip)", info.Duration, c.reads, mb(c.bytes), mb(syn.size))
		})
	}
}

// TestProbeMemoryDoesNotGrowWithSize probes 5 MB and 500 MB clips of each
// kind and checks that Probe allocates the same small amount for both.
func TestProbeMemoryDoesNotGrowWithSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 500 MB generators")
	}
	const runs = 20
	allocated := func(t *testing.T, syn *synthetic) uint64 {
		t.Helper()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			if _, err := clip.Probe(syn, syn.size); err != nil {
				t.Fatalf("Probe: %v", err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	for _, tc := range synthCases {
		t.Run(tc.name, func(t *testing.T) {
			small, _ := tc.clip(t, 5<<20)
			large, _ := tc.clip(t, 500<<20)
			a, b := allocated(t, small), allocated(t, large)
			if a > 100<<10 || b > 100<<10 {
				t.Errorf("allocated %d bytes per probe of 5 MB, %d of 500 MB; want at most 100 KiB", a, b)
			}
			if b > a+1024 {
				t.Errorf("allocated %d bytes per probe of 500 MB; want about the %d of 5 MB", b, a)
			}
		})
	}
}

// TestSyntheticClipsReadBack checks the generator itself: the bytes of a
// repeated part, read across copies, are the template with its counter.
func TestSyntheticClipsReadBack(t *testing.T) {
	s := &synthetic{}
	s.literal([]byte("head"))
	s.add(part{tmpl: []byte("ab--"), count: 3, patchAt: 2, width: 2, value: func(i int64) uint64 { return uint64('0'+i)<<8 | 'x' }})
	got := make([]byte, s.size)
	if _, err := s.ReadAt(got, 0); err != nil {
		t.Fatalf("ReadAt: %v", err)
	}
	if want := "headab0xab1xab2x"; string(got) != want {
		t.Errorf("got %q; want %q", got, want)
	}
	part := make([]byte, 5)
	if n, err := s.ReadAt(part, 7); n != 5 || err != nil || string(part) != "xab1x" {
		t.Errorf("ReadAt(5 at 7): got %d, %v, %q; want 5, nil, %q", n, err, part[:n], "xab1x")
	}
	if n, err := s.ReadAt(part, s.size-2); n != 2 || !errors.Is(err, io.EOF) {
		t.Errorf("ReadAt past the end: got %d, %v; want 2, EOF", n, err)
	}
}

func TestLimits(t *testing.T) {
	syn, _ := synthWebM(16<<20, 128<<10)
	frag, _ := synthFragmented(t, 16<<20, 256<<10, false)
	tests := []struct {
		name   string
		r      *synthetic
		limits clip.Limits
	}{
		{"reads", syn, clip.Limits{MaxReads: 3}},
		{"bytes", syn, clip.Limits{MaxBytes: 100 << 10}},
		{"elements", syn, clip.Limits{MaxElements: 50}},
		{"reads, walking fragments", frag, clip.Limits{MaxReads: 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &counting{r: tt.r}
			_, usage, err := tt.limits.Probe(c, tt.r.size)
			if !errors.Is(err, clip.ErrTooComplex) {
				t.Fatalf("got %v; want %v", err, clip.ErrTooComplex)
			}
			if tt.limits.MaxReads > 0 && c.reads > tt.limits.MaxReads {
				t.Errorf("read %d times; want at most %d", c.reads, tt.limits.MaxReads)
			}
			if tt.limits.MaxBytes > 0 && c.bytes > tt.limits.MaxBytes {
				t.Errorf("read %d bytes; want at most %d", c.bytes, tt.limits.MaxBytes)
			}
			if usage.Reads != c.reads {
				t.Errorf("Usage.Reads %d; want %d", usage.Reads, c.reads)
			}
		})
	}
}
