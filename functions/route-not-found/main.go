// Command route-not-found is the HTTP API's $default route (the
// route-not-found entry of shared/spec/manifest): every request no route
// matches gets the spec's error body, 404 or 405 with Allow.
package main

import "github.com/moveleads/partnerapi/shared/edge/apigw"

func main() { apigw.StartNotFound() }
