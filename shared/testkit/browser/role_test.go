package browser

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto"
)

// TestNavigatingErrorsAreRetried: Chromium's answers about a page replaced
// under a call (what a wait met in CI when a click's page navigated) are
// retried; other errors, and Chromium's other answers, are not.
func TestNavigatingErrorsAreRetried(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&cdproto.Error{Code: -32000, Message: "Cannot find context with specified id"}, true},
		{fmt.Errorf("find button %q: %w", "Create key", &cdproto.Error{Code: -32000, Message: "Cannot find context with specified id"}), true},
		{&cdproto.Error{Code: -32000, Message: "Execution context was destroyed."}, true},
		{&cdproto.Error{Code: -32000, Message: "No node with given id found"}, true},
		{&cdproto.Error{Code: -32602, Message: "Invalid parameters"}, false},
		{ErrNotFound, false},
		{errors.New("Cannot find context with specified id"), false}, // not Chromium's answer
		{context.DeadlineExceeded, false},
	} {
		if got := navigating(tc.err); got != tc.want {
			t.Errorf("navigating(%v) = %v; want %v", tc.err, got, tc.want)
		}
	}
}
