// Command genevents writes the sample events of events/sample into
// events/: one file per case, <slug>.<case>.<status>.json for an API
// Gateway event, <slug>.<case>.json for an S3, DynamoDB stream or
// scheduled event, and removes any other .json file there, so that the
// folder holds exactly the cases.
//
//	go run ./scripts/genevents [-dir events]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moveleads/partnerapi/events/sample"
)

func main() {
	dir := flag.String("dir", "events", "folder of the event files")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "genevents:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	files, err := sample.Files()
	if err != nil {
		return err
	}
	existing, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	for _, path := range existing {
		if _, keep := files[filepath.Base(path)]; !keep {
			if err := os.Remove(path); err != nil {
				return err
			}
			fmt.Println("removed", path)
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	var wrote []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
		wrote = append(wrote, name)
	}
	if len(wrote) == 0 {
		fmt.Printf("%d event files in %s, all current\n", len(files), dir)
		return nil
	}
	fmt.Printf("%d event files in %s; written: %s\n", len(files), dir, strings.Join(wrote, ", "))
	return nil
}
