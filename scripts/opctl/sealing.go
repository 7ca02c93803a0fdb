package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/moveleads/partnerapi/scripts/devstack/devfile"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/settings"
	"github.com/moveleads/partnerapi/shared/wire/awsenv"
)

// sealingKeyBytes is the size of the webhook sealing key (AES-256); its
// value is the hex of these bytes, 64 characters.
const sealingKeyBytes = 32

// sealing is the Sealer over the webhook sealing key and where the key
// came from, for messages (never the key).
type sealing struct {
	*webhook.Sealer
	from string // e.g. "WEBHOOK_SEALING_KEY of .local/dev.json"
}

// sealerLoader returns the loader of the webhook sealing key in env;
// fetch reads a Secrets Manager secret's string by ARN. Nothing is read
// until the loader is called.
func sealerLoader(env devfile.Choice, fetch func(ctx context.Context, arn string) (string, error)) func(context.Context) (sealing, error) {
	return func(ctx context.Context) (sealing, error) {
		key, from, err := sealingKey(ctx, env, fetch)
		if err != nil {
			return sealing{}, err
		}
		s, err := webhook.NewSealer(key)
		if err != nil {
			return sealing{}, fmt.Errorf("%s: %w", from, err)
		}
		return sealing{Sealer: s, from: from}, nil
	}
}

// sealingKey returns the webhook sealing key (manifest.SecretWebhookSealing)
// and where it came from. While make dev runs, the WEBHOOK_SEALING_KEY of
// its .local/dev.json wins, as its table does (a stale
// WEBHOOK_SEALING_KEY_ARN in the environment would name another stack's
// key). Otherwise, as the functions read it (awsenv.Env.Secret):
// WEBHOOK_SEALING_KEY_ARN, read from Secrets Manager, else
// WEBHOOK_SEALING_KEY itself. Either holds 64 hex characters, decoded by
// awsenv.DecodeSecret. Neither set, a value that is not hex or not 32
// bytes, or a failed read is an error that never quotes the value.
func sealingKey(ctx context.Context, env devfile.Choice, fetch func(ctx context.Context, arn string) (string, error)) ([]byte, string, error) {
	keyVar, arnVar := settings.WebhookSealingKey, settings.WebhookSealingKeyARN
	if v := env.File.Env[keyVar]; env.FromFile && v != "" {
		return decodeSealingKey(v, keyVar+" of "+devfile.RelPath)
	}
	if arn := env.Getenv(arnVar); arn != "" {
		from := "the secret " + arn + " (" + arnVar + ")"
		v, err := fetch(ctx, arn)
		if err != nil {
			return nil, "", fmt.Errorf("read the webhook sealing key from %s: %w", from, err)
		}
		return decodeSealingKey(v, from)
	}
	if v := env.Getenv(keyVar); v != "" {
		return decodeSealingKey(v, keyVar)
	}
	msg := fmt.Sprintf("the webhook sealing key is not set: set %s (64 hex characters) or %s (the ARN of its Secrets Manager secret, %s)",
		keyVar, arnVar, "the stack's webhook-sealing-key")
	switch {
	case env.FromFile:
		msg += "; " + devfile.RelPath + " names none (restart make dev)"
	case env.Skipped != "":
		msg += " (make dev: " + env.Skipped + ")"
	}
	return nil, "", errors.New(msg)
}

// decodeSealingKey decodes v, the key's hex from from. Its errors name
// from, never v (DecodeSecret's would quote the offending character).
func decodeSealingKey(v, from string) ([]byte, string, error) {
	b, err := awsenv.DecodeSecret(v)
	if err != nil || len(b) != sealingKeyBytes {
		return nil, "", fmt.Errorf("the webhook sealing key in %s is not %d hex characters (%d bytes)", from, 2*sealingKeyBytes, sealingKeyBytes)
	}
	return b, from, nil
}

// secretsManagerValue returns a reader of a Secrets Manager secret's
// string value by ARN, with cfg and the Secrets Manager endpoint get
// names (AWS_ENDPOINT_URL_SECRETS_MANAGER, for tests), if any. The client
// is built when a secret is read.
func secretsManagerValue(cfg aws.Config, get func(string) string) func(ctx context.Context, arn string) (string, error) {
	return func(ctx context.Context, arn string) (string, error) {
		client := secretsmanager.NewFromConfig(cfg, func(o *secretsmanager.Options) {
			o.BaseEndpoint = awsenv.Endpoint(get, "SECRETS_MANAGER")
		})
		out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(arn)})
		if err != nil {
			return "", err
		}
		if out.SecretString == nil {
			return "", errors.New("the secret has no string value")
		}
		return *out.SecretString, nil
	}
}
