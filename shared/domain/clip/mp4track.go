package clip

import "encoding/binary"

// read walks trak b: tkhd, then mdia's mdhd, hdlr and stbl's stsd.
// (QuickTime's minf holds a data handler's hdlr too, which is not the
// track's.)
func (t *track) read(s *source, b box) error {
	for off := b.body; off < b.end; {
		c, err := s.box(off, b.end)
		if err != nil {
			return err
		}
		switch c.typ {
		case tTkhd:
			if err := t.readTkhd(s, c); err != nil {
				return err
			}
		case tMdia, tMinf, tStbl:
			if err := t.read(s, c); err != nil {
				return err
			}
		case tMdhd:
			if t.timescale, t.duration, err = s.timing(c, 12, 20); err != nil {
				return err
			}
		case tHdlr:
			if b.typ != tMdia {
				break
			}
			if c.end-c.body < 12 {
				return errCorrupt("hdlr at %d is short", c.off)
			}
			h, err := s.at(c.body+8, 4)
			if err != nil {
				return err
			}
			t.handler = boxType4(h)
		case tStsd:
			if err := t.readStsd(s, c); err != nil {
				return err
			}
		}
		off = c.end
	}
	return nil
}

// readTkhd reads the track ID, the display matrix's rotation and the
// display size (used when the sample entry has none).
func (t *track) readTkhd(s *source, b box) error {
	const v0, v1 = 84, 96 // body sizes
	if b.end-b.body < v0 {
		return errCorrupt("tkhd at %d is short", b.off)
	}
	h, err := s.at(b.body, 1)
	if err != nil {
		return err
	}
	idAt, matrixAt := int64(12), int64(40)
	if h[0] == 1 {
		if b.end-b.body < v1 {
			return errCorrupt("tkhd at %d is short", b.off)
		}
		idAt, matrixAt = 20, 52
	}
	if t.id, err = s.u32(b.body + idAt); err != nil {
		return err
	}
	m, err := s.at(b.body+matrixAt, 44) // matrix, width, height
	if err != nil {
		return err
	}
	fixed := func(i int) int32 { return int32(binary.BigEndian.Uint32(m[4*i:])) }
	a, bb, c, d := fixed(0), fixed(1), fixed(3), fixed(4)
	switch {
	case a == 0 && d == 0 && bb > 0 && c < 0:
		t.rotation = 90
	case a < 0 && d < 0 && bb == 0 && c == 0:
		t.rotation = 180
	case a == 0 && d == 0 && bb < 0 && c > 0:
		t.rotation = 270
	}
	if t.width == 0 && t.height == 0 {
		t.width, t.height = int(binary.BigEndian.Uint32(m[36:])>>16), int(binary.BigEndian.Uint32(m[40:])>>16)
	}
	return nil
}

// readStsd reads the first sample entry's type and, for a video entry, its
// coded size.
func (t *track) readStsd(s *source, b box) error {
	if b.end-b.body < 8 {
		return errCorrupt("stsd at %d is short", b.off)
	}
	n, err := s.u32(b.body + 4)
	if err != nil || n == 0 {
		return err
	}
	e, err := s.box(b.body+8, b.end)
	if err != nil {
		return err
	}
	if e.end-e.off < 36 {
		h, err := s.at(e.off+4, 4)
		if err != nil {
			return err
		}
		t.format = boxType4(h)
		return nil
	}
	h, err := s.at(e.off, 36)
	if err != nil {
		return err
	}
	t.format = boxType4(h[4:])
	if w, hh := int(binary.BigEndian.Uint16(h[32:])), int(binary.BigEndian.Uint16(h[34:])); w > 0 && hh > 0 {
		t.width, t.height = w, hh
	}
	return nil
}
