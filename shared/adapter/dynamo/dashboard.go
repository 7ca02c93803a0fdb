package dynamo

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/audit"
	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/dashboard"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

type personItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	GSI1PK    string    `dynamodbav:"gsi1pk"`
	GSI1SK    string    `dynamodbav:"gsi1sk"`
	ID        string    `dynamodbav:"person_id"`
	PartnerID string    `dynamodbav:"partner_id"`
	Email     string    `dynamodbav:"email"`
	Role      string    `dynamodbav:"role"`
	CreatedAt time.Time `dynamodbav:"created_at"`
}

func newPersonItem(p dashboard.Person) personItem {
	pk, sk := personKey(p.ID)
	g1pk, g1sk := peopleIndex(p.PartnerID, p.CreatedAt.UTC().Format(time.RFC3339Nano), p.ID)
	return personItem{PK: pk, SK: sk, GSI1PK: g1pk, GSI1SK: g1sk, ID: p.ID, PartnerID: p.PartnerID,
		Email: p.Email, Role: string(p.Role), CreatedAt: p.CreatedAt.UTC()}
}

func (it personItem) person() (dashboard.Person, error) {
	return dashboard.Person{ID: it.ID, PartnerID: it.PartnerID, Email: it.Email, Role: dashboard.Role(it.Role), CreatedAt: it.CreatedAt}, nil
}

type passkeyItem struct {
	PK         string    `dynamodbav:"pk"`
	SK         string    `dynamodbav:"sk"`
	ID         []byte    `dynamodbav:"credential_id"`
	PersonID   string    `dynamodbav:"person_id"`
	PublicKey  []byte    `dynamodbav:"public_key"`
	SignCount  uint32    `dynamodbav:"sign_count"`
	Transports []string  `dynamodbav:"transports"`
	Record     []byte    `dynamodbav:"record"`
	CreatedAt  time.Time `dynamodbav:"created_at"`
	LastUsedAt time.Time `dynamodbav:"last_used_at"`
}

func newPasskeyItem(c dashboard.Credential) passkeyItem {
	pk, sk := passkeyKey(c.PersonID, base64.RawURLEncoding.EncodeToString(c.ID))
	return passkeyItem{PK: pk, SK: sk, ID: c.ID, PersonID: c.PersonID, PublicKey: c.PublicKey, SignCount: c.SignCount,
		Transports: c.Transports, Record: c.Record, CreatedAt: c.CreatedAt.UTC(), LastUsedAt: c.LastUsedAt.UTC()}
}

func (it passkeyItem) credential() (dashboard.Credential, error) {
	return dashboard.Credential{ID: it.ID, PersonID: it.PersonID, PublicKey: it.PublicKey, SignCount: it.SignCount,
		Transports: it.Transports, Record: it.Record, CreatedAt: it.CreatedAt, LastUsedAt: it.LastUsedAt}, nil
}

type invitationItem struct {
	PK        string    `dynamodbav:"pk"`
	SK        string    `dynamodbav:"sk"`
	PartnerID string    `dynamodbav:"partner_id"`
	Email     string    `dynamodbav:"email"`
	Role      string    `dynamodbav:"role"`
	CreatedBy string    `dynamodbav:"created_by"`
	CreatedAt time.Time `dynamodbav:"created_at"`
	Expires   int64     `dynamodbav:"expires_at"`
	UsedAt    string    `dynamodbav:"used_at,omitempty"`
}

type sessionItem struct {
	PK         string    `dynamodbav:"pk"`
	SK         string    `dynamodbav:"sk"`
	PersonID   string    `dynamodbav:"person_id"`
	PartnerID  string    `dynamodbav:"partner_id"`
	Mode       string    `dynamodbav:"mode"`
	CreatedAt  time.Time `dynamodbav:"created_at"`
	LastSeen   time.Time `dynamodbav:"last_seen"`
	VerifiedAt time.Time `dynamodbav:"verified_at"`
	Expires    int64     `dynamodbav:"expires_at"`
}

func newSessionItem(s dashboard.Session) sessionItem {
	pk, sk := sessionKey(s.Hash)
	return sessionItem{PK: pk, SK: sk, PersonID: s.PersonID, PartnerID: s.PartnerID, Mode: string(s.Mode),
		CreatedAt: s.CreatedAt.UTC(), LastSeen: s.LastSeen.UTC(), VerifiedAt: s.VerifiedAt.UTC(),
		Expires: s.CreatedAt.Add(dashboard.SessionAbsolute).Unix()}
}

// CreateInvitation stores inv (its token's hash only) and its audit entry,
// in one transaction.
func (s *Store) CreateInvitation(ctx context.Context, inv dashboard.Invitation, a audit.Entry) error {
	pk, sk := invitationKey(inv.Hash)
	put, err := s.putNew(invitationItem{PK: pk, SK: sk, PartnerID: inv.PartnerID, Email: inv.Email, Role: string(inv.Role),
		CreatedBy: inv.CreatedBy, CreatedAt: inv.CreatedAt.UTC(), Expires: inv.ExpiresAt.Unix()})
	if err != nil {
		return err
	}
	entry, err := s.auditPut(a)
	if err != nil {
		return err
	}
	return s.transact(ctx, "create invitation", put, entry)
}

// Invitation reads the invitation whose token hashes to hash; not_found
// when there is none, or it was used or expired by now.
func (s *Store) Invitation(ctx context.Context, hash string, now time.Time) (dashboard.Invitation, error) {
	pk, sk := invitationKey(hash)
	var it invitationItem
	if err := s.getItem(ctx, pk, sk, "invitation", &it); err != nil {
		return dashboard.Invitation{}, err
	}
	if it.UsedAt != "" || now.Unix() >= it.Expires {
		return dashboard.Invitation{}, notFound("invitation")
	}
	return dashboard.Invitation{Hash: hash, PartnerID: it.PartnerID, Email: it.Email, Role: dashboard.Role(it.Role),
		CreatedBy: it.CreatedBy, CreatedAt: it.CreatedAt, ExpiresAt: time.Unix(it.Expires, 0).UTC()}, nil
}

// AcceptInvitation marks the invitation used and creates its person, the
// first passkey, a session and the audit entry, in one transaction: an
// invitation used or expired meanwhile is not_found and nothing is
// written.
func (s *Store) AcceptInvitation(ctx context.Context, hash string, p dashboard.Person, c dashboard.Credential, ses dashboard.Session, a audit.Entry) error {
	pk, sk := invitationKey(hash)
	used := expression.Name("used_at")
	cond := expression.AttributeExists(expression.Name(table.PK)).And(expression.AttributeNotExists(used)).
		And(expression.Name(table.TTLAttribute).GreaterThan(expression.Value(ses.CreatedAt.Unix())))
	expr, err := expression.NewBuilder().WithCondition(cond).
		WithUpdate(expression.Set(used, expression.Value(ses.CreatedAt.UTC().Format(time.RFC3339Nano)))).Build()
	if err != nil {
		return fmt.Errorf("build invitation update: %w", err)
	}
	items := []types.TransactWriteItem{s.update(pk, sk, expr)}
	for _, item := range []any{newPersonItem(p), newPasskeyItem(c), newSessionItem(ses)} {
		put, err := s.putNew(item)
		if err != nil {
			return err
		}
		items = append(items, put)
	}
	put, err := s.auditPut(a)
	if err != nil {
		return err
	}
	items = append(items, put)
	err = s.transact(ctx, "accept invitation", items...)
	if e := errcode.As(err); e != nil && e.Code == errcode.Conflict {
		return notFound("invitation")
	}
	return err
}

// transact writes items in one transaction; a failed condition is
// conflict, any other failure upstream_failed.
func (s *Store) transact(ctx context.Context, what string, items ...types.TransactWriteItem) error {
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: capacity})
	if _, ok := errors.AsType[*types.TransactionCanceledException](err); ok {
		return changed(what)
	}
	if err != nil {
		return upstream(what, err)
	}
	return nil
}

// PutCeremony keeps a WebAuthn ceremony's state under the hash of its id
// until dashboard.CeremonyTTL after now.
func (s *Store) PutCeremony(ctx context.Context, hash string, data []byte, now time.Time) error {
	pk, sk := ceremonyKey(hash)
	av, err := attributevalue.MarshalMap(map[string]any{table.PK: pk, table.SK: sk, "data": data,
		table.TTLAttribute: now.Add(dashboard.CeremonyTTL).Unix()})
	if err != nil {
		return fmt.Errorf("marshal ceremony: %w", err)
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av, ReturnConsumedCapacity: capacity}); err != nil {
		return upstream("put ceremony", err)
	}
	return nil
}

// TakeCeremony deletes and returns a ceremony's state, so it is used
// once; passkey_failed when there is none or it expired by now.
func (s *Store) TakeCeremony(ctx context.Context, hash string, now time.Time) ([]byte, error) {
	pk, sk := ceremonyKey(hash)
	res, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: keyAV(pk, sk),
		ReturnValues: types.ReturnValueAllOld, ReturnConsumedCapacity: capacity})
	if err != nil {
		return nil, upstream("take ceremony", err)
	}
	var it struct {
		Data    []byte `dynamodbav:"data"`
		Expires int64  `dynamodbav:"expires_at"`
	}
	if err := attributevalue.UnmarshalMap(res.Attributes, &it); err != nil {
		return nil, fmt.Errorf("unmarshal ceremony: %w", err)
	}
	if len(res.Attributes) == 0 || now.Unix() >= it.Expires {
		return nil, errcode.New(errcode.PasskeyFailed, "This passkey request expired or was already used; start again.")
	}
	return it.Data, nil
}

// Person reads a person; not_found when there is none (removed).
func (s *Store) Person(ctx context.Context, id string) (dashboard.Person, error) {
	pk, sk := personKey(id)
	var it personItem
	if err := s.getItem(ctx, pk, sk, "person", &it); err != nil {
		return dashboard.Person{}, err
	}
	return it.person()
}

// People lists a partner's people, oldest first.
func (s *Store) People(ctx context.Context, partnerID string) ([]dashboard.Person, error) {
	g1pk, _ := peopleIndex(partnerID, "", "")
	kc := expression.Key(table.GSI1.PK).Equal(expression.Value(g1pk))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build people query: %w", err)
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(table.GSI1.Name), KeyConditionExpression: expr.KeyCondition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}, "people", personItem.person)
}

// Passkeys lists a person's passkeys.
func (s *Store) Passkeys(ctx context.Context, personID string) ([]dashboard.Credential, error) {
	pk, _ := personKey(personID)
	kc := expression.Key(table.PK).Equal(expression.Value(pk)).And(expression.Key(table.SK).BeginsWith(passkeySKPrefix))
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, fmt.Errorf("build passkeys query: %w", err)
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: expr.KeyCondition(), ConsistentRead: aws.Bool(true),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}, "passkeys", passkeyItem.credential)
}

// AddPasskey stores a further passkey of a person with its audit entry.
func (s *Store) AddPasskey(ctx context.Context, c dashboard.Credential, a audit.Entry) error {
	put, err := s.putNew(newPasskeyItem(c))
	if err != nil {
		return err
	}
	entry, err := s.auditPut(a)
	if err != nil {
		return err
	}
	return s.transact(ctx, "add passkey", put, entry)
}

// SavePasskey writes a passkey back after a sign-in (its sign count and
// last use).
func (s *Store) SavePasskey(ctx context.Context, c dashboard.Credential) error {
	av, err := attributevalue.MarshalMap(newPasskeyItem(c))
	if err != nil {
		return fmt.Errorf("marshal passkey: %w", err)
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	if err != nil {
		return fmt.Errorf("build passkey condition: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: av, ReturnConsumedCapacity: capacity,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()})
	if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return notFound("passkey")
	}
	if err != nil {
		return upstream("save passkey", err)
	}
	return nil
}

// RemovePerson deletes a person and their passkeys (their sessions then
// find no person and end) and writes the audit entry.
func (s *Store) RemovePerson(ctx context.Context, personID string, a audit.Entry) error {
	keys, err := s.Passkeys(ctx, personID)
	if err != nil {
		return err
	}
	pk, sk := personKey(personID)
	items := []types.TransactWriteItem{{Delete: &types.Delete{TableName: &s.table, Key: keyAV(pk, sk)}}}
	for _, c := range keys {
		kpk, ksk := passkeyKey(personID, base64.RawURLEncoding.EncodeToString(c.ID))
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: keyAV(kpk, ksk)}})
	}
	entry, err := s.auditPut(a)
	if err != nil {
		return err
	}
	return s.transact(ctx, "remove person", append(items, entry)...)
}

// CreateSession stores a new session (its hash only).
func (s *Store) CreateSession(ctx context.Context, ses dashboard.Session) error {
	put, err := s.putNew(newSessionItem(ses))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: put.Put.Item,
		ConditionExpression: put.Put.ConditionExpression, ExpressionAttributeNames: put.Put.ExpressionAttributeNames,
		ReturnConsumedCapacity: capacity})
	if err != nil {
		return upstream("create session", err)
	}
	return nil
}

// DashboardSession reads a session and its person: not_signed_in when
// either is gone. Whether it is still live is the caller's to decide.
func (s *Store) DashboardSession(ctx context.Context, hash string) (dashboard.Session, dashboard.Person, error) {
	pk, sk := sessionKey(hash)
	var it sessionItem
	err := s.getItem(ctx, pk, sk, "session", &it)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return dashboard.Session{}, dashboard.Person{}, signedOut()
	}
	if err != nil {
		return dashboard.Session{}, dashboard.Person{}, err
	}
	p, err := s.Person(ctx, it.PersonID)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return dashboard.Session{}, dashboard.Person{}, signedOut()
	}
	if err != nil {
		return dashboard.Session{}, dashboard.Person{}, err
	}
	return dashboard.Session{Hash: hash, PersonID: it.PersonID, PartnerID: it.PartnerID, Mode: auth.Mode(it.Mode),
		CreatedAt: it.CreatedAt, LastSeen: it.LastSeen, VerifiedAt: it.VerifiedAt}, p, nil
}

func signedOut() error {
	return errcode.New(errcode.NotSignedIn, "You are not signed in, or your session ended; sign in with your passkey.")
}

// TouchDashboardSession records a session's use at now.
func (s *Store) TouchDashboardSession(ctx context.Context, hash string, now time.Time) error {
	return s.setSession(ctx, hash, "touch session", expression.Set(expression.Name("last_seen"), expression.Value(now.UTC())))
}

// SetSessionMode switches the data a session looks at (test or live).
func (s *Store) SetSessionMode(ctx context.Context, hash string, mode auth.Mode) error {
	return s.setSession(ctx, hash, "set session mode", expression.Set(expression.Name("mode"), expression.Value(string(mode))))
}

// VerifySession records that the session's person proved presence at now.
func (s *Store) VerifySession(ctx context.Context, hash string, now time.Time) error {
	return s.setSession(ctx, hash, "verify session", expression.Set(expression.Name("verified_at"), expression.Value(now.UTC())))
}

func (s *Store) setSession(ctx context.Context, hash, what string, upd expression.UpdateBuilder) error {
	pk, sk := sessionKey(hash)
	expr, err := expression.NewBuilder().WithUpdate(upd).
		WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
	if err != nil {
		return fmt.Errorf("build %s: %w", what, err)
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity})
	if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return signedOut()
	}
	if err != nil {
		return upstream(what, err)
	}
	return nil
}

// DeleteSession ends a session (sign-out); ending one already gone is no
// error.
func (s *Store) DeleteSession(ctx context.Context, hash string) error {
	pk, sk := sessionKey(hash)
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: keyAV(pk, sk), ReturnConsumedCapacity: capacity}); err != nil {
		return upstream("delete session", err)
	}
	return nil
}

// CountAttempt counts one sign-in attempt under key in now's minute
// window, in one conditional UpdateItem that creates the counter (kept a
// few minutes by TTL). At limit it answers Admitted false and counts
// nothing.
func (s *Store) CountAttempt(ctx context.Context, key string, now time.Time, limit int) (auth.Usage, error) {
	w := auth.Window(now)
	pk, sk := signInAttemptKey(key, w)
	n := expression.Name("n")
	expr, err := expression.NewBuilder().
		WithUpdate(expression.Add(n, expression.Value(1)).Set(expression.Name(table.TTLAttribute), expression.Value(now.Add(5*time.Minute).Unix()))).
		WithCondition(expression.Or(expression.AttributeNotExists(n), n.LessThan(expression.Value(limit)))).Build()
	if err != nil {
		return auth.Usage{}, fmt.Errorf("build attempt count: %w", err)
	}
	res, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(), ReturnValues: types.ReturnValueUpdatedNew,
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnConsumedCapacity: capacity})
	u := auth.Usage{Limit: limit, Reset: auth.WindowReset(w)}
	if _, ok := errors.AsType[*types.ConditionalCheckFailedException](err); ok {
		return u, nil
	}
	if err != nil {
		return auth.Usage{}, upstream("count sign-in attempt", err)
	}
	var c struct {
		N int `dynamodbav:"n"`
	}
	if err := attributevalue.UnmarshalMap(res.Attributes, &c); err != nil {
		return auth.Usage{}, fmt.Errorf("unmarshal attempt count: %w", err)
	}
	u.Remaining, u.Admitted = max(limit-c.N, 0), true
	return u, nil
}
