package overhead

import "testing"

func benchCase(b *testing.B, name string) {
	h, err := NewHandler()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range Cases() {
		if c.Name == name {
			Bench(b, h, c)
			return
		}
	}
	b.Fatalf("no case %q", name)
}

func BenchmarkCreateLead(b *testing.B)               { benchCase(b, "createLead") }
func BenchmarkCreateLeadIdempotencyKey(b *testing.B) { benchCase(b, "createLead with Idempotency-Key") }
func BenchmarkGetLead(b *testing.B)                  { benchCase(b, "getLead") }
func BenchmarkListLeads(b *testing.B)                { benchCase(b, "listLeads (10 leads)") }

// TestEveryCaseAnswers200 keeps the stub honest: if the store's item shapes
// change, the stub's canned answers stop satisfying the handlers.
func TestEveryCaseAnswers200(t *testing.T) {
	h, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases() {
		resp, _ := h.Route(c.Op)(t.Context(), c.Event(0))
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d: %s", c.Name, resp.StatusCode, resp.Body)
		}
	}
}
