package main

import (
	"archive/zip"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// zipEpoch is the modification time of every zip entry: fixed, so that the
// same binary always gives byte-identical zips (and an unchanged function
// an unchanged deployment). 1980-01-01 is the earliest time a zip's MS-DOS
// timestamp can hold.
var zipEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// bootstrapMode is the entry's Unix mode. Lambda runs the file named
// bootstrap of a provided.al2023 function and fails with "permission
// denied" unless the zip marks it executable.
const bootstrapMode os.FileMode = 0o755

// writeZip writes the binary at bin as the single entry "bootstrap" of a
// new zip at path (replacing it atomically) and returns the zip's size and
// SHA-256. On failure no file is left at path's temporary name.
func writeZip(path, bin string) (size int64, sum string, err error) {
	src, err := os.Open(bin)
	if err != nil {
		return 0, "", err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".zip-*")
	if err != nil {
		return 0, "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	if err := zipOne(io.MultiWriter(tmp, h), "bootstrap", bootstrapMode, src); err != nil {
		return 0, "", err
	}
	fi, err := tmp.Stat()
	if err != nil {
		return 0, "", err
	}
	if err := tmp.Close(); err != nil {
		return 0, "", err
	}
	// CreateTemp makes the file 0600; a build artifact is world-readable.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return 0, "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, "", err
	}
	return fi.Size(), hex.EncodeToString(h.Sum(nil)), nil
}

// zipOne writes to w a zip archive holding one deflated entry, name, with
// Unix mode mode, zipEpoch as its time and r's bytes as its content.
func zipOne(w io.Writer, name string, mode os.FileMode, r io.Reader) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipEpoch}
	// SetMode records the mode in the external attributes and marks the
	// entry as made on Unix, which is where unzip and Lambda look for it.
	hdr.SetMode(mode)
	fw, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("add %s: %w", name, err)
	}
	if _, err := io.Copy(fw, r); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return zw.Close()
}
