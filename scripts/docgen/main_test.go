package main

import (
	"os"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/errcode"
	"github.com/moveleads/partnerapi/shared/manifest"
)

// TestReadmeIsCurrent fails when README.md's generated tables differ from
// the route table, the error-code table or the key builders.
func TestReadmeIsCurrent(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Render(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(b) {
		t.Fatal("README.md is stale: run `make docs`")
	}
	for _, r := range route.Table {
		for _, p := range r.Paths() {
			if !strings.Contains(got, "`"+p+"`") {
				t.Errorf("README does not show %s", p)
			}
		}
	}
	for _, e := range errcode.Table {
		if !strings.Contains(got, "`"+string(e.Code)+"`") {
			t.Errorf("README does not show error code %s", e.Code)
		}
	}
}

func TestRenderNeedsEveryBlock(t *testing.T) {
	if _, err := Render("no blocks here"); err == nil {
		t.Error("Render of a document without blocks succeeded; want an error")
	}
}
