package quote

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func TestParseCreateAccepts(t *testing.T) {
	tests := []struct {
		name string
		body string
		want CreateInput
	}{
		{"minimal non-binding", `{"estimate_type":"non_binding","price_cents":1}`,
			CreateInput{EstimateType: NonBinding, PriceCents: 1, DepositCents: 0, ExpiresInDays: DefaultExpiryDays}},
		{"binding with deposit and expiry", `{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`,
			CreateInput{EstimateType: Binding, PriceCents: 245000, DepositCents: 25000, ExpiresInDays: 14}},
		{"binding not to exceed", `{"estimate_type":"binding_not_to_exceed","price_cents":100000000}`,
			CreateInput{EstimateType: BindingNotToExceed, PriceCents: MaxPriceCents, DepositCents: 0, ExpiresInDays: DefaultExpiryDays}},
		{"deposit 0 is none", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":0}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 0, ExpiresInDays: DefaultExpiryDays}},
		{"null deposit and expiry are absent", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":null,"expires_in_days":null}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 0, ExpiresInDays: DefaultExpiryDays}},
		{"least deposit", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":100}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 100, ExpiresInDays: DefaultExpiryDays}},
		{"greatest deposit", `{"estimate_type":"binding","price_cents":900000,"deposit_cents":500000}`,
			CreateInput{EstimateType: Binding, PriceCents: 900000, DepositCents: 500000, ExpiresInDays: DefaultExpiryDays}},
		{"deposit equal to price", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":5000}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 5000, ExpiresInDays: DefaultExpiryDays}},
		{"expiry bounds, least", `{"estimate_type":"binding","price_cents":5000,"expires_in_days":1}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 0, ExpiresInDays: 1}},
		{"expiry bounds, greatest", `{"estimate_type":"binding","price_cents":5000,"expires_in_days":90}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 0, ExpiresInDays: 90}},
		{"estimate type trimmed", `{"estimate_type":" binding ","price_cents":5000}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 0, ExpiresInDays: DefaultExpiryDays}},
		{"services and full value protection", `{"estimate_type":"binding","price_cents":5000,"services":[" Packing ","","Storage, 30 days"],"full_value_protection_cents":45000}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, ExpiresInDays: DefaultExpiryDays, Services: []string{"Packing", "Storage, 30 days"}, FullValueCents: ptr(int64(45000))}},
		{"full value protection included", `{"estimate_type":"binding","price_cents":5000,"full_value_protection_cents":0,"services":null}`,
			CreateInput{EstimateType: Binding, PriceCents: 5000, ExpiresInDays: DefaultExpiryDays, FullValueCents: ptr(int64(0))}},
		{"white space around values", "{ \"estimate_type\" : \"binding\" ,\n \"price_cents\" : 5000 }",
			CreateInput{EstimateType: Binding, PriceCents: 5000, DepositCents: 0, ExpiresInDays: DefaultExpiryDays}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCreate([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseCreate(%s) error %v; want %+v", tt.body, err, tt.want)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseCreate(%s) = %+v; want %+v", tt.body, got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestParseCreateRefuses(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		fields map[string]string // field → a part of its reason
	}{
		{"empty object", `{}`, map[string]string{"estimate_type": "is required", "price_cents": "is required"}},
		{"unknown estimate type", `{"estimate_type":"fixed","price_cents":1}`, map[string]string{"estimate_type": "must be one of non_binding, binding, binding_not_to_exceed"}},
		{"estimate type case", `{"estimate_type":"Binding","price_cents":1}`, map[string]string{"estimate_type": "must be one of"}},
		{"estimate type not a string", `{"estimate_type":1,"price_cents":1}`, map[string]string{"estimate_type": "must be a string"}},
		{"price 0", `{"estimate_type":"binding","price_cents":0}`, map[string]string{"price_cents": "must be from 1 to 100000000"}},
		{"price negative", `{"estimate_type":"binding","price_cents":-5}`, map[string]string{"price_cents": "must be from 1"}},
		{"price too big", `{"estimate_type":"binding","price_cents":100000001}`, map[string]string{"price_cents": "must be from 1 to 100000000"}},
		{"price overflows int64", `{"estimate_type":"binding","price_cents":99999999999999999999999}`, map[string]string{"price_cents": "must be from 1 to 100000000"}},
		{"price with a fraction", `{"estimate_type":"binding","price_cents":2450.00}`, map[string]string{"price_cents": "whole number"}},
		{"price with an exponent", `{"estimate_type":"binding","price_cents":2e5}`, map[string]string{"price_cents": "whole number"}},
		{"price as a string", `{"estimate_type":"binding","price_cents":"2450"}`, map[string]string{"price_cents": "must be an integer"}},
		{"price null", `{"estimate_type":"binding","price_cents":null}`, map[string]string{"price_cents": "is required"}},
		{"deposit below the least", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":99}`, map[string]string{"deposit_cents": "must be 0 (no deposit) or from 100 to 500000"}},
		{"deposit above the greatest", `{"estimate_type":"binding","price_cents":9000000,"deposit_cents":500001}`, map[string]string{"deposit_cents": "must be from 0 to 500000"}},
		{"deposit negative", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":-100}`, map[string]string{"deposit_cents": "must be from 0"}},
		{"deposit above price", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":5001}`, map[string]string{"deposit_cents": "must be at most price_cents (5000"}},
		{"deposit as a boolean", `{"estimate_type":"binding","price_cents":5000,"deposit_cents":true}`, map[string]string{"deposit_cents": "must be an integer"}},
		{"expiry 0 days", `{"estimate_type":"binding","price_cents":5000,"expires_in_days":0}`, map[string]string{"expires_in_days": "must be from 1 to 90"}},
		{"expiry 91 days", `{"estimate_type":"binding","price_cents":5000,"expires_in_days":91}`, map[string]string{"expires_in_days": "must be from 1 to 90"}},
		{"expiry as a date", `{"estimate_type":"binding","price_cents":5000,"expires_in_days":"2025-07-01"}`, map[string]string{"expires_in_days": "must be an integer"}},
		{"unknown properties", `{"estimate_type":"binding","price_cents":5000,"currency":"usd","expires_at":"2025-07-01T00:00:00Z"}`,
			map[string]string{"currency": "unknown property", "expires_at": "unknown property"}},
		{"services not a list", `{"estimate_type":"binding","price_cents":5000,"services":"packing"}`,
			map[string]string{"services": "array of strings"}},
		{"service not one line", `{"estimate_type":"binding","price_cents":5000,"services":["a\nb"]}`,
			map[string]string{"services": "item 0"}},
		{"full value negative", `{"estimate_type":"binding","price_cents":5000,"full_value_protection_cents":-1}`,
			map[string]string{"full_value_protection_cents": "must be from 0"}},
		{"full value a fraction", `{"estimate_type":"binding","price_cents":5000,"full_value_protection_cents":1.5}`,
			map[string]string{"full_value_protection_cents": "whole number"}},
		{"every field at once", `{"estimate_type":"x","price_cents":0,"deposit_cents":1,"expires_in_days":100,"extra":1}`,
			map[string]string{"estimate_type": "must be", "price_cents": "must be", "deposit_cents": "must be", "expires_in_days": "must be", "extra": "unknown property"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := ParseCreate([]byte(tt.body))
			if !reflect.DeepEqual(in, CreateInput{}) {
				t.Errorf("ParseCreate(%s) input = %+v with an error; want the zero CreateInput", tt.body, in)
			}
			got := fieldNames(t, err)
			var want []string
			for f := range tt.fields {
				want = append(want, f)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("ParseCreate(%s) fields %v; want %v", tt.body, got, want)
			}
			for f, part := range tt.fields {
				if r := reasonOf(t, err, f); !strings.Contains(r, part) {
					t.Errorf("ParseCreate(%s) fields.%s = %q; want it to contain %q", tt.body, f, r, part)
				}
			}
		})
	}
}

func TestParseCreateInvalidJSON(t *testing.T) {
	for _, body := range []string{``, `[]`, `null`, `{"estimate_type":"binding"`, `{"a":1} {}`, "\xef\xbb\xbf{}", `"binding"`} {
		t.Run(body, func(t *testing.T) {
			_, err := ParseCreate([]byte(body))
			if e := codeOf(t, err); e.Code != errcode.InvalidJSON {
				t.Errorf("ParseCreate(%q) code %q; want invalid_json", body, e.Code)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	in := CreateInput{EstimateType: Binding, PriceCents: 245_000, DepositCents: 25_000, ExpiresInDays: 14}
	local := now.In(time.FixedZone("EDT", -4*3600))
	move := testMove()
	q := Build("q-1", "lead-1", "link-1", in, move, Issuer{CompanyName: "Ada Movers LLC", Currency: "usd"}, local)
	want := Quote{
		ID: "q-1", LeadID: "lead-1", ShareLinkID: "link-1", EstimateType: Binding,
		PriceCents: 245_000, DepositCents: 25_000, Currency: "usd", CompanyName: "Ada Movers LLC",
		CreatedAt: time.Date(2025, 6, 2, 15, 4, 5, 123456000, time.UTC),
		ExpiresAt: time.Date(2025, 6, 16, 15, 4, 5, 123456000, time.UTC),
		Stage:     StageOpen, Move: &move,
	}
	if !reflect.DeepEqual(q, want) {
		t.Errorf("Build = %+v; want %+v", q, want)
	}
	if !q.DepositRequired() {
		t.Error("DepositRequired() = false with a deposit; want true")
	}
	q.DepositCents = 0
	if q.DepositRequired() {
		t.Error("DepositRequired() = true without a deposit; want false")
	}
}

func TestStageAt(t *testing.T) {
	q := testQuote(Binding)
	tests := []struct {
		name  string
		stage Stage
		at    time.Time
		want  Stage
	}{
		{"open before expiry", StageOpen, q.ExpiresAt.Add(-time.Microsecond), StageOpen},
		{"open at expiry", StageOpen, q.ExpiresAt, StageExpired},
		{"open after expiry", StageOpen, q.ExpiresAt.Add(time.Hour), StageExpired},
		{"signed after expiry", StageSigned, q.ExpiresAt.Add(time.Hour), StageSigned},
		{"accepted after expiry", StageAccepted, q.ExpiresAt.Add(time.Hour), StageAccepted},
		{"superseded", StageSuperseded, now, StageSuperseded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q.Stage = tt.stage
			if got := q.StageAt(tt.at); got != tt.want {
				t.Errorf("StageAt = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	q := testQuote(Binding)
	if s := Summarize(q, nil, now); s.QuoteID != "q-1" || s.Stage != StageOpen || s.AcceptedAt != nil || s.SignedAt != nil {
		t.Errorf("Summarize(open) = %+v; want q-1, open, no times", s)
	}
	at := now.Add(time.Hour)
	q.Stage = StageSigned
	s := Summarize(q, &Acceptance{QuoteID: "q-1", Mode: ModeSigned, At: at}, now)
	if s.AcceptedAt == nil || !s.AcceptedAt.Equal(at) || s.SignedAt == nil || !s.SignedAt.Equal(at) || s.Stage != StageSigned {
		t.Errorf("Summarize(signed) = %+v; want signed, accepted_at = signed_at = %v", s, at)
	}
	q.Stage = StageAccepted
	s = Summarize(q, &Acceptance{QuoteID: "q-1", Mode: ModeAccepted, At: at}, now)
	if s.AcceptedAt == nil || !s.AcceptedAt.Equal(at) || s.SignedAt != nil {
		t.Errorf("Summarize(accepted) = %+v; want accepted_at %v and no signed_at", s, at)
	}
}

// FuzzParseCreate checks that ParseCreate never panics, fails only with a
// 4xx code (invalid_json, or validation_failed with details.fields), and
// that what it accepts is within every bound.
func FuzzParseCreate(f *testing.F) {
	for _, s := range []string{
		`{"estimate_type":"binding","price_cents":245000,"deposit_cents":25000,"expires_in_days":14}`,
		`{"estimate_type":"non_binding","price_cents":1}`,
		`{"estimate_type":"binding_not_to_exceed","price_cents":100000000,"deposit_cents":null}`,
		`{"estimate_type":"binding","price_cents":5000,"deposit_cents":5001}`,
		`{"estimate_type":"binding","price_cents":-0,"deposit_cents":1e2}`,
		`{"price_cents":99999999999999999999}`,
		`{}`, ``, `[]`, `{"x":{"y":[1,2,{"z":null}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseCreate(body)
		if err != nil {
			e := errcode.As(err)
			if e == nil {
				t.Fatalf("ParseCreate(%q) error %v; want an *errcode.Error", body, err)
			}
			switch e.Code {
			case errcode.InvalidJSON:
			case errcode.ValidationFailed:
				if fields, _ := e.Details["fields"].(map[string]any); len(fields) == 0 {
					t.Errorf("ParseCreate(%q): validation_failed without details.fields", body)
				}
			default:
				t.Errorf("ParseCreate(%q) code %q; want validation_failed or invalid_json", body, e.Code)
			}
			if st := errcode.Status(e.Code); st < 400 || st > 499 {
				t.Errorf("ParseCreate(%q) code %q answers %d; want a 4xx", body, e.Code, st)
			}
			return
		}
		if !slices.Contains(EstimateTypes, in.EstimateType) {
			t.Errorf("ParseCreate(%q): estimate type %q", body, in.EstimateType)
		}
		if in.PriceCents < MinPriceCents || in.PriceCents > MaxPriceCents {
			t.Errorf("ParseCreate(%q): price %d out of bounds", body, in.PriceCents)
		}
		if in.DepositCents != 0 && (in.DepositCents < MinDepositCents || in.DepositCents > MaxDepositCents || in.DepositCents > in.PriceCents) {
			t.Errorf("ParseCreate(%q): deposit %d out of bounds (price %d)", body, in.DepositCents, in.PriceCents)
		}
		if in.ExpiresInDays < MinExpiryDays || in.ExpiresInDays > MaxExpiryDays {
			t.Errorf("ParseCreate(%q): expires_in_days %d out of bounds", body, in.ExpiresInDays)
		}
		q := Build("q", "l", "s", in, Move{}, Issuer{CompanyName: "c", Currency: "usd"}, now)
		if !q.ExpiresAt.After(now) || q.ExpiresAt.After(now.Add(MaxExpiryDays*24*time.Hour)) {
			t.Errorf("ParseCreate(%q): expiry %v not within (now, now+%d days]", body, q.ExpiresAt, MaxExpiryDays)
		}
	})
}
