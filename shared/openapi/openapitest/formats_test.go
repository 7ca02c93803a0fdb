package openapitest

import "testing"

func TestFormatValidators(t *testing.T) {
	formats := map[string]func(string) error{
		"date-time": validateDateTime,
		"date":      validateDate,
		"email":     validateEmail,
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
