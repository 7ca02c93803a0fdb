// Package record holds what the features (shared/app/leads, quotes,
// deposits, surveys, videolinks, webhooks) and their store
// (shared/adapter/dynamo) exchange: a lead, quote, deposit, survey or frame
// as stored, with what its item keeps beside the domain value, and the
// writes each operation makes in one transaction. It sits apart from the
// domain packages, which know no storage, so that one record can carry
// values of several (a survey with its inventory, a lead with its quote).
package record

import "errors"

// ErrChanged is the cause of the store's conflict error for a conditional
// write whose item changed since the caller read it: re-read, decide again.
var ErrChanged = errors.New("changed concurrently")
