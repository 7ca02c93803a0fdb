// Package awsjsontest checks requests of AWS's JSON 1.1 protocol as AWS
// does, for the tests of the stand-in servers of shared/awsjson and the
// packages built on it. It is imported only by tests.
package awsjsontest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// MismatchMessage is AWS's message for a signature it computes otherwise
// (InvalidSignatureException); VerifySignature's error says it then.
const MismatchMessage = "The request signature we calculated does not match the signature you provided."

// VerifySignature checks r's SigV4 Authorization header as AWS checks it:
// a credential scope of creds' access key, the request's date, region and
// signingName; SignedHeaders naming content-type, host, x-amz-date and
// x-amz-target (what the SDK's JSON 1.1 clients sign); and a signature
// that the SDK's signer computes again, with creds' secret key, from the
// method, host, path, signed headers and body the server received. body
// is r's body, already read.
func VerifySignature(r *http.Request, body []byte, creds aws.Credentials, signingName, region string) error {
	auth := r.Header.Get("Authorization")
	const algorithm = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algorithm) {
		return fmt.Errorf("Authorization %q is not SigV4", auth)
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(strings.TrimPrefix(auth, algorithm), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		fields[k] = v
	}
	date := r.Header.Get("X-Amz-Date")
	signedAt, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		return fmt.Errorf("X-Amz-Date %q: %v", date, err)
	}
	wantScope := fmt.Sprintf("%s/%s/%s/%s/aws4_request", creds.AccessKeyID, date[:8], region, signingName)
	if fields["Credential"] != wantScope {
		return fmt.Errorf("credential %q; want %q", fields["Credential"], wantScope)
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	for _, h := range []string{"content-type", "host", "x-amz-date", "x-amz-target"} {
		if !slices.Contains(signed, h) {
			return fmt.Errorf("SignedHeaders %q lacks %s", fields["SignedHeaders"], h)
		}
	}
	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	for _, h := range signed {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), signingName, region, signedAt); err != nil {
		return err
	}
	if again.Header.Get("Authorization") != auth {
		return errors.New(MismatchMessage)
	}
	return nil
}
