package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// An image without alt text and a button without a name are critical
// violations; a page with neither has none.
func TestCheckAccessibility(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ctx := start(t)
	bad := `<!doctype html><html lang="en"><head><title>Bad</title></head><body><main><h1>Bad</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="pic"><button id="empty"></button></main></body></html>`
	good := `<!doctype html><html lang="en"><head><title>Good</title></head><body><main><h1>Good</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A dot"><button>Send</button></main></body></html>`

	step, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(step, Phone(), chromedp.Navigate(serve(t, bad))); err != nil {
		t.Fatal(err)
	}
	got, err := CheckAccessibility(step)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]Violation{}
	for _, v := range got {
		ids[v.ID] = v
	}
	for _, want := range []string{"image-alt", "button-name"} {
		v, ok := ids[want]
		if !ok {
			t.Errorf("violations %v lack %s", got, want)
			continue
		}
		if v.Impact != "critical" || len(v.Nodes) != 1 {
			t.Errorf("%s: got %+v, want critical on one element", want, v)
		}
	}

	// The dashboard's strict CSP does not stop the check.
	strict := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; img-src data:")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(bad))
	}))
	t.Cleanup(strict.Close)
	if err := chromedp.Do(step, chromedp.Navigate(strict.URL)); err != nil {
		t.Fatal(err)
	}
	if got, err := CheckAccessibility(step); err != nil || len(got) < 2 {
		t.Errorf("under a strict CSP: got %v, %v; want image-alt and button-name", got, err)
	}

	if err := chromedp.Do(step, chromedp.Navigate(serve(t, good))); err != nil {
		t.Fatal(err)
	}
	got, err = CheckAccessibility(step)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("a clean page: got violations %v", got)
	}
}
