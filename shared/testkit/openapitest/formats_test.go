package openapitest

import "testing"

func TestFormatValidators(t *testing.T) {
	formats := map[string]func(string) error{
		"date-time": validateDateTime,
		"date":      validateDate,
		"email":     validateEmail,
		"uri":       validateURI,
	}
	tests := []struct {
		format string
		value  string
		valid  bool
	}{
		{"date-time", "2026-01-02T03:04:05Z", true},
		{"date-time", "2026-01-02T03:04:05.123456+05:30", true},
		{"date-time", "2026-01-02 03:04:05Z", false},
		{"date-time", "2026-02-30T03:04:05Z", false},
		{"date-time", "2026-01-02T03:04:05", false},
		{"date", "2026-07-01", true},
		{"date", "2026-02-30", false},
		{"date", "2026-7-1", false},
		{"date", "2026-07-01T00:00:00Z", false},
		{"email", "ada@example.com", true},
		{"email", "Ada <ada@example.com>", false},
		{"email", "ada.example.com", false},
		{"email", "", false},
		{"uri", "https://api.example.com/v1-capture/Zk3v9QeB1xYw7LmN2pRt5sUa8cDf0gHj4kMo6qSu_Xz", true},
		{"uri", "http://127.0.0.1:3000/v1-capture/abc", true},
		{"uri", "/v1-capture/abc", false},
		{"uri", "api.example.com/v1-capture/abc", false},
		{"uri", "https://api.example.com/v1 capture", false},
		{"uri", "https://api.example.com/v1-capture/\u00e9", false},
		{"uri", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.format+" "+tt.value, func(t *testing.T) {
			err := formats[tt.format](tt.value)
			if got := err == nil; got != tt.valid {
				t.Errorf("valid = %v (err %v); want %v", got, err, tt.valid)
			}
		})
	}
}

// TestNewParsesOnce: every New of a process shares one Validator, so the
// 120 KB document is parsed and validated once, not per integration test.
func TestNewParsesOnce(t *testing.T) {
	a, b := New(t), New(t)
	if a != b || a.router == nil {
		t.Errorf("New returned %p and %p; want one shared Validator with a router", a, b)
	}
}
