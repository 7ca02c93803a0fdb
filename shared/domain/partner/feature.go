package partner

import (
	"fmt"
	"strings"
)

// Feature is a beta feature an operator enables per partner
// (`opctl partner beta --enable FEATURE`). Routes name the feature that
// gates them (manifest.Route.Beta).
type Feature string

// The beta features.
const (
	// Deposits gates quotes, acceptQuote and the deposit endpoints.
	Deposits Feature = "deposits"
)

// Features lists every beta feature.
var Features = []Feature{Deposits}

// ParseFeature returns the feature named s, or an error naming the known ones.
func ParseFeature(s string) (Feature, error) {
	for _, f := range Features {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Features))
	for i, f := range Features {
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown beta feature %q (known: %s)", s, strings.Join(names, ", "))
}
