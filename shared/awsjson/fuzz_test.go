package awsjson

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzReadError: error answers are outside input: any status, header and
// body give an error of that status with a code without namespace or
// suffix, never empty when the status has a text, and never a panic.
func FuzzReadError(f *testing.F) {
	f.Add(400, "ThrottlingException:http://internal.amazon.com/", []byte(`{"__type":"a#b#ThrottlingException","message":"m"}`))
	f.Add(500, "", []byte(`{"__type":"com.amazonaws.rekognition#InternalServerError","Message":"m","Code":7}`))
	f.Add(503, "", []byte(`<html>`))
	f.Add(400, "", []byte(`{"__type":"ResourceNotFoundException","message":"x"}`))
	f.Add(400, "com.amazonaws#ThrottlingException:http://internal", []byte(`{"Message":"slow down"}`))
	f.Add(500, "", []byte(`not json`))
	f.Fuzz(func(t *testing.T, status int, header string, body []byte) {
		if status < 100 || status > 999 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(string(body)))}
		resp.Header.Set("X-Amzn-ErrorType", header)
		e := readError("Fuzz", resp)
		if e.Status != status || e.Service != "Fuzz" {
			t.Fatalf("readError(%d, …) = %+v", status, e)
		}
		if strings.ContainsAny(e.Code, ":#") {
			t.Fatalf("code %q keeps a namespace or suffix", e.Code)
		}
		if e.Code == "" && http.StatusText(status) != "" {
			t.Fatalf("empty code for status %d", status)
		}
	})
}
