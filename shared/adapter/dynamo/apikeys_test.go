package dynamo

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

func TestAdmitWindows(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	key, keyID := newKey(t, s, pid, auth.Live)
	digest := auth.Digest(key)
	start := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
	minute := start.Truncate(time.Minute)

	steps := []struct {
		name          string
		at            time.Time
		limit         int
		wantAdmitted  bool
		wantRemaining int
		wantReset     time.Time
	}{
		{"first request of a window", start, 3, true, 2, minute.Add(time.Minute)},
		{"second", start.Add(time.Second), 3, true, 1, minute.Add(time.Minute)},
		{"third reaches the limit", start.Add(2 * time.Second), 3, true, 0, minute.Add(time.Minute)},
		{"fourth is refused", start.Add(3 * time.Second), 3, false, 0, minute.Add(time.Minute)},
		{"next window resets", start.Add(time.Minute), 3, true, 2, minute.Add(2 * time.Minute)},
		// An instance whose clock is a minute behind counts in the newer window.
		{"clock behind joins the newer window", start, 3, true, 1, minute.Add(2 * time.Minute)},
	}
	want := auth.Principal{Tenant: auth.Tenant{PartnerID: pid, Mode: auth.Live}, KeyID: keyID, Scopes: auth.AllScopes}
	for _, st := range steps {
		p, u, err := s.Admit(ctx, digest, st.at, st.limit)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if u.Admitted != st.wantAdmitted || u.Remaining != st.wantRemaining || u.Reset != st.wantReset.Unix() {
			t.Errorf("%s: admitted %v remaining %d reset %d; want %v %d %d", st.name, u.Admitted, u.Remaining, u.Reset,
				st.wantAdmitted, st.wantRemaining, st.wantReset.Unix())
		}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("%s: principal %+v; want %+v", st.name, p, want)
		}
	}
}

// TestAdmitInvalidKeyIsOneAnswer: an unknown key and a revoked key get the
// same error, word for word, so a leaked string does not reveal that it
// once was a key.
func TestAdmitInvalidKeyIsOneAnswer(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	revoked, revokedID := newKey(t, s, pid, auth.Live)
	if _, _, err := s.Admit(ctx, auth.Digest(revoked), time.Now(), 10); err != nil {
		t.Fatalf("Admit before revoking: %v", err)
	}
	if _, err := s.RevokeKey(ctx, revokedID, time.Now()); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	unknown, _, err := auth.NewKey(auth.Live)
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]*errcode.Error{}
	for name, key := range map[string]string{"unknown": unknown, "revoked": revoked} {
		_, _, err := s.Admit(ctx, auth.Digest(key), time.Now(), 10)
		e := wantCode(t, err, errcode.InvalidAPIKey)
		if e.Message != auth.InvalidKeyMessage {
			t.Errorf("%s key: message %q; want auth.InvalidKeyMessage %q", name, e.Message, auth.InvalidKeyMessage)
		}
		answers[name] = e
	}
	u, r := answers["unknown"], answers["revoked"]
	if u.Error() != r.Error() || !reflect.DeepEqual(u.Details, r.Details) {
		t.Errorf("unknown key: %q %v; revoked key: %q %v; want byte-identical", u.Error(), u.Details, r.Error(), r.Details)
	}
}

func TestCreateKey(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	pid := newPartner(t, s)
	key, keyID := newKey(t, s, pid, auth.Test)
	other, _, err := auth.NewKey(auth.Test)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		k    auth.Key
		want errcode.Code
	}{
		{"key id taken", auth.Key{KeyID: keyID, Digest: auth.Digest(other), PartnerID: pid, Mode: auth.Test}, errcode.Conflict},
		{"secret taken", auth.Key{KeyID: "key_new", Digest: auth.Digest(key), PartnerID: pid, Mode: auth.Test}, errcode.Conflict},
		{"unknown partner", auth.Key{KeyID: "key_new2", Digest: auth.Digest(other), PartnerID: "ptn_nobody", Mode: auth.Test}, errcode.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.k.Scopes, tt.k.CreatedAt = auth.AllScopes, time.Now()
			wantCode(t, s.CreateKey(ctx, tt.k), tt.want)
			keys, err := s.ListKeys(ctx, pid)
			if err != nil || len(keys) != 1 || keys[0].KeyID != keyID {
				t.Errorf("ListKeys = %+v, %v; want only the first key %s", keys, err, keyID)
			}
		})
	}
}

func TestRevokeKey(t *testing.T) {
	ctx := context.Background()
	t.Run("revoked key is refused and keeps its first revocation time", func(t *testing.T) {
		s := newStore(t)
		pid := newPartner(t, s)
		key, keyID := newKey(t, s, pid, auth.Live)
		first := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		k1, err := s.RevokeKey(ctx, keyID, first)
		if err != nil {
			t.Fatalf("RevokeKey: %v", err)
		}
		k2, err := s.RevokeKey(ctx, keyID, first.Add(time.Hour))
		if err != nil {
			t.Fatalf("second RevokeKey: %v", err)
		}
		for i, k := range []auth.Key{k1, k2} {
			if k.RevokedAt == nil || !k.RevokedAt.Equal(first) || k.KeyID != keyID {
				t.Errorf("revocation %d: %+v; want key %s revoked at %v", i+1, k, keyID, first)
			}
		}
		_, _, err = s.Admit(ctx, auth.Digest(key), time.Now(), 10)
		wantCode(t, err, errcode.InvalidAPIKey)
	})
	t.Run("unknown id", func(t *testing.T) {
		s := newStore(t)
		_, err := s.RevokeKey(ctx, "key_nobody", time.Now())
		wantCode(t, err, errcode.NotFound)
	})
	t.Run("authentication record gone", func(t *testing.T) {
		// The transaction's condition fails: ConditionalCheckFailed.
		s := newStore(t)
		pid := newPartner(t, s)
		key, keyID := newKey(t, s, pid, auth.Live)
		pk, sk := apiKeyKey(auth.Digest(key))
		if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: keyAV(pk, sk)}); err != nil {
			t.Fatal(err)
		}
		_, err := s.RevokeKey(ctx, keyID, time.Now())
		wantCode(t, err, errcode.NotFound)
	})
}

// canceled is a TransactionCanceledException for a two-item transaction
// whose first item failed with code.
func canceled(code string) error {
	return &types.TransactionCanceledException{
		Message: aws.String("Transaction cancelled, please refer cancellation reasons for specific reasons [" + code + ", None]"),
		CancellationReasons: []types.CancellationReason{
			{Code: aws.String(code), Message: aws.String(code)}, {Code: aws.String("None")},
		},
	}
}

// TestRevokeKeyCancellationReasons injects cancelled transactions (DynamoDB
// Local never reports TransactionConflict) and checks what each reason
// becomes.
func TestRevokeKeyCancellationReasons(t *testing.T) {
	tests := []struct {
		name      string
		reason    string
		failures  int // transactions answered with the reason before DynamoDB gets one
		wantCode  errcode.Code
		wantCalls int // TransactWriteItems calls
	}{
		{"one conflict is retried", "TransactionConflict", 1, "", 2},
		{"conflicts short of the bound are retried", "TransactionConflict", revokeAttempts - 1, "", revokeAttempts},
		{"conflicts to the bound give conflict", "TransactionConflict", revokeAttempts, errcode.Conflict, revokeAttempts},
		{"failed condition is not found", "ConditionalCheckFailed", 1, errcode.NotFound, 1},
		{"throttling is upstream", "ThrottlingError", 1, errcode.UpstreamFailed, 1},
		{"validation error is upstream", "ValidationError", 1, errcode.UpstreamFailed, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &calls{}
			s := newStore(t, rec.install)
			ctx := context.Background()
			pid := newPartner(t, s)
			key, keyID := newKey(t, s, pid, auth.Live)
			rec.reset()
			rec.before = func(op string, n int) error {
				if op == "TransactWriteItems" && n <= tt.failures {
					return canceled(tt.reason)
				}
				return nil
			}
			k, err := s.RevokeKey(ctx, keyID, time.Now())
			if got := rec.count("TransactWriteItems"); got != tt.wantCalls {
				t.Errorf("TransactWriteItems called %d times; want %d", got, tt.wantCalls)
			}
			_, _, admitErr := other(t, s).Admit(ctx, auth.Digest(key), time.Now(), 10)
			if tt.wantCode != "" {
				wantCode(t, err, tt.wantCode)
				if admitErr != nil {
					t.Errorf("Admit after a failed revocation: %v; want the key still valid", admitErr)
				}
				return
			}
			if err != nil || k.RevokedAt == nil {
				t.Fatalf("RevokeKey = %+v, %v; want the key revoked", k, err)
			}
			wantCode(t, admitErr, errcode.InvalidAPIKey)
		})
	}
}

func TestRevokeKeyHonoursContextBetweenRetries(t *testing.T) {
	rec := &calls{}
	s := newStore(t, rec.install)
	pid := newPartner(t, s)
	_, keyID := newKey(t, s, pid, auth.Live)
	rec.reset()
	ctx, cancel := context.WithCancel(context.Background())
	rec.before = func(op string, _ int) error {
		if op == "TransactWriteItems" {
			cancel()
			return canceled("TransactionConflict")
		}
		return nil
	}
	_, err := s.RevokeKey(ctx, keyID, time.Now())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RevokeKey = %v; want context.Canceled", err)
	}
	if got := rec.count("TransactWriteItems"); got != 1 {
		t.Errorf("TransactWriteItems called %d times; want 1 (no retry once cancelled)", got)
	}
}
