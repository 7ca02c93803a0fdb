package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/moveleads/partnerapi/shared/adapter/webhookhttp"
	"github.com/moveleads/partnerapi/shared/app/webhooks"
	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
)

// allEvents stands for "every event type" in an endpoint's events (the
// endpoint stores none), as Stripe's enabled_events does.
const allEvents = "*"

// endpointView is an endpoint as the webhook commands show it: never its
// signing secrets, not even sealed. Status is "enabled" or "disabled";
// DisabledReason and DisabledAt say why and since when (null when
// enabled); FailingSince is when its current run of failed attempts began
// (null when its last attempt succeeded); PreviousSecretUntil is when the
// secret before the last rotation stops signing (null when it no longer
// signs).
type endpointView struct {
	EndpointID          string    `json:"endpoint_id"`
	PartnerID           string    `json:"partner_id"`
	Mode                auth.Mode `json:"mode"`
	URL                 string    `json:"url"`
	Events              []string  `json:"events"`
	CreatedAt           string    `json:"created_at"`
	Status              string    `json:"status"`
	DisabledReason      *string   `json:"disabled_reason"`
	DisabledAt          *string   `json:"disabled_at"`
	FailingSince        *string   `json:"failing_since"`
	PreviousSecretUntil *string   `json:"previous_secret_until"`
}

// The values of endpointView.Status.
const (
	statusEnabled  = "enabled"
	statusDisabled = "disabled"
)

// viewEndpoint returns e as shown at now.
func viewEndpoint(e webhook.Endpoint, now time.Time) endpointView {
	v := endpointView{
		EndpointID: e.ID, PartnerID: e.Tenant.PartnerID, Mode: e.Tenant.Mode, URL: e.URL,
		Events: []string{allEvents}, CreatedAt: lead.FormatTime(e.CreatedAt), Status: statusEnabled,
	}
	if e.Types != nil {
		v.Events = make([]string, len(e.Types))
		for i, t := range e.Types {
			v.Events[i] = string(t)
		}
	}
	if e.Disabled {
		v.Status = statusDisabled
		v.DisabledReason = &e.DisabledReason
		v.DisabledAt = optTime(e.DisabledAt)
	}
	v.FailingSince = optTime(e.FailingSince)
	if e.Sealed.Previous != "" && now.Before(e.Sealed.PreviousUntil) {
		v.PreviousSecretUntil = optTime(e.Sealed.PreviousUntil)
	}
	return v
}

// optTime formats t, or returns nil for the zero time.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := lead.FormatTime(t)
	return &s
}

// webhookAdded is the output of webhook add: the endpoint and its signing
// secret, the only time the secret is shown.
type webhookAdded struct {
	endpointView
	Secret string `json:"secret"`
	Note   string `json:"note"`
}

// secretRotated is the output of webhook rotate-secret: the new signing
// secret, the only time it is shown, and when the previous one stops
// signing.
type secretRotated struct {
	EndpointID          string `json:"endpoint_id"`
	Secret              string `json:"secret"`
	PreviousSecretUntil string `json:"previous_secret_until"`
	Note                string `json:"note"`
}

// webhookList is the output of webhook list.
type webhookList struct {
	PartnerID string         `json:"partner_id"`
	Endpoints []endpointView `json:"endpoints"`
}

// webhookEnabled is the output of webhook enable.
type webhookEnabled struct {
	endpointView
	Note string `json:"note"`
}

// operatorDisabled is the reason webhook disable records.
const operatorDisabled = "disabled by an operator (opctl webhook disable)"

// endpointErr turns a not_found error about endpoint id into the
// operator's message and returns any other error as it is.
func endpointErr(id string, err error) error {
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return fmt.Errorf("webhook endpoint %s not found", id)
	}
	return err
}

func parseWebhookAdd(fs *flag.FlagSet, args []string) (action, error) {
	readTenant := tenantFlags(fs)
	rawURL := fs.String("url", "", "the endpoint's URL (required; https in live mode)")
	eventList := fs.String("events", "", "comma-separated event types (default: every type)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	tenant, err := readTenant()
	if err != nil {
		return nil, err
	}
	partnerID, mode := tenant.PartnerID, tenant.Mode
	url := strings.TrimSpace(*rawURL)
	if url == "" {
		return nil, usagef(fs, "--url is required")
	}
	if err := webhookhttp.CheckURL(url, mode == auth.Live); err != nil {
		return nil, usagef(fs, "--url: %v", err)
	}
	var types []webhook.Type
	if setFlags(fs)["events"] {
		if types, err = webhook.ParseTypes(*eventList); err != nil {
			return nil, usagef(fs, "--events: %v", err)
		}
		if types == nil {
			return nil, usagef(fs, "--events: name at least one event type, or leave the flag out for every type")
		}
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		added, err := s.endpoints().Add(ctx, audit.ByOperator(), auth.Tenant{PartnerID: partnerID, Mode: mode}, url, types)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		return webhookAdded{
			endpointView: viewEndpoint(added.Endpoint, now), Secret: added.Secret,
			Note: "This is the only time the signing secret is shown: give it to the partner now, over a channel fit for a password. " +
				"It is stored sealed and no command shows it again; if it is lost, use opctl webhook rotate-secret.",
		}, nil
	}, nil
}

// endpoints is the endpoint service over s, its sealing key read when
// first needed.
func (s target) endpoints() *webhooks.Endpoints {
	return webhooks.NewEndpoints(webhooks.EndpointDeps{
		Store: s.Store, CheckURL: webhookhttp.CheckURL,
		Sealer: func(ctx context.Context) (*webhook.Sealer, error) {
			sl, err := s.sealer(ctx)
			if err != nil {
				return nil, err
			}
			return sl.Sealer, nil
		},
	})
}

// ownerOf returns the partner of endpoint id: an operator names an
// endpoint alone, and the service acts within its partner.
func ownerOf(ctx context.Context, s target, id string) (string, error) {
	e, err := s.GetEndpoint(ctx, id)
	if err != nil {
		return "", endpointErr(id, err)
	}
	return e.Tenant.PartnerID, nil
}

func parseWebhookList(fs *flag.FlagSet, args []string) (action, error) {
	id := fs.String("partner", "", "partner id (required)")
	modeName := fs.String("mode", "", "test or live (default: both)")
	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}
	partnerID, err := requiredID(fs, "partner", *id)
	if err != nil {
		return nil, err
	}
	modes := []auth.Mode{auth.Test, auth.Live}
	if setFlags(fs)["mode"] {
		mode, err := modeFlag(fs, *modeName)
		if err != nil {
			return nil, err
		}
		modes = []auth.Mode{mode}
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		eps, err := s.endpoints().List(ctx, partnerID, modes...)
		if err != nil {
			return nil, partnerErr(partnerID, err)
		}
		out := webhookList{PartnerID: partnerID, Endpoints: []endpointView{}}
		for _, e := range eps {
			out.Endpoints = append(out.Endpoints, viewEndpoint(e, now))
		}
		return out, nil
	}, nil
}

// endpointFlag reads the required --endpoint flag.
func endpointFlag(fs *flag.FlagSet, args []string) (string, error) {
	id := fs.String("endpoint", "", "endpoint id (required)")
	if err := parseNoArgs(fs, args); err != nil {
		return "", err
	}
	return requiredID(fs, "endpoint", *id)
}

func parseWebhookDisable(fs *flag.FlagSet, args []string) (action, error) {
	endpointID, err := endpointFlag(fs, args)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		partnerID, err := ownerOf(ctx, s, endpointID)
		if err != nil {
			return nil, err
		}
		e, err := s.endpoints().Disable(ctx, audit.ByOperator(), partnerID, endpointID, operatorDisabled)
		if err != nil {
			return nil, endpointErr(endpointID, err)
		}
		return viewEndpoint(e, now), nil
	}, nil
}

func parseWebhookEnable(fs *flag.FlagSet, args []string) (action, error) {
	endpointID, err := endpointFlag(fs, args)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, now time.Time) (any, error) {
		partnerID, err := ownerOf(ctx, s, endpointID)
		if err != nil {
			return nil, err
		}
		e, err := s.endpoints().Enable(ctx, audit.ByOperator(), partnerID, endpointID)
		if err != nil {
			return nil, endpointErr(endpointID, err)
		}
		return webhookEnabled{
			endpointView: viewEndpoint(e, now),
			Note: "New events reach it from now on. Deliveries that failed while it was disabled are not sent again: " +
				"find them with opctl webhook deliveries and send each with opctl webhook redeliver.",
		}, nil
	}, nil
}

func parseWebhookRotate(fs *flag.FlagSet, args []string) (action, error) {
	endpointID, err := endpointFlag(fs, args)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, s target, _ time.Time) (any, error) {
		sl, err := s.sealer(ctx)
		if err != nil {
			return nil, err
		}
		partnerID, err := ownerOf(ctx, s, endpointID)
		if err != nil {
			return nil, err
		}
		r, err := s.endpoints().RotateSecret(ctx, audit.ByOperator(), partnerID, endpointID)
		if errors.Is(err, webhook.ErrSealed) {
			return nil, fmt.Errorf("the signing secrets of webhook endpoint %s do not open with the webhook sealing key from %s: is it this table's stack's key? Nothing was changed", endpointID, sl.from)
		}
		if err != nil {
			return nil, endpointErr(endpointID, err)
		}
		note := "This is the only time the new signing secret is shown: give it to the partner now. " +
			"Until previous_secret_until every delivery is signed with both secrets, so the partner can switch at any moment before then; " +
			"after it only the new secret signs."
		if !r.CutShort.IsZero() {
			note += " The secret before the previous one, which still signed until " + lead.FormatTime(r.CutShort) + ", stopped signing now."
		}
		return secretRotated{EndpointID: r.Endpoint.ID, Secret: r.Secret, PreviousSecretUntil: lead.FormatTime(r.PreviousUntil), Note: note}, nil
	}, nil
}
