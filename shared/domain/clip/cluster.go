package clip

import (
	"encoding/binary"
	"math/bits"
	"time"
)

// maxTicks bounds cluster timestamps so that sums and products stay far
// from overflowing.
const maxTicks = 1 << 53

// clusterDuration is the time from the first cluster's timestamp (the
// cluster at first) to the end of the last frame of the last cluster,
// which it finds by scanning back from end, where the Segment ends.
func (m *mkv) clusterDuration(s *source, first, end int64) (time.Duration, error) {
	start, ok, err := s.clusterStart(first, end)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errCorrupt("cluster at %d does not start with its timestamp", first)
	}
	last, err := s.lastCluster(first, end)
	if err != nil {
		return 0, err
	}
	stop, err := m.clusterEnd(s, last, end)
	if err != nil {
		return 0, err
	}
	startNs, ok := mulNs(start, m.scale)
	if !ok || stop < startNs {
		return 0, errCorrupt("clusters end (%d ns) before they start (%d ticks)", stop, start)
	}
	if stop-startNs > uint64(maxDuration) {
		return 0, errCorrupt("clusters span %d ns", stop-startNs)
	}
	return time.Duration(stop - startNs), nil
}

// clusterStart reads the header of the cluster at off and its timestamp,
// which must come first (after any CRC-32 or Void). ok is false, with a nil
// error, when the bytes at off are not such a cluster.
func (s *source) clusterStart(off, end int64) (tc uint64, ok bool, err error) {
	c, err := s.element(off, end)
	if err != nil || c.id != idCluster {
		return 0, false, softly(err)
	}
	cend := c.end(end)
	for at := c.data; at < cend; {
		e, err := s.element(at, cend)
		if err != nil || e.size < 0 {
			return 0, false, softly(err)
		}
		switch e.id {
		case idCRC32, idVoid:
			at = e.end(0)
			continue
		case idTimestamp:
			if e.size > 8 {
				return 0, false, nil
			}
			tc, err := s.uint(e)
			if err != nil || tc > maxTicks {
				return 0, false, softly(err)
			}
			return tc, true, nil
		}
		return 0, false, nil
	}
	return 0, false, nil
}

// lastCluster scans back from end for the last cluster at or after first:
// the last place holding the Cluster ID that clusterStart accepts.
func (s *source) lastCluster(first, end int64) (int64, error) {
	for hi := end; hi > first; {
		lo := max(first, hi-(windowSize-3))
		top := min(end, hi+3)
		buf, err := s.span(lo, int(top-lo))
		if err != nil {
			return 0, err
		}
		for i := int(hi-lo) - 1; i >= 0; i-- {
			if i+4 > len(buf) || buf[i] != 0x1F || buf[i+1] != 0x43 || buf[i+2] != 0xB6 || buf[i+3] != 0x75 {
				continue
			}
			if err := s.step(); err != nil {
				return 0, err
			}
			_, ok, err := s.clusterStart(lo+int64(i), end)
			if err != nil {
				return 0, err
			}
			if ok {
				return lo + int64(i), nil
			}
			if buf, err = s.span(lo, int(top-lo)); err != nil {
				return 0, err
			}
		}
		hi = lo
	}
	return 0, errCorrupt("no cluster between %d and %d", first, end)
}

// trackTimes follows one track's last two block timestamps.
type trackTimes struct {
	track      uint64
	last, prev uint64 // ns
	blocks     int
	lastDur    uint64 // BlockDuration of the last block in ns, 0 if none
}

// lastFrames follows the blocks of the last cluster, per track.
type lastFrames struct {
	m     *mkv
	tc    uint64 // the cluster's timestamp, in ticks
	times [maxTracks]trackTimes
	n     int
}

// add counts a block of track at rel ticks from the cluster's timestamp,
// lasting dur ns (0 when not given). Tracks past maxTracks are ignored.
func (f *lastFrames) add(track uint64, rel int16, dur uint64) error {
	t := max(int64(f.tc)+int64(rel), 0)
	ns, ok := mulNs(uint64(t), f.m.scale)
	if !ok {
		return errCorrupt("block time %d × %d ns overflows", t, f.m.scale)
	}
	i := 0
	for i < f.n && f.times[i].track != track {
		i++
	}
	if i == f.n {
		if f.n == len(f.times) {
			return nil
		}
		f.n++
		f.times[i].track = track
	}
	tt := &f.times[i]
	switch {
	case tt.blocks == 0 || ns >= tt.last:
		tt.prev, tt.last, tt.lastDur = tt.last, ns, dur
	case ns > tt.prev:
		tt.prev = ns
	}
	tt.blocks++
	return nil
}

// end is when the last frame of any track ends, in ns: its timestamp plus
// its BlockDuration, else its track's DefaultDuration, else the gap
// between the track's last two blocks (at most a minute).
func (f *lastFrames) end() uint64 {
	var stop uint64
	for _, t := range f.times[:f.n] {
		frame := t.lastDur
		if frame == 0 {
			frame = f.m.defaultDuration(t.track)
		}
		if frame == 0 && t.blocks > 1 {
			frame = t.last - t.prev
		}
		stop = max(stop, t.last+min(frame, uint64(time.Minute)))
	}
	return stop
}

// clusterEnd walks the blocks of the cluster at off (the last one) and
// returns when its last frame ends, in ns (see lastFrames.end). It fails
// with ErrCorrupt when an element passes the end of the cluster or file.
func (m *mkv) clusterEnd(s *source, off, end int64) (uint64, error) {
	c, err := s.element(off, end)
	if err != nil {
		return 0, err
	}
	f := lastFrames{m: m}
	cend := c.end(end)
	for at := c.data; at < cend; {
		e, err := s.element(at, cend)
		if err != nil {
			return 0, err
		}
		if c.size < 0 && isTopLevel(e.id) {
			if e.id == idCluster {
				return 0, errCorrupt("cluster at %d does not start with its timestamp", e.off)
			}
			break
		}
		if err := e.known(); err != nil {
			return 0, err
		}
		switch e.id {
		case idTimestamp:
			if f.tc, err = s.uint(e); err == nil && f.tc > maxTicks {
				err = errCorrupt("cluster timestamp %d", f.tc)
			}
		case idSimpleBlock:
			var track uint64
			var rel int16
			if track, rel, err = s.blockHeader(e); err == nil {
				err = f.add(track, rel, 0)
			}
		case idBlockGroup:
			err = m.blockGroup(s, e, &f)
		}
		if err != nil {
			return 0, err
		}
		at = e.end(0)
	}
	return f.end(), nil
}

// blockGroup reads a BlockGroup's Block and BlockDuration into f.
func (m *mkv) blockGroup(s *source, g element, f *lastFrames) error {
	var (
		track, dur uint64
		rel        int16
		block      bool
	)
	err := s.children(g, func(e element) (err error) {
		switch e.id {
		case idBlock:
			block = true
			track, rel, err = s.blockHeader(e)
		case idBlockDuration:
			if dur, err = s.uint(e); err == nil {
				var ok bool
				if dur, ok = mulNs(dur, m.scale); !ok {
					err = errCorrupt("BlockDuration at %d overflows", e.off)
				}
			}
		}
		return err
	})
	if err != nil || !block {
		return err
	}
	return f.add(track, rel, dur)
}

// isTopLevel reports whether id is an element that ends an unknown-size
// Cluster: a Segment child, or a new EBML document or Segment.
func isTopLevel(id uint32) bool {
	switch id {
	case idCluster, idCues, idTags, idChapters, idAttachments, idSeekHead, idInfo, idTracks, idEBML, idSegment:
		return true
	}
	return false
}

// mulNs is ticks × scale in ns; ok is false past 2^62 ns.
func mulNs(ticks, scale uint64) (uint64, bool) {
	hi, lo := bits.Mul64(ticks, scale)
	return lo, hi == 0 && lo <= 1<<62
}

// defaultDuration is a track's DefaultDuration in ns, 0 when not given.
func (m *mkv) defaultDuration(track uint64) uint64 {
	for _, d := range m.defaults[:m.ndefaults] {
		if d[0] == track {
			return d[1]
		}
	}
	return 0
}

// blockHeader reads a (Simple)Block's track number and relative timestamp.
func (s *source) blockHeader(e element) (track uint64, rel int16, err error) {
	if e.size < 4 {
		return 0, 0, errCorrupt("block at %d is %d bytes", e.off, e.size)
	}
	b, err := s.at(e.data, int(min(e.size, 11)))
	if err != nil {
		return 0, 0, err
	}
	l := bits.LeadingZeros8(b[0]) + 1
	if l > 8 || l+2 > len(b) {
		return 0, 0, errCorrupt("bad track number in block at %d", e.off)
	}
	track = uint64(b[0] & (0xFF >> l))
	for _, c := range b[1:l] {
		track = track<<8 | uint64(c)
	}
	return track, int16(binary.BigEndian.Uint16(b[l:])), nil
}
