// Package clip checks an uploaded video clip without decoding it: it reads
// the container's structure through an io.ReaderAt and reports the
// container (MP4, MOV, WebM, Matroska), the video codec (H.264, HEVC, VP8,
// VP9), the duration and the coded size of the video track. It imports no
// AWS or HTTP packages; the clip processor backs the io.ReaderAt with S3
// ranged GETs.
//
// # Reading in bounded ranges
//
// Probe never reads a clip whole. It reads through one 64 KiB window: the
// first read takes 64 KiB, a jump to a new place reads 16 KiB, reads that
// go on forward grow to 64 KiB,
// and box or element payloads (mdat, blocks, attachments) are skipped by
// their sizes. Memory is the same for a 5 MB and a 500 MB clip, and so is,
// for most clips, the number of bytes read. Limits caps the number of
// reads, the bytes read and the elements walked; a clip that needs more
// fails with ErrTooComplex.
//
// # MP4 and MOV
//
// Probe walks the top-level boxes to the end of the file (a truncated file
// fails with ErrCorrupt), reads moov's mvhd, and per track tkhd, mdhd, hdlr
// and the first stsd entry. The duration is the video track's mdhd duration,
// or mvhd's when that is 0. A fragmented file (moov holds mvex) takes mehd's
// fragment duration when it is set; otherwise it sums the video track's trun
// sample durations (per sample, or tfhd's or trex's default), starting from
// the last fragment named by mfra/tfra when the file has one and its moof
// has a tfdt, else from the first fragment. (A file whose mehd gives the
// duration is not walked, so a cut-off last fragment goes unnoticed there.)
//
// # WebM and Matroska
//
// Probe walks the EBML header, then the Segment's elements up to the first
// Cluster, reading Info (TimestampScale, Duration) and Tracks (CodecID,
// PixelWidth, PixelHeight, DefaultDuration). When Info has no Duration, as
// in MediaRecorder's files, it scans backward from the end of the file for
// the last Cluster, then walks that cluster's SimpleBlock and BlockGroup
// headers (never their payloads) to find the last timestamp of each track,
// and adds one frame: BlockDuration, the track's DefaultDuration, or the gap
// between the track's last two blocks. Clusters and Segments of unknown
// size end where the next top-level element starts, or at the end of the
// file. Laced blocks count as one frame.
//
// # Errors
//
// A clip that cannot be accepted fails with an error that wraps one of
// ErrNotVideo, ErrCorrupt, ErrUnsupportedCodec, ErrNoVideoTrack or
// ErrTooComplex (and, from Check, ErrEmpty or ErrTooLong); Rejected reports
// whether an error is one of them. Any other error came from the
// io.ReaderAt and is returned wrapped: the caller may retry.
package clip
