package lambdafn

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/manifest"
)

func TestLogicalID(t *testing.T) {
	tests := []struct{ slug, want string }{
		{"v1-leads", "V1LeadsFunction"},
		{"v1-leads-list", "V1LeadsListFunction"},
		{"v1-lead-get", "V1LeadGetFunction"},
		{"v1-survey-video-link", "V1SurveyVideoLinkFunction"},
		{"health", "HealthFunction"},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			if got := LogicalID(tt.slug); got != tt.want {
				t.Errorf("LogicalID(%q) = %q; want %q", tt.slug, got, tt.want)
			}
		})
	}
}

// TestLogicalIDsOfTable checks that every route gets a valid logical id of
// its own and that ByLogicalID finds the route back.
func TestLogicalIDsOfTable(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9]{1,255}$`)
	seen := map[string]string{}
	for _, r := range route.Table {
		id := LogicalID(r.Slug)
		if !valid.MatchString(id) {
			t.Errorf("slug %q: logical id %q is not alphanumeric", r.Slug, id)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("slugs %q and %q both map to %q", other, r.Slug, id)
		}
		seen[id] = r.Slug
		got, ok := ByLogicalID(route.Table, id)
		if !ok || got.Slug != r.Slug {
			t.Errorf("ByLogicalID(%q) = %q, %v; want %q, true", id, got.Slug, ok, r.Slug)
		}
	}
	if _, ok := ByLogicalID(route.Table, "NoSuchFunction"); ok {
		t.Error("ByLogicalID(NoSuchFunction) found a route")
	}
	if got := LogicalIDs(route.Table); len(got) != len(route.Table) {
		t.Errorf("LogicalIDs returned %d ids; want %d", len(got), len(route.Table))
	}
}

func TestCheckFoldersOfRepository(t *testing.T) {
	if err := CheckFolders("../../../functions", route.Table); err != nil {
		t.Errorf("functions/ and route.Table disagree: %v", err)
	}
}

func TestCheckFolders(t *testing.T) {
	routes := []manifest.Route{{Slug: "v1-a", Operation: "a"}, {Slug: "v1-b", Operation: "b"}}
	tests := []struct {
		name    string
		folders []string // a trailing "/" means: folder without main.go
		files   []string // plain files beside the folders
		want    []string // substrings of the error; none means no error
	}{
		{name: "agree", folders: []string{"v1-a", "v1-b"}, files: []string{"README.md"}},
		{name: "extra folder", folders: []string{"v1-a", "v1-b", "v1-c"}, want: []string{"v1-c has no route"}},
		{name: "missing folder", folders: []string{"v1-a"}, want: []string{"route v1-b (b) has no folder"}},
		{name: "no main.go", folders: []string{"v1-a", "v1-b/"}, want: []string{"v1-b has no main.go"}},
		{name: "both ways", folders: []string{"v1-b", "old"}, want: []string{"old has no route", "route v1-a (a) has no folder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.folders {
				name, noMain := strings.CutSuffix(f, "/")
				if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
					t.Fatal(err)
				}
				if !noMain {
					if err := os.WriteFile(filepath.Join(dir, name, "main.go"), []byte("package main\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckFolders(dir, routes)
			if len(tt.want) == 0 {
				if err != nil {
					t.Errorf("CheckFolders = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckFolders = nil; want an error naming %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckFolders = %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestCheckFoldersMissingDir(t *testing.T) {
	if err := CheckFolders(filepath.Join(t.TempDir(), "nope"), route.Table); err == nil {
		t.Error("CheckFolders on a missing directory = nil; want an error")
	}
}
