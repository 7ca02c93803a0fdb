package jsiiquiet

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCopyDropsTheFalseAlarm: make synth printed the runtime's line after
// a successful synth; everything else passes through, in order, however
// the writes are split.
func TestCopyDropsTheFalseAlarm(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"alone", FalseAlarm, ""},
		{"between lines", "warning: a\n" + FalseAlarm + "error: b\n", "warning: a\nerror: b\n"},
		{"twice", FalseAlarm + "x" + FalseAlarm, "x"},
		{"other abnormal exits stay", "Runtime process exited abnormally: exit status 1", "Runtime process exited abnormally: exit status 1"},
		{"a prefix at the end stays", "tail Runtime process", "tail Runtime process"},
		{"nothing", "", ""},
	} {
		for _, split := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tt.in)
			if split {
				r = iotest.OneByteReader(r)
			}
			var out bytes.Buffer
			if err := Copy(&out, r); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("%s (one byte at a time %v): got %q; want %q", tt.name, split, out.String(), tt.want)
			}
		}
	}
}
