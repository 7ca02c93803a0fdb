package webhookhttp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// ErrNoSecret is Sign's error without a secret to sign with.
var ErrNoSecret = errors.New("webhookhttp: no signing secret")

// Sign returns the Standard Webhooks headers of payload sent as message id
// at sentAt, signed by the library with each of secrets (space-separated
// signatures, as the header allows during a rotation), and the JSON
// Content-Type.
func Sign(secrets []string, id string, sentAt time.Time, payload []byte) (map[string]string, error) {
	if len(secrets) == 0 {
		return nil, ErrNoSecret
	}
	sigs := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return nil, fmt.Errorf("webhookhttp: signing secret: %w", err)
		}
		sig, err := wh.Sign(id, sentAt, payload)
		if err != nil {
			return nil, fmt.Errorf("webhookhttp: sign: %w", err)
		}
		sigs = append(sigs, sig)
	}
	return map[string]string{
		webhook.HeaderID:        id,
		webhook.HeaderTimestamp: strconv.FormatInt(sentAt.Unix(), 10),
		webhook.HeaderSignature: strings.Join(sigs, " "),
		"Content-Type":          "application/json",
	}, nil
}
