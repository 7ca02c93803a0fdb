package partner

import (
	"strings"
	"testing"
)

func TestParseFeature(t *testing.T) {
	if f, err := ParseFeature("deposits"); err != nil || f != Deposits {
		t.Errorf("ParseFeature(deposits) = %q, %v", f, err)
	}
	if _, err := ParseFeature("payments"); err == nil || !strings.Contains(err.Error(), "deposits") {
		t.Errorf("ParseFeature(payments) error %v; want one naming the known features", err)
	}
}
