// Package dynamometer is AWS SDK middleware that counts a DynamoDB client's
// round trips (one per HTTP attempt) and sums the capacity units DynamoDB
// reports for them (the store asks for ReturnConsumedCapacity=TOTAL). The
// benchmarks and the request-count test read it; production code does not.
package dynamometer

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Meter is SDK middleware that counts DynamoDB attempts and sums the
// consumed capacity of the responses.
type Meter struct {
	mu          sync.Mutex
	trips       []string
	read, write float64
}

// Install adds the meter to a client's middleware stack.
func (m *Meter) Install(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		if err := stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("benchCountAttempt",
			func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
				m.mu.Lock()
				m.trips = append(m.trips, middleware.GetOperationName(ctx))
				m.mu.Unlock()
				return next.HandleDeserialize(ctx, in)
			}), middleware.After); err != nil {
			return err
		}
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("benchCapacity",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				m.add(out.Result)
				return out, md, err
			}), middleware.Before)
	})
}

func (m *Meter) add(result any) {
	var caps []types.ConsumedCapacity
	switch o := result.(type) {
	case *dynamodb.GetItemOutput:
		caps = one(o.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		caps = one(o.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		caps = one(o.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		caps = one(o.ConsumedCapacity)
	case *dynamodb.BatchWriteItemOutput:
		caps = o.ConsumedCapacity
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range caps {
		r, w := aws.ToFloat64(c.ReadCapacityUnits), aws.ToFloat64(c.WriteCapacityUnits)
		if r == 0 && w == 0 {
			switch result.(type) {
			case *dynamodb.GetItemOutput, *dynamodb.QueryOutput:
				r = aws.ToFloat64(c.CapacityUnits)
			default:
				w = aws.ToFloat64(c.CapacityUnits)
			}
		}
		m.read += r
		m.write += w
	}
}

func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}

// Sample is what the calls since the last Take cost. A failed conditional
// write reports no capacity (DynamoDB Local reports none; AWS charges it).
type Sample struct {
	Trips       []string
	Read, Write float64
}

// Take returns the cost since the last Take and resets the meter.
func (m *Meter) Take() Sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Sample{Trips: m.trips, Read: m.read, Write: m.write}
	m.trips, m.read, m.write = nil, 0, 0
	return s
}
