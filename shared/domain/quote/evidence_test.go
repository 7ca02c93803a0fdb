package quote

import (
	"reflect"
	"testing"
	"time"
)

// goldenEvidence is a fixed evidence record; its encoding and hash below
// must never change (stored evidence is checked against them), short of a
// new EvidenceTag.
var goldenEvidence = Evidence{
	QuoteID:           "4b0c3a52-9d7e-4d6f-8a1b-2c3d4e5f6a7b",
	ShownHash:         "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
	SignerName:        "Zoë O'Brien: \"Mover\"\nline",
	SignerEmail:       "zoe@example.com",
	SignatureSHA256:   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	SignatureKey:      "signatures/p-1/live/4b0c3a52-9d7e-4d6f-8a1b-2c3d4e5f6a7b/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.png",
	LiabilityElection: FullValueProtection,
	ConsentVersion:    "esign-2025-01",
	ConsentChecked:    true,
	At:                time.Date(2025, 6, 2, 15, 4, 5, 123456000, time.UTC),
	IP:                "203.0.113.7",
	UserAgent:         "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X)",
}

const goldenEvidenceEncoding = "moveleads.quote.evidence.v1\n" +
	"quote_id:36:4b0c3a52-9d7e-4d6f-8a1b-2c3d4e5f6a7b\n" +
	"shown_hash:64:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\n" +
	"signer_name:26:Zoë O'Brien: \"Mover\"\nline\n" +
	"signer_email:15:zoe@example.com\n" +
	"signature_sha256:64:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n" +
	"signature_key:125:signatures/p-1/live/4b0c3a52-9d7e-4d6f-8a1b-2c3d4e5f6a7b/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.png\n" +
	"liability_election:21:full_value_protection\n" +
	"consent_version:13:esign-2025-01\n" +
	"consent_checked:4:true\n" +
	"at:27:2025-06-02T15:04:05.123456Z\n" +
	"ip:11:203.0.113.7\n" +
	"user_agent:54:Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X)\n"

// goldenEvidenceHash is the SHA-256 of goldenEvidenceEncoding (checked
// independently, with Python's hashlib over the same bytes).
const goldenEvidenceHash = "6569437fb253402723cf738c349cd7e3fc451770d2a2e8e77ca47d8fa92005cc"

func TestEvidenceGolden(t *testing.T) {
	if got := string(goldenEvidence.Canonical()); got != goldenEvidenceEncoding {
		t.Errorf("Canonical() =\n%s\nwant\n%s", got, goldenEvidenceEncoding)
	}
	if got := goldenEvidence.Hash(); got != goldenEvidenceHash {
		t.Errorf("Hash() = %s; want %s", got, goldenEvidenceHash)
	}
	// The same record again, and the same instant in another zone or with
	// nanoseconds below the stored precision, hash the same.
	again := goldenEvidence
	again.At = goldenEvidence.At.In(time.FixedZone("PDT", -7*3600)).Add(999 * time.Nanosecond)
	if got := again.Hash(); got != goldenEvidenceHash {
		t.Errorf("Hash() of the same record (At in PDT, +999ns) = %s; want %s", got, goldenEvidenceHash)
	}
}

// TestEvidenceHashCoversEveryField changes each field of Evidence in turn,
// found by reflection so that a field added later is covered too, and
// checks that the hash changes.
func TestEvidenceHashCoversEveryField(t *testing.T) {
	v := reflect.ValueOf(goldenEvidence)
	typ := v.Type()
	seen := map[string]bool{goldenEvidence.Hash(): true}
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			e := goldenEvidence
			fv := reflect.ValueOf(&e).Elem().Field(i)
			switch {
			case f.Type == reflect.TypeOf(time.Time{}):
				fv.Set(reflect.ValueOf(goldenEvidence.At.Add(time.Microsecond)))
			case fv.Kind() == reflect.String:
				fv.SetString(fv.String() + "x")
			case fv.Kind() == reflect.Bool:
				fv.SetBool(!fv.Bool())
			default:
				t.Fatalf("field %s of type %s: teach this test to change it (and the encoding to hold it)", f.Name, f.Type)
			}
			h := e.Hash()
			if seen[h] {
				t.Errorf("changing %s left the hash at %s, or gave another field's", f.Name, h)
			}
			seen[h] = true
		})
	}
	t.Run("emptied strings", func(t *testing.T) {
		for i := range typ.NumField() {
			e := goldenEvidence
			if fv := reflect.ValueOf(&e).Elem().Field(i); fv.Kind() == reflect.String {
				fv.SetString("")
				if e.Hash() == goldenEvidenceHash {
					t.Errorf("emptying %s left the hash unchanged", typ.Field(i).Name)
				}
			}
		}
	})
}

func TestEvidenceEncodingIsUnambiguous(t *testing.T) {
	a, b := goldenEvidence, goldenEvidence
	a.SignerName, a.SignerEmail = "Ada", "Lovelace@example.com"
	b.SignerName, b.SignerEmail = "AdaLovelace", "@example.com"
	if a.Hash() == b.Hash() {
		t.Error("moving bytes from signer_email to signer_name left the hash unchanged")
	}
	c, d := goldenEvidence, goldenEvidence
	c.SignerName = "Ada\nsigner_email:15:zoe@example.com"
	d.SignerName = "Ada"
	if c.Hash() == d.Hash() {
		t.Error("a value holding a field line hashes like the field")
	}
}
