package streamlocal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// poller is one Poll's state.
type poller struct {
	streams *dynamodbstreams.Client
	arn     string
	from    Position
	batch   int32
	handler invoker
	log     *slog.Logger
	opts    options

	shards map[string]*shard
	order  []string // shard ids in the order DescribeStream listed them
	// listed: the shards were listed once (later ones are new shards).
	listed bool
	// described is when the shards were last listed; zero: list them now.
	described time.Time
}

// shard is what Poll knows of one shard.
type shard struct {
	id, parent string
	// start is where the first iterator points: TRIM_HORIZON or LATEST.
	start stypes.ShardIteratorType
	// iterator reads the next records; nil until one is asked for, and
	// again after it expired.
	iterator *string
	// after is the sequence number of the last record delivered; a new
	// iterator starts after it ("" : at start).
	after string
	// closed: GetRecords returned no next iterator, every record is read.
	closed bool
	// done: closed and every record delivered (or skipped at a Latest
	// start); its children may be read.
	done bool
	// pending are records read and not delivered yet: the batch being
	// retried, from the failed record on.
	pending []stypes.Record
	// failures counts consecutive failures; retryAt is when to try again.
	failures int
	retryAt  time.Time
}

// run reads the stream until ctx ends or a failure that retrying cannot
// mend.
func (p *poller) run(ctx context.Context) error {
	for ctx.Err() == nil {
		if p.described.IsZero() || time.Since(p.described) >= describeInterval {
			if err := p.discover(ctx); err != nil {
				return p.fatal(ctx, err)
			}
		}
		progress := false
		for _, s := range p.ready() {
			moved, err := p.step(ctx, s)
			if err != nil {
				return p.fatal(ctx, err)
			}
			progress = progress || moved
		}
		if !progress {
			sleep(ctx, p.wait())
		}
	}
	return nil
}

// fatal is err as Poll returns it: nil once ctx has ended (the failure is
// then most likely the cancellation itself).
func (p *poller) fatal(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("stream poll %s: %w", p.arn, err)
}

// wait is how long to sleep when no shard made progress: the idle
// interval, or less when a retry is due sooner.
func (p *poller) wait() time.Duration {
	d := p.opts.idle
	for _, s := range p.shards {
		if !s.done && !s.retryAt.IsZero() {
			d = min(d, max(time.Until(s.retryAt), 0))
		}
	}
	return d
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// discover lists the stream's shards and adds those Poll does not know
// yet. A failure to list them is logged and retried at the next interval;
// only a stream that no longer exists is an error.
func (p *poller) discover(ctx context.Context) error {
	var listed []stypes.Shard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(p.arn)}
	for {
		out, err := p.streams.DescribeStream(ctx, in)
		if err != nil {
			if gone(err) {
				return fmt.Errorf("describe stream: %w", err)
			}
			if ctx.Err() == nil {
				p.log.WarnContext(ctx, "stream poll: describe stream failed; trying again", "error", err.Error())
			}
			p.described = time.Now()
			return nil
		}
		listed = append(listed, out.StreamDescription.Shards...)
		if out.StreamDescription.LastEvaluatedShardId == nil {
			break
		}
		in.ExclusiveStartShardId = out.StreamDescription.LastEvaluatedShardId
	}
	p.add(listed)
	p.described = time.Now()
	return nil
}

// add records the shards Poll does not know yet. On the first listing
// they start at Poll's position: with Latest, a shard closed already is
// skipped (all its records are older) and an open one starts at its
// newest record; later shards, children of shards Poll read, start at
// their oldest record so that nothing written after Poll started is
// missed.
func (p *poller) add(listed []stypes.Shard) {
	first := !p.listed
	p.listed = true
	for _, sh := range listed {
		id := aws.ToString(sh.ShardId)
		if _, ok := p.shards[id]; ok {
			continue
		}
		s := &shard{id: id, parent: aws.ToString(sh.ParentShardId), start: stypes.ShardIteratorTypeTrimHorizon}
		if first && p.from == Latest {
			closed := sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil
			s.done = closed
			s.start = stypes.ShardIteratorTypeLatest
		}
		p.shards[id] = s
		p.order = append(p.order, id)
	}
}

// ready returns the shards to read now, in listing order: those not done
// whose parent is done or unknown (the stream no longer holds it).
func (p *poller) ready() []*shard {
	var out []*shard
	for _, id := range p.order {
		s := p.shards[id]
		if s.done {
			continue
		}
		if parent, ok := p.shards[s.parent]; ok && !parent.done {
			continue
		}
		out = append(out, s)
	}
	return out
}

// step moves shard s on by at most one batch: it delivers the pending
// records again when their retry is due, or reads the next records and
// delivers them. It reports whether it did something (so the loop goes on
// without sleeping); it fails only when retrying cannot help.
func (p *poller) step(ctx context.Context, s *shard) (bool, error) {
	if time.Now().Before(s.retryAt) {
		return false, nil
	}
	if len(s.pending) > 0 {
		return true, p.deliver(ctx, s)
	}
	if s.closed {
		s.done = true
		p.described = time.Time{} // look for its children now
		return true, nil
	}
	if s.iterator == nil {
		if err := p.iterate(ctx, s); err != nil {
			return false, err
		}
		if s.iterator == nil {
			return false, nil // failed; retryAt is set
		}
	}
	out, err := p.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iterator, Limit: aws.Int32(p.batch)}, repairEmptyMaps)
	var expired *stypes.ExpiredIteratorException
	var trimmed *stypes.TrimmedDataAccessException
	switch {
	case errors.As(err, &expired):
		s.iterator = nil // a new one starts after the last record delivered
		return true, nil
	case errors.As(err, &trimmed):
		p.log.WarnContext(ctx, "stream poll: records were trimmed before they were read; going on from the oldest one left",
			"shard", s.id, "after", s.after)
		s.iterator, s.after, s.start = nil, "", stypes.ShardIteratorTypeTrimHorizon
		return true, nil
	case gone(err):
		return false, fmt.Errorf("get records of shard %s: %w", s.id, err)
	case err != nil:
		p.failed(ctx, s, "stream poll: get records failed", err)
		return false, nil
	}
	s.failures, s.retryAt = 0, time.Time{}
	s.iterator = out.NextShardIterator
	s.closed = s.iterator == nil
	if len(out.Records) == 0 {
		return s.closed, nil
	}
	s.pending = out.Records
	return true, p.deliver(ctx, s)
}

// iterate gets s a shard iterator: after the last record delivered, or
// at s's start before any was.
func (p *poller) iterate(ctx context.Context, s *shard) error {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(p.arn), ShardId: aws.String(s.id), ShardIteratorType: s.start}
	if s.after != "" {
		in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(s.after)
	}
	out, err := p.streams.GetShardIterator(ctx, in)
	switch {
	case gone(err):
		return fmt.Errorf("get iterator of shard %s: %w", s.id, err)
	case err != nil:
		p.failed(ctx, s, "stream poll: get shard iterator failed", err)
		return nil
	}
	s.iterator = out.ShardIterator
	if s.iterator == nil {
		// No iterator for a shard that exists: it is closed and read.
		s.closed = true
	}
	return nil
}

// deliver runs the handler on s's pending records and keeps, after a
// failure, those from the failed one on for a retry.
func (p *poller) deliver(ctx context.Context, s *shard) error {
	body, err := payload(s.pending, p.arn)
	if err != nil {
		return err
	}
	resp, err := p.handler.invoke(ctx, body)
	if ctx.Err() != nil {
		return nil // abandoned: Poll is stopping
	}
	i, why := firstFailed(s.pending, resp, err)
	if i < 0 {
		s.after = sequenceNumber(s.pending[len(s.pending)-1])
		s.pending, s.failures, s.retryAt = nil, 0, time.Time{}
		return nil
	}
	if i > 0 {
		s.after = sequenceNumber(s.pending[i-1])
	}
	s.pending = s.pending[i:]
	p.failed(ctx, s, "stream batch failed; delivering it again from the failed record", why,
		slog.String("from_sequence_number", sequenceNumber(s.pending[0])), slog.Int("records", len(s.pending)))
	return nil
}

// failed logs a failure on s and sets when to try again: the backoff
// doubles with each consecutive failure, up to its limit.
func (p *poller) failed(ctx context.Context, s *shard, msg string, err error, attrs ...slog.Attr) {
	s.failures++
	d := p.opts.retryMax
	if s.failures < 32 {
		d = min(p.opts.retryMin<<(s.failures-1), p.opts.retryMax)
	}
	s.retryAt = time.Now().Add(d)
	if ctx.Err() != nil {
		return
	}
	attrs = append(attrs, slog.String("shard", s.id), slog.String("error", err.Error()),
		slog.Int("failures", s.failures), slog.Duration("retry_in", d))
	p.log.LogAttrs(ctx, slog.LevelWarn, msg, attrs...)
}

// firstFailed returns the index of the first record to deliver again after
// the handler answered resp and err, -1 when the batch succeeded, and why
// it failed. As in Lambda: an error fails the whole batch; otherwise the
// batch is retried from the lowest reported sequence number, and an
// identifier that names no record of the batch fails the whole batch.
func firstFailed(records []stypes.Record, resp events.DynamoDBEventResponse, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	first := -1
	for _, f := range resp.BatchItemFailures {
		i := slices.IndexFunc(records, func(r stypes.Record) bool { return sequenceNumber(r) == f.ItemIdentifier })
		if i < 0 {
			return 0, fmt.Errorf("the handler reported item failure %q, which is no sequence number of the batch", f.ItemIdentifier)
		}
		if first < 0 || i < first {
			first = i
		}
	}
	if first < 0 {
		return -1, nil
	}
	return first, fmt.Errorf("the handler reported item failure %s", sequenceNumber(records[first]))
}

// gone reports whether err says the stream or shard no longer exists.
func gone(err error) bool {
	var nf *stypes.ResourceNotFoundException
	return errors.As(err, &nf)
}
