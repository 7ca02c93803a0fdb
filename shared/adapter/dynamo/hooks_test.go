package dynamo

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// calls is SDK middleware that records every operation a client calls,
// with its input, and can answer chosen calls itself.
type calls struct {
	mu  sync.Mutex
	ops []string
	ins []any
	// before, when set, runs before each call of an operation, with how
	// many calls of it were made so far (this one included). A non-nil
	// error is the call's answer and no request is sent.
	before func(op string, n int) error
}

// install adds the recorder to a client: at Initialize to see inputs, and
// at Finalize after the SDK's retry middleware to answer an attempt as
// DynamoDB would (so the SDK's own retry rules apply to injected errors).
func (c *calls) install(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		if err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("testRecordCall",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				c.mu.Lock()
				c.ops = append(c.ops, middleware.GetOperationName(ctx))
				c.ins = append(c.ins, in.Parameters)
				c.mu.Unlock()
				return next.HandleInitialize(ctx, in)
			}), middleware.Before); err != nil {
			return err
		}
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("testInjectAnswer",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if c.before != nil {
					op := middleware.GetOperationName(ctx)
					if err := c.before(op, c.count(op)); err != nil {
						return middleware.FinalizeOutput{}, middleware.Metadata{}, err
					}
				}
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
}

// count returns how many calls of op were made.
func (c *calls) count(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, o := range c.ops {
		if o == op {
			n++
		}
	}
	return n
}

// reset forgets the calls made so far.
func (c *calls) reset() {
	c.mu.Lock()
	c.ops, c.ins = nil, nil
	c.mu.Unlock()
}

// taken returns the calls made since the last reset.
func (c *calls) taken() ([]string, []any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.ops...), append([]any(nil), c.ins...)
}
