package clip_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"testing"
)

// This file edits fixtures in memory, to make the variants ffmpeg will not
// write: WebM without Duration or with unknown-size Clusters (as
// MediaRecorder writes), MP4 without durations, tfdt or mfra, rotated MP4.

// ebml is an element found by the test's own small EBML reader.
type ebml struct {
	id                 uint32
	off, data, dataEnd int
	sizeLen            int
}

// ebmlAt reads the element header at off (known sizes only, as in
// ffmpeg's files).
func ebmlAt(t testing.TB, b []byte, off int) ebml {
	t.Helper()
	l := bits.LeadingZeros8(b[off]) + 1
	var id uint32
	for _, c := range b[off : off+l] {
		id = id<<8 | uint32(c)
	}
	sl := bits.LeadingZeros8(b[off+l]) + 1
	size := uint64(b[off+l] & (0xFF >> sl))
	for _, c := range b[off+l+1 : off+l+sl] {
		size = size<<8 | uint64(c)
	}
	e := ebml{id: id, off: off, data: off + l + sl, sizeLen: sl}
	if size == 1<<(7*sl)-1 {
		e.dataEnd = len(b)
	} else {
		e.dataEnd = e.data + int(size)
	}
	return e
}

// ebmlFind returns the first element with id among the children of the
// span [from, to), descending into the masters listed in path first.
func ebmlFind(t testing.TB, b []byte, from, to int, path ...uint32) (ebml, bool) {
	t.Helper()
	for off := from; off < to; {
		e := ebmlAt(t, b, off)
		if e.id == path[0] {
			if len(path) == 1 {
				return e, true
			}
			return ebmlFind(t, b, e.data, e.dataEnd, path[1:]...)
		}
		off = e.dataEnd
	}
	return ebml{}, false
}

const (
	segmentID  = 0x18538067
	infoID     = 0x1549A966
	durationID = 0x4489
	clusterID  = 0x1F43B675
)

// segment returns the Segment after the EBML header.
func segment(t testing.TB, b []byte) ebml {
	t.Helper()
	hdr := ebmlAt(t, b, 0)
	seg := ebmlAt(t, b, hdr.dataEnd)
	if seg.id != segmentID {
		t.Fatalf("element %X after the EBML header; want a Segment", seg.id)
	}
	return seg
}

// webmDuration returns the Info/Duration in ms (TimestampScale 1 ms, as
// ffmpeg writes).
func webmDuration(t testing.TB, b []byte) float64 {
	t.Helper()
	seg := segment(t, b)
	d, ok := ebmlFind(t, b, seg.data, seg.dataEnd, infoID, durationID)
	if !ok {
		t.Fatal("fixture has no Duration")
	}
	switch d.dataEnd - d.data {
	case 4:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b[d.data:])))
	case 8:
		return math.Float64frombits(binary.BigEndian.Uint64(b[d.data:]))
	}
	t.Fatalf("Duration of %d bytes", d.dataEnd-d.data)
	return 0
}

// stripDuration turns Info/Duration into a Void element of the same length,
// so every offset in the file stays right.
func stripDuration(t testing.TB, b []byte) []byte {
	t.Helper()
	out := bytes.Clone(b)
	seg := segment(t, b)
	d, ok := ebmlFind(t, b, seg.data, seg.dataEnd, infoID, durationID)
	if !ok {
		t.Fatal("fixture has no Duration")
	}
	// ID 0x4489 (2 bytes) becomes 0xEC (1 byte) + a size one byte longer.
	out[d.off] = 0xEC
	size := uint64(d.dataEnd - d.data)
	sl := d.sizeLen + 1
	if sl > 8 {
		t.Fatal("Duration size too long to re-encode")
	}
	v := size | 1<<(7*sl)
	for i := sl - 1; i >= 0; i-- {
		out[d.off+1+i] = byte(v)
		v >>= 8
	}
	return out
}

// unknownSizes rewrites the Segment and every Cluster with the unknown size
// (8 bytes of 0x01FFFFFFFFFFFFFF), as MediaRecorder writes them.
func unknownSizes(t testing.TB, b []byte) []byte {
	t.Helper()
	unknown := []byte{0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	seg := segment(t, b)
	out := append([]byte{}, b[:seg.off]...)
	out = append(append(out, 0x18, 0x53, 0x80, 0x67), unknown...)
	for off := seg.data; off < seg.dataEnd; {
		e := ebmlAt(t, b, off)
		if e.id == clusterID {
			out = append(append(append(out, 0x1F, 0x43, 0xB6, 0x75), unknown...), b[e.data:e.dataEnd]...)
		} else {
			out = append(out, b[e.off:e.dataEnd]...)
		}
		off = e.dataEnd
	}
	return out
}

// mp4Box is a box found by the test's own small MP4 reader.
type mp4Box struct {
	typ            string
	off, body, end int
}

// mp4Boxes returns every box of type typ, descending into the usual
// containers.
func mp4Boxes(b []byte, from, to int, typ string) []mp4Box {
	var found []mp4Box
	for off := from; off+8 <= to; {
		size := int(binary.BigEndian.Uint32(b[off:]))
		bx := mp4Box{typ: string(b[off+4 : off+8]), off: off, body: off + 8, end: off + size}
		if size == 0 {
			bx.end = to
		}
		if bx.typ == typ {
			found = append(found, bx)
		}
		switch bx.typ {
		case "moov", "trak", "mdia", "minf", "stbl", "mvex", "moof", "traf", "mfra":
			found = append(found, mp4Boxes(b, bx.body, bx.end, typ)...)
		}
		off = bx.end
	}
	return found
}

// zeroDurations sets mvhd's and every mdhd's duration to 0, as a muxer that
// writes fragments only may.
func zeroDurations(b []byte) []byte {
	out := bytes.Clone(b)
	for _, typ := range []string{"mvhd", "mdhd"} {
		for _, bx := range mp4Boxes(out, 0, len(out), typ) {
			if out[bx.body] == 1 {
				binary.BigEndian.PutUint64(out[bx.body+24:], 0)
			} else {
				binary.BigEndian.PutUint32(out[bx.body+16:], 0)
			}
		}
	}
	return out
}

// rename gives every box of type from the type to (same length, so the
// file stays valid and the box is skipped as unknown).
func rename(b []byte, from, to string) []byte {
	out := bytes.Clone(b)
	for _, bx := range mp4Boxes(out, 0, len(out), from) {
		copy(out[bx.off+4:], to)
	}
	return out
}

// replaceIn replaces old with new inside every box of type typ.
func replaceIn(b []byte, typ, old, new string) []byte {
	out := bytes.Clone(b)
	for _, bx := range mp4Boxes(out, 0, len(out), typ) {
		copy(out[bx.body:bx.end], bytes.ReplaceAll(out[bx.body:bx.end], []byte(old), []byte(new)))
	}
	return out
}

// rotate sets every tkhd's matrix to turn the picture by deg clockwise.
func rotate(b []byte, deg int) []byte {
	const one = 0x10000
	m := map[int][4]int32{0: {one, 0, 0, one}, 90: {0, one, -one, 0}, 180: {-one, 0, 0, -one}, 270: {0, -one, one, 0}}[deg]
	out := bytes.Clone(b)
	for _, bx := range mp4Boxes(out, 0, len(out), "tkhd") {
		at := bx.body + 40
		if out[bx.body] == 1 {
			at = bx.body + 52
		}
		for i, j := range []int{0, 1, 3, 4} {
			binary.BigEndian.PutUint32(out[at+4*j:], uint32(m[i]))
		}
	}
	return out
}
