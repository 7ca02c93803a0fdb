// Package clip checks an uploaded video clip without decoding it: it reads
// the container's structure through an io.ReaderAt and reports the
// container (MP4, MOV, WebM, Matroska), the video codec (H.264, HEVC, VP8,
// VP9), the duration and the coded size of the video track. It imports no
// AWS or HTTP package; the clip processor backs the io.ReaderAt with S3
// ranged GETs.
//
//	info, err := clip.Probe(r, size) // r: an io.ReaderAt over the object
//	if err == nil {
//		err = clip.Check(info, rules)
//	}
//
// [Probe] reads in bounded ranges, never the whole clip, and skips media
// payloads by their sizes, so its memory does not grow with the clip;
// [DefaultLimits] caps its reads, bytes and elements ([Limits.Probe] takes
// others and reports the [Usage]). A clip that cannot be
// accepted fails with an error wrapping [ErrNotVideo], [ErrCorrupt],
// [ErrUnsupportedCodec], [ErrNoVideoTrack] or [ErrTooComplex] (and, from
// [Check], [ErrEmpty] or [ErrTooLong]); [Rejected] reports whether an error
// is one of them. Any other error came from the io.ReaderAt and is returned
// wrapped: the caller may retry.
//
// Design (how MP4, MOV, WebM and Matroska are walked, and where the
// duration comes from): docs/CAPTURE.md.
package clip
