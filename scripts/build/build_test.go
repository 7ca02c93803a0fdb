package main

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/scripts/build/lambdafn"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// TestZipHasExecutableBootstrap checks what Lambda needs of a
// provided.al2023 zip: one entry, bootstrap, executable, with the binary's
// bytes; and that zipping the same binary twice gives the same bytes.
func TestZipHasExecutableBootstrap(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bootstrap")
	content := bytes.Repeat([]byte("\x7fELF not really a binary\n"), 1000)
	if err := os.WriteFile(bin, content, 0o755); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "first.zip")
	size, sum, err := writeZip(first, bin)
	if err != nil {
		t.Fatalf("writeZip: %v", err)
	}

	zr, err := zip.OpenReader(first)
	if err != nil {
		t.Fatalf("open zip: %v", err)
	}
	defer zr.Close()
	if len(zr.File) != 1 {
		t.Fatalf("zip has %d entries; want 1", len(zr.File))
	}
	f := zr.File[0]
	if f.Name != "bootstrap" {
		t.Errorf("entry name %q; want bootstrap", f.Name)
	}
	if got := f.Mode(); got != 0o755 {
		t.Errorf("entry mode %v; want -rwxr-xr-x (0755)", got)
	}
	if creator := f.CreatorVersion >> 8; creator != 3 {
		t.Errorf("entry made on host %d; want 3 (Unix), where the mode is read from", creator)
	}
	if !f.Modified.Equal(zipEpoch) {
		t.Errorf("entry time %v; want %v", f.Modified, zipEpoch)
	}
	rc, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatalf("read entry: %v", err)
	}
	if !bytes.Equal(got, content) {
		t.Errorf("entry holds %d bytes that differ from the binary's %d", len(got), len(content))
	}
	if fi, err := os.Stat(first); err != nil || fi.Size() != size {
		t.Errorf("writeZip size %d; file is %v (%v)", size, fi.Size(), err)
	}

	second := filepath.Join(dir, "second.zip")
	_, sum2, err := writeZip(second, bin)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(second)
	if !bytes.Equal(a, b) || sum != sum2 {
		t.Errorf("two zips of the same binary differ (sha256 %s vs %s); want reproducible zips", sum, sum2)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".zip-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestZipOfMissingBinaryFails(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := writeZip(filepath.Join(dir, "x.zip"), filepath.Join(dir, "nope")); err == nil {
		t.Error("writeZip of a missing binary = nil error")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.zip")); !os.IsNotExist(err) {
		t.Errorf("a zip was written for a missing binary (stat: %v)", err)
	}
}

// TestQuoteArgs checks that the printed command is the one a developer
// would type.
func TestQuoteArgs(t *testing.T) {
	f := manifest.Function{Slug: "v1-leads-list", Secrets: []string{manifest.SecretCursor}}
	got := quoteArgs(lambdafn.GoBuildArgs(f, "build/v1-leads-list/bootstrap"))
	want := `build -trimpath -tags lambda.norpc -ldflags "-s -w" -o build/v1-leads-list/bootstrap ./functions/v1-leads-list`
	if got != want {
		t.Errorf("quoteArgs = %s; want %s", got, want)
	}
}

// TestCompileAppliesBuildTags compiles a function of a scratch module
// that builds only with lambdafn.BuildTags (its main is behind
// lambda.norpc; without the tag a file that does not compile takes its
// place). So the builder must pass the function's tags.
func TestCompileAppliesBuildTags(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module scratch\n\ngo 1.22\n")
	write("functions/fn/main.go", "//go:build lambda.norpc\n\npackage main\n\nfunc main() {}\n")
	write("functions/fn/untagged.go", "//go:build !lambda.norpc\n\npackage main\n\nvar _ = notDefined\n")

	var log bytes.Buffer
	b := builder{root: root, arch: "amd64", log: &log}
	bin := filepath.Join(root, "out", "fn", "bootstrap")
	if err := b.compile(context.Background(), manifest.Function{Slug: "fn"}, bin); err != nil {
		t.Fatalf("compile fn: %v\n%s", err, log.String())
	}
	if _, err := os.Stat(bin); err != nil {
		t.Errorf("no binary: %v", err)
	}
	if !strings.Contains(log.String(), "-tags lambda.norpc ") {
		t.Errorf("build log %q; want the tag printed", log.String())
	}
	// The scratch module really gates: without the tag it does not build.
	cmd := exec.Command("go", "build", "-o", filepath.Join(root, "out", "x"), "./functions/fn")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("fn built without lambda.norpc (%s); want a failure (the scratch module does not gate)", out)
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantSlugs []string
		wantArch  string
		wantErr   string
	}{
		{name: "defaults", args: nil, wantSlugs: lambdafn.Slugs(manifest.Functions), wantArch: "arm64"},
		{name: "only", args: []string{"-only", "v1-lead-get", "-arch", "amd64"}, wantSlugs: []string{"v1-lead-get"}, wantArch: "amd64"},
		{name: "sam", args: []string{"-sam-logical-id", "V1LeadsListFunction", "-out", "/tmp/a"}, wantSlugs: []string{"v1-leads-list"}, wantArch: "arm64"},
		{name: "unknown slug", args: []string{"-only", "v1-nope"}, wantErr: "known: v1-leads"},
		{name: "unknown logical id", args: []string{"-sam-logical-id", "v1-leads"}, wantErr: "known: V1LeadsFunction"},
		{name: "both", args: []string{"-only", "v1-leads", "-sam-logical-id", "V1LeadsFunction"}, wantErr: "exclude"},
		{name: "bad arch", args: []string{"-arch", "386"}, wantErr: "arm64 or amd64"},
		{name: "empty out", args: []string{"-sam-logical-id", "V1LeadsFunction", "-out", ""}, wantErr: "ARTIFACTS_DIR"},
		{name: "stray argument", args: []string{"v1-leads"}, wantErr: "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseFlags(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseFlags(%q) error = %v; want one containing %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFlags(%q): %v", tt.args, err)
			}
			if got := lambdafn.Slugs(c.fns); !slices.Equal(got, tt.wantSlugs) {
				t.Errorf("functions %q; want %q", got, tt.wantSlugs)
			}
			if c.arch != tt.wantArch {
				t.Errorf("arch %q; want %q", c.arch, tt.wantArch)
			}
		})
	}
}
