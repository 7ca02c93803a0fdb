package clip

import (
	"encoding/binary"
	"fmt"
	"time"
)

// boxType is an ISO BMFF (MP4, QuickTime) four-character box type.
type boxType [4]byte

func (t boxType) String() string { return fmt.Sprintf("%q", string(t[:])) }

var (
	tFtyp = boxType{'f', 't', 'y', 'p'}
	tMoov = boxType{'m', 'o', 'o', 'v'}
	tMdat = boxType{'m', 'd', 'a', 't'}
	tFree = boxType{'f', 'r', 'e', 'e'}
	tSkip = boxType{'s', 'k', 'i', 'p'}
	tWide = boxType{'w', 'i', 'd', 'e'}
	tPnot = boxType{'p', 'n', 'o', 't'}
	tUUID = boxType{'u', 'u', 'i', 'd'}
	tMvhd = boxType{'m', 'v', 'h', 'd'}
	tTrak = boxType{'t', 'r', 'a', 'k'}
	tTkhd = boxType{'t', 'k', 'h', 'd'}
	tMdia = boxType{'m', 'd', 'i', 'a'}
	tMdhd = boxType{'m', 'd', 'h', 'd'}
	tHdlr = boxType{'h', 'd', 'l', 'r'}
	tMinf = boxType{'m', 'i', 'n', 'f'}
	tStbl = boxType{'s', 't', 'b', 'l'}
	tStsd = boxType{'s', 't', 's', 'd'}
	tMvex = boxType{'m', 'v', 'e', 'x'}
	tMehd = boxType{'m', 'e', 'h', 'd'}
	tTrex = boxType{'t', 'r', 'e', 'x'}
	tMoof = boxType{'m', 'o', 'o', 'f'}
	tTraf = boxType{'t', 'r', 'a', 'f'}
	tTfhd = boxType{'t', 'f', 'h', 'd'}
	tTfdt = boxType{'t', 'f', 'd', 't'}
	tTrun = boxType{'t', 'r', 'u', 'n'}
	tMfra = boxType{'m', 'f', 'r', 'a'}
	tMfro = boxType{'m', 'f', 'r', 'o'}
	tTfra = boxType{'t', 'f', 'r', 'a'}
	tVide = boxType{'v', 'i', 'd', 'e'}
)

// videoFormats maps the sample entry types of the accepted codecs.
var videoFormats = map[boxType]Codec{
	{'a', 'v', 'c', '1'}: CodecH264,
	{'a', 'v', 'c', '3'}: CodecH264,
	{'h', 'v', 'c', '1'}: CodecHEVC,
	{'h', 'e', 'v', '1'}: CodecHEVC,
	{'v', 'p', '0', '8'}: CodecVP8,
	{'v', 'p', '0', '9'}: CodecVP9,
}

// imageBrands are ftyp major brands of still images (HEIF, AVIF).
var imageBrands = map[boxType]bool{
	{'h', 'e', 'i', 'c'}: true, {'h', 'e', 'i', 'x'}: true, {'m', 'i', 'f', '1'}: true,
	{'m', 's', 'f', '1'}: true, {'a', 'v', 'i', 'f'}: true, {'a', 'v', 'i', 's'}: true,
}

func boxType4(b []byte) boxType { return boxType{b[0], b[1], b[2], b[3]} }

// isTopLevelBox reports whether t can start an MP4 or QuickTime file.
func isTopLevelBox(t boxType) bool {
	switch t {
	case tFtyp, tMoov, tMdat, tFree, tSkip, tWide, tPnot:
		return true
	}
	return false
}

// box is one box's place in the file.
type box struct {
	typ  boxType
	off  int64 // start of the header
	body int64 // start of the payload
	end  int64 // end of the box
}

// box reads the header of the box at off inside a parent that ends at end;
// it fails with ErrCorrupt when the box does not fit.
func (s *source) box(off, end int64) (box, error) {
	if err := s.step(); err != nil {
		return box{}, err
	}
	if end-off < 8 {
		return box{}, errCorrupt("%d stray bytes at %d", end-off, off)
	}
	h, err := s.at(off, 8)
	if err != nil {
		return box{}, err
	}
	size, typ, hdr := uint64(binary.BigEndian.Uint32(h)), boxType4(h[4:]), int64(8)
	switch size {
	case 0: // to the end of the parent
		size = uint64(end - off)
	case 1:
		if size, err = s.u64(off + 8); err != nil {
			return box{}, err
		}
		hdr = 16
	}
	if typ == tUUID {
		hdr += 16
	}
	if size < uint64(hdr) || size > uint64(end-off) {
		return box{}, errCorrupt("box %s at %d is %d bytes, %d left", typ, off, size, end-off)
	}
	return box{typ: typ, off: off, body: off + hdr, end: off + int64(size)}, nil
}

// track is what Probe keeps of one trak.
type track struct {
	id        uint32
	handler   boxType
	timescale uint32
	duration  uint64
	format    boxType // the first sample entry's type
	width     int
	height    int
	rotation  int
	trexDur   uint32 // trex default_sample_duration
}

// movie is what Probe keeps of moov.
type movie struct {
	timescale    uint32
	duration     uint64
	fragmented   bool   // moov holds mvex
	fragDuration uint64 // mehd, in the movie timescale
	tracks       []track
	trex         [][2]uint32 // track ID, default duration
}

// maxTracks bounds the tracks kept; later ones are ignored.
const maxTracks = 16

func probeMP4(s *source) (Info, error) {
	info := Info{Container: ContainerMOV} // QuickTime files may lack ftyp
	var brand boxType
	for off := int64(0); off < s.size; {
		b, err := s.box(off, s.size)
		if err != nil {
			return Info{}, err
		}
		switch b.typ {
		case tFtyp:
			if off != 0 || b.end-b.body < 4 {
				return Info{}, errCorrupt("ftyp at %d", off)
			}
			h, err := s.at(b.body, 4)
			if err != nil {
				return Info{}, err
			}
			if brand = boxType4(h); brand != (boxType{'q', 't', ' ', ' '}) {
				info.Container = ContainerMP4
			}
		case tMoov:
			return probeMoov(s, info, b)
		case tMoof:
			return Info{}, errCorrupt("moof at %d before moov", off)
		}
		off = b.end
	}
	if imageBrands[brand] {
		return Info{}, fmt.Errorf("%w: an image (brand %s)", ErrNotVideo, brand)
	}
	return Info{}, errCorrupt("no moov box")
}

// probeMoov reads moov b and what follows it to the end of the file.
func probeMoov(s *source, info Info, b box) (Info, error) {
	var m movie
	if err := m.read(s, b); err != nil {
		return Info{}, err
	}
	v, err := m.video()
	if err != nil {
		return Info{}, err
	}
	info.Codec = videoFormats[v.format]
	info.Width, info.Height, info.Rotation = v.width, v.height, v.rotation
	if info.Duration, err = m.plainDuration(v); err != nil {
		return Info{}, err
	}
	if m.fragmented {
		d, found, err := m.fragmentDuration(s, v, b.end)
		if err != nil {
			return Info{}, err
		}
		if found {
			info.Duration = d
		}
		return info, nil
	}
	// The rest of the file must be whole boxes, so a cut-off mdat shows.
	for off := b.end; off < s.size; {
		next, err := s.box(off, s.size)
		if err != nil {
			return Info{}, err
		}
		if next.typ == tMoov || next.typ == tMoof {
			return Info{}, errCorrupt("box %s at %d after moov", next.typ, off)
		}
		off = next.end
	}
	return info, nil
}

// plainDuration is the video track's mdhd duration, else mvhd's.
func (m *movie) plainDuration(v *track) (time.Duration, error) {
	if v.duration > 0 && v.duration != 0xFFFFFFFF && v.duration != 1<<64-1 {
		return ticks(v.duration, uint64(v.timescale))
	}
	if m.duration > 0 && m.duration != 0xFFFFFFFF && m.duration != 1<<64-1 {
		return ticks(m.duration, uint64(m.timescale))
	}
	return 0, nil
}

// video picks the first video track in an accepted format.
func (m *movie) video() (*track, error) {
	var other *track
	for i := range m.tracks {
		t := &m.tracks[i]
		if t.handler != tVide {
			continue
		}
		if t.format == (boxType{}) {
			return nil, errCorrupt("video track %d has no sample description", t.id)
		}
		if _, ok := videoFormats[t.format]; ok {
			return t, nil
		}
		if other == nil {
			other = t
		}
	}
	if other != nil {
		return nil, fmt.Errorf("%w: sample entry %s", ErrUnsupportedCodec, other.format)
	}
	return nil, fmt.Errorf("%w: %d tracks, none of them video", ErrNoVideoTrack, len(m.tracks))
}

// read walks moov b.
func (m *movie) read(s *source, b box) error {
	var mvhd bool
	for off := b.body; off < b.end; {
		c, err := s.box(off, b.end)
		if err != nil {
			return err
		}
		switch c.typ {
		case tMvhd:
			mvhd = true
			if m.timescale, m.duration, err = s.timing(c, 12, 20); err != nil {
				return err
			}
		case tTrak:
			var t track
			if err := t.read(s, c); err != nil {
				return err
			}
			if len(m.tracks) < maxTracks {
				m.tracks = append(m.tracks, t)
			}
		case tMvex:
			m.fragmented = true
			if err := m.readMvex(s, c); err != nil {
				return err
			}
		}
		off = c.end
	}
	if !mvhd {
		return errCorrupt("moov without mvhd")
	}
	for i := range m.tracks {
		for _, x := range m.trex {
			if x[0] == m.tracks[i].id {
				m.tracks[i].trexDur = x[1]
			}
		}
	}
	return nil
}

func (m *movie) readMvex(s *source, b box) error {
	for off := b.body; off < b.end; {
		c, err := s.box(off, b.end)
		if err != nil {
			return err
		}
		switch c.typ {
		case tMehd:
			v, err := s.versioned(c, 0)
			if err != nil {
				return err
			}
			m.fragDuration = v
		case tTrex:
			if c.end-c.body < 16 {
				return errCorrupt("trex at %d is short", c.off)
			}
			h, err := s.at(c.body, 16)
			if err != nil {
				return err
			}
			if len(m.trex) < maxTracks {
				m.trex = append(m.trex, [2]uint32{binary.BigEndian.Uint32(h[4:]), binary.BigEndian.Uint32(h[12:])})
			}
		}
		off = c.end
	}
	return nil
}

// timing reads the timescale and duration of an mvhd or mdhd full box:
// in version 0 they sit at at0 (32-bit duration), in version 1 at at1
// (64-bit duration).
func (s *source) timing(b box, at0, at1 int64) (timescale uint32, duration uint64, err error) {
	need := at0 + 8
	if b.end-b.body < 1 {
		return 0, 0, errCorrupt("empty %s at %d", b.typ, b.off)
	}
	h, err := s.at(b.body, 1)
	if err != nil {
		return 0, 0, err
	}
	v1 := h[0] == 1
	if v1 {
		need = at1 + 12
	}
	if b.end-b.body < need {
		return 0, 0, errCorrupt("%s at %d is short", b.typ, b.off)
	}
	if v1 {
		h, err = s.at(b.body+at1, 12)
		if err != nil {
			return 0, 0, err
		}
		return binary.BigEndian.Uint32(h), binary.BigEndian.Uint64(h[4:]), nil
	}
	h, err = s.at(b.body+at0, 8)
	if err != nil {
		return 0, 0, err
	}
	return binary.BigEndian.Uint32(h), uint64(binary.BigEndian.Uint32(h[4:])), nil
}

// versioned reads the field after a full box's version and flags: 64 bits
// in version 1, 32 in version 0, skip bytes after the version and flags.
func (s *source) versioned(b box, skip int64) (uint64, error) {
	if b.end-b.body < 4+skip+4 {
		return 0, errCorrupt("%s at %d is short", b.typ, b.off)
	}
	h, err := s.at(b.body, 1)
	if err != nil {
		return 0, err
	}
	if h[0] == 1 {
		if b.end-b.body < 4+skip+8 {
			return 0, errCorrupt("%s at %d is short", b.typ, b.off)
		}
		return s.u64(b.body + 4 + skip)
	}
	v, err := s.u32(b.body + 4 + skip)
	return uint64(v), err
}
