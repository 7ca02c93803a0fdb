package quote

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// acceptBody renders fields as a JSON object.
func acceptBody(t *testing.T, fields map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bindingFields returns a complete, valid binding Accept request.
func bindingFields(t *testing.T) map[string]any {
	t.Helper()
	return map[string]any{
		"signer_name":           "Ada Lovelace",
		"signer_email":          "ada@example.com",
		"signature_image_b64":   b64(validSignature(t)),
		"liability_election":    "full_value_protection",
		"esign_consent_checked": true,
	}
}

func TestParseAccept(t *testing.T) {
	sig := validSignature(t)
	yes, no := true, false
	tests := []struct {
		name string
		body string
		want AcceptRequest
	}{
		{"empty body", ``, AcceptRequest{}},
		{"white space only", " \r\n\t", AcceptRequest{}},
		{"empty object", `{}`, AcceptRequest{}},
		{"nulls are absent", `{"accepter_email":null,"signer_name":null,"signer_email":null,"signature_image_b64":null,"liability_election":null,"esign_consent_checked":null}`, AcceptRequest{}},
		{"blank strings are absent", `{"accepter_email":"  ","signer_name":"\u200b","signature_image_b64":" "}`, AcceptRequest{}},
		{"non-binding", `{"accepter_email":" ada@example.com "}`, AcceptRequest{AccepterEmail: "ada@example.com"}},
		{"binding", string(acceptBody(t, map[string]any{
			"signer_name": " Ada  Lovelace ", "signer_email": "ada@example.com", "signature_image_b64": b64(sig),
			"liability_election": "released_value", "esign_consent_checked": true,
		})), AcceptRequest{SignerName: "Ada  Lovelace", SignerEmail: "ada@example.com", Signature: sig, LiabilityElection: ReleasedValue, ESignConsentChecked: &yes}},
		{"consent false", `{"esign_consent_checked":false}`, AcceptRequest{ESignConsentChecked: &no}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAcceptBody([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseAccept error %v", err)
			}
			if got.AccepterEmail != tt.want.AccepterEmail || got.SignerName != tt.want.SignerName || got.SignerEmail != tt.want.SignerEmail ||
				!bytes.Equal(got.Signature, tt.want.Signature) || got.LiabilityElection != tt.want.LiabilityElection ||
				(got.ESignConsentChecked == nil) != (tt.want.ESignConsentChecked == nil) ||
				(got.ESignConsentChecked != nil && *got.ESignConsentChecked != *tt.want.ESignConsentChecked) {
				t.Errorf("ParseAccept = %+v; want %+v", got, tt.want)
			}
			if got.Invalid != nil {
				t.Errorf("ParseAccept Invalid = %v; want nil", got.Invalid)
			}
		})
	}
}

func TestParseAcceptKeepsInvalidFields(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		fields map[string]string // field → a part of its reason
	}{
		{"unknown property", `{"quote_id":"q-1"}`, map[string]string{"quote_id": "unknown property"}},
		{"bad accepter email", `{"accepter_email":"ada@"}`, map[string]string{"accepter_email": "must be a valid email address"}},
		{"email not a string", `{"signer_email":5}`, map[string]string{"signer_email": "must be a string"}},
		{"name with a line break", `{"signer_name":"Ada\nLovelace"}`, map[string]string{"signer_name": "control character"}},
		{"name with a bidi override", `{"signer_name":"Ada\u202eecalevol"}`, map[string]string{"signer_name": "bidirectional"}},
		{"name too long", `{"signer_name":"` + strings.Repeat("a", 201) + `"}`, map[string]string{"signer_name": "at most 200 characters"}},
		{"signature not a string", `{"signature_image_b64":{"png":"x"}}`, map[string]string{"signature_image_b64": "must be a string"}},
		{"signature not a PNG", `{"signature_image_b64":"` + b64([]byte{0xff, 0xd8, 0xff, 0xe0}) + `"}`, map[string]string{"signature_image_b64": "not a JPEG"}},
		{"liability unknown", `{"liability_election":"full"}`, map[string]string{"liability_election": "must be released_value or full_value_protection"}},
		{"liability case", `{"liability_election":"Released_Value"}`, map[string]string{"liability_election": "must be"}},
		{"consent as a string", `{"esign_consent_checked":"true"}`, map[string]string{"esign_consent_checked": "must be a boolean"}},
		{"consent as a number", `{"esign_consent_checked":1}`, map[string]string{"esign_consent_checked": "must be a boolean"}},
		{"all at once", `{"accepter_email":1,"signer_name":2,"signer_email":"x","signature_image_b64":"!","liability_election":"y","esign_consent_checked":"z","extra":0}`,
			map[string]string{"accepter_email": "must be a string", "signer_name": "must be a string", "signer_email": "must be a valid email", "signature_image_b64": "base64",
				"liability_election": "must be", "esign_consent_checked": "boolean", "extra": "unknown property"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseAcceptBody([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseAccept error %v; want the problems in Invalid", err)
			}
			var got, want []string
			for f := range r.Invalid {
				got = append(got, f)
			}
			for f := range tt.fields {
				want = append(want, f)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("Invalid fields %v; want %v (%v)", got, want, r.Invalid)
			}
			for f, part := range tt.fields {
				if !strings.Contains(r.Invalid[f], part) {
					t.Errorf("Invalid[%s] = %q; want it to contain %q", f, r.Invalid[f], part)
				}
			}
			if r.AccepterEmail != "" || r.SignerName != "" || r.SignerEmail != "" || r.Signature != nil || r.LiabilityElection != "" || r.ESignConsentChecked != nil {
				t.Errorf("ParseAccept kept a value of an invalid field: %+v", r)
			}
			// Terms reports them, in either mode.
			for _, typ := range EstimateTypes {
				_, err := r.Terms(typ)
				names := fieldNames(t, err)
				for f := range tt.fields {
					if !slices.Contains(names, f) {
						t.Errorf("Terms(%s) fields %v; want %s among them", typ, names, f)
					}
				}
			}
		})
	}
}

func TestParseAcceptInvalidJSON(t *testing.T) {
	for _, body := range []string{`null`, `[]`, `"x"`, `{"accepter_email":`, `{} {}`, "\xef\xbb\xbf{}", "\x1f\x8b\x08"} {
		t.Run(body, func(t *testing.T) {
			_, err := parseAcceptBody([]byte(body))
			if e := codeOf(t, err); e.Code != errcode.InvalidJSON {
				t.Errorf("ParseAccept(%q) code %q; want invalid_json", body, e.Code)
			}
		})
	}
}

func TestTermsNonBinding(t *testing.T) {
	t.Run("accepted with an email", func(t *testing.T) {
		r, _ := parseAcceptBody([]byte(`{"accepter_email":"ada@example.com"}`))
		got, err := r.Terms(NonBinding)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Terms{Mode: ModeAccepted, Email: "ada@example.com"}); got.Mode != want.Mode || got.Email != want.Email || got.Signature != nil || got.SignerName != "" {
			t.Errorf("Terms = %+v; want %+v", got, want)
		}
	})
	t.Run("email required", func(t *testing.T) {
		_, err := AcceptRequest{}.Terms(NonBinding)
		if got := fieldNames(t, err); !slices.Equal(got, []string{"accepter_email"}) {
			t.Errorf("fields %v; want [accepter_email]", got)
		}
		if r := reasonOf(t, err, "accepter_email"); !strings.Contains(r, "is required") {
			t.Errorf("reason %q; want \"is required\"", r)
		}
	})
	t.Run("binding fields refused, each named", func(t *testing.T) {
		fields := bindingFields(t)
		fields["accepter_email"] = "ada@example.com"
		r, _ := parseAcceptBody(acceptBody(t, fields))
		_, err := r.Terms(NonBinding)
		want := []string{"esign_consent_checked", "liability_election", "signature_image_b64", "signer_email", "signer_name"}
		if got := fieldNames(t, err); !slices.Equal(got, want) {
			t.Errorf("fields %v; want %v", got, want)
		}
		if r := reasonOf(t, err, "signer_name"); !strings.Contains(r, "only for binding quotes") {
			t.Errorf("reason %q; want \"only for binding quotes\"", r)
		}
	})
	t.Run("consent false is a binding field too", func(t *testing.T) {
		r, _ := parseAcceptBody([]byte(`{"accepter_email":"ada@example.com","esign_consent_checked":false}`))
		_, err := r.Terms(NonBinding)
		if got := fieldNames(t, err); !slices.Equal(got, []string{"esign_consent_checked"}) {
			t.Errorf("fields %v; want [esign_consent_checked]", got)
		}
	})
}

func TestTermsBinding(t *testing.T) {
	sig := validSignature(t)
	t.Run("signed", func(t *testing.T) {
		r, _ := parseAcceptBody(acceptBody(t, bindingFields(t)))
		for _, typ := range []EstimateType{Binding, BindingNotToExceed} {
			got, err := r.Terms(typ)
			if err != nil {
				t.Fatalf("Terms(%s) error %v", typ, err)
			}
			if got.Mode != ModeSigned || got.Email != "ada@example.com" || got.SignerName != "Ada Lovelace" ||
				got.LiabilityElection != FullValueProtection || !bytes.Equal(got.Signature, sig) || got.SignatureSHA256 != signatureSHA256(sig) {
				t.Errorf("Terms(%s) = %+v", typ, got)
			}
		}
	})
	tests := []struct {
		name   string
		edit   func(map[string]any)
		fields []string
		reason string // a part of the first field's reason
	}{
		{"nothing sent", func(m map[string]any) { clear(m) },
			[]string{"esign_consent_checked", "liability_election", "signature_image_b64", "signer_email", "signer_name"}, "is required to sign"},
		{"only an accepter email", func(m map[string]any) { clear(m); m["accepter_email"] = "ada@example.com" },
			[]string{"esign_consent_checked", "liability_election", "signature_image_b64", "signer_email", "signer_name"}, "is required to sign"},
		{"no signer name", func(m map[string]any) { delete(m, "signer_name") }, []string{"signer_name"}, "is required"},
		{"no signer email", func(m map[string]any) { delete(m, "signer_email") }, []string{"signer_email"}, "is required"},
		{"no signature", func(m map[string]any) { delete(m, "signature_image_b64") }, []string{"signature_image_b64"}, "is required"},
		{"no liability", func(m map[string]any) { delete(m, "liability_election") }, []string{"liability_election"}, "released_value or full_value_protection"},
		{"no consent", func(m map[string]any) { delete(m, "esign_consent_checked") }, []string{"esign_consent_checked"}, "is required"},
		{"consent false", func(m map[string]any) { m["esign_consent_checked"] = false }, []string{"esign_consent_checked"}, "must be true"},
		{"signature not a PNG", func(m map[string]any) { m["signature_image_b64"] = b64([]byte("GIF89a....")) }, []string{"signature_image_b64"}, "not a GIF"},
		{"accepter email differs", func(m map[string]any) { m["accepter_email"] = "bob@example.com" }, []string{"accepter_email"}, "must be signer_email"},
		{"invalid and missing at once", func(m map[string]any) {
			m["signer_email"] = "nope"
			m["signature_image_b64"] = "####"
			delete(m, "signer_name")
			m["esign_consent_checked"] = false
		}, []string{"esign_consent_checked", "signature_image_b64", "signer_email", "signer_name"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := bindingFields(t)
			tt.edit(m)
			r, err := parseAcceptBody(acceptBody(t, m))
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Terms(Binding)
			if got := fieldNames(t, err); !slices.Equal(got, tt.fields) {
				t.Fatalf("fields %v; want %v", got, tt.fields)
			}
			if rs := reasonOf(t, err, tt.fields[0]); !strings.Contains(rs, tt.reason) {
				t.Errorf("fields.%s = %q; want it to contain %q", tt.fields[0], rs, tt.reason)
			}
		})
	}
	t.Run("accepter email equal ignoring case", func(t *testing.T) {
		m := bindingFields(t)
		m["accepter_email"] = "ADA@example.com"
		r, _ := parseAcceptBody(acceptBody(t, m))
		if _, err := r.Terms(Binding); err != nil {
			t.Errorf("Terms error %v; want accepted", err)
		}
	})
}

// FuzzParseAccept checks that ParseAccept never panics and fails only with
// invalid_json; that every value it keeps satisfies its field's rule and
// every field it refuses is left zero; and that Terms, in either mode,
// fails only with validation_failed naming fields, or returns complete
// terms within the bounds.
func FuzzParseAccept(f *testing.F) {
	f.Add([]byte(`{"accepter_email":"ada@example.com"}`))
	f.Add([]byte(`{"signer_name":"Ada","signer_email":"ada@example.com","signature_image_b64":"` + b64(validSignature(f)) + `","liability_election":"released_value","esign_consent_checked":true}`))
	f.Add([]byte(`{"signature_image_b64":"iVBORw0KGgo=","esign_consent_checked":false,"x":1}`))
	f.Add([]byte(`{"signer_name":"\u202e","liability_election":null}`))
	f.Add([]byte(``))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := parseAcceptBody(body)
		if err != nil {
			e := errcode.As(err)
			if e == nil || e.Code != errcode.InvalidJSON {
				t.Fatalf("ParseAccept(%q) error %v; want invalid_json", body, err)
			}
			return
		}
		for name, reason := range r.Invalid {
			if !slices.Contains(acceptFields, name) && reason != "unknown property" {
				t.Errorf("ParseAccept(%q): Invalid[%s] = %q; want unknown property", body, name, reason)
			}
		}
		for name, v := range map[string]string{"accepter_email": r.AccepterEmail, "signer_email": r.SignerEmail} {
			if v != "" && lead.CheckEmail(v) != "" {
				t.Errorf("ParseAccept(%q): %s %q fails CheckEmail", body, name, v)
			}
			if v != "" && r.Invalid[name] != "" {
				t.Errorf("ParseAccept(%q): %s kept with Invalid %q", body, name, r.Invalid[name])
			}
		}
		if v, reason := lead.TextValue(mustJSON(t, r.SignerName), maxSignerNameLen, false); v != r.SignerName || reason != "" {
			t.Errorf("ParseAccept(%q): signer_name %q fails the text rules (%q)", body, r.SignerName, reason)
		}
		if r.Signature != nil && CheckSignaturePNG(r.Signature) != "" {
			t.Errorf("ParseAccept(%q): signature fails CheckSignaturePNG: %s", body, CheckSignaturePNG(r.Signature))
		}
		if r.LiabilityElection != "" && !slices.Contains(Liabilities(), r.LiabilityElection) {
			t.Errorf("ParseAccept(%q): liability %q", body, r.LiabilityElection)
		}
		for _, typ := range EstimateTypes {
			terms, err := r.Terms(typ)
			if err != nil {
				if e := errcode.As(err); e == nil || e.Code != errcode.ValidationFailed {
					t.Errorf("Terms(%s) of %q error %v; want validation_failed", typ, body, err)
				} else if fields, _ := e.Details["fields"].(map[string]any); len(fields) == 0 {
					t.Errorf("Terms(%s) of %q: validation_failed without details.fields", typ, body)
				}
				continue
			}
			if len(r.Invalid) != 0 {
				t.Errorf("Terms(%s) of %q accepted a request with Invalid %v", typ, body, r.Invalid)
			}
			if terms.Mode != ModeFor(typ) || lead.CheckEmail(terms.Email) != "" {
				t.Errorf("Terms(%s) of %q = %+v: wrong mode or email", typ, body, terms)
			}
			if typ.IsBinding() && (terms.SignerName == "" || terms.Signature == nil || terms.SignatureSHA256 != signatureSHA256(terms.Signature) ||
				terms.LiabilityElection == "" || r.ESignConsentChecked == nil || !*r.ESignConsentChecked) {
				t.Errorf("Terms(%s) of %q = %+v: incomplete binding terms", typ, body, terms)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
