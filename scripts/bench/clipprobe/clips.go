package clipprobe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// paddedClip is a real clip made larger by padding that every reader
// skips: head, then pad zero bytes, then tail. It is generated on read and
// never held whole, so a 500 MiB clip costs the fixture's few kilobytes.
type paddedClip struct {
	head []byte
	pad  int64
	tail []byte
}

// Size returns the clip's length in bytes.
func (c *paddedClip) Size() int64 { return int64(len(c.head)) + c.pad + int64(len(c.tail)) }

// ReadAt implements io.ReaderAt.
func (c *paddedClip) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("padded clip: negative offset")
	}
	n := 0
	for n < len(p) {
		at := off + int64(n)
		switch h, padEnd := int64(len(c.head)), int64(len(c.head))+c.pad; {
		case at < h:
			n += copy(p[n:], c.head[at:])
		case at < padEnd:
			k := int(min(int64(len(p)-n), padEnd-at))
			clear(p[n : n+k])
			n += k
		case at-padEnd < int64(len(c.tail)):
			n += copy(p[n:], c.tail[at-padEnd:])
		default:
			return n, io.EOF
		}
	}
	return n, nil
}

// padMP4 returns src, an MP4 or MOV file, grown to size bytes by extending
// its mdat box with zeros after the samples: the file stays valid and
// plays as before (every chunk offset points before the padding, whether
// moov comes before or after mdat), and a probe that wants moov must jump
// over the padding, as in a phone's clip, whose moov follows its mdat.
func padMP4(src []byte, size int64) (*paddedClip, error) {
	var mdatOff, mdatEnd int64 = -1, -1
	var hdrLen int
	hasMoov := false
	for off := int64(0); off < int64(len(src)); {
		if int64(len(src))-off < 8 {
			return nil, fmt.Errorf("mp4: %d stray bytes at %d", int64(len(src))-off, off)
		}
		boxLen, hl := int64(binary.BigEndian.Uint32(src[off:])), 8
		switch boxLen {
		case 0: // to the end of the file
			boxLen = int64(len(src)) - off
		case 1:
			if int64(len(src))-off < 16 {
				return nil, fmt.Errorf("mp4: box at %d cut short", off)
			}
			boxLen, hl = int64(binary.BigEndian.Uint64(src[off+8:])), 16
		}
		if boxLen < int64(hl) || boxLen > int64(len(src))-off {
			return nil, fmt.Errorf("mp4: box at %d has size %d", off, boxLen)
		}
		switch string(src[off+4 : off+8]) {
		case "mdat":
			mdatOff, mdatEnd, hdrLen = off, off+boxLen, hl
		case "moov":
			hasMoov = true
		}
		off += boxLen
	}
	if mdatOff < 0 || !hasMoov {
		return nil, errors.New("mp4: want a file with mdat and moov")
	}
	pad := size - int64(len(src))
	if pad < 0 {
		return nil, fmt.Errorf("mp4: the fixture is %d bytes, more than %d", len(src), size)
	}
	newLen := mdatEnd - mdatOff + pad
	head := append([]byte(nil), src[:mdatEnd]...)
	if hdrLen == 16 {
		binary.BigEndian.PutUint64(head[mdatOff+8:], uint64(newLen))
	} else {
		if newLen > 1<<32-1 {
			return nil, fmt.Errorf("mp4: mdat of %d bytes needs a 64-bit size", newLen)
		}
		binary.BigEndian.PutUint32(head[mdatOff:], uint32(newLen))
	}
	return &paddedClip{head: head, pad: pad, tail: src[mdatEnd:]}, nil
}

// EBML element IDs padWebM walks.
const (
	idEBML    = 0x1A45DFA3
	idSegment = 0x18538067
	idCluster = 0x1F43B675
	idVoid    = 0xEC
)

// padWebM returns src, a WebM file whose Segment has an unknown size (as
// MediaRecorder writes it), grown to size bytes by a Void element before
// the first Cluster: players and probes skip a Void by its size, so the
// file plays as before, and a probe that scans back from the end for the
// last Cluster starts far from the header.
func padWebM(src []byte, size int64) (*paddedClip, error) {
	id, n, ok := vint(src, 0, true)
	if !ok || id != idEBML {
		return nil, errors.New("webm: no EBML header")
	}
	hdrSize, m, ok := vint(src, n, false)
	if !ok {
		return nil, errors.New("webm: EBML header size")
	}
	off := n + m + int(hdrSize)
	id, n, ok = vint(src, off, true)
	if !ok || id != idSegment {
		return nil, errors.New("webm: no Segment after the EBML header")
	}
	segSize, m, ok := vint(src, off+n, false)
	if !ok || segSize != 1<<(7*m)-1 {
		return nil, errors.New("webm: want a Segment of unknown size (as MediaRecorder writes)")
	}
	for off += n + m; off < len(src); {
		id, n, ok := vint(src, off, true)
		if !ok {
			return nil, fmt.Errorf("webm: element ID at %d", off)
		}
		if id == idCluster {
			// Void: its ID, an 8-byte size (marker 0x01 and 7 bytes), zeros.
			const voidHdr = 9
			pad := size - int64(len(src)) - voidHdr
			if pad < 0 {
				return nil, fmt.Errorf("webm: the fixture is %d bytes, more than %d", len(src), size)
			}
			head := append(append([]byte(nil), src[:off]...), idVoid)
			head = binary.BigEndian.AppendUint64(head, 1<<56|uint64(pad))
			return &paddedClip{head: head, pad: pad, tail: src[off:]}, nil
		}
		elSize, m, ok := vint(src, off+n, false)
		if !ok || elSize == 1<<(7*m)-1 {
			return nil, fmt.Errorf("webm: element %x at %d has no known size", id, off)
		}
		off += n + m + int(elSize)
	}
	return nil, errors.New("webm: no Cluster")
}

// vint reads an EBML variable-length integer at off: an element ID (with
// its length marker kept) when id, else a size (marker removed). It
// returns the value, its length in bytes, and false when src ends first or
// the first byte is 0.
func vint(src []byte, off int, id bool) (uint64, int, bool) {
	if off >= len(src) || src[off] == 0 {
		return 0, 0, false
	}
	n := 1
	for mask := byte(0x80); src[off]&mask == 0; mask >>= 1 {
		n++
	}
	if off+n > len(src) {
		return 0, 0, false
	}
	v := uint64(src[off])
	if !id {
		v &= 0xFF >> n
	}
	for _, b := range src[off+1 : off+n] {
		v = v<<8 | uint64(b)
	}
	return v, n, true
}
