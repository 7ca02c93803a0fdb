// Command invoke runs one function's handler by itself on one API Gateway
// HTTP API (payload 2.0) event, as `sam local invoke -e` would, without
// Docker: it builds the handler exactly as functions/<slug>/main.go does
// (apigw.NewFromEnv) and invokes it through aws-lambda-go's handler wrapper
// with the event's JSON, then prints the response event.
//
//	go run ./scripts/invoke -function v1-leads -event events/v1-leads.valid.200.json
//
// It takes its environment from .local/dev.json (a running `make dev`) for
// every variable not already set, so it reaches the same DynamoDB Local.
// With -key, the event's Authorization header is replaced by that key (the
// dev stack's key when -key=dev).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/moveleads/partnerapi/shared/apigw"
	"github.com/moveleads/partnerapi/shared/manifest"
)

func main() {
	fn := flag.String("function", "", "function slug, e.g. v1-leads")
	eventPath := flag.String("event", "", "path of the event JSON file")
	key := flag.String("key", "dev", `API key to put in the Authorization header ("dev": the key in .local/dev.json; "": keep the event's header)`)
	flag.Parse()
	if err := run(*fn, *eventPath, *key); err != nil {
		fmt.Fprintln(os.Stderr, "invoke:", err)
		os.Exit(1)
	}
}

func run(slug, eventPath, key string) error {
	rt, ok := route.BySlug(slug)
	if !ok {
		return fmt.Errorf("no function %q in the route table", slug)
	}
	payload, err := os.ReadFile(eventPath)
	if err != nil {
		return err
	}
	var dev struct {
		APIKey string            `json:"api_key"`
		Env    map[string]string `json:"env"`
	}
	if b, err := os.ReadFile(".local/dev.json"); err == nil {
		_ = json.Unmarshal(b, &dev)
		for k, v := range dev.Env {
			if os.Getenv(k) == "" {
				os.Setenv(k, v)
			}
		}
	}
	if key == "dev" {
		key = dev.APIKey
	}
	if key != "" {
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("event: %w", err)
		}
		if ev.Headers == nil {
			ev.Headers = map[string]string{}
		}
		ev.Headers["authorization"] = "Bearer " + key
		payload, _ = json.Marshal(ev)
	}
	ctx := context.Background()
	h, err := apigw.NewFromEnv(ctx, apigw.SecretsManager)
	if err != nil {
		return err
	}
	out, err := lambda.NewHandler(h.Route(rt.Operation)).Invoke(ctx, payload)
	if err != nil {
		return err
	}
	var pretty any
	_ = json.Unmarshal(out, &pretty)
	b, _ := json.MarshalIndent(pretty, "", "  ")
	fmt.Println(string(b))
	return nil
}
