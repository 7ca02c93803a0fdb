package main

import (
	"fmt"
	"io"
)

const mib = 1 << 20

// report prints one line per built function: binary and zip sizes in bytes
// and MiB, and the start of the zip's SHA-256 (equal across rebuilds of the
// same source: the zips are reproducible).
func report(w io.Writer, arch, out string, results []result) {
	width := len("function")
	for _, r := range results {
		width = max(width, len(r.slug))
	}
	line := func(name string, bin, zip int64, sum string) {
		fmt.Fprintf(w, "%-*s  %12d  %8.2f  %12d  %8.2f  %s\n",
			width, name, bin, float64(bin)/mib, zip, float64(zip)/mib, sum)
	}
	fmt.Fprintf(w, "\nlinux/%s functions in %s\n", arch, out)
	fmt.Fprintf(w, "%-*s  %12s  %8s  %12s  %8s  %s\n", width, "function", "binary bytes", "MiB", "zip bytes", "MiB", "zip sha256")
	var bin, zip int64
	for _, r := range results {
		line(r.slug, r.binSize, r.zipSize, r.zipSHA256[:12])
		bin += r.binSize
		zip += r.zipSize
	}
	if len(results) > 1 {
		line("total", bin, zip, "")
	}
}
