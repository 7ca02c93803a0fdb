package coldstart

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
)

// The Runtime API's paths, as aws-lambda-go v1.55.1 calls them
// (lambda/runtime_api_client.go): GET next, then POST response or error
// for the request id next handed out. aws-lambda-go itself never posts
// init/error (a Go function that fails at init exits); other runtimes do,
// and so may a function that talks to the API by hand.
const (
	apiVersion    = "2018-06-01"
	pathNext      = "/" + apiVersion + "/runtime/invocation/next"
	pathResponse  = "/" + apiVersion + "/runtime/invocation/{id}/response"
	pathError     = "/" + apiVersion + "/runtime/invocation/{id}/error"
	pathInitError = "/" + apiVersion + "/runtime/init/error"
)

// Headers of the Runtime API (the names aws-lambda-go reads and sends).
const (
	headerRequestID   = "Lambda-Runtime-Aws-Request-Id"
	headerDeadlineMS  = "Lambda-Runtime-Deadline-Ms"
	headerFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	headerTraceID     = "Lambda-Runtime-Trace-Id"
	// headerErrorType names a failure's type, as a header on /error and
	// /init/error, or as a trailer on a /response whose body failed midway.
	headerErrorType = "Lambda-Runtime-Function-Error-Type"
)

const (
	// invokeTimeout is the deadline a function is given for an invocation,
	// as Lambda sends it in Lambda-Runtime-Deadline-Ms.
	invokeTimeout = 30 * time.Second
	// maxPayload is Lambda's limit on a synchronous response (6 MB).
	maxPayload = 6 << 20
	// callLimit bounds how many calls a runtimeAPI records; a function that
	// keeps calling after that is misbehaving and its calls are refused.
	callLimit = 64
)

// callKind says which Runtime API endpoint a function called.
type callKind int

const (
	callNext callKind = iota
	callResponse
	callError
	callInitError
)

func (k callKind) String() string {
	switch k {
	case callNext:
		return "next"
	case callResponse:
		return "response"
	case callError:
		return "error"
	case callInitError:
		return "init/error"
	}
	return "call(" + strconv.Itoa(int(k)) + ")"
}

// call is one request a function made to the Runtime API, recorded when it
// arrived (before its body was read).
type call struct {
	Kind      callKind
	At        time.Time
	RequestID string // the invocation's id; "" for init/error
	Body      []byte // what was posted; nil for next
	ErrorType string // Lambda-Runtime-Function-Error-Type, when sent
}

// runtimeAPI is the Lambda Runtime API of one execution environment, on
// loopback: GET next hands out the queued invocations one at a time (and,
// like Lambda, blocks while none is queued); response, error and
// init/error are answered 202 as Lambda answers them. Every call is
// reported on Calls in the order it arrived. One runtimeAPI serves one
// process, so nothing one process does can reach another's measurement.
type runtimeAPI struct {
	// Addr is host:port, the value of AWS_LAMBDA_RUNTIME_API.
	Addr string
	// Calls receives every call as it arrives. It is buffered; calls beyond
	// its capacity are refused with 429 rather than blocking the function.
	Calls chan call

	functionARN string
	srv         *http.Server
	queue       chan invocation
	done        chan struct{}
	closeOnce   sync.Once

	mu       sync.Mutex
	inFlight map[string]bool // handed out by next, not yet answered
}

// invocation is one event waiting to be handed out.
type invocation struct {
	id      string
	payload []byte
}

// newRuntimeAPI starts a Runtime API on 127.0.0.1 (a free port) for the
// function whose ARN invocations carry. Close it when done.
func newRuntimeAPI(functionARN string) (*runtimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("runtime API: listen: %w", err)
	}
	a := &runtimeAPI{
		Addr:        ln.Addr().String(),
		Calls:       make(chan call, callLimit),
		functionARN: functionARN,
		queue:       make(chan invocation, callLimit),
		done:        make(chan struct{}),
		inFlight:    map[string]bool{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+pathNext, a.next)
	mux.HandleFunc("POST "+pathResponse, a.result(callResponse))
	mux.HandleFunc("POST "+pathError, a.result(callError))
	mux.HandleFunc("POST "+pathInitError, a.initError)
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

// Invoke queues an invocation with payload (the event's JSON) and returns
// its request id.
func (a *runtimeAPI) Invoke(payload []byte) string {
	id := uuid.NewString()
	a.queue <- invocation{id: id, payload: payload}
	return id
}

// Close stops the server, ends every call still waiting in next and
// closes their connections. It is safe to call more than once.
func (a *runtimeAPI) Close() error {
	var err error
	a.closeOnce.Do(func() {
		close(a.done)
		err = a.srv.Close()
	})
	return err
}

// record reports c on Calls, or returns false when the buffer is full.
func (a *runtimeAPI) record(c call) bool {
	select {
	case a.Calls <- c:
		return true
	default:
		return false
	}
}

func (a *runtimeAPI) next(w http.ResponseWriter, r *http.Request) {
	if !a.record(call{Kind: callNext, At: time.Now()}) {
		apiError(w, http.StatusTooManyRequests, "TooManyRequests", "too many calls")
		return
	}
	var inv invocation
	select {
	case inv = <-a.queue:
	case <-r.Context().Done():
		return
	case <-a.done:
		return
	}
	a.mu.Lock()
	a.inFlight[inv.id] = true
	a.mu.Unlock()
	h := w.Header()
	h.Set(headerRequestID, inv.id)
	h.Set(headerDeadlineMS, strconv.FormatInt(time.Now().Add(invokeTimeout).UnixMilli(), 10))
	h.Set(headerFunctionARN, a.functionARN)
	h.Set(headerTraceID, newTraceID())
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(inv.payload)
}

// result serves response and error: the request id must be one that next
// handed out and that has not been answered yet (else 400, as Lambda).
func (a *runtimeAPI) result(kind callKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		id := r.PathValue("id")
		a.mu.Lock()
		ok := a.inFlight[id]
		delete(a.inFlight, id)
		a.mu.Unlock()
		if !ok {
			apiError(w, http.StatusBadRequest, "InvalidRequestID", "unknown or already answered request id "+strconv.Quote(id))
			return
		}
		body, err := readPayload(w, r)
		if err != nil {
			apiError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", err.Error())
			return
		}
		c := call{Kind: kind, At: at, RequestID: id, Body: body, ErrorType: r.Header.Get(headerErrorType)}
		// aws-lambda-go streams the response and, when reading it fails
		// midway, names the failure in trailers: the invocation failed.
		if t := r.Trailer.Get(headerErrorType); t != "" {
			c.Kind, c.ErrorType = callError, t
		}
		a.accepted(w, c)
	}
}

func (a *runtimeAPI) initError(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := readPayload(w, r)
	if err != nil {
		apiError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", err.Error())
		return
	}
	a.accepted(w, call{Kind: callInitError, At: at, Body: body, ErrorType: r.Header.Get(headerErrorType)})
}

// accepted records c and answers 202 {"status":"OK"}, Lambda's answer.
func (a *runtimeAPI) accepted(w http.ResponseWriter, c call) {
	if !a.record(c) {
		apiError(w, http.StatusTooManyRequests, "TooManyRequests", "too many calls")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, `{"status":"OK"}`)
}

// readPayload reads the whole body (and so its trailers), at most
// maxPayload bytes.
func readPayload(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPayload))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("payload larger than %d bytes", maxPayload)
	}
	return body, err
}

// apiError answers with the Runtime API's error body.
func apiError(w http.ResponseWriter, status int, errType, msg string) {
	b, _ := json.Marshal(map[string]string{"errorType": errType, "errorMessage": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// newTraceID returns an X-Ray trace header, not sampled.
func newTraceID() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	return fmt.Sprintf("Root=1-%08x-%s;Parent=%s;Sampled=0", time.Now().Unix(), h[:24], h[24:40])
}
