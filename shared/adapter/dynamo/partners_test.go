package dynamo

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
)

// video is a second beta feature for tests: partner.Features has one.
const video partner.Feature = "video_survey"

func TestGetPartnerIsOneConsistentRead(t *testing.T) {
	rec := &calls{}
	s := newStore(t, rec.install)
	ctx := context.Background()
	want := partner.Partner{ID: "ptn_get", Name: "Acme", RateCard: estimate.DefaultRateCard("eur"),
		Beta: []partner.Feature{partner.Deposits, video}, CaptureLinkLifetime: 72 * time.Hour, CreatedAt: t0}
	if err := s.CreatePartner(ctx, want); err != nil {
		t.Fatal(err)
	}
	rec.reset()
	got, err := s.GetPartner(ctx, want.ID)
	if err != nil {
		t.Fatalf("GetPartner: %v", err)
	}
	if !got.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("CreatedAt %v; want %v", got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GetPartner = %+v; want %+v", got, want)
	}
	ops, ins := rec.taken()
	if !reflect.DeepEqual(ops, []string{"GetItem"}) {
		t.Fatalf("GetPartner made calls %v; want one GetItem", ops)
	}
	if in := ins[0].(*dynamodb.GetItemInput); !aws.ToBool(in.ConsistentRead) {
		t.Error("GetPartner's GetItem is eventually consistent; want a strongly consistent read")
	}
	_, err = s.GetPartner(ctx, "ptn_nobody")
	wantCode(t, err, errcode.NotFound)
}

func TestCreatePartnerTakenID(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	err := s.CreatePartner(ctx, partner.Partner{ID: pid, Name: "Usurper", RateCard: estimate.DefaultRateCard("usd"), CreatedAt: t0})
	wantCode(t, err, errcode.Conflict)
	if p, err := s.GetPartner(ctx, pid); err != nil || p.Name != "Acme Movers" {
		t.Errorf("GetPartner = %+v, %v; want the first partner kept", p, err)
	}
}

// TestRateCardLivesOnThePartner: a rate card change is one write to the
// partner record, however many keys the partner has, and every key (made
// before or after the change) leads to the new card through GetPartner.
func TestRateCardLivesOnThePartner(t *testing.T) {
	rec := &calls{}
	s := newStore(t, rec.install)
	ctx := context.Background()
	pid := newPartner(t, s)
	oldKey, _ := newKey(t, s, pid, auth.Live)
	newKey(t, s, pid, auth.Test)
	card := estimate.DefaultRateCard("gbp")
	card.HourlyCents = 7777

	rec.reset()
	if err := s.SetRateCard(ctx, pid, card); err != nil {
		t.Fatalf("SetRateCard: %v", err)
	}
	if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"UpdateItem"}) {
		t.Errorf("SetRateCard made calls %v; want one UpdateItem (no copy to keys)", ops)
	}
	laterKey, _ := newKey(t, s, pid, auth.Live)

	for name, key := range map[string]string{"key made before the change": oldKey, "key made after": laterKey} {
		p, _, err := s.Admit(ctx, auth.Digest(key), time.Now(), 10)
		if err != nil {
			t.Fatalf("%s: Admit: %v", name, err)
		}
		ptn, err := s.GetPartner(ctx, p.PartnerID)
		if err != nil {
			t.Fatalf("%s: GetPartner: %v", name, err)
		}
		if ptn.RateCard != card {
			t.Errorf("%s: rate card %+v; want the new %+v", name, ptn.RateCard, card)
		}
		pk, sk := apiKeyKey(auth.Digest(key))
		out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out.Item["rate_card"]; ok {
			t.Errorf("%s: its authentication record carries a rate_card; want none", name)
		}
	}
	wantCode(t, s.SetRateCard(ctx, "ptn_nobody", card), errcode.NotFound)
}

func TestSetBeta(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	deposits := partner.Deposits
	steps := []struct {
		name            string
		enable, disable []partner.Feature
		want            []partner.Feature
	}{
		{"nothing to change", nil, nil, nil},
		{"enable one", []partner.Feature{deposits}, nil, []partner.Feature{deposits}},
		{"enable it again", []partner.Feature{deposits, deposits}, nil, []partner.Feature{deposits}},
		{"enable another", []partner.Feature{video}, nil, []partner.Feature{deposits, video}},
		{"disable one", nil, []partner.Feature{video}, []partner.Feature{deposits}},
		{"disable a disabled one", nil, []partner.Feature{video}, []partner.Feature{deposits}},
		{"enable and disable at once", []partner.Feature{video}, []partner.Feature{deposits}, []partner.Feature{video}},
		{"disable the last", nil, []partner.Feature{video}, nil},
		{"both at once from none", []partner.Feature{deposits}, []partner.Feature{video}, []partner.Feature{deposits}},
		{"both at once, swapping", []partner.Feature{video}, []partner.Feature{deposits}, []partner.Feature{video}},
		{"disable the last again", nil, []partner.Feature{video}, nil},
	}
	for _, st := range steps {
		got, err := s.SetBeta(ctx, pid, st.enable, st.disable)
		if err != nil {
			t.Fatalf("%s: SetBeta: %v", st.name, err)
		}
		if !reflect.DeepEqual(got.Beta, st.want) || got.ID != pid {
			t.Errorf("%s: SetBeta returned partner %s beta %v; want %s %v", st.name, got.ID, got.Beta, pid, st.want)
		}
		stored, err := s.GetPartner(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stored.Beta, st.want) {
			t.Errorf("%s: GetPartner beta %v; want %v", st.name, stored.Beta, st.want)
		}
		for _, f := range []partner.Feature{deposits, video} {
			if stored.BetaEnabled(f) != slices.Contains(st.want, f) {
				t.Errorf("%s: BetaEnabled(%s) = %v; want %v", st.name, f, stored.BetaEnabled(f), !stored.BetaEnabled(f))
			}
		}
	}
}

func TestSetBetaRefusals(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	one := []partner.Feature{partner.Deposits}
	two := []partner.Feature{video}
	tests := []struct {
		name            string
		partner         string
		enable, disable []partner.Feature
		want            errcode.Code
	}{
		{"unknown partner, enable", "ptn_nobody", one, nil, errcode.NotFound},
		{"unknown partner, disable", "ptn_nobody", nil, one, errcode.NotFound},
		{"unknown partner, both", "ptn_nobody", one, two, errcode.NotFound},
		{"unknown partner, neither", "ptn_nobody", nil, nil, errcode.NotFound},
		{"feature in both lists", pid, one, one, errcode.ValidationFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.SetBeta(ctx, tt.partner, tt.enable, tt.disable)
			wantCode(t, err, tt.want)
		})
	}
	if p, err := s.GetPartner(ctx, pid); err != nil || p.Beta != nil {
		t.Errorf("after refusals: %+v, %v; want no beta feature", p, err)
	}
	if _, err := s.GetPartner(ctx, "ptn_nobody"); errcode.As(err) == nil || errcode.As(err).Code != errcode.NotFound {
		t.Errorf("GetPartner(ptn_nobody) = %v; want not_found (SetBeta must not create the partner)", err)
	}
}

// TestSetBetaKeepsConcurrentChanges: concurrent changes of other features
// are never lost, neither by the single-sided ADD/DELETE nor by the
// compare-and-set of a change that enables and disables at once.
func TestSetBetaKeepsConcurrentChanges(t *testing.T) {
	ctx := context.Background()
	t.Run("concurrent enables", func(t *testing.T) {
		s := newStore(t)
		pid := newPartner(t, s)
		var want []partner.Feature
		var wg sync.WaitGroup
		for i := range 8 {
			f := partner.Feature(fmt.Sprintf("feature_%d", i))
			want = append(want, f)
			wg.Go(func() {
				if _, err := other(t, s).SetBeta(ctx, pid, []partner.Feature{f}, nil); err != nil {
					t.Errorf("SetBeta(%s): %v", f, err)
				}
			})
		}
		wg.Wait()
		p, err := s.GetPartner(ctx, pid)
		if err != nil || !reflect.DeepEqual(p.Beta, want) {
			t.Errorf("GetPartner beta = %v, %v; want all of %v", p.Beta, err, want)
		}
	})
	t.Run("a change between read and write", func(t *testing.T) {
		rec := &calls{}
		s := newStore(t, rec.install)
		pid := newPartner(t, s)
		if _, err := s.SetBeta(ctx, pid, []partner.Feature{partner.Deposits}, nil); err != nil {
			t.Fatal(err)
		}
		rec.reset()
		// Another instance enables a third feature just before this
		// instance's conditional write.
		rec.before = func(op string, n int) error {
			if op == "UpdateItem" && n == 1 {
				if _, err := other(t, s).SetBeta(ctx, pid, []partner.Feature{"third"}, nil); err != nil {
					t.Errorf("concurrent SetBeta: %v", err)
				}
			}
			return nil
		}
		got, err := s.SetBeta(ctx, pid, []partner.Feature{video}, []partner.Feature{partner.Deposits})
		if err != nil {
			t.Fatalf("SetBeta: %v", err)
		}
		want := []partner.Feature{"third", video}
		if !reflect.DeepEqual(got.Beta, want) {
			t.Errorf("SetBeta beta = %v; want %v (the concurrent enable kept)", got.Beta, want)
		}
		if n := rec.count("UpdateItem"); n != 2 {
			t.Errorf("%d UpdateItem calls; want 2 (one refused, one after reading again)", n)
		}
	})
	t.Run("always changing: bounded, then conflict", func(t *testing.T) {
		rec := &calls{}
		s := newStore(t, rec.install)
		pid := newPartner(t, s)
		rec.before = func(op string, n int) error {
			if op == "UpdateItem" {
				f := partner.Feature(fmt.Sprintf("f%d", n))
				if _, err := other(t, s).SetBeta(ctx, pid, []partner.Feature{f}, nil); err != nil {
					t.Errorf("concurrent SetBeta: %v", err)
				}
			}
			return nil
		}
		_, err := s.SetBeta(ctx, pid, []partner.Feature{video}, []partner.Feature{partner.Deposits})
		wantCode(t, err, errcode.Conflict)
		if n := rec.count("UpdateItem"); n != betaAttempts {
			t.Errorf("%d UpdateItem calls; want %d (the bound)", n, betaAttempts)
		}
	})
}

// TestCaptureLinkLifetime: a partner starts with no lifetime (the default),
// each change is one conditional UpdateItem that GetPartner then returns,
// other settings are left alone, and 0 removes the attribute.
func TestCaptureLinkLifetime(t *testing.T) {
	rec := &calls{}
	s := newStore(t, rec.install)
	ctx := context.Background()
	pid := newPartner(t, s)
	if _, err := s.SetBeta(ctx, pid, []partner.Feature{partner.Deposits}, nil); err != nil {
		t.Fatal(err)
	}
	p, err := s.GetPartner(ctx, pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.CaptureLinkLifetime != 0 || p.CaptureLinkTTL() != survey.DefaultTokenLifetime {
		t.Fatalf("new partner: lifetime %s, TTL %s; want 0 and the default %s", p.CaptureLinkLifetime, p.CaptureLinkTTL(), survey.DefaultTokenLifetime)
	}
	for _, d := range []time.Duration{72 * time.Hour, survey.MinTokenLifetime, survey.MaxTokenLifetime, 90*time.Minute + time.Second, 0} {
		rec.reset()
		if err := s.SetCaptureLinkLifetime(ctx, pid, d); err != nil {
			t.Fatalf("SetCaptureLinkLifetime(%s): %v", d, err)
		}
		if ops, _ := rec.taken(); !reflect.DeepEqual(ops, []string{"UpdateItem"}) {
			t.Errorf("SetCaptureLinkLifetime(%s) made calls %v; want one UpdateItem", d, ops)
		}
		got, err := s.GetPartner(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if got.CaptureLinkLifetime != d {
			t.Errorf("after SetCaptureLinkLifetime(%s): GetPartner lifetime %s", d, got.CaptureLinkLifetime)
		}
		if got.RateCard != p.RateCard || !reflect.DeepEqual(got.Beta, p.Beta) || got.Name != p.Name {
			t.Errorf("after SetCaptureLinkLifetime(%s): partner %+v; want the other settings of %+v kept", d, got, p)
		}
	}
	pk, sk := partnerKey(pid)
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := out.Item[captureLinkAttr]; ok {
		t.Errorf("after a reset to 0 the record has %s = %v; want no attribute", captureLinkAttr, v)
	}
}

func TestCaptureLinkLifetimeStoredInSeconds(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	if err := s.SetCaptureLinkLifetime(ctx, pid, 14*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	pk, sk := partnerKey(pid)
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: keyAV(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	n, ok := out.Item[captureLinkAttr].(*types.AttributeValueMemberN)
	if !ok || n.Value != "1209600" {
		t.Errorf("stored %s = %#v; want the number 1209600 (14 days in seconds)", captureLinkAttr, out.Item[captureLinkAttr])
	}
}

func TestCaptureLinkLifetimeRefusals(t *testing.T) {
	rec := &calls{}
	s := newStore(t, rec.install)
	ctx := context.Background()
	pid := newPartner(t, s)
	if err := s.SetCaptureLinkLifetime(ctx, pid, 48*time.Hour); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		partner string
		d       time.Duration
		want    errcode.Code
		reason  string
	}{
		{"below the minimum", pid, survey.MinTokenLifetime - time.Second, errcode.ValidationFailed, "between 1h0m0s and 720h0m0s"},
		{"above the maximum", pid, survey.MaxTokenLifetime + time.Second, errcode.ValidationFailed, "between 1h0m0s and 720h0m0s"},
		{"negative", pid, -time.Hour, errcode.ValidationFailed, "between"},
		{"fraction of a second", pid, 2*time.Hour + time.Millisecond, errcode.ValidationFailed, "whole number of seconds"},
		{"unknown partner", "ptn_nobody", 72 * time.Hour, errcode.NotFound, ""},
		{"unknown partner, reset", "ptn_nobody", 0, errcode.NotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.reset()
			e := wantCode(t, s.SetCaptureLinkLifetime(ctx, tt.partner, tt.d), tt.want)
			if tt.want != errcode.ValidationFailed {
				return
			}
			if !strings.Contains(e.Message, tt.reason) {
				t.Errorf("message %q; want it to contain %q", e.Message, tt.reason)
			}
			if f, _ := e.Details["fields"].(map[string]any); f["capture_link_lifetime"] != e.Message {
				t.Errorf("details %v; want fields.capture_link_lifetime = %q", e.Details, e.Message)
			}
			if ops, _ := rec.taken(); len(ops) != 0 {
				t.Errorf("refused lifetime made calls %v; want none", ops)
			}
		})
	}
	if p, err := s.GetPartner(ctx, pid); err != nil || p.CaptureLinkLifetime != 48*time.Hour {
		t.Errorf("after refusals: lifetime %s, %v; want 48h0m0s kept", p.CaptureLinkLifetime, err)
	}
	_, err := s.GetPartner(ctx, "ptn_nobody")
	wantCode(t, err, errcode.NotFound)

	err = s.CreatePartner(ctx, partner.Partner{ID: "ptn_badlife", Name: "A", RateCard: estimate.DefaultRateCard("usd"),
		CaptureLinkLifetime: time.Minute, CreatedAt: t0})
	wantCode(t, err, errcode.ValidationFailed)
	_, err = s.GetPartner(ctx, "ptn_badlife")
	wantCode(t, err, errcode.NotFound)
}
