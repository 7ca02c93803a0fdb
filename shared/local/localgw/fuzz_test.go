package localgw

import (
	"bufio"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// FuzzGatewayRouting: any request line net/http accepts is routed as
// manifest.Resolve says on its raw path, or else to the $default route
// with route key $default and no path parameters; the handler always sees
// the raw path and the raw query, and exactly one handler runs.
func FuzzGatewayRouting(f *testing.F) {
	for _, s := range [][2]string{
		{"POST", "/v1-leads"}, {"POST", "/v1/leads"}, {"GET", "/v1/leads?limit=2&x=%zz"},
		{"GET", "/v1/leads/ld_1"}, {"GET", "/v1-lead-get/ld%2F1"}, {"POST", "/v1%2fleads"},
		{"GET", "/v1/leads/"}, {"DELETE", "/v1/leads"}, {"GET", "//v1/leads"}, {"GET", "/nope{x}"},
		{"OPTIONS", "*"}, {"GET", "http://h/v1/leads"}, {"GET", "/v1/leads/%41"},
	} {
		f.Add(s[0], s[1])
	}
	routes := manifest.Routes()
	f.Fuzz(func(t *testing.T, method, target string) {
		raw := method + " " + target + " HTTP/1.1\r\nHost: x\r\n\r\n"
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return // net/http refuses it; Serve answers bad_request (TestMalformedRequestsGetTheErrorBody)
		}
		req.RemoteAddr = "192.0.2.1:1234"
		g, fk := newGateway(t)
		w := serve(g, req)
		if !asciiTarget(target) {
			checkError(t, w.Result(), w.Body.Bytes(), 400, errcode.BadRequest)
			fk.none(t)
			return
		}
		if w.Code != 200 {
			t.Fatalf("%s %s: status %d; want the fake's 200 (body %s)", method, target, w.Code, w.Body)
		}
		op, ev := fk.only(t)
		wantRaw := rawPath(req)
		if ev.RawPath != wantRaw || ev.RequestContext.HTTP.Path != wantRaw {
			t.Fatalf("%s %s: rawPath %q, http.path %q; want %q", method, target, ev.RawPath, ev.RequestContext.HTTP.Path, wantRaw)
		}
		if strings.HasPrefix(target, "/") {
			if p, _, _ := strings.Cut(target, "?"); wantRaw != p {
				t.Fatalf("%s %s: raw path %q; want %q as sent", method, target, wantRaw, p)
			}
		}
		if ev.RawQueryString != req.URL.RawQuery || ev.RequestContext.HTTP.Method != req.Method {
			t.Fatalf("%s %s: rawQueryString %q, method %q; want %q, %q", method, target, ev.RawQueryString, ev.RequestContext.HTTP.Method, req.URL.RawQuery, req.Method)
		}
		rt, template, name, value, _, ok := manifest.Resolve(routes, req.Method, wantRaw)
		if !ok {
			if op != manifest.RouteNotFound || ev.RouteKey != "$default" || ev.PathParameters != nil {
				t.Fatalf("%s %s: invoked %s, routeKey %q, params %v; want %s, $default, none", method, target, op, ev.RouteKey, ev.PathParameters, manifest.RouteNotFound)
			}
			return
		}
		var wantParams map[string]string
		if name != "" {
			wantParams = map[string]string{name: value}
		}
		if op != rt.Operation || ev.RouteKey != rt.Method+" "+template || !reflect.DeepEqual(ev.PathParameters, wantParams) {
			t.Fatalf("%s %s: invoked %s, routeKey %q, params %v; want %s, %q, %v", method, target, op, ev.RouteKey, ev.PathParameters, rt.Operation, rt.Method+" "+template, wantParams)
		}
	})
}
