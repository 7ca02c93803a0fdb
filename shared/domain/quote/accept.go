package quote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
)

// Field limits of the Accept request, in characters.
const (
	maxSignerNameLen = 200
	maxEmailLen      = 254
)

// acceptFields lists every property of the Accept request; all but the
// first are for binding quotes only.
var acceptFields = []string{"accepter_email", "signer_name", "signer_email", "signature_image_b64", "liability_election", "esign_consent_checked"}

// AcceptRequest is an Accept request (acceptQuote's body, or the quote
// page's form) as read by ParseAccept. Every value it holds has passed its
// field's rule; a field sent with a value that fails its rule is left
// zero and named in Invalid instead.
type AcceptRequest struct {
	AccepterEmail       string
	SignerName          string
	SignerEmail         string
	Signature           []byte // the PNG decoded from signature_image_b64
	LiabilityElection   Liability
	ESignConsentChecked *bool // nil when absent

	// Invalid maps each property that was sent but cannot be used (unknown,
	// of the wrong type, or failing its rule) to the reason. ParseAccept
	// does not fail for these: Terms reports them together with what the
	// quote's mode still needs, so that one 422 names every field at once.
	Invalid errcode.FieldErrors
}

// ParseAccept reads an Accept request body: a JSON object whose properties
// are all optional, with no other properties:
//
//	accepter_email         an email address (lead.CheckEmail's rules)
//	signer_name            text, at most 200 characters, one line
//	signer_email           an email address
//	signature_image_b64    a PNG in base64, at most MaxSignatureBytes decoded,
//	                       that check accepts (a data:image/png;base64,
//	                       prefix is allowed)
//	liability_election     released_value | full_value_protection
//	esign_consent_checked  a boolean
//
// An empty body (or only white space) is an empty request, since the spec
// makes the body optional; null counts as absent, and strings are trimmed,
// as in createLead.
//
// It fails only when the body is not one JSON object, with lead.DecodeObject's
// invalid_json error. Anything wrong with a property is kept in Invalid
// (see AcceptRequest) and reported by Terms. check is the signature image's
// check: CheckSignaturePNG (see SignatureCheck).
func ParseAccept(body []byte, check SignatureCheck) (AcceptRequest, error) {
	if len(bytes.TrimLeft(body, " \t\r\n")) == 0 {
		return AcceptRequest{}, nil
	}
	raw, err := lead.DecodeObject(body)
	if err != nil {
		return AcceptRequest{}, err
	}
	r := AcceptRequest{Invalid: errcode.FieldErrors{}}
	unknownProperties(raw, acceptFields, r.Invalid)

	r.AccepterEmail = r.email(raw, "accepter_email")
	r.SignerEmail = r.email(raw, "signer_email")
	if v, reason := lead.TextValue(raw["signer_name"], maxSignerNameLen, false); reason != "" {
		r.Invalid.Add("signer_name", reason)
	} else {
		r.SignerName = v
	}
	r.Signature = r.signature(raw["signature_image_b64"], check)
	r.LiabilityElection = r.liability(raw["liability_election"])
	switch v := raw["esign_consent_checked"]; string(v) {
	case "", "null":
	case "true", "false":
		checked := string(v) == "true"
		r.ESignConsentChecked = &checked
	default:
		r.Invalid.Add("esign_consent_checked", "must be a boolean (true or false)")
	}
	if len(r.Invalid) == 0 {
		r.Invalid = nil
	}
	return r, nil
}

// email reads the optional email property name.
func (r *AcceptRequest) email(raw map[string]json.RawMessage, name string) string {
	v, reason := lead.TextValue(raw[name], maxEmailLen, false)
	if reason == "" && v != "" {
		reason = lead.CheckEmail(v)
	}
	if reason != "" {
		r.Invalid.Add(name, reason)
		return ""
	}
	return v
}

// signature reads the optional signature_image_b64 property.
func (r *AcceptRequest) signature(raw json.RawMessage, check SignatureCheck) []byte {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.Invalid.Add("signature_image_b64", "must be a string: a PNG image in base64")
		return nil
	}
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	b, reason := decodeSignature(s, check)
	if reason != "" {
		r.Invalid.Add("signature_image_b64", reason)
		return nil
	}
	return b
}

// liability reads the optional liability_election property.
func (r *AcceptRequest) liability(raw json.RawMessage) Liability {
	v, reason := lead.TextValue(raw, 64, false)
	if reason == "" && v != "" && !slices.Contains(Liabilities(), Liability(v)) {
		reason = fmt.Sprintf("must be %s or %s (got %q)", ReleasedValue, FullValueProtection, v)
	}
	if reason != "" {
		r.Invalid.Add("liability_election", reason)
		return ""
	}
	return Liability(v)
}

// Terms is what an acceptance agrees to: the fields of an Accept request
// that a quote's mode uses, all validated and present.
type Terms struct {
	Mode Mode
	// Email is accepter_email for a non-binding quote and signer_email for
	// a binding one.
	Email             string
	SignerName        string    // binding only
	LiabilityElection Liability // binding only
	Signature         []byte    // binding only: the PNG
	SignatureSHA256   string    // binding only: hex SHA-256 of Signature
}

// Terms checks r against what a quote of type t needs and returns the terms
// it agrees to. On failure it returns a validation_failed *errcode.Error
// whose details.fields names every field at once: those in r.Invalid and
// those the mode needs and r lacks or may not carry.
//
//   - Non-binding: accepter_email is required. The spec makes every field
//     optional, but the issue's non-binding acceptance is "with an email
//     address", and an acceptance that names nobody is worth nothing as a
//     record. The binding-only fields are refused, so that a client that
//     thinks it is signing learns it is not.
//   - Binding (binding, binding_not_to_exceed): signer_name, signer_email,
//     signature_image_b64, liability_election are required and
//     esign_consent_checked must be true. accepter_email may be sent too,
//     but must then be signer_email (compared ignoring case), since the
//     signer is who accepts.
func (r AcceptRequest) Terms(t EstimateType) (Terms, error) {
	fields := errcode.FieldErrors{}
	for name, reason := range r.Invalid {
		fields.Add(name, reason)
	}
	if !t.IsBinding() {
		for name, sent := range map[string]bool{
			"signer_name":           r.SignerName != "",
			"signer_email":          r.SignerEmail != "",
			"signature_image_b64":   r.Signature != nil,
			"liability_election":    r.LiabilityElection != "",
			"esign_consent_checked": r.ESignConsentChecked != nil,
		} {
			if sent {
				fields.Add(name, fmt.Sprintf("is only for binding quotes; this quote is %s and is accepted with accepter_email alone", t))
			}
		}
		if r.AccepterEmail == "" {
			fields.Add("accepter_email", "is required to accept a non-binding quote: the customer's email address")
		}
		if err := fields.Err(); err != nil {
			return Terms{}, err
		}
		return Terms{Mode: ModeAccepted, Email: r.AccepterEmail}, nil
	}

	const need = "is required to sign a binding quote"
	if r.SignerName == "" {
		fields.Add("signer_name", need+": the signer's full name")
	}
	if r.SignerEmail == "" {
		fields.Add("signer_email", need+": the signer's email address")
	}
	if r.Signature == nil {
		fields.Add("signature_image_b64", need+": the drawn signature as a PNG in base64")
	}
	if r.LiabilityElection == "" {
		fields.Add("liability_election", fmt.Sprintf("%s: %s or %s", need, ReleasedValue, FullValueProtection))
	}
	switch c := r.ESignConsentChecked; {
	case c == nil:
		fields.Add("esign_consent_checked", need+": true, once the signer has read the E-SIGN disclosure and agreed to sign electronically")
	case !*c:
		fields.Add("esign_consent_checked", "must be true: a binding quote is signed only with the signer's consent to electronic records and signatures")
	}
	if r.AccepterEmail != "" && r.SignerEmail != "" && !strings.EqualFold(r.AccepterEmail, r.SignerEmail) {
		fields.Add("accepter_email", "must be signer_email when both are sent: a binding quote is accepted by its signer")
	}
	if err := fields.Err(); err != nil {
		return Terms{}, err
	}
	return Terms{
		Mode:              ModeSigned,
		Email:             r.SignerEmail,
		SignerName:        r.SignerName,
		LiabilityElection: r.LiabilityElection,
		Signature:         r.Signature,
		SignatureSHA256:   signatureSHA256(r.Signature),
	}, nil
}
