package clip

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"time"
)

// fragWalk sums the video track's sample durations over movie fragments.
type fragWalk struct {
	s       *source
	track   uint32 // the video track's ID
	trexDur uint32 // its trex default sample duration

	started bool   // a traf of the track was seen
	start   uint64 // its first decode time
	end     uint64 // the latest end of a traf
	next    uint64 // the decode time after the last traf
	known   bool   // next is known (false after jumping ahead by mfra)
}

// errNoTfdt stops a walk that jumped ahead by mfra onto a traf without a
// decode time; the walk then starts again from the first fragment.
var errNoTfdt = errors.New("traf without tfdt after a jump")

// fragmentDuration finds the video track's duration in the fragments after
// moov (which ends at from): mehd's when set, else the fragments' sample
// durations. found is false when the file has no fragment of the track.
func (m *movie) fragmentDuration(s *source, v *track, from int64) (d time.Duration, found bool, err error) {
	if m.fragDuration > 0 {
		d, err := ticks(m.fragDuration, uint64(m.timescale))
		return d, err == nil, err
	}
	w := fragWalk{s: s, track: v.id, trexDur: v.trexDur, known: true}
	first, err := w.walk(from, true)
	if err != nil {
		return 0, false, err
	}
	if first < s.size {
		last, ok, err := w.lastMoof(first)
		if err != nil {
			return 0, false, err
		}
		jumped := false
		if ok && last > first {
			saved := w
			w.known = false
			switch _, err = w.walk(last, false); {
			case errors.Is(err, errNoTfdt):
				w = saved
			case err != nil:
				return 0, false, err
			default:
				jumped = true
			}
		}
		if !jumped {
			if _, err := w.walk(first, false); err != nil {
				return 0, false, err
			}
		}
	}
	if !w.started || w.end <= w.start {
		return 0, false, nil
	}
	d, err = ticks(w.end-w.start, uint64(v.timescale))
	return d, err == nil, err
}

// walk reads the top-level boxes from off to the end of the file, adding
// each moof's fragments of the track. With stopAfterMoof it returns after
// the first moof with the offset after it (the file's size if there was
// none).
func (w *fragWalk) walk(off int64, stopAfterMoof bool) (int64, error) {
	s := w.s
	for off < s.size {
		b, err := s.box(off, s.size)
		if err != nil {
			return 0, err
		}
		switch b.typ {
		case tMoov:
			return 0, errCorrupt("second moov at %d", off)
		case tMoof:
			if err := w.moof(b); err != nil {
				return 0, err
			}
			if stopAfterMoof {
				return b.end, nil
			}
		}
		off = b.end
	}
	return s.size, nil
}

func (w *fragWalk) moof(b box) error {
	for off := b.body; off < b.end; {
		c, err := w.s.box(off, b.end)
		if err != nil {
			return err
		}
		if c.typ == tTraf {
			if err := w.traf(c); err != nil {
				return err
			}
		}
		off = c.end
	}
	return nil
}

// traf adds one track fragment: tfhd comes first and names the track.
func (w *fragWalk) traf(b box) error {
	s := w.s
	var (
		mine, hasTfdt bool
		tfdt, sum     uint64
		defDur        = w.trexDur
	)
	for off := b.body; off < b.end; {
		c, err := s.box(off, b.end)
		if err != nil {
			return err
		}
		switch c.typ {
		case tTfhd:
			if off != b.body {
				return errCorrupt("tfhd at %d is not first in traf", off)
			}
			var id uint32
			if id, defDur, err = s.tfhd(c, w.trexDur); err != nil {
				return err
			}
			if id != w.track {
				return nil
			}
			mine = true
		case tTfdt:
			if tfdt, err = s.versioned(c, 0); err != nil {
				return err
			}
			hasTfdt = true
		case tTrun:
			if !mine {
				return errCorrupt("trun at %d before tfhd", off)
			}
			d, err := s.trunDuration(c, defDur)
			if err != nil {
				return err
			}
			var carry uint64
			if sum, carry = bits.Add64(sum, d, 0); carry != 0 {
				return errCorrupt("trun durations overflow at %d", off)
			}
		}
		off = c.end
	}
	if !mine {
		return nil
	}
	return w.advance(b, hasTfdt, tfdt, sum)
}

// advance moves the walk past a traf of the track that starts at tfdt
// (when it has one; else where the last one ended) and lasts sum.
func (w *fragWalk) advance(b box, hasTfdt bool, tfdt, sum uint64) error {
	base := w.next
	switch {
	case hasTfdt:
		base = tfdt
	case !w.known:
		return errNoTfdt
	}
	if !w.started {
		w.started, w.start = true, base
	}
	end, carry := bits.Add64(base, sum, 0)
	if carry != 0 {
		return errCorrupt("fragment time overflows at %d", b.off)
	}
	w.next, w.known = end, true
	w.end = max(w.end, end)
	return nil
}

// tfhd returns the track ID and the default sample duration of tfhd b.
func (s *source) tfhd(b box, def uint32) (id, dur uint32, err error) {
	if b.end-b.body < 8 {
		return 0, 0, errCorrupt("tfhd at %d is short", b.off)
	}
	h, err := s.at(b.body, 8)
	if err != nil {
		return 0, 0, err
	}
	flags, id := binary.BigEndian.Uint32(h)&0xFFFFFF, binary.BigEndian.Uint32(h[4:])
	if flags&0x08 == 0 {
		return id, def, nil
	}
	at := b.body + 8
	if flags&0x01 != 0 {
		at += 8
	}
	if flags&0x02 != 0 {
		at += 4
	}
	if b.end-at < 4 {
		return 0, 0, errCorrupt("tfhd at %d is short", b.off)
	}
	dur, err = s.u32(at)
	return id, dur, err
}

// trunDuration sums the sample durations of trun b, each def unless the
// trun lists them.
func (s *source) trunDuration(b box, def uint32) (uint64, error) {
	if b.end-b.body < 8 {
		return 0, errCorrupt("trun at %d is short", b.off)
	}
	h, err := s.at(b.body, 8)
	if err != nil {
		return 0, err
	}
	flags, count := binary.BigEndian.Uint32(h)&0xFFFFFF, int64(binary.BigEndian.Uint32(h[4:]))
	at := b.body + 8
	if flags&0x01 != 0 {
		at += 4
	}
	if flags&0x04 != 0 {
		at += 4
	}
	stride := int64(4 * bits.OnesCount32(flags&0xF00))
	if at > b.end || count*stride > b.end-at {
		return 0, errCorrupt("trun at %d lists %d samples in %d bytes", b.off, count, b.end-at)
	}
	if flags&0x100 == 0 {
		return uint64(count) * uint64(def), nil
	}
	var sum uint64
	per := windowSize / stride
	for count > 0 {
		k := min(count, per)
		p, err := s.at(at, int(k*stride))
		if err != nil {
			return 0, err
		}
		for i := int64(0); i < k; i++ {
			sum += uint64(binary.BigEndian.Uint32(p[i*stride:]))
		}
		at, count = at+k*stride, count-k
	}
	return sum, nil
}

// lastMoof finds, from the mfra at the end of the file, the offset of the
// video track's last random-access fragment. ok is false when the file has
// no usable mfra or the offset is not a moof after first.
func (w *fragWalk) lastMoof(first int64) (off int64, ok bool, err error) {
	s := w.s
	if s.size-first < 16+8 {
		return 0, false, nil
	}
	h, err := s.at(s.size-16, 16)
	if err != nil {
		return 0, false, err
	}
	if boxType4(h[4:]) != tMfro || binary.BigEndian.Uint32(h) != 16 {
		return 0, false, nil
	}
	size := int64(binary.BigEndian.Uint32(h[12:]))
	if size < 16 || size > s.size-first {
		return 0, false, nil
	}
	// A broken mfra only means walking every fragment: softly drops
	// ErrCorrupt and keeps I/O errors and ErrTooComplex.
	mfra, err := s.box(s.size-size, s.size)
	if err != nil || mfra.typ != tMfra || mfra.end != s.size {
		return 0, false, softly(err)
	}
	for at := mfra.body; at < mfra.end; {
		c, err := s.box(at, mfra.end)
		if err != nil {
			return 0, false, softly(err)
		}
		if c.typ == tTfra {
			if off, ok, err = s.tfraLast(c, w.track); err != nil || ok {
				break
			}
		}
		at = c.end
	}
	if err != nil || !ok || off <= first || off >= s.size {
		return 0, false, err
	}
	b, err := s.box(off, s.size)
	if err != nil || b.typ != tMoof {
		return 0, false, softly(err)
	}
	return off, true, nil
}

// softly drops ErrCorrupt from err: for structures Probe can do without.
func softly(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return nil
	}
	return err
}

// tfraLast returns the moof offset of tfra b's last entry when b is for
// the track.
func (s *source) tfraLast(b box, track uint32) (int64, bool, error) {
	if b.end-b.body < 16 {
		return 0, false, nil
	}
	h, err := s.at(b.body, 16)
	if err != nil {
		return 0, false, err
	}
	v1 := h[0] == 1
	id, sizes, n := binary.BigEndian.Uint32(h[4:]), binary.BigEndian.Uint32(h[8:]), int64(binary.BigEndian.Uint32(h[12:]))
	if id != track || n == 0 {
		return 0, false, nil
	}
	entry := int64(8) + int64(sizes>>4&3+1+sizes>>2&3+1+sizes&3+1)
	if v1 {
		entry += 8
	}
	if n > (b.end-b.body-16)/entry {
		return 0, false, nil
	}
	at := b.body + 16 + (n-1)*entry
	if v1 {
		v, err := s.u64(at + 8)
		if v > 1<<62 {
			return 0, false, err
		}
		return int64(v), err == nil, err
	}
	v, err := s.u32(at + 4)
	return int64(v), err == nil, err
}
