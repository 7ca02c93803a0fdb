// Package clipprobe measures what validating an uploaded clip costs the
// clip processor: shared/domain/clip.Probe reading a clip in MinIO through
// shared/adapter/s3store's ranged GETs, for a 5 MiB and a 500 MiB clip (the
// largest an upload is signed for) of each container a phone or browser
// records (MP4 with moov after mdat; MediaRecorder's WebM without
// Duration). The claim under test is that memory and time do not grow with
// the clip.
//
// Memory is the bytes allocated during one Probe, read from runtime/metrics
// (/gc/heap/allocs:bytes) before and after it: every goroutine of the
// process counts, so the SDK's and the HTTP transport's allocations are in.
// It is what the heap would grow by if no GC ran during the probe, so it
// bounds from above the heap the probe adds at its peak; a sampled
// HeapInuse would miss short peaks and count the GC's timing.
//
// The clips are real fixtures of shared/domain/clip/testdata made large with
// padding that every reader skips (see padMP4 and padWebM), generated on
// read: each is uploaded once per run through a presigned PUT, streamed,
// and deleted when measured, so at most one clip's pair of objects is on
// MinIO's disk at a time.
package clipprobe

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/adapter/s3store"
	"github.com/moveleads/partnerapi/shared/domain/clip"
	"github.com/moveleads/partnerapi/shared/local/repo"
	"github.com/moveleads/partnerapi/shared/local/s3local"
)

// Section is the report section of every row.
const Section = "Clip validation"

// Budgets. Memory must not grow with the clip: the 500 MiB clip's median
// allocation at most 1.5× the 5 MiB clip's, and each under an absolute cap
// far below a 128 MiB Lambda's memory.
const (
	MemoryRatioBudget = 1.5
	MemoryCap         = 4 << 20 // bytes allocated during one Probe
)

// Sizes of the clips: a short phone clip, and the largest upload
// s3store.PresignUpload signs for.
const (
	smallSize = 5 << 20
	largeSize = s3store.MaxUploadSize
)

// Defaults of Options.
const (
	DefaultRuns   = 30
	DefaultWarmup = 3
)

// Options configure Run.
type Options struct {
	// S3 is a running MinIO. Nil: Run starts one and stops it when done.
	S3 *s3local.Server
	// Runs is how many probes of each clip are measured (default 30), after
	// Warmup discarded ones (default 3; negative for none).
	Runs, Warmup int
	// Dir is the module root. Empty: the nearest go.mod at or above the
	// working directory.
	Dir string
	// Log receives progress; nil discards it.
	Log io.Writer
}

func (o Options) withDefaults() Options {
	if o.Runs <= 0 {
		o.Runs = DefaultRuns
	}
	switch {
	case o.Warmup == 0:
		o.Warmup = DefaultWarmup
	case o.Warmup < 0:
		o.Warmup = 0
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// container is one kind of clip: a fixture and how to pad it.
type container struct {
	name        string // as the report names it
	fixture     string // file in shared/domain/clip/testdata
	contentType string
	pad         func(src []byte, size int64) (*paddedClip, error)
	padding     string // where pad puts the padding, for the report
}

var containers = []container{
	{"MP4", "h264.mp4", "video/mp4", padMP4, "mdat extended after its samples, moov after it"},
	{"WebM", "mediarecorder-vp8-opus.webm", "video/webm", padWebM, "a Void element before the first Cluster"},
}

// probeSample is one Probe over S3.
type probeSample struct {
	took     time.Duration
	alloc    uint64 // bytes allocated during it
	requests int
	bytes    int64
}

// measured is the samples of one clip.
type measured struct {
	c       container
	size    int64
	samples []probeSample
}

// Run measures Probe over S3 for a 5 MiB and a 500 MiB clip of each
// container and returns the rows (section "Clip validation"). It fails,
// with no rows, when a fixture cannot be padded, when Probe's verdict on a
// padded clip (locally or over S3) differs from the fixture's, or when
// MinIO fails. Rows over budget come back with OK false and a Note.
func Run(ctx context.Context, opts Options) ([]report.Row, error) {
	o := opts.withDefaults()
	root := o.Dir
	if root == "" {
		var err error
		if root, err = repo.Root(); err != nil {
			return nil, err
		}
	}
	srv := o.S3
	if srv == nil {
		var err error
		if srv, err = s3local.Start(ctx); err != nil {
			return nil, fmt.Errorf("clipprobe: %w", err)
		}
		defer srv.Stop()
	}
	client := srv.Client()
	bucket := "clipprobe-" + randomHex(6)
	if err := s3local.CreateBucket(ctx, client, s3local.Bucket{Name: bucket}); err != nil {
		return nil, fmt.Errorf("clipprobe: %w", err)
	}
	defer deleteBucket(context.WithoutCancel(ctx), client, bucket)
	store, err := s3store.New(srv.Config(), bucket, s3store.Options{Endpoint: srv.Endpoint})
	if err != nil {
		return nil, fmt.Errorf("clipprobe: %w", err)
	}

	var rows []report.Row
	for _, c := range containers {
		src, err := os.ReadFile(filepath.Join(root, "shared", "domain", "clip", "testdata", c.fixture))
		if err != nil {
			return nil, fmt.Errorf("clipprobe: %w", err)
		}
		small, large, err := measure(ctx, store, client, c, src, o)
		if err != nil {
			return nil, fmt.Errorf("clipprobe %s: %w", c.name, err)
		}
		rows = append(rows, rowsOf(small, large)...)
	}
	return rows, nil
}

// measure uploads c's fixture padded to both sizes through store, probes
// each clip warmup+runs times, alternating, and deletes them with client
// (the service itself never deletes a clip).
func measure(ctx context.Context, store *s3store.Store, client *s3.Client, c container, src []byte, o Options) (small, large measured, err error) {
	want, err := clip.Probe(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return small, large, fmt.Errorf("probe of the fixture %s: %w", c.fixture, err)
	}
	clips := []*measured{{c: c, size: smallSize}, {c: c, size: largeSize}}
	keys := make([]string, len(clips))
	defer func() {
		for _, k := range keys {
			if k != "" {
				_, _ = client.DeleteObject(context.WithoutCancel(ctx), &s3.DeleteObjectInput{Bucket: aws.String(store.Bucket()), Key: &k})
			}
		}
	}()
	for i, m := range clips {
		pc, err := c.pad(src, m.size)
		if err != nil {
			return small, large, err
		}
		if got, err := clip.Probe(pc, pc.Size()); err != nil || got != want {
			return small, large, fmt.Errorf("clip.Probe of %s padded to %d bytes = %+v, %v; want %+v as the fixture", c.fixture, m.size, got, err, want)
		}
		key := fmt.Sprintf("clips/bench/%s-%d", c.fixture, m.size)
		start := time.Now()
		if err := upload(ctx, store, key, c.contentType, pc); err != nil {
			return small, large, err
		}
		keys[i] = key
		fmt.Fprintf(o.Log, "clipprobe: uploaded %s padded to %d bytes in %s\n", c.fixture, m.size, time.Since(start).Round(time.Millisecond))
	}
	// Write the uploads out now, so that the probes do not compete with
	// the kernel writing back hundreds of megabytes.
	syscall.Sync()
	for round := range o.Warmup + o.Runs {
		for i, m := range clips {
			s, err := probeOnce(ctx, store, keys[i], m.size, want)
			if err != nil {
				return small, large, err
			}
			if round >= o.Warmup {
				m.samples = append(m.samples, s)
			}
		}
	}
	return *clips[0], *clips[1], nil
}

// allocsMetric counts the bytes allocated on the heap since the process
// started.
const allocsMetric = "/gc/heap/allocs:bytes"

// probeOnce runs one Probe of the object at key through a fresh
// RangeReader, as the clip processor does per clip, and checks its
// verdict.
func probeOnce(ctx context.Context, store *s3store.Store, key string, size int64, want clip.Info) (probeSample, error) {
	sample := []metrics.Sample{{Name: allocsMetric}}
	runtime.GC() // so that a collection is less likely to land inside the probe
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	start := time.Now()
	r := store.ReaderAt(ctx, key, size)
	info, err := clip.Probe(r, size)
	took := time.Since(start)
	metrics.Read(sample)
	after := sample[0].Value.Uint64()
	if err != nil || info != want {
		return probeSample{}, fmt.Errorf("clip.Probe over S3 of %s = %+v, %v; want %+v", key, info, err, want)
	}
	u := r.Usage()
	return probeSample{took: took, alloc: after - before, requests: u.Requests, bytes: u.Bytes}, nil
}

// uploader sends the clips as a browser does: a plain HTTP client, no
// proxy.
var uploader = &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{Proxy: nil}}

// upload PUTs c to key through a presigned upload, streaming it from its
// generator: the clip is never in memory.
func upload(ctx context.Context, store *s3store.Store, key, contentType string, c *paddedClip) error {
	up, err := store.PresignUpload(ctx, key, contentType, c.Size(), time.Hour)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, up.Method, up.URL, io.NewSectionReader(c, 0, c.Size()))
	if err != nil {
		return err
	}
	req.ContentLength = c.Size()
	for k, v := range up.Headers {
		req.Header.Set(k, v)
	}
	resp, err := uploader.Do(req)
	if err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upload %s: status %d: %s", key, resp.StatusCode, body)
	}
	return nil
}

// deleteBucket deletes every object left in bucket, then the bucket.
func deleteBucket(ctx context.Context, client *s3.Client, bucket string) {
	out, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket})
	if err == nil {
		for _, o := range out.Contents {
			_, _ = client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &bucket, Key: o.Key})
		}
	}
	_, _ = client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
