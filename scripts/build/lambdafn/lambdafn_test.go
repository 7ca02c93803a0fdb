package lambdafn

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

func TestLogicalID(t *testing.T) {
	tests := []struct{ slug, want string }{
		{"v1-leads", "V1LeadsFunction"},
		{"v1-leads-list", "V1LeadsListFunction"},
		{"v1-lead-get", "V1LeadGetFunction"},
		{"v1-survey-video-link", "V1SurveyVideoLinkFunction"},
		{"route-not-found", "RouteNotFoundFunction"},
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

// TestLogicalIDsOfManifest checks that every function gets a valid logical
// id of its own and that ByLogicalID finds the function back.
func TestLogicalIDsOfManifest(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9]{1,255}$`)
	seen := map[string]string{}
	for _, f := range manifest.Functions {
		id := LogicalID(f.Slug)
		if !valid.MatchString(id) {
			t.Errorf("slug %q: logical id %q is not alphanumeric", f.Slug, id)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("slugs %q and %q both map to %q", other, f.Slug, id)
		}
		seen[id] = f.Slug
		got, ok := ByLogicalID(manifest.Functions, id)
		if !ok || got.Slug != f.Slug {
			t.Errorf("ByLogicalID(%q) = %q, %v; want %q, true", id, got.Slug, ok, f.Slug)
		}
	}
	if _, ok := ByLogicalID(manifest.Functions, "NoSuchFunction"); ok {
		t.Error("ByLogicalID(NoSuchFunction) found a function")
	}
	if got := LogicalIDs(manifest.Functions); len(got) != len(manifest.Functions) {
		t.Errorf("LogicalIDs returned %d ids; want %d", len(got), len(manifest.Functions))
	}
	if got := Slugs(manifest.Functions); !slices.Contains(got, "route-not-found") {
		t.Errorf("Slugs(manifest.Functions) = %q; want route-not-found among them", got)
	}
}

// TestBuildTagsOfManifest: every function, secrets or not, is built with
// lambda.norpc alone.
func TestBuildTagsOfManifest(t *testing.T) {
	for _, f := range manifest.Functions {
		if got := BuildTags(f); !slices.Equal(got, []string{NoRPCTag}) {
			t.Errorf("BuildTags(%s) = %q; want [%s]", f.Slug, got, NoRPCTag)
		}
	}
}

// TestGoBuildArgs pins the compiler invocation: every flag matters to the
// deployed function's size and behaviour.
func TestGoBuildArgs(t *testing.T) {
	tests := []struct {
		name string
		f    manifest.Function
		want []string
	}{
		{"without secrets", manifest.Function{Slug: "v1-leads"}, []string{"build", "-trimpath", "-tags", "lambda.norpc",
			"-ldflags", "-s -w", "-o", "build/v1-leads/bootstrap", "./functions/v1-leads"}},
		{"with secrets", manifest.Function{Slug: "v1-leads", Secrets: []string{manifest.SecretCursor}}, []string{"build", "-trimpath",
			"-tags", "lambda.norpc", "-ldflags", "-s -w", "-o", "build/v1-leads/bootstrap", "./functions/v1-leads"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GoBuildArgs(tt.f, "build/v1-leads/bootstrap"); !slices.Equal(got, tt.want) {
				t.Errorf("GoBuildArgs = %q; want %q", got, tt.want)
			}
		})
	}
}

// mcpSDK is the MCP SDK's server package: only the agent tool server's
// function (manifest.Function.TakesAgentKey) links it, which is why that
// function alone has an init budget above 1.5× (scripts/bench/coldstart,
// AgentToolsInitRatioBudget).
const mcpSDK = "github.com/modelcontextprotocol/go-sdk/mcp"

// TestOnlyAgentToolsLinkMCP lists each function's dependencies as its
// release build sees them (linux/arm64, BuildTags) and checks that the MCP
// SDK is linked by the agent tool server's function and by no other: its
// package init is the one cost above the 1.5× init budget we accept.
func TestOnlyAgentToolsLinkMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list for every function")
	}
	for _, f := range manifest.Functions {
		t.Run(f.Slug, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-tags", strings.Join(BuildTags(f), ","), Package(f.Slug))
			cmd.Dir = filepath.Join("..", "..", "..")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps %s: %v\n%s", Package(f.Slug), err, out)
			}
			deps := strings.Fields(string(out))
			if got, want := slices.Contains(deps, mcpSDK), f.TakesAgentKey(); got != want {
				t.Errorf("%s links %s: %v; want %v (only the function whose route takes the agent key)", f.Slug, mcpSDK, got, want)
			}
		})
	}
}

func TestCheckFoldersOfRepository(t *testing.T) {
	if err := CheckFolders("../../../functions", manifest.Functions); err != nil {
		t.Errorf("functions/ and manifest.Functions disagree: %v", err)
	}
}

func TestCheckFolders(t *testing.T) {
	fns := []manifest.Function{
		{Slug: "v1-a", HTTP: []manifest.Route{{Operation: "a"}}},
		{Slug: "v1-b", Schedule: &manifest.ScheduleTrigger{Expression: "rate(1 hour)"}},
	}
	tests := []struct {
		name    string
		folders []string // a trailing "/" means: folder without main.go
		files   []string // plain files beside the folders
		want    []string // substrings of the error; none means no error
	}{
		{name: "agree", folders: []string{"v1-a", "v1-b"}, files: []string{"README.md"}},
		{name: "extra folder", folders: []string{"v1-a", "v1-b", "v1-c"}, want: []string{"v1-c is not a function"}},
		{name: "missing folder", folders: []string{"v1-a"}, want: []string{"function v1-b (Schedule) has no folder"}},
		{name: "no main.go", folders: []string{"v1-a", "v1-b/"}, want: []string{"v1-b has no main.go"}},
		{name: "both ways", folders: []string{"v1-b", "old"}, want: []string{"old is not a function", "function v1-a (HttpApi) has no folder"}},
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
			err := CheckFolders(dir, fns)
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
	if err := CheckFolders(filepath.Join(t.TempDir(), "nope"), manifest.Functions); err == nil {
		t.Error("CheckFolders on a missing directory = nil; want an error")
	}
}
