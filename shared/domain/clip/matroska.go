package clip

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// EBML and Matroska element IDs (with their length markers).
const (
	idEBML            = 0x1A45DFA3
	idDocType         = 0x4282
	idSegment         = 0x18538067
	idSeekHead        = 0x114D9B74
	idInfo            = 0x1549A966
	idTracks          = 0x1654AE6B
	idCluster         = 0x1F43B675
	idCues            = 0x1C53BB6B
	idChapters        = 0x1043A770
	idTags            = 0x1254C367
	idAttachments     = 0x1941A469
	idVoid            = 0xEC
	idCRC32           = 0xBF
	idTimestampScale  = 0x2AD7B1
	idDuration        = 0x4489
	idTrackEntry      = 0xAE
	idTrackNumber     = 0xD7
	idTrackType       = 0x83
	idCodecID         = 0x86
	idDefaultDuration = 0x23E383
	idVideo           = 0xE0
	idPixelWidth      = 0xB0
	idPixelHeight     = 0xBA
	idTimestamp       = 0xE7
	idSimpleBlock     = 0xA3
	idBlockGroup      = 0xA0
	idBlock           = 0xA1
	idBlockDuration   = 0x9B
)

// element is one EBML element's place in the file.
type element struct {
	id   uint32
	off  int64 // start of the header
	data int64 // start of the payload
	size int64 // payload size; -1 when unknown
}

// end is where the element ends inside a parent that ends at parent.
func (e element) end(parent int64) int64 {
	if e.size < 0 {
		return parent
	}
	return e.data + e.size
}

// element reads the header of the EBML element at off inside a parent
// that ends at end; it fails with ErrCorrupt for a malformed ID or size, or
// a known size that passes end.
func (s *source) element(off, end int64) (element, error) {
	if err := s.step(); err != nil {
		return element{}, err
	}
	n := min(12, end-off)
	if n < 2 {
		return element{}, errCorrupt("%d stray bytes at %d", max(n, 0), off)
	}
	b, err := s.at(off, int(n))
	if err != nil {
		return element{}, err
	}
	l := bits.LeadingZeros8(b[0]) + 1
	if l > 4 || int64(l) >= n {
		return element{}, errCorrupt("bad element ID at %d", off)
	}
	var id uint32
	for _, c := range b[:l] {
		id = id<<8 | uint32(c)
	}
	sl := bits.LeadingZeros8(b[l]) + 1
	if sl > 8 || int64(l+sl) > n {
		return element{}, errCorrupt("bad size of element %X at %d", id, off)
	}
	size := uint64(b[l] & (0xFF >> sl))
	for _, c := range b[l+1 : l+sl] {
		size = size<<8 | uint64(c)
	}
	e := element{id: id, off: off, data: off + int64(l+sl), size: int64(size)}
	if size == 1<<(7*sl)-1 {
		e.size = -1
	} else if size > uint64(end-e.data) {
		return element{}, errCorrupt("element %X at %d is %d bytes, %d left", id, off, size, end-e.data)
	}
	return e, nil
}

// known fails with ErrCorrupt for an element of unknown size.
func (e element) known() error {
	if e.size < 0 {
		return errCorrupt("element %X at %d has an unknown size", e.id, e.off)
	}
	return nil
}

// uint reads an unsigned integer element.
func (s *source) uint(e element) (uint64, error) {
	if e.size == 0 {
		return 0, nil
	}
	return s.uintN(e.data, int(min(e.size, 9)))
}

// float reads a float element (4 or 8 bytes).
func (s *source) float(e element) (float64, error) {
	switch e.size {
	case 0:
		return 0, nil
	case 4:
		v, err := s.u32(e.data)
		return float64(math.Float32frombits(v)), err
	case 8:
		v, err := s.u64(e.data)
		return math.Float64frombits(v), err
	}
	return 0, errCorrupt("%d-byte float at %d", e.size, e.off)
}

// str reads a short string element without its trailing NULs; longer ones
// than max come back empty.
func (s *source) str(e element, max int) ([]byte, error) {
	if e.size > int64(max) {
		return nil, nil
	}
	b, err := s.at(e.data, int(e.size))
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b, err
}

// mkv is what Probe keeps of a Matroska Segment.
type mkv struct {
	scale      uint64 // nanoseconds per tick
	duration   float64
	video      mkvTrack
	otherCodec string               // CodecID of the first video track not accepted
	defaults   [maxTracks][2]uint64 // track number, DefaultDuration in ns
	ndefaults  int
}

// mkvTrack is a TrackEntry.
type mkvTrack struct {
	number, typ, defaultDur uint64
	codec                   Codec
	width, height           int
}

func probeMatroska(s *source) (Info, error) {
	hdr, err := s.element(0, s.size)
	if err != nil {
		return Info{}, err
	}
	if err := hdr.known(); err != nil {
		return Info{}, err
	}
	info := Info{}
	err = s.children(hdr, func(e element) error {
		if e.id != idDocType {
			return nil
		}
		t, err := s.str(e, 32)
		if err != nil {
			return err
		}
		switch string(t) {
		case "webm":
			info.Container = ContainerWebM
		case "matroska":
			info.Container = ContainerMatroska
		default:
			return fmt.Errorf("%w: EBML document type %q", ErrNotVideo, t)
		}
		return nil
	})
	if err != nil {
		return Info{}, err
	}
	if info.Container == "" {
		return Info{}, fmt.Errorf("%w: EBML header without a document type", ErrNotVideo)
	}
	seg, err := s.element(hdr.end(0), s.size)
	for err == nil && (seg.id == idVoid || seg.id == idCRC32) {
		if err = seg.known(); err == nil {
			seg, err = s.element(seg.end(0), s.size)
		}
	}
	if err != nil {
		return Info{}, err
	}
	if seg.id != idSegment {
		return Info{}, errCorrupt("element %X at %d where a Segment should be", seg.id, seg.off)
	}
	return probeSegment(s, info, seg)
}

func probeSegment(s *source, info Info, seg element) (Info, error) {
	end := seg.end(s.size)
	m := mkv{scale: 1_000_000}
	var tracks bool
	firstCluster := int64(-1)
	for off := seg.data; off < end && firstCluster < 0; {
		e, err := s.element(off, end)
		if err != nil {
			return Info{}, err
		}
		if e.id == idCluster {
			firstCluster = off
			break
		}
		if err := e.known(); err != nil {
			return Info{}, err
		}
		switch e.id {
		case idInfo:
			if err := m.readInfo(s, e); err != nil {
				return Info{}, err
			}
		case idTracks:
			tracks = true
			if err := m.readTracks(s, e); err != nil {
				return Info{}, err
			}
		}
		off = e.end(end)
	}
	switch {
	case !tracks:
		return Info{}, errCorrupt("no Tracks before the first Cluster")
	case m.video.codec == "" && m.otherCodec != "":
		return Info{}, fmt.Errorf("%w: CodecID %q", ErrUnsupportedCodec, m.otherCodec)
	case m.video.codec == "":
		return Info{}, fmt.Errorf("%w: no video among the tracks", ErrNoVideoTrack)
	}
	info.Codec, info.Width, info.Height = m.video.codec, m.video.width, m.video.height
	if m.duration > 0 {
		ns := m.duration * float64(m.scale)
		if math.IsNaN(ns) || ns > float64(maxDuration) {
			return Info{}, errCorrupt("Duration %g × %d ns", m.duration, m.scale)
		}
		info.Duration = time.Duration(ns)
		return info, nil
	}
	if firstCluster < 0 {
		return info, nil // no frames at all: Check says ErrEmpty
	}
	d, err := m.clusterDuration(s, firstCluster, end)
	if err != nil {
		return Info{}, err
	}
	info.Duration = d
	return info, nil
}

func (m *mkv) readInfo(s *source, info element) error {
	return s.children(info, func(e element) (err error) {
		switch e.id {
		case idTimestampScale:
			if m.scale, err = s.uint(e); err == nil && (m.scale == 0 || m.scale > uint64(time.Hour)) {
				err = errCorrupt("TimestampScale %d", m.scale)
			}
		case idDuration:
			if m.duration, err = s.float(e); err == nil && (m.duration < 0 || math.IsNaN(m.duration)) {
				err = errCorrupt("Duration %g", m.duration)
			}
		}
		return err
	})
}

func (m *mkv) readTracks(s *source, tracks element) error {
	return s.children(tracks, func(e element) error {
		if e.id != idTrackEntry {
			return nil
		}
		return m.readTrack(s, e)
	})
}

func (m *mkv) readTrack(s *source, entry element) error {
	var t mkvTrack
	var codecID []byte
	var video element
	err := s.children(entry, func(e element) (err error) {
		switch e.id {
		case idTrackNumber:
			t.number, err = s.uint(e)
		case idTrackType:
			t.typ, err = s.uint(e)
		case idDefaultDuration:
			t.defaultDur, err = s.uint(e)
		case idCodecID:
			var id []byte
			if id, err = s.str(e, 64); err == nil {
				t.codec, codecID = matroskaCodec(id), append(codecID[:0], id...)
			}
		case idVideo:
			video = e
		}
		return err
	})
	if err == nil && video.size > 0 {
		err = s.children(video, func(e element) (err error) {
			var v uint64
			switch e.id {
			case idPixelWidth:
				v, err = s.uint(e)
				t.width = int(min(v, 1<<20))
			case idPixelHeight:
				v, err = s.uint(e)
				t.height = int(min(v, 1<<20))
			}
			return err
		})
	}
	if err != nil {
		return err
	}
	if t.defaultDur > 0 && m.ndefaults < len(m.defaults) {
		m.defaults[m.ndefaults] = [2]uint64{t.number, t.defaultDur}
		m.ndefaults++
	}
	if t.typ != 1 { // not video
		return nil
	}
	switch {
	case m.video.codec != "":
	case t.codec != "":
		m.video = t
	case m.otherCodec == "":
		m.otherCodec = string(codecID)
		if m.otherCodec == "" {
			m.otherCodec = "(none)"
		}
	}
	return nil
}

// children calls f for each child of parent (of known size), in order; it
// fails with ErrCorrupt for a child of unknown size.
func (s *source) children(parent element, f func(element) error) error {
	end := parent.end(0)
	for off := parent.data; off < end; {
		e, err := s.element(off, end)
		if err != nil {
			return err
		}
		if err := e.known(); err != nil {
			return err
		}
		if err := f(e); err != nil {
			return err
		}
		off = e.end(0)
	}
	return nil
}

// matroskaCodec maps the CodecIDs of the accepted codecs.
func matroskaCodec(id []byte) Codec {
	switch string(id) {
	case "V_VP8":
		return CodecVP8
	case "V_VP9":
		return CodecVP9
	case "V_MPEG4/ISO/AVC":
		return CodecH264
	case "V_MPEGH/ISO/HEVC":
		return CodecHEVC
	}
	return ""
}
