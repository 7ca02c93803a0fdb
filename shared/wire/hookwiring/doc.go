// Package hookwiring builds the outgoing webhooks' functions
// (webhook-dispatcher, webhook-sender, webhook-retrier).
//
// It is kept apart from shared/wire/wiring because the SQS client's package init
// (its schemas and endpoint tables, 0.5 ms by GODEBUG=inittrace=1) would
// otherwise run at every function's cold start; the other functions reach
// the webhooks only through the events they write.
package hookwiring
