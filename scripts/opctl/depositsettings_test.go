package main

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/partner"
)

// depositsView is partner deposits' output, as decoded, with its pointers
// made plain for comparing ("" and 0 for null).
type depositsView struct {
	legalName, usdot, account string
	defaultCents              int64
	ttl                       string
	ttlSeconds                int64
	eligible                  bool
	missing                   []string
}

func plainDeposits(v depositSettings) depositsView {
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	out := depositsView{
		legalName: deref(v.CarrierLegalName), usdot: deref(v.USDOTNumber), account: deref(v.StripeAccount),
		ttl: v.CheckoutTTL, ttlSeconds: v.CheckoutTTLSeconds, eligible: v.Eligible, missing: v.Missing,
	}
	if v.DefaultCents != nil {
		out.defaultCents = *v.DefaultCents
	}
	return out
}

func TestPartnerDeposits(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	all := []string{"carrier_legal_name", "usdot_number", "stripe_account"}
	steps := []struct {
		name   string
		args   []string
		want   depositsView
		stored partner.DepositSettings
	}{
		{"new partner shows none", nil,
			depositsView{ttl: "24h0m0s", ttlSeconds: 86400, missing: all}, partner.DepositSettings{}},
		{"legal name", []string{"--carrier-legal-name", "  Acme Movers LLC "},
			depositsView{legalName: "Acme Movers LLC", ttl: "24h0m0s", ttlSeconds: 86400, missing: all[1:]},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC"}},
		{"USDOT and account; the name is kept", []string{"--usdot", "1234567", "--stripe-account", "acct_1Nv0FGQ9RKHgCVdK"},
			depositsView{legalName: "Acme Movers LLC", usdot: "1234567", account: "acct_1Nv0FGQ9RKHgCVdK", ttl: "24h0m0s", ttlSeconds: 86400, eligible: true, missing: []string{}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "1234567", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK"}},
		{"default deposit and checkout lifetime", []string{"--default-deposit-cents", "25000", "--checkout-ttl", "2h"},
			depositsView{legalName: "Acme Movers LLC", usdot: "1234567", account: "acct_1Nv0FGQ9RKHgCVdK", defaultCents: 25000, ttl: "2h0m0s", ttlSeconds: 7200, eligible: true, missing: []string{}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "1234567", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK", DefaultCents: 25000, CheckoutTTL: 2 * time.Hour}},
		{"show after the changes", nil,
			depositsView{legalName: "Acme Movers LLC", usdot: "1234567", account: "acct_1Nv0FGQ9RKHgCVdK", defaultCents: 25000, ttl: "2h0m0s", ttlSeconds: 7200, eligible: true, missing: []string{}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "1234567", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK", DefaultCents: 25000, CheckoutTTL: 2 * time.Hour}},
		{"the bounds", []string{"--default-deposit-cents=100", "--checkout-ttl=30m", "--usdot=1"},
			depositsView{legalName: "Acme Movers LLC", usdot: "1", account: "acct_1Nv0FGQ9RKHgCVdK", defaultCents: 100, ttl: "30m0s", ttlSeconds: 1800, eligible: true, missing: []string{}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "1", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK", DefaultCents: 100, CheckoutTTL: 30 * time.Minute}},
		{"the other bounds", []string{"--default-deposit-cents=500000", "--checkout-ttl=24h", "--usdot=99999999"},
			depositsView{legalName: "Acme Movers LLC", usdot: "99999999", account: "acct_1Nv0FGQ9RKHgCVdK", defaultCents: 500000, ttl: "24h0m0s", ttlSeconds: 86400, eligible: true, missing: []string{}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "99999999", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK", DefaultCents: 500000, CheckoutTTL: 24 * time.Hour}},
		{"reset the default and the lifetime", []string{"--default-deposit-cents", "0", "--checkout-ttl", "0"},
			depositsView{legalName: "Acme Movers LLC", usdot: "99999999", account: "acct_1Nv0FGQ9RKHgCVdK", ttl: "24h0m0s", ttlSeconds: 86400, eligible: true, missing: []string{}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "99999999", StripeAccount: "acct_1Nv0FGQ9RKHgCVdK"}},
		{"remove the account", []string{"--stripe-account", ""},
			depositsView{legalName: "Acme Movers LLC", usdot: "99999999", ttl: "24h0m0s", ttlSeconds: 86400, missing: []string{"stripe_account"}},
			partner.DepositSettings{CarrierLegalName: "Acme Movers LLC", USDOTNumber: "99999999"}},
		{"remove the rest", []string{"--carrier-legal-name=", "--usdot", " "},
			depositsView{ttl: "24h0m0s", ttlSeconds: 86400, missing: all}, partner.DepositSettings{}},
	}
	// Steps build on each other: run them in order.
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := opctl(t, s.Table(), append([]string{"partner", "deposits", "--partner", id}, st.args...)...)
			want := []string{"carrier_legal_name", "checkout_ttl", "checkout_ttl_seconds", "default_deposit_cents", "eligible",
				"missing", "partner_id", "stripe_account", "usdot_number"}
			if got := fields(t, r.stdout); !slices.Equal(got, want) {
				t.Errorf("output fields %q; want %q", got, want)
			}
			out := ok[depositSettings](t, r)
			if out.PartnerID != id {
				t.Errorf("partner_id %q; want %q", out.PartnerID, id)
			}
			if got := plainDeposits(out); !reflect.DeepEqual(got, st.want) {
				t.Errorf("output %+v; want %+v", got, st.want)
			}
			p, err := s.GetPartner(context.Background(), id)
			if err != nil {
				t.Fatalf("GetPartner: %v", err)
			}
			if p.Deposits != st.stored {
				t.Errorf("stored settings %+v; want %+v", p.Deposits, st.stored)
			}
		})
	}
}

// TestPartnerDepositsOutput pins the output of a partner with none set:
// nulls, the default lifetime and every missing field.
func TestPartnerDepositsOutput(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	r := opctl(t, s.Table(), "partner", "deposits", "--partner", id)
	want := `{
  "partner_id": "` + id + `",
  "carrier_legal_name": null,
  "usdot_number": null,
  "stripe_account": null,
  "default_deposit_cents": null,
  "checkout_ttl": "24h0m0s",
  "checkout_ttl_seconds": 86400,
  "eligible": false,
  "missing": [
    "carrier_legal_name",
    "usdot_number",
    "stripe_account"
  ]
}
`
	if r.code != exitOK || r.stdout != want {
		t.Errorf("exit %d, stdout %q; want 0 and %q", r.code, r.stdout, want)
	}
}

func TestPartnerDepositsUnknownPartner(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, args := range [][]string{nil, {"--usdot", "123"}, {"--checkout-ttl", "0"}} {
		r := opctl(t, s.Table(), append([]string{"partner", "deposits", "--partner", "ptn_x"}, args...)...)
		fails(t, r, exitFailure, "")
		if want := "opctl: partner ptn_x not found\n"; r.stderr != want {
			t.Errorf("opctl %q: stderr %q; want %q", r.args, r.stderr, want)
		}
	}
	if _, err := s.GetPartner(context.Background(), "ptn_x"); err == nil {
		t.Error("GetPartner(ptn_x) succeeded; want partner deposits never to create a partner")
	}
}

func TestPartnerDepositsUsage(t *testing.T) {
	t.Parallel()
	p := []string{"--partner", "ptn_x"}
	with := func(args ...string) []string { return append(slices.Clone(p), args...) }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no partner", []string{"--usdot", "1"}, "partner deposits: --partner is required"},
		{"USDOT with letters", with("--usdot", "12a4"), `partner deposits: --usdot: "12a4" is not a USDOT number: want 1 to 8 digits`},
		{"USDOT too long", with("--usdot", "123456789"), `"123456789" is not a USDOT number`},
		{"USDOT negative", with("--usdot", "-1"), `"-1" is not a USDOT number`},
		{"USDOT with a prefix", with("--usdot", "USDOT 123"), `"USDOT 123" is not a USDOT number`},
		{"account without prefix", with("--stripe-account", "1Nv0FGQ9RKHgCVdK"), `--stripe-account: "1Nv0FGQ9RKHgCVdK" is not a Stripe account id: want acct_`},
		{"account prefix only", with("--stripe-account", "acct_"), `"acct_" is not a Stripe account id`},
		{"account with a space", with("--stripe-account", "acct_1 2"), `"acct_1 2" is not a Stripe account id`},
		{"a customer, not an account", with("--stripe-account", "cus_123"), `"cus_123" is not a Stripe account id`},
		{"account too long", with("--stripe-account", "acct_"+strings.Repeat("x", 256)), "is not a Stripe account id"},
		{"deposit below the minimum", with("--default-deposit-cents", "99"), "--default-deposit-cents: deposit amount 99 cents: want 100 to 500000 (or 0 for none)"},
		{"deposit above the maximum", with("--default-deposit-cents", "500001"), "deposit amount 500001 cents: want 100 to 500000"},
		{"negative deposit", with("--default-deposit-cents", "-100"), "deposit amount -100 cents"},
		{"deposit not a number", with("--default-deposit-cents", "250.00"), `invalid value "250.00"`},
		{"lifetime too short", with("--checkout-ttl", "29m"), "--checkout-ttl: checkout lifetime 29m0s: want 30m0s to 24h0m0s (or 0 for the default, 24h0m0s)"},
		{"lifetime too long", with("--checkout-ttl", "24h1s"), "checkout lifetime 24h0m1s: want 30m0s to 24h0m0s"},
		{"negative lifetime", with("--checkout-ttl", "-1h"), "checkout lifetime -1h0m0s"},
		{"lifetime in days", with("--checkout-ttl", "1d"), `--checkout-ttl: "1d" is not a duration; give a Go duration (90m, 12h) from 30m0s to 24h0m0s, or 0 for the default (24h0m0s)`},
		{"lifetime without a unit", with("--checkout-ttl", "90"), `"90" is not a duration`},
		{"empty lifetime", with("--checkout-ttl", ""), `"" is not a duration`},
		{"fraction of a second", with("--checkout-ttl", "1h0.5s"), "--checkout-ttl: 1h0m0.5s is not a whole number of seconds"},
		{"name too long", with("--carrier-legal-name", strings.Repeat("x", maxNameLen+1)), "--carrier-legal-name must be at most 200 characters; got 201"},
		{"name with a line break", with("--carrier-legal-name", "Acme\nMovers"), "--carrier-legal-name must not contain control characters"},
		{"positional", with("--usdot", "1", "now"), `unexpected argument "now"`},
		{"unknown flag", with("--deposit-cents", "100"), "flag provided but not defined: -deposit-cents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Usage errors are found before the table is needed.
			r := opctl(t, "", append([]string{"partner", "deposits"}, tt.args...)...)
			fails(t, r, exitUsage, tt.want)
		})
	}
}

// TestPartnerDepositsRefusedKeepsSettings: a refused value writes nothing,
// not even the valid flags given beside it.
func TestPartnerDepositsRefusedKeepsSettings(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := createPartner(t, s)
	ok[depositSettings](t, opctl(t, s.Table(), "partner", "deposits", "--partner", id, "--usdot", "42", "--checkout-ttl", "1h"))
	fails(t, opctl(t, s.Table(), "partner", "deposits", "--partner", id, "--usdot", "43", "--checkout-ttl", "25h"), exitUsage, "checkout lifetime")
	p, err := s.GetPartner(context.Background(), id)
	if err != nil {
		t.Fatalf("GetPartner: %v", err)
	}
	if want := (partner.DepositSettings{USDOTNumber: "42", CheckoutTTL: time.Hour}); p.Deposits != want {
		t.Errorf("stored settings %+v; want them kept, %+v", p.Deposits, want)
	}
}

func TestDepositSettingsErr(t *testing.T) {
	fe := errcode.FieldErrors{}
	fe.Add("usdot_number", `must be 1 to 8 digits; got "x"`)
	fe.Add("checkout_ttl_seconds", "must be a whole number of seconds; got 1h0m0.5s")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"validation", fe.Err(), `opctl: the deposit settings of partner ptn_x would be invalid, nothing was changed: ` +
			`checkout_ttl_seconds must be a whole number of seconds; got 1h0m0.5s; usdot_number must be 1 to 8 digits; got "x"`},
		{"not found", errcode.New(errcode.NotFound, "No partner."), "opctl: partner ptn_x not found"},
		{"other", errcode.Upstream("update partner", errors.New("boom")), "opctl: DynamoDB request failed: update partner: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorLine(depositSettingsErr("ptn_x", tt.err)); got != tt.want {
				t.Errorf("errorLine(depositSettingsErr) = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestCheckoutTTL(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"0s", 0},
		{" 90m ", 90 * time.Minute},
		{"30m", deposit.MinCheckoutTTL},
		{"24h", deposit.MaxCheckoutTTL},
		{"1h30m15s", time.Hour + 30*time.Minute + 15*time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := checkoutTTL(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("checkoutTTL(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}
