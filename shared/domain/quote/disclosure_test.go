package quote

import (
	"slices"
	"strings"
	"testing"
)

// Each published version of a text and the SHA-256 of that text. A text
// changed without a new version fails here: add the new version with its
// hash, and keep the old rows, since evidence refers to them.
var (
	disclosureVersions = map[string]string{
		"esign-2025-01": "9caa114b987545954c2acb4c5452d0da981a3a1f37cf32e72cf93ccd02ec5a6a",
	}
	liabilityVersions = map[string]string{
		"liability-2025-01": "75fa340793c0ba9b36ce75afdfe7dc8ebe3975792db9b65b35c9722a498130de",
	}
)

func TestTextVersionsArePinned(t *testing.T) {
	if got, want := disclosureSHA256(), disclosureVersions[ESignDisclosureVersion]; got != want {
		t.Errorf("ESignDisclosure hashes to %s; version %s is pinned to %q: a changed text needs a new ESignDisclosureVersion", got, ESignDisclosureVersion, want)
	}
	if got, want := liabilityOptionsSHA256(), liabilityVersions[LiabilityOptionsVersion]; got != want {
		t.Errorf("LiabilityOptions hash to %s; version %s is pinned to %q: a changed text needs a new LiabilityOptionsVersion", got, LiabilityOptionsVersion, want)
	}
}

func TestESignDisclosureSaysWhatTheActAsks(t *testing.T) {
	// 15 U.S.C. 7001(c)(1): consent, the right to paper, how to withdraw,
	// and the hardware and software needed to access and keep the records.
	text := strings.ToLower(ESignDisclosure)
	for _, part := range []string{"electronic signature", "paper copy", "withdraw", "browser", "save or print", "free of charge"} {
		if !strings.Contains(text, part) {
			t.Errorf("ESignDisclosure does not mention %q", part)
		}
	}
	got := DisclosureFor("Ada Movers LLC")
	if strings.Contains(got, "{company}") || !strings.Contains(got, "Ada Movers LLC may give you") {
		t.Errorf("DisclosureFor left a placeholder or lost the name:\n%s", got)
	}
}

func TestLiabilityOptions(t *testing.T) {
	got := Liabilities()
	slices.Sort(got)
	if want := []Liability{FullValueProtection, ReleasedValue}; !slices.Equal(got, want) {
		t.Fatalf("Liabilities() = %v; want %v, once each", got, want)
	}
	for _, o := range LiabilityOptions {
		if o.Title == "" || len(o.Explanation) < 100 {
			t.Errorf("%s: title %q, explanation of %d bytes; want both, in full", o.Election, o.Title, len(o.Explanation))
		}
		if o.Election == ReleasedValue && !strings.Contains(o.Explanation, "60 cents per pound per article") {
			t.Errorf("released value does not state its 60 cents per pound per article: %q", o.Explanation)
		}
		if o.Election == FullValueProtection && !strings.Contains(o.Explanation, "repair") {
			t.Errorf("full value protection does not say the mover repairs, replaces or pays: %q", o.Explanation)
		}
	}
}
