package clip_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// synthetic is a large clip generated on read, never held in memory: a
// few literal parts (headers) and parts that repeat one template many
// times, with a counter (a timestamp) patched into each copy.
type synthetic struct {
	parts []part
	size  int64
}

type part struct {
	off   int64
	tmpl  []byte // the bytes, or one copy of the repeated bytes
	count int64  // copies; 1 for a literal part
	// Each copy i holds value(i) as a big-endian integer of width bytes at
	// patchAt in the template (width 0: no patch).
	patchAt, width int
	value          func(i int64) uint64
}

func (s *synthetic) add(p part) {
	if p.count == 0 {
		p.count = 1
	}
	p.off = s.size
	s.parts = append(s.parts, p)
	s.size += int64(len(p.tmpl)) * p.count
}

func (s *synthetic) literal(b []byte) { s.add(part{tmpl: b}) }

// ReadAt fills p from the parts without allocating.
func (s *synthetic) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= s.size {
		return 0, io.EOF
	}
	n := 0
	i := sort.Search(len(s.parts), func(i int) bool { return s.parts[i].off+int64(len(s.parts[i].tmpl))*s.parts[i].count > off })
	for ; n < len(p) && i < len(s.parts); i++ {
		pt := &s.parts[i]
		l := int64(len(pt.tmpl))
		for rel := off + int64(n) - pt.off; n < len(p) && rel < l*pt.count; rel = off + int64(n) - pt.off {
			copyIdx, at := rel/l, int(rel%l)
			k := copy(p[n:], pt.tmpl[at:])
			if pt.width > 0 && at < pt.patchAt+pt.width && at+k > pt.patchAt {
				var v [8]byte
				binary.BigEndian.PutUint64(v[:], pt.value(copyIdx))
				for j := 0; j < pt.width; j++ {
					if pos := pt.patchAt + j - at; pos >= 0 && pos < k {
						p[n+pos] = v[8-pt.width+j]
					}
				}
			}
			n += k
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// payload is deterministic noise for frame payloads.
func payload(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// el encodes an EBML element with an 8-byte size.
func el(id uint32, body ...[]byte) []byte {
	var idb []byte
	for v := id; v > 0; v >>= 8 {
		idb = append([]byte{byte(v)}, idb...)
	}
	data := bytes.Join(body, nil)
	size := make([]byte, 8)
	binary.BigEndian.PutUint64(size, uint64(len(data))|1<<56)
	return append(append(idb, size...), data...)
}

func uintEl(id uint32, v uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, v)
	return el(id, b)
}

// synthWebM is a MediaRecorder-like WebM of about size bytes: unknown-size
// Segment and Clusters, no Duration, one VP9 track, clusters of
// clusterBytes holding one second of 30 frames. Its duration is
// (clusters-1) s + 29 frames of 33 ms + one frame.
func synthWebM(size, clusterBytes int64) (*synthetic, time.Duration) {
	s := &synthetic{}
	s.literal(el(0x1A45DFA3, el(0x4282, []byte("webm"))))
	s.literal([]byte{0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	s.literal(el(0x1549A966, uintEl(0x2AD7B1, 1_000_000)))
	s.literal(el(0x1654AE6B, el(0xAE, uintEl(0xD7, 1), uintEl(0x83, 1), el(0x86, []byte("V_VP9")),
		el(0xE0, uintEl(0xB0, 1280), uintEl(0xBA, 720)))))
	head := []byte{0x1F, 0x43, 0xB6, 0x75, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	head = append(head, uintEl(0xE7, 0)...) // timestamp patched per cluster
	const frames = 30
	frameBytes := int(clusterBytes-int64(len(head)))/frames - 12
	noise := payload(frameBytes)
	cluster := head
	for f := 0; f < frames; f++ {
		block := append([]byte{0x81, byte(f * 33 >> 8), byte(f * 33), 0}, noise[4:]...)
		cluster = append(cluster, el(0xA3, block)...)
	}
	n := max(1, (size-s.size)/int64(len(cluster)))
	s.add(part{tmpl: cluster, count: n, patchAt: len(head) - 8, width: 8, value: func(i int64) uint64 { return uint64(i) * 1000 }})
	return s, time.Duration(n-1)*time.Second + 30*33*time.Millisecond
}

// synthMP4 is an MP4 of about size bytes with moov (from h264.mp4, 2 s)
// after an mdat with a 64-bit size, as phones write.
func synthMP4(t testing.TB, size int64) *synthetic {
	t.Helper()
	src := readFixture(t, "h264.mp4")
	moov := mp4Boxes(src, 0, len(src), "moov")[0]
	s := &synthetic{}
	s.literal(src[:mp4Boxes(src, 0, len(src), "ftyp")[0].end])
	noise := payload(64 << 10)
	n := max(1, (size-s.size)/int64(len(noise)))
	hdr := make([]byte, 16)
	binary.BigEndian.PutUint32(hdr, 1)
	copy(hdr[4:], "mdat")
	binary.BigEndian.PutUint64(hdr[8:], uint64(16+n*int64(len(noise))))
	s.literal(hdr)
	s.add(part{tmpl: noise, count: n})
	s.literal(src[moov.off:moov.end])
	return s
}

// synthFragmented is a fragmented MP4 of about size bytes built from
// vp9-fragmented.mp4's moov (durations zeroed) and first moof, repeated
// with fragments of fragBytes, each 10 frames of 1024/15360 s, and, when
// withMfra, an mfra that points at every fragment. Its duration is
// fragments × 2/3 s.
func synthFragmented(t testing.TB, size, fragBytes int64, withMfra bool) (*synthetic, time.Duration) {
	t.Helper()
	src := zeroDurations(readFixture(t, "vp9-fragmented.mp4"))
	moov := mp4Boxes(src, 0, len(src), "moov")[0]
	moof := mp4Boxes(src, 0, len(src), "moof")[0]
	tfdt := mp4Boxes(src, moof.off, moof.end, "tfdt")[0]
	if src[tfdt.body] != 1 {
		t.Fatal("fixture's tfdt is not version 1")
	}
	s := &synthetic{}
	s.literal(src[:moov.end])
	frag := bytes.Clone(src[moof.off:moof.end])
	mdat := make([]byte, 8)
	binary.BigEndian.PutUint32(mdat, uint32(fragBytes-int64(len(frag))))
	copy(mdat[4:], "mdat")
	frag = append(append(frag, mdat...), payload(int(fragBytes)-len(frag)-8)...)
	n := max(1, (size-s.size)/fragBytes)
	first := s.size
	s.add(part{tmpl: frag, count: n, patchAt: tfdt.body + 4 - moof.off, width: 8,
		value: func(i int64) uint64 { return uint64(i) * 10240 }})
	if withMfra {
		tfra := binary.BigEndian.AppendUint32(nil, 1<<24) // version 1
		tfra = binary.BigEndian.AppendUint32(tfra, 1)     // track
		tfra = binary.BigEndian.AppendUint32(tfra, 0)     // 1-byte numbers
		tfra = binary.BigEndian.AppendUint32(tfra, uint32(n))
		for i := int64(0); i < n; i++ {
			tfra = binary.BigEndian.AppendUint64(tfra, uint64(i)*10240)
			tfra = binary.BigEndian.AppendUint64(tfra, uint64(first+i*fragBytes))
			tfra = append(tfra, 1, 1, 1)
		}
		box := func(typ string, body []byte) []byte {
			return append(binary.BigEndian.AppendUint32([]byte(nil), uint32(8+len(body))), append([]byte(typ), body...)...)
		}
		tfraBox := box("tfra", tfra)
		mfro := box("mfro", binary.BigEndian.AppendUint32(make([]byte, 4), uint32(8+len(tfraBox)+16)))
		s.literal(box("mfra", append(tfraBox, mfro...)))
	}
	return s, time.Duration(n) * 2 * time.Second / 3
}

// counting counts the reads made through it.
type counting struct {
	r       io.ReaderAt
	reads   int
	bytes   int64
	largest int
}

func (c *counting) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	c.bytes += int64(len(p))
	c.largest = max(c.largest, len(p))
	return c.r.ReadAt(p, off)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
