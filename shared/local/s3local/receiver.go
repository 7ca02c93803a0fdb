package s3local

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

// MaxEventBytes bounds the body of a notification [Receiver] accepts.
// MinIO posts one record per request, a couple of KiB.
const MaxEventBytes = 1 << 20

// Receiver returns the endpoint of a [Webhook] whose AuthToken is
// authToken: it takes MinIO's bucket notifications and runs h on each, as
// the Lambda runtime runs an S3-triggered function. It is how a local
// stack connects a bucket to the handler a function's main would give
// lambda.Start (for example catalog.Stack.Clips).
//
// A request is answered
//   - 405 (Allow: POST) unless it is a POST;
//   - 401 unless its Authorization header is exactly the one MinIO sends
//     for authToken ("Bearer " and the token, or the token itself when it
//     has two words), compared in constant time;
//   - 413 when the body is over [MaxEventBytes];
//   - 400 when the body is not an S3 event with at least one record;
//   - otherwise h runs on the event, through JSON and aws-lambda-go's
//     handler wrapper (lambda.NewHandler(h).Invoke) with the request's
//     context: 204 when it returns nil, 500 when it fails or panics.
//
// A failure of h is logged to log (nil discards) with its error, the
// records' bucket and keys, and the event as h got it. MinIO sends each
// event once and does not retry one answered 500 (see the package
// documentation), unlike Amazon S3's asynchronous invocation of Lambda,
// which retries: the event is lost. Handlers of S3 events are idempotent,
// so a developer can send it again (that logged event, with the same
// Authorization header) once the cause is fixed. Neither the token nor the
// header is ever logged.
//
// Receiver panics when authToken is empty or has more than two words: MinIO
// would then send no Authorization header, and every event would be
// refused.
func Receiver(authToken string, h func(context.Context, events.S3Event) error, log *slog.Logger) http.Handler {
	want := authorization(authToken)
	if want == "" {
		panic("s3local: Receiver needs an auth token of one or two words")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &eventReceiver{want: sha256.Sum256([]byte(want)), h: lambda.NewHandler(h), log: log}
}

// authorization is the Authorization header MinIO sends for a webhook's
// auth token, or "" when it sends none.
func authorization(token string) string {
	switch len(strings.Fields(token)) {
	case 1:
		return "Bearer " + token
	case 2:
		return token
	}
	return ""
}

type eventReceiver struct {
	want [sha256.Size]byte // digest of the expected Authorization header
	h    lambda.Handler
	log  *slog.Logger
}

func (rc *eventReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST: MinIO posts bucket notifications", http.StatusMethodNotAllowed)
		return
	}
	// Comparing digests takes the same time whatever the header's length.
	got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
	if subtle.ConstantTimeCompare(got[:], rc.want[:]) != 1 {
		rc.log.WarnContext(r.Context(), "s3 event refused: wrong or missing Authorization header", "remote", r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "the Authorization header is not this webhook's auth token", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > MaxEventBytes {
		http.Error(w, fmt.Sprintf("the event is over %d bytes", MaxEventBytes), http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxEventBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		http.Error(w, fmt.Sprintf("the event is over %d bytes", MaxEventBytes), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "the body could not be read", http.StatusBadRequest)
		return
	}
	payload, ev, err := decodeEvent(body)
	if err != nil {
		rc.log.WarnContext(r.Context(), "s3 event refused", "error", err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := rc.invoke(r.Context(), payload); err != nil {
		rc.log.ErrorContext(r.Context(), "s3 event failed; MinIO will not send it again",
			"error", err.Error(), "objects", objects(ev), "event", json.RawMessage(payload))
		http.Error(w, "the handler failed; see its log", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// decodeEvent decodes a notification body into an S3 event with at least
// one record and returns it with its JSON as the Lambda runtime would
// deliver it: the event alone, without the fields MinIO adds beside
// Records (EventName, Key).
func decodeEvent(body []byte) ([]byte, events.S3Event, error) {
	var ev events.S3Event
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, ev, fmt.Errorf("the body is not an S3 event: %w", err)
	}
	if len(ev.Records) == 0 {
		return nil, ev, errors.New("the body is not an S3 event: it has no Records")
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return nil, ev, fmt.Errorf("encode the S3 event: %w", err)
	}
	return payload, ev, nil
}

// invoke runs the handler on payload as the Lambda runtime would; a panic
// is a failed invocation, as there.
func (rc *eventReceiver) invoke(ctx context.Context, payload []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	_, err = rc.h.Invoke(ctx, payload)
	return err
}

// objects names the records' objects for a log line: bucket/key each.
func objects(ev events.S3Event) []string {
	out := make([]string, 0, len(ev.Records))
	for _, r := range ev.Records {
		out = append(out, r.S3.Bucket.Name+"/"+r.S3.Object.URLDecodedKey)
	}
	return out
}
