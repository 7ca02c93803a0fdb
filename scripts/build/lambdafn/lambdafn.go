// Package lambdafn names and compiles the Lambda functions of the manifest
// (manifest.Functions): each is built from functions/<slug>, with the build
// tags its manifest entry calls for, and is known to SAM and CloudFormation
// by a logical id derived from the slug. The build script, the cold-start
// benchmark, the SAM template check and anything else that needs those
// names or compiles a function use these rules.
package lambdafn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// Build tags.
const (
	// NoRPCTag leaves out aws-lambda-go's net/rpc server, which only the
	// retired go1.x runtime used. Every function gets it.
	NoRPCTag = "lambda.norpc"
)

// BuildTags returns the build tags f is compiled with: NoRPCTag. (Until
// issue 12 the functions that read secrets also got an awssecrets tag,
// which linked the SDK's Secrets Manager client into them alone; the
// client is linked where awsenv reads secrets now, without a tag.)
func BuildTags(manifest.Function) []string {
	return []string{NoRPCTag}
}

// BuildFlags returns the go build flags (everything before -o) of f's
// release build, run with CGO_ENABLED=0 GOOS=linux: -trimpath drops local
// paths, -tags BuildTags(f), and -ldflags "-s -w" drops the symbol table
// and DWARF (about half the size).
func BuildFlags(f manifest.Function) []string {
	return []string{"-trimpath", "-tags", strings.Join(BuildTags(f), ","), "-ldflags", "-s -w"}
}

// GoBuildArgs returns the go command's arguments that compile f's function
// (./functions/<slug>, relative to the module root) to binary.
func GoBuildArgs(f manifest.Function, binary string) []string {
	args := append([]string{"build"}, BuildFlags(f)...)
	return append(args, "-o", binary, Package(f.Slug))
}

// Package returns the package path, relative to the module root, of the
// function slug.
func Package(slug string) string { return "./functions/" + slug }

// LogicalID returns the logical id of the function slug: each
// hyphen-separated word of slug with its first letter upper-cased, joined,
// plus "Function" (v1-leads → V1LeadsFunction, v1-lead-get →
// V1LeadGetFunction). Slugs are lower-case letters, digits and hyphens, so
// the id is alphanumeric as CloudFormation requires.
func LogicalID(slug string) string {
	var b strings.Builder
	for word := range strings.SplitSeq(slug, "-") {
		if word == "" {
			continue
		}
		b.WriteString(strings.ToUpper(word[:1]))
		b.WriteString(word[1:])
	}
	b.WriteString("Function")
	return b.String()
}

// ByLogicalID returns the function in fns whose logical id is id, and false
// when there is none.
func ByLogicalID(fns []manifest.Function, id string) (manifest.Function, bool) {
	for _, f := range fns {
		if LogicalID(f.Slug) == id {
			return f, true
		}
	}
	return manifest.Function{}, false
}

// LogicalIDs returns the logical ids of fns, in order.
func LogicalIDs(fns []manifest.Function) []string {
	ids := make([]string, len(fns))
	for i, f := range fns {
		ids[i] = LogicalID(f.Slug)
	}
	return ids
}

// Slugs returns the slugs of fns, in order.
func Slugs(fns []manifest.Function) []string {
	s := make([]string, len(fns))
	for i, f := range fns {
		s[i] = f.Slug
	}
	return s
}

// CheckFolders reports whether the folders under dir (functions/) and fns
// agree: every function's slug has a folder holding a main.go, and every
// folder is some function's slug. The error names every disagreement; an
// unreadable dir is an error too.
func CheckFolders(dir string, fns []manifest.Function) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("list function folders: %w", err)
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() {
			folders = append(folders, e.Name())
		}
	}
	var errs []error
	for _, name := range folders {
		if !slices.ContainsFunc(fns, func(f manifest.Function) bool { return f.Slug == name }) {
			errs = append(errs, fmt.Errorf("%s/%s is not a function of manifest.Functions", dir, name))
		}
	}
	for _, f := range fns {
		if !slices.Contains(folders, f.Slug) {
			errs = append(errs, fmt.Errorf("function %s (%s) has no folder %s/%s", f.Slug, f.Trigger(), dir, f.Slug))
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, f.Slug, "main.go")); err != nil {
			errs = append(errs, fmt.Errorf("function %s: %s/%s has no main.go", f.Slug, dir, f.Slug))
		}
	}
	return errors.Join(errs...)
}
