package webhookhttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
)

// A partner registers endpoints; the live one must use https.
func ExampleCheckURL() {
	for _, u := range []string{
		"https://hooks.example.com/moveleads",
		"http://hooks.example.com/moveleads",
		"https://user:secret@hooks.example.com/",
	} {
		fmt.Println(webhookhttp.CheckURL(u, true))
	}
	// Output:
	// <nil>
	// invalid webhook URL: live-mode endpoints must use https
	// invalid webhook URL: must not hold a user name or password
}

// The dispatcher builds one Client per process and delivers each event.
// AllowLoopback is set here only because the example's endpoint is a
// local server, as on a developer's stack; a delivery to a private or
// metadata address is refused whatever it says.
func ExampleClient_Post() {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	defer endpoint.Close()

	client := webhookhttp.New(webhookhttp.Options{AllowLoopback: true}) // once, outside the handler
	ctx := context.Background()
	event := []byte(`{"type":"lead.created"}`)
	headers := map[string]string{"Moveleads-Signature": "t=1700000000,v1=..."}

	resp, err := client.Post(ctx, endpoint.URL, false, headers, event)
	fmt.Println(resp.Status, err)

	_, err = client.Post(ctx, "http://169.254.169.254/latest/meta-data/", false, headers, event)
	fmt.Println(errors.Is(err, webhookhttp.ErrRefusedAddress), err)
	// Output:
	// 204 <nil>
	// true post to 169.254.169.254: refused address 169.254.169.254: cloud metadata service
}
