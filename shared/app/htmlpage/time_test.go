package htmlpage_test

import (
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/app/htmlpage"
)

func TestFormatTimeNamesUTC(t *testing.T) {
	at := time.Date(2026, 12, 3, 20, 21, 0, 0, time.FixedZone("CST", -6*3600))
	if got, want := htmlpage.FormatTime(at), "Friday, December 4, 2026 at 2:21 AM UTC"; got != want {
		t.Errorf("FormatTime = %q; want %q", got, want)
	}
}
