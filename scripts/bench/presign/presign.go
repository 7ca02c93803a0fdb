// Package presign measures signing the clip bucket's URLs with
// shared/adapter/s3store: PresignUpload, which the capture page's clip call makes
// once per clip, and PresignGet. Signing is local CPU work (no request),
// so it runs in process with the store built as a deployed function
// builds it (AWS region and static credentials, no endpoint override).
// `go test -bench . ./scripts/bench/presign` runs the same benchmarks that
// `make bench` reports through Run.
package presign

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/moveleads/partnerapi/scripts/bench/report"
	"github.com/moveleads/partnerapi/shared/adapter/s3store"
	"github.com/moveleads/partnerapi/shared/app/surveys"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// Section is the report section of every row.
const Section = "Presign"

// key is a clip's object key as the capture page's uploads use.
var key = survey.ObjectKey("ptn_0123456789abcdef", "test", "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002")

// Case is one benchmarked signature.
type Case struct {
	Name string
	Sign func(ctx context.Context, s *s3store.Store) error
}

// Cases lists the benchmarked signatures.
func Cases() []Case {
	return []Case{
		{"PresignUpload (5 MiB video/webm, 15 min)", func(ctx context.Context, s *s3store.Store) error {
			_, err := s.PresignUpload(ctx, key, "video/webm;codecs=vp8,opus", 5<<20, surveys.UploadTTL)
			return err
		}},
		{"PresignGet (10 min)", func(ctx context.Context, s *s3store.Store) error {
			_, err := s.PresignGet(ctx, key, s3store.MaxGetTTL)
			return err
		}},
	}
}

// NewStore returns a Store over a bucket of us-east-1 with static
// credentials, as a deployed function's (s3wiring.ClipObjects without
// AWS_ENDPOINT_URL_S3).
func NewStore() (*s3store.Store, error) {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIABENCHEXAMPLE", "bench-secret", "bench-session-token"),
	}
	return s3store.New(cfg, "moveleads-clips-bench", s3store.Options{})
}

// Bench signs with c b.N times and fails b on any error.
func Bench(b *testing.B, s *s3store.Store, c Case) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := c.Sign(ctx, s); err != nil {
			b.Fatalf("%s: %v", c.Name, err)
		}
	}
}

// Run benchmarks every case and returns the rows for `make bench`.
func Run() ([]report.Row, error) {
	s, err := NewStore()
	if err != nil {
		return nil, err
	}
	var rows []report.Row
	for _, c := range Cases() {
		if err := c.Sign(context.Background(), s); err != nil {
			return nil, fmt.Errorf("presign %s: %w", c.Name, err)
		}
		res := testing.Benchmark(func(b *testing.B) { Bench(b, s, c) })
		if res.N == 0 {
			return nil, fmt.Errorf("presign %s: benchmark failed", c.Name)
		}
		rows = append(rows, report.Row{
			Section: Section, Metric: c.Name,
			Value: fmt.Sprintf("%s per call (%d ns/op), %d allocs/op, %d B/op", micros(res.NsPerOp()), res.NsPerOp(), res.AllocsPerOp(), res.AllocedBytesPerOp()),
		})
	}
	return rows, nil
}

func micros(ns int64) string { return fmt.Sprintf("%.1f µs", float64(ns)/1e3) }
