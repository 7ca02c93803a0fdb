// Package lambdafn names the Lambda functions of the route table: one per
// route, built from functions/<slug>, and known to SAM and CloudFormation by
// a logical id derived from the slug. The build script, the SAM template
// check and anything else that needs those names use this one rule.
package lambdafn

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/shared/manifest"
)

// LogicalID returns the logical id of the function serving slug: each
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

// ByLogicalID returns the route in routes whose function has logical id id,
// and false when there is none.
func ByLogicalID(routes []manifest.Route, id string) (manifest.Route, bool) {
	for _, r := range routes {
		if LogicalID(r.Slug) == id {
			return r, true
		}
	}
	return manifest.Route{}, false
}

// LogicalIDs returns the logical ids of routes' functions, in table order.
func LogicalIDs(routes []manifest.Route) []string {
	ids := make([]string, len(routes))
	for i, r := range routes {
		ids[i] = LogicalID(r.Slug)
	}
	return ids
}

// CheckFolders reports whether the folders under dir (functions/) and the
// routes agree: every route's slug has a folder holding a main.go, and
// every folder is some route's slug. The error names every disagreement.
func CheckFolders(dir string, routes []manifest.Route) error {
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
	for _, f := range folders {
		if !slices.ContainsFunc(routes, func(r manifest.Route) bool { return r.Slug == f }) {
			errs = append(errs, fmt.Errorf("%s/%s has no route in route.Table", dir, f))
		}
	}
	for _, r := range routes {
		if !slices.Contains(folders, r.Slug) {
			errs = append(errs, fmt.Errorf("route %s (%s) has no folder %s/%s", r.Slug, r.Operation, dir, r.Slug))
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, r.Slug, "main.go")); err != nil {
			errs = append(errs, fmt.Errorf("route %s: %s/%s has no main.go", r.Slug, dir, r.Slug))
		}
	}
	return errors.Join(errs...)
}
