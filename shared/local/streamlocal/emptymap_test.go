package streamlocal

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRepairRecords(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changed        bool
	}{
		{
			"empty maps at every depth",
			`{"Records":[{"dynamodb":{"ApproximateCreationDateTime":1795407840.000,"Keys":{"pk":{"S":"a"}},` +
				`"NewImage":{"e":{},"m":{"M":{"x":{},"y":{"S":"{}"}}},"l":{"L":[{},{"N":"1"}]}},"OldImage":{"e":{}}}}],"NextShardIterator":"it"}`,
			`{"Records":[{"dynamodb":{"ApproximateCreationDateTime":1795407840.000,"Keys":{"pk":{"S":"a"}},` +
				`"NewImage":{"e":{"M":{}},"m":{"M":{"x":{"M":{}},"y":{"S":"{}"}}},"l":{"L":[{"M":{}},{"N":"1"}]}},"OldImage":{"e":{"M":{}}}}}],"NextShardIterator":"it"}`,
			true,
		},
		{
			"well-formed empty map (Amazon DynamoDB Streams)",
			`{"Records":[{"dynamodb":{"NewImage":{"e":{"M":{}},"s":{"S":"{}"}}}}]}`, "", false,
		},
		{"no records", `{"Records":[],"NextShardIterator":"it"}`, "", false},
		{"no empty object at all", `{"Records":[{"dynamodb":{"NewImage":{"s":{"S":"x"}}}}]}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, changed, err := repairRecords([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if changed != tc.changed {
				t.Fatalf("changed = %v; want %v", changed, tc.changed)
			}
			if !changed {
				if string(out) != tc.in {
					t.Errorf("unchanged answer rewritten: %s", out)
				}
				return
			}
			var got, want any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			_ = json.Unmarshal([]byte(tc.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("repaired\n%s\nwant\n%s", out, tc.want)
			}
			if !strings.Contains(string(out), "1795407840.000") {
				t.Errorf("the time lost its text: %s", out)
			}
		})
	}
	if _, _, err := repairRecords([]byte(`{not json {}`)); err == nil {
		t.Error("repairRecords of broken JSON: no error")
	}
}

// FuzzRepairRecords: any answer is either left alone or repaired into
// JSON that needs no further repair; nothing panics.
func FuzzRepairRecords(f *testing.F) {
	f.Add([]byte(`{"Records":[{"dynamodb":{"NewImage":{"e":{},"l":{"L":[{},{"M":{"x":{}}}]}}}}]}`))
	f.Add([]byte(`{"Records":[{"dynamodb":{"Keys":{},"OldImage":{"a":{"M":{}}}}}]}`))
	f.Add([]byte(`{"Records":{}}`))
	f.Add([]byte(`[{}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, changed, err := repairRecords(body)
		if err != nil || !changed {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("repaired %s into invalid JSON %s", body, out)
		}
		if _, again, err := repairRecords(out); err != nil || again {
			t.Errorf("repairing %s twice changed it again (%v)", out, err)
		}
	})
}
