package streamlocal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// BenchmarkWriteToHandler measures how long a write takes to reach the
// handler through DynamoDB Local's stream and Poll, one write at a time,
// for several idle intervals: from PutItem's return to the handler's call
// (p50_ms, p90_ms), and PutItem itself (put_p50_ms). Each write waits a
// random time first, up to two idle intervals. Run it with -benchtime 50x
// for the median over 50 writes.
func BenchmarkWriteToHandler(b *testing.B) {
	for _, idle := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, DefaultIdleInterval} {
		b.Run(fmt.Sprint("idle=", idle), func(b *testing.B) {
			db := newClient(b)
			tbl := newTable(b, db)
			arrived := make(chan time.Time, 1)
			startPoll(b, db, tbl, TrimHorizon, 10, func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
				now := time.Now()
				for range ev.Records {
					arrived <- now
				}
				return events.DynamoDBEventResponse{}, nil
			}, IdleInterval(idle))
			put(b, db, tbl, "warm-up", "v")
			<-arrived
			var lat, puts []time.Duration
			b.ResetTimer()
			for i := range b.N {
				// Writes come at random moments of Poll's cycle, as
				// state changes do: a write right after a delivery would
				// always wait a whole idle interval.
				b.StopTimer()
				time.Sleep(rand.N(2 * idle))
				b.StartTimer()
				start := time.Now()
				put(b, db, tbl, fmt.Sprint(i), "v")
				written := time.Now()
				select {
				case at := <-arrived:
					lat = append(lat, at.Sub(written))
					puts = append(puts, written.Sub(start))
				case <-time.After(10 * time.Second):
					b.Fatalf("write %d did not arrive within 10 s", i)
				}
			}
			b.StopTimer()
			b.ReportMetric(quantile(lat, 0.5), "p50_ms")
			b.ReportMetric(quantile(lat, 0.9), "p90_ms")
			b.ReportMetric(quantile(puts, 0.5), "put_p50_ms")
		})
	}
}

// quantile returns the q-quantile of ds in milliseconds.
func quantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))].Microseconds()) / 1000
}
