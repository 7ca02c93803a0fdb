package stripepay_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/adapter/stripepay"
	"github.com/moveleads/partnerapi/shared/domain/deposit"
)

// validSignature is the test's own check of a Stripe-Signature header, kept
// apart from stripe-go's: some v1 signature equals HMAC-SHA256 under secret
// of the header's last t= and the payload.
func validSignature(payload []byte, header string) bool {
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.Contains(v, "=") {
			return false // stripe-go refuses the whole header
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(payload)
	want := mac.Sum(nil)
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// FuzzParseWebhook: ParseWebhook never panics; a payload whose header
// carries no valid signature never parses (ErrSignature); a correctly
// signed payload never fails the signature, and when it parses, its
// outcome is a known deposit event or none.
func FuzzParseWebhook(f *testing.F) {
	for _, name := range []string{"checkout_session_completed_paid", "charge_refunded", "charge_dispute_created", "payment_intent_succeeded"} {
		payload := fixture(f, name)
		f.Add(payload, "", true)
		f.Add(append(payload[:len(payload)-2:len(payload)-2], '}'), sign(payload, secret, now), false)
	}
	f.Add([]byte(`{"api_version":"2023-10-16","type":"charge.refunded","data":{"object":{"payment_intent":{"id":7}}}}`), "", true)
	f.Add([]byte("{}"), "t=1,v1=00", false)
	f.Fuzz(func(t *testing.T, payload []byte, header string, signIt bool) {
		if signIt {
			header = sign(payload, secret, now)
		}
		e, err := stripepay.ParseWebhook(payload, header, secret, now)
		switch {
		case signIt && errors.Is(err, stripepay.ErrSignature):
			t.Fatalf("correctly signed payload: %v", err)
		case !signIt && !validSignature(payload, header) && !errors.Is(err, stripepay.ErrSignature):
			t.Fatalf("header %q carries no valid signature, yet ParseWebhook = %+v, %v", header, e, err)
		case err != nil && e != (stripepay.Event{}):
			t.Fatalf("ParseWebhook returned %+v with error %v", e, err)
		case err == nil && !e.Ignored() && !slices.Contains(deposit.Events, e.Outcome):
			t.Fatalf("outcome %q is not a deposit event", e.Outcome)
		}
	})
}

// FuzzCheckSignatureShape: CheckSignatureShape never panics, passes every
// correctly signed header, and refuses only headers that ParseWebhook
// refuses too (ErrSignature), so the receiver's cheap check before the
// secret load changes no answer.
func FuzzCheckSignatureShape(f *testing.F) {
	payload := fixture(f, "checkout_session_completed_paid")
	good := sign(payload, secret, now)
	for _, h := range []string{good, "", "t=1", "v1=" + strings.Repeat("a", 64), good + ",v0=00", good + ",x", "t=x," + good,
		strings.Replace(good, "v1=", "v1=0", 1), "t=" + strconv.FormatInt(now.Unix(), 10) + ",v1=" + strings.Repeat("g", 64)} {
		f.Add(payload, h, false)
	}
	f.Add(payload, "", true)
	f.Fuzz(func(t *testing.T, payload []byte, header string, signIt bool) {
		if signIt {
			header = sign(payload, secret, now)
		}
		err := stripepay.CheckSignatureShape(header, now)
		switch {
		case signIt && err != nil:
			t.Fatalf("correctly signed header %q: %v", header, err)
		case err != nil && !errors.Is(err, stripepay.ErrSignature):
			t.Fatalf("header %q: %v; want ErrSignature", header, err)
		case err != nil:
			if _, perr := stripepay.ParseWebhook(payload, header, secret, now); !errors.Is(perr, stripepay.ErrSignature) {
				t.Fatalf("CheckSignatureShape refuses %q (%v) but ParseWebhook = %v", header, err, perr)
			}
		}
	})
}
