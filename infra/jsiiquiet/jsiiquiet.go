// Package jsiiquiet drops one false alarm from the CDK app's stderr:
// "Runtime process exited abnormally: waitid: no child processes".
// jsii-runtime-go (v1.119) waits for its Node.js kernel in a goroutine
// while jsii.Close waits for it too; when Close reaps the process first,
// the goroutine's wait fails with ECHILD and prints that line (without a
// newline), although the kernel exited normally and synth succeeded.
package jsiiquiet

import (
	"bytes"
	"io"
	"os"
)

// FalseAlarm is the line the runtime prints when it loses the race.
const FalseAlarm = "Runtime process exited abnormally: waitid: no child processes"

// Copy copies r to w without FalseAlarm (which has no newline of its own,
// so it is cut out wherever it appears) until r ends.
func Copy(w io.Writer, r io.Reader) error {
	alarm := []byte(FalseAlarm)
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := r.Read(chunk)
		buf = bytes.ReplaceAll(append(buf, chunk[:n]...), alarm, nil)
		// Hold back a tail that may be the alarm's start, until r ends.
		keep := 0
		for k := min(len(buf), len(alarm)-1); k > 0 && err == nil; k-- {
			if bytes.HasPrefix(alarm, buf[len(buf)-k:]) {
				keep = k
				break
			}
		}
		if _, werr := w.Write(buf[:len(buf)-keep]); werr != nil {
			return werr
		}
		buf = append([]byte(nil), buf[len(buf)-keep:]...)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Stderr points os.Stderr at a pipe copied to the real stderr without
// FalseAlarm. restore closes the pipe, waits for the copy and puts the
// real stderr back; a line the runtime prints after it is dropped.
func Stderr() (restore func(), err error) {
	real := os.Stderr
	r, w, err := os.Pipe()
	if err != nil {
		return func() {}, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Copy(real, r)
	}()
	os.Stderr = w
	return func() {
		os.Stderr = real
		w.Close()
		<-done
		r.Close()
	}, nil
}
