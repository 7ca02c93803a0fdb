package idempotency

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
)

var (
	t0    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	scope = Scope{PartnerID: "ptn_1", Mode: "test", Operation: "createLead", Key: "key-1"}
)

const (
	hashA = "hash-a"
	hashB = "hash-b"
)

// newKeeper returns a Keeper over a fresh memStore with a fake clock at t0,
// a one-second wait and ids res_1, res_2, ...
func newKeeper() (*Keeper, *memStore, *fakeClock) {
	st := &memStore{}
	clk := &fakeClock{t: t0}
	n := 0
	k := &Keeper{
		Store: st, Now: clk.Now, Wait: time.Second, Poll: time.Millisecond,
		NewID: func() string { n++; return fmt.Sprintf("res_%d", n) },
	}
	return k, st, clk
}

// record returns a stored record of scope in state, made at t0.
func record(state State, hash, resourceID string, lock time.Time) Record {
	return Record{
		Scope: scope, State: state, RequestHash: hash, ResourceID: resourceID,
		LockExpires: lock, CreatedAt: t0, Expires: t0.Add(Retention),
	}
}

// wantCode fails unless err is an *errcode.Error with code.
func wantCode(t *testing.T, err error, code errcode.Code) {
	t.Helper()
	e := errcode.As(err)
	if e == nil {
		t.Fatalf("err = %v; want *errcode.Error %s", err, code)
	}
	if e.Code != code {
		t.Fatalf("error code = %s; want %s (%v)", e.Code, code, err)
	}
}

func TestBeginFreshClaim(t *testing.T) {
	k, st, _ := newKeeper()
	claim, replay, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || replay != nil || claim == nil {
		t.Fatalf("Begin = %v, %v, %v; want a claim", claim, replay, err)
	}
	if got := claim.ResourceID(); got != "res_1" {
		t.Errorf("ResourceID() = %q; want res_1", got)
	}
	want := Record{
		Scope: scope, State: InFlight, RequestHash: hashA, ResourceID: "res_1",
		LockExpires: t0.Add(DefaultLock), CreatedAt: t0, Expires: t0.Add(Retention),
	}
	if got := st.stored(); !equalRecord(got, want) {
		t.Errorf("stored %+v; want %+v", got, want)
	}
}

func TestBeginLockFollowsDeadline(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name     string
		deadline time.Duration // 0: no deadline
		want     time.Duration // lock length from now
	}{
		{"no deadline", 0, DefaultLock},
		{"two-minute deadline", 2 * time.Minute, 2 * time.Minute},
		{"fifteen-minute deadline", 15 * time.Minute, 15 * time.Minute},
		{"deadline past fifteen minutes", time.Hour, DefaultLock},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, st, clk := newKeeper()
			clk.t = now
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, now.Add(tt.deadline))
				defer cancel()
			}
			if _, _, err := k.Begin(ctx, scope, hashA); err != nil {
				t.Fatalf("Begin: %v", err)
			}
			if got, want := st.stored().LockExpires, now.Add(tt.want); !got.Equal(want) {
				t.Errorf("LockExpires = %v; want %v", got, want)
			}
		})
	}
}

func TestBeginReplaysCompleted(t *testing.T) {
	k, st, _ := newKeeper()
	rec := record(Completed, hashA, "res_old", t0.Add(DefaultLock))
	rec.Status, rec.Body = 200, []byte(`{"lead_id":"res_old"}`)
	st.set(rec)
	claim, replay, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || claim != nil || replay == nil {
		t.Fatalf("Begin = %v, %v, %v; want a replay", claim, replay, err)
	}
	if replay.Status != 200 || string(replay.Body) != `{"lead_id":"res_old"}` {
		t.Errorf("replay = %d %s; want 200 {\"lead_id\":\"res_old\"}", replay.Status, replay.Body)
	}
	if st.takeOvers != 0 {
		t.Errorf("TakeOver called %d times; want 0", st.takeOvers)
	}
}

func TestBeginReplaysStoredError(t *testing.T) {
	// A 4xx from the operation is stored and replayed like a success.
	k, st, _ := newKeeper()
	rec := record(Completed, hashA, "res_old", t0)
	rec.Status, rec.Body = 422, []byte(`{"error":{}}`)
	st.set(rec)
	_, replay, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || replay == nil || replay.Status != 422 {
		t.Fatalf("Begin = _, %+v, %v; want a 422 replay", replay, err)
	}
}

func TestBeginReusedKey(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
	}{
		{"completed with another body", record(Completed, hashB, "res_old", t0.Add(DefaultLock))},
		{"in flight with another body", record(InFlight, hashB, "res_old", t0.Add(DefaultLock))},
		{"expired lock with another body", record(InFlight, hashB, "res_old", t0.Add(-time.Second))},
		// A failed claim keeps its pinned id for a retry of the same request:
		// another body must not inherit it.
		{"failed with another body", record(Failed, hashB, "res_old", t0.Add(DefaultLock))},
		{"failed with another body, lock expired", record(Failed, hashB, "res_old", t0.Add(-time.Second))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, st, _ := newKeeper()
			st.set(tt.rec)
			claim, replay, err := k.Begin(context.Background(), scope, hashA)
			if claim != nil || replay != nil {
				t.Fatalf("Begin = %v, %v; want neither claim nor replay", claim, replay)
			}
			wantCode(t, err, errcode.IdempotencyKeyReused)
			if got := st.stored(); !equalRecord(got, tt.rec) {
				t.Errorf("stored record changed to %+v; want %+v", got, tt.rec)
			}
		})
	}
}

func TestBeginTakesOver(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
	}{
		{"failed, same body", record(Failed, hashA, "res_old", t0.Add(DefaultLock))},
		{"in flight, lock expired", record(InFlight, hashA, "res_old", t0.Add(-time.Second))},
		{"in flight, lock expires now", record(InFlight, hashA, "res_old", t0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, st, _ := newKeeper()
			st.set(tt.rec)
			claim, replay, err := k.Begin(context.Background(), scope, hashA)
			if err != nil || replay != nil || claim == nil {
				t.Fatalf("Begin = %v, %v, %v; want a claim", claim, replay, err)
			}
			if got := claim.ResourceID(); got != "res_old" {
				t.Errorf("ResourceID() = %q; want the pinned res_old", got)
			}
			got := st.stored()
			if got.State != InFlight || got.RequestHash != hashA || got.ResourceID != "res_old" || !got.LockExpires.Equal(t0.Add(DefaultLock)) {
				t.Errorf("stored %+v; want in flight, hash %s, res_old, lock %v", got, hashA, t0.Add(DefaultLock))
			}
			if st.takeOverWins != 1 {
				t.Errorf("TakeOver won %d times; want 1", st.takeOverWins)
			}
		})
	}
}

func TestBeginWaitsThenInUse(t *testing.T) {
	k, st, clk := newKeeper()
	held := record(InFlight, hashA, "res_old", t0.Add(DefaultLock))
	st.set(held)
	// Each poll takes 100ms of fake time, so the one-second wait ends after
	// about ten polls while the 30s lock is still live.
	st.onGet = func(int) { clk.Advance(100 * time.Millisecond) }
	claim, replay, err := k.Begin(context.Background(), scope, hashA)
	if claim != nil || replay != nil {
		t.Fatalf("Begin = %v, %v; want neither claim nor replay", claim, replay)
	}
	wantCode(t, err, errcode.IdempotencyKeyInUse)
	if st.gets < 9 || st.gets > 11 {
		t.Errorf("Get called %d times; want about 10 (one per poll over the wait)", st.gets)
	}
	if !clk.Now().Before(t0.Add(DefaultLock)) {
		t.Errorf("clock at %v; the test meant to end before the lock at %v", clk.Now(), t0.Add(DefaultLock))
	}
	if got := st.stored(); !equalRecord(got, held) {
		t.Errorf("stored record changed to %+v; want %+v", got, held)
	}
}

func TestBeginWaitEndsWhenFirstCompletes(t *testing.T) {
	k, st, clk := newKeeper()
	st.set(record(InFlight, hashA, "res_old", t0.Add(DefaultLock)))
	st.onGet = func(n int) {
		clk.Advance(100 * time.Millisecond)
		if n == 3 {
			done := record(Completed, hashA, "res_old", t0.Add(DefaultLock))
			done.Status, done.Body = 200, []byte(`{"lead_id":"res_old"}`)
			st.set(done)
		}
	}
	claim, replay, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || claim != nil || replay == nil {
		t.Fatalf("Begin = %v, %v, %v; want a replay", claim, replay, err)
	}
	if replay.Status != 200 || string(replay.Body) != `{"lead_id":"res_old"}` {
		t.Errorf("replay = %d %s; want the first request's 200", replay.Status, replay.Body)
	}
	if st.gets != 3 {
		t.Errorf("Get called %d times; want 3 (stop polling once completed)", st.gets)
	}
}

func TestBeginWaitEndsWhenFirstFails(t *testing.T) {
	k, st, clk := newKeeper()
	st.set(record(InFlight, hashA, "res_old", t0.Add(DefaultLock)))
	st.onGet = func(n int) {
		clk.Advance(100 * time.Millisecond)
		if n == 2 {
			st.set(record(Failed, hashA, "res_old", t0.Add(DefaultLock)))
		}
	}
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || claim == nil {
		t.Fatalf("Begin = %v, _, %v; want a claim", claim, err)
	}
	if got := claim.ResourceID(); got != "res_old" {
		t.Errorf("ResourceID() = %q; want res_old", got)
	}
}

func TestBeginWaitEndsWhenLockExpires(t *testing.T) {
	k, st, clk := newKeeper()
	k.Wait = time.Minute
	lock := t0.Add(500 * time.Millisecond)
	st.set(record(InFlight, hashA, "res_old", lock))
	st.onGet = func(int) { clk.Advance(100 * time.Millisecond) }
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || claim == nil {
		t.Fatalf("Begin = %v, _, %v; want a claim after the lock expired", claim, err)
	}
	if got := claim.ResourceID(); got != "res_old" {
		t.Errorf("ResourceID() = %q; want res_old", got)
	}
	if st.gets != 5 {
		t.Errorf("Get called %d times; want 5 (until the 500ms lock expired)", st.gets)
	}
}

func TestBeginTakeOverLosesRace(t *testing.T) {
	t.Run("winner completes: replay", func(t *testing.T) {
		k, st, _ := newKeeper()
		st.set(record(Failed, hashA, "res_old", t0))
		// Another request takes the failed key over and completes it just
		// before this one's conditional write.
		st.onTakeOver = func(n int) {
			if n == 1 {
				done := record(Completed, hashA, "res_old", t0.Add(DefaultLock))
				done.Status, done.Body = 200, []byte(`{"winner":true}`)
				st.set(done)
			}
		}
		claim, replay, err := k.Begin(context.Background(), scope, hashA)
		if err != nil || claim != nil || replay == nil {
			t.Fatalf("Begin = %v, %v, %v; want the winner's replay", claim, replay, err)
		}
		if string(replay.Body) != `{"winner":true}` {
			t.Errorf("replay body %s; want the winner's", replay.Body)
		}
		if st.takeOvers != 1 || st.creates != 2 {
			t.Errorf("TakeOver %d, Create %d calls; want 1 and 2 (lost, then read again)", st.takeOvers, st.creates)
		}
	})
	t.Run("winner fails again: second take-over", func(t *testing.T) {
		k, st, _ := newKeeper()
		st.set(record(Failed, hashA, "res_old", t0))
		st.onTakeOver = func(n int) {
			if n == 1 {
				st.set(record(Failed, hashA, "res_old", t0.Add(time.Second)))
			}
		}
		claim, _, err := k.Begin(context.Background(), scope, hashA)
		if err != nil || claim == nil {
			t.Fatalf("Begin = %v, _, %v; want a claim", claim, err)
		}
		if got := claim.ResourceID(); got != "res_old" {
			t.Errorf("ResourceID() = %q; want res_old", got)
		}
		if st.takeOvers != 2 || st.takeOverWins != 1 {
			t.Errorf("TakeOver called %d times, won %d; want 2 and 1", st.takeOvers, st.takeOverWins)
		}
	})
	t.Run("always loses: bounded, then in use", func(t *testing.T) {
		k, st, _ := newKeeper()
		st.set(record(Failed, hashA, "res_old", t0))
		st.onTakeOver = func(n int) {
			// Every attempt finds a fresh failed record from yet another request.
			st.set(record(Failed, hashA, "res_old", t0.Add(time.Duration(n)*time.Second)))
		}
		_, _, err := k.Begin(context.Background(), scope, hashA)
		wantCode(t, err, errcode.IdempotencyKeyInUse)
		if st.takeOvers != 100 {
			t.Errorf("TakeOver called %d times; want 100 (the attempt bound)", st.takeOvers)
		}
	})
}

func TestBeginRecreatesExpiredRecord(t *testing.T) {
	k, st, clk := newKeeper()
	old := record(Completed, hashB, "res_old", t0)
	st.set(old)
	clk.Advance(Retention)
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || claim == nil {
		t.Fatalf("Begin = %v, _, %v; want a claim once the old record is past retention", claim, err)
	}
	if got := claim.ResourceID(); got != "res_1" {
		t.Errorf("ResourceID() = %q; want a new id res_1", got)
	}
}

func TestBeginStorageErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name  string
		setup func(st *memStore, clk *fakeClock)
	}{
		{"create fails", func(st *memStore, _ *fakeClock) { st.err = boom }},
		{"take-over fails", func(st *memStore, _ *fakeClock) {
			st.set(record(Failed, hashA, "res_old", t0))
			st.onTakeOver = func(int) { st.err = boom }
		}},
		{"get fails", func(st *memStore, _ *fakeClock) {
			st.set(record(InFlight, hashA, "res_old", t0.Add(DefaultLock)))
			st.onGet = func(int) { st.err = boom }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, st, clk := newKeeper()
			tt.setup(st, clk)
			claim, replay, err := k.Begin(context.Background(), scope, hashA)
			if claim != nil || replay != nil || !errors.Is(err, boom) {
				t.Fatalf("Begin = %v, %v, %v; want an error wrapping boom", claim, replay, err)
			}
			if errcode.As(err) != nil {
				t.Errorf("Begin error %v carries an errcode; want a plain wrapped storage error", err)
			}
		})
	}
}

func TestBeginWaitHonoursContext(t *testing.T) {
	k, st, _ := newKeeper()
	k.Poll = time.Hour // only cancellation can end the wait
	st.set(record(InFlight, hashA, "res_old", t0.Add(DefaultLock)))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := k.Begin(ctx, scope, hashA)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin error = %v; want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Begin returned after %v; want soon after cancellation", d)
	}
}

func TestClaimCompletionThenFinishDoesNotWrite(t *testing.T) {
	k, st, _ := newKeeper()
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil {
		t.Fatal(err)
	}
	rec := claim.Completion(201, []byte(`{"ok":true}`))
	if rec.State != Completed || rec.Status != 201 || string(rec.Body) != `{"ok":true}` ||
		rec.ResourceID != "res_1" || rec.RequestHash != hashA || rec.Scope != scope {
		t.Errorf("Completion = %+v; want completed 201 {\"ok\":true} for res_1, %s", rec, hashA)
	}
	if err := claim.Finish(context.Background(), 500, []byte("other")); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if len(st.completed) != 0 {
		t.Errorf("Finish after Completion wrote %d records; want 0", len(st.completed))
	}
}

func TestClaimFinishWrites(t *testing.T) {
	k, st, _ := newKeeper()
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if err := claim.Finish(context.Background(), 200, []byte(`{"lead_id":"res_1"}`)); err != nil {
		t.Fatalf("Finish: %v", err)
	}
	if len(st.completed) != 1 {
		t.Fatalf("Finish wrote %d records; want 1", len(st.completed))
	}
	got := st.completed[0]
	if got.State != Completed || got.Status != 200 || string(got.Body) != `{"lead_id":"res_1"}` || got.ResourceID != "res_1" {
		t.Errorf("completed %+v; want completed 200 for res_1", got)
	}
	// A second Finish is a no-op.
	if err := claim.Finish(context.Background(), 200, nil); err != nil || len(st.completed) != 1 {
		t.Errorf("second Finish = %v with %d writes; want nil and 1", err, len(st.completed))
	}
	// The stored response now replays.
	_, replay, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || replay == nil || replay.Status != 200 {
		t.Errorf("Begin after Finish = _, %+v, %v; want a 200 replay", replay, err)
	}
}

func TestClaimFinishError(t *testing.T) {
	k, st, _ := newKeeper()
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	st.err = boom
	if err := claim.Finish(context.Background(), 200, nil); !errors.Is(err, boom) {
		t.Errorf("Finish = %v; want an error wrapping boom", err)
	}
}

// TestClaimAbandonKeepsRequestValues: Abandon releases the key with the
// request context's values (request id, trace for the store's logs) even
// when that context is already cancelled, and bounds the release itself.
func TestClaimAbandonKeepsRequestValues(t *testing.T) {
	type key struct{}
	k, st, _ := newKeeper()
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "req_1"))
	claim, _, err := k.Begin(ctx, scope, hashA)
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the client went away: the handler fails with a 5xx
	if err := claim.Abandon(ctx); err != nil {
		t.Fatalf("Abandon: %v", err)
	}
	got := st.releaseCtx
	if got == nil {
		t.Fatal("Abandon did not call Release")
	}
	if v, _ := got.Value(key{}).(string); v != "req_1" {
		t.Errorf("Release context value = %q; want the request's %q", v, "req_1")
	}
	if st.releaseCtxErr != nil {
		t.Errorf("Release context Err() = %v; want a context not cancelled with the request", st.releaseCtxErr)
	}
	if _, ok := got.Deadline(); !ok {
		t.Error("Release context has no deadline; want the release bounded")
	}
}

func TestClaimAbandonReleases(t *testing.T) {
	k, st, _ := newKeeper()
	claim, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil {
		t.Fatal(err)
	}
	if err := claim.Abandon(context.Background()); err != nil {
		t.Fatalf("Abandon: %v", err)
	}
	if len(st.released) != 1 {
		t.Fatalf("Abandon released %d records; want 1", len(st.released))
	}
	if got := st.released[0]; got.ResourceID != "res_1" || got.RequestHash != hashA || got.Scope != scope {
		t.Errorf("released %+v; want the claim's record", got)
	}
	// The key is free again and keeps its resource id.
	claim2, _, err := k.Begin(context.Background(), scope, hashA)
	if err != nil || claim2 == nil || claim2.ResourceID() != "res_1" {
		t.Errorf("Begin after Abandon = %v, _, %v; want a claim on res_1", claim2, err)
	}
}

func equalRecord(a, b Record) bool {
	return a.Scope == b.Scope && a.State == b.State && a.RequestHash == b.RequestHash &&
		a.ResourceID == b.ResourceID && a.LockExpires.Equal(b.LockExpires) && a.Status == b.Status &&
		string(a.Body) == string(b.Body) && a.CreatedAt.Equal(b.CreatedAt) && a.Expires.Equal(b.Expires)
}

// creation is a Creation double: Respond numbers its answers, so a replay
// of a stored response is told apart from a fresh one, and Exists answers
// from written.
type creation struct {
	written  map[string]bool
	existErr error
	responds int
	checked  []string
}

func (c *creation) Creation() Creation {
	return Creation{
		Respond: func(id string) (int, []byte) {
			c.responds++
			return 201, []byte(fmt.Sprintf(`{"lead_id":%q,"answer":%d}`, id, c.responds))
		},
		Exists: func(_ context.Context, id string) (bool, error) {
			c.checked = append(c.checked, id)
			return c.written[id], c.existErr
		},
	}
}

// storedAnswer is the response an earlier request stored with its claim.
const storedAnswer = `{"lead_id":"res_old","answer":0}`

func createRecord(state State, hash string, lock time.Time) Record {
	rec := record(state, hash, "res_old", lock)
	rec.Status, rec.Body = 201, []byte(storedAnswer)
	return rec
}

func TestBeginCreate(t *testing.T) {
	live, expired := t0.Add(DefaultLock), t0.Add(-time.Second)
	tests := []struct {
		name    string
		held    *Record // nil: no record yet
		written bool    // res_old exists
		// want one of: a claim on wantClaimID, a replay of storedAnswer, or wantCode.
		wantClaimID string
		wantReplay  bool
		wantCode    errcode.Code
		wantChecked int // Exists calls
	}{
		{name: "fresh key: claim with its answer stored", wantClaimID: "res_1"},
		{name: "failed, resource written: replay, no take-over", held: ptr(createRecord(Failed, hashA, live)),
			written: true, wantReplay: true, wantChecked: 1},
		{name: "failed with an expired lock, resource written: replay", held: ptr(createRecord(Failed, hashA, expired)),
			written: true, wantReplay: true, wantChecked: 1},
		{name: "failed, resource missing: take over the pinned id", held: ptr(createRecord(Failed, hashA, live)),
			wantClaimID: "res_old", wantChecked: 1},
		{name: "in flight, lock expired, resource written: replay", held: ptr(createRecord(InFlight, hashA, expired)),
			written: true, wantReplay: true, wantChecked: 1},
		{name: "in flight, lock expired, resource missing: take over", held: ptr(createRecord(InFlight, hashA, expired)),
			wantClaimID: "res_old", wantChecked: 1},
		{name: "in flight, live lock, resource written: replay", held: ptr(createRecord(InFlight, hashA, live)),
			written: true, wantReplay: true, wantChecked: 1},
		{name: "completed: replay without a check", held: ptr(createRecord(Completed, hashA, live)),
			written: true, wantReplay: true},
		{name: "failed with another body, resource written: reused", held: ptr(createRecord(Failed, hashB, live)),
			written: true, wantCode: errcode.IdempotencyKeyReused},
		{name: "failed with another body, resource missing: reused", held: ptr(createRecord(Failed, hashB, expired)),
			wantCode: errcode.IdempotencyKeyReused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, st, _ := newKeeper()
			if tt.held != nil {
				st.set(*tt.held)
			}
			c := &creation{written: map[string]bool{"res_old": tt.written}}
			claim, replay, err := k.BeginCreate(context.Background(), scope, hashA, c.Creation())
			switch {
			case tt.wantCode != "":
				wantCode(t, err, tt.wantCode)
				if tt.held != nil && !equalRecord(st.stored(), *tt.held) {
					t.Errorf("stored record changed to %+v; want %+v", st.stored(), *tt.held)
				}
			case tt.wantReplay:
				if err != nil || claim != nil || replay == nil {
					t.Fatalf("BeginCreate = %v, %v, %v; want a replay", claim, replay, err)
				}
				if replay.Status != 201 || string(replay.Body) != storedAnswer {
					t.Errorf("replay = %d %s; want the stored 201 %s", replay.Status, replay.Body, storedAnswer)
				}
				if st.takeOvers != 0 {
					t.Errorf("TakeOver called %d times; want 0 (the resource exists)", st.takeOvers)
				}
			default:
				if err != nil || replay != nil || claim == nil {
					t.Fatalf("BeginCreate = %v, %v, %v; want a claim", claim, replay, err)
				}
				if got := claim.ResourceID(); got != tt.wantClaimID {
					t.Errorf("ResourceID() = %q; want %q", got, tt.wantClaimID)
				}
				got := st.stored()
				wantBody := fmt.Sprintf(`{"lead_id":%q,"answer":%d}`, tt.wantClaimID, c.responds)
				if got.State != InFlight || got.ResourceID != tt.wantClaimID || got.Status != 201 || string(got.Body) != wantBody {
					t.Errorf("stored %+v; want in flight on %s holding 201 %s", got, tt.wantClaimID, wantBody)
				}
				// The claim is complete once the resource is written.
				if err := claim.Finish(context.Background(), 500, nil); err != nil || len(st.completed) != 0 {
					t.Errorf("Finish = %v with %d writes; want nil and 0", err, len(st.completed))
				}
			}
			if len(c.checked) != tt.wantChecked {
				t.Errorf("Exists called %d times (%v); want %d", len(c.checked), c.checked, tt.wantChecked)
			}
			for _, id := range c.checked {
				if id != "res_old" {
					t.Errorf("Exists(%q); want only the pinned res_old", id)
				}
			}
		})
	}
}

func TestBeginCreateExistsError(t *testing.T) {
	boom := errors.New("boom")
	for _, state := range []State{Failed, InFlight} {
		t.Run(string(state), func(t *testing.T) {
			k, st, _ := newKeeper()
			held := createRecord(state, hashA, t0.Add(-time.Second))
			st.set(held)
			c := &creation{existErr: boom}
			claim, replay, err := k.BeginCreate(context.Background(), scope, hashA, c.Creation())
			if claim != nil || replay != nil || !errors.Is(err, boom) {
				t.Fatalf("BeginCreate = %v, %v, %v; want an error wrapping boom", claim, replay, err)
			}
			if st.takeOvers != 0 {
				t.Errorf("TakeOver called %d times; want 0 (existence unknown)", st.takeOvers)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
