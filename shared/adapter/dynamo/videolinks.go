package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/auth"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/videolink"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// Video links (shared/domain/videolink). A link is three kinds of item:
//
//   - the grant, in its survey's partition (VGRANT#<grant_id>): the audit
//     record (label, created, expires, revoked);
//   - the token's lookup record (VIEW#<sha256 of the token> / VIEW): from
//     the token to the tenant, survey and grant, with the times of the
//     link's recent opens (at most videolink.OpensPerHour, none older than
//     videolink.OpenWindow when written);
//   - the survey item's live set (video_links, a list of
//     videolink.Entry strings) and its version (video_version), which every
//     mint and revoke moves under a condition on the version read, so that
//     concurrent mints and revokes of one survey are ordered and none is
//     lost;
//
// and each open is an item of the survey's partition
// (VOPEN#<time>#<grant_id>#<request id>), written in the same transaction
// that counts it.
const (
	attrLinks        = "video_links"
	attrLinksVersion = "video_version"
	attrOpens        = "ov_opens"
	attrOpensVersion = "ov_version"
	grantSKPrefix    = "VGRANT#"
	openSKPrefix     = "VOPEN#"
	// viewRetention is how long a link's lookup record outlives the link:
	// an expired link answers 410 (not 404) for this long, then DynamoDB's
	// TTL deletes the record. The clips themselves expire after 90 days.
	viewRetention = 90 * 24 * time.Hour
)

// ErrLinkClosed is the cause of OpenVideoLink's error when the link is no
// longer in its survey's live set (revoked, or the survey is gone). It is
// videolink.ErrClosed, so the feature tests for it without the store.
var ErrLinkClosed = videolink.ErrClosed

func grantKey(t auth.Tenant, surveyID, grantID string) (pk, sk string) {
	pk, _ = surveyKey(t, surveyID)
	return pk, grantSKPrefix + grantID
}

// viewTokenKey is a video link's lookup record, keyed by the token's
// SHA-256, never by the token itself.
func viewTokenKey(tokenHash string) (pk, sk string) {
	return table.ViewTokenPrefix + tokenHash, "VIEW"
}

// openKey is one open of a link. The request id keeps two opens of the
// same nanosecond apart.
func openKey(t auth.Tenant, surveyID string, at time.Time, grantID, requestID string) (pk, sk string) {
	pk, _ = surveyKey(t, surveyID)
	return pk, openSKPrefix + lead.FormatTime(at) + "#" + grantID + "#" + requestID
}

// surveyRefKey is a survey's id record: from the id to its tenant.
func surveyRefKey(surveyID string) (pk, sk string) {
	return table.SurveyRefPrefix + surveyID, "SURVEYID"
}

type grantItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	GrantID   string `dynamodbav:"grant_id"`
	SurveyID  string `dynamodbav:"survey_id"`
	Label     string `dynamodbav:"label,omitempty"`
	TokenHash string `dynamodbav:"token_hash"`
	CreatedAt string `dynamodbav:"created_at"`
	LinkUntil string `dynamodbav:"link_expires_at"`
	RevokedAt string `dynamodbav:"revoked_at,omitempty"`
}

func (it grantItem) grant() (videolink.Grant, error) {
	g := videolink.Grant{ID: it.GrantID, SurveyID: it.SurveyID, Label: it.Label, TokenHash: it.TokenHash}
	var err error
	if g.CreatedAt, err = parseTime(it.PK, "created_at", it.CreatedAt); err != nil {
		return videolink.Grant{}, err
	}
	if g.ExpiresAt, err = parseTime(it.PK, "link_expires_at", it.LinkUntil); err != nil {
		return videolink.Grant{}, err
	}
	if it.RevokedAt != "" {
		if g.RevokedAt, err = parseTime(it.PK, "revoked_at", it.RevokedAt); err != nil {
			return videolink.Grant{}, err
		}
	}
	return g, nil
}

type viewItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	PartnerID string `dynamodbav:"partner_id"`
	Mode      string `dynamodbav:"mode"`
	SurveyID  string `dynamodbav:"survey_id"`
	GrantID   string `dynamodbav:"grant_id"`
	LinkUntil int64  `dynamodbav:"link_expires_at"` // epoch seconds
	ExpiresAt int64  `dynamodbav:"expires_at"`      // TTL: LinkUntil + viewRetention
	// The link's recent opens (epoch nanoseconds, oldest first; see
	// OpenVideoLink) and their version, which each counted open moves.
	RecentOpens  []int64 `dynamodbav:"ov_opens,omitempty"`
	OpensVersion int64   `dynamodbav:"ov_version,omitempty"`
}

func (it viewItem) recentOpens() []time.Time {
	out := make([]time.Time, 0, len(it.RecentOpens))
	for _, ns := range it.RecentOpens {
		out = append(out, time.Unix(0, ns).UTC())
	}
	return out
}

type openItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	GrantID   string `dynamodbav:"grant_id"`
	At        string `dynamodbav:"at"`
	UserAgent string `dynamodbav:"user_agent,omitempty"`
	Client    string `dynamodbav:"client,omitempty"`
}

type surveyRefItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Type      string `dynamodbav:"type"`
	PartnerID string `dynamodbav:"partner_id"`
	Mode      string `dynamodbav:"mode"`
	LeadID    string `dynamodbav:"lead_id"`
	SurveyID  string `dynamodbav:"survey_id"`
}

func newSurveyRefItem(t auth.Tenant, surveyID, leadID string) surveyRefItem {
	pk, sk := surveyRefKey(surveyID)
	return surveyRefItem{PK: pk, SK: sk, Type: "survey_ref", PartnerID: t.PartnerID, Mode: string(t.Mode), LeadID: leadID, SurveyID: surveyID}
}

// SurveyTenant returns the tenant and lead of the survey id, from its id
// record, for operators' tools: the API always knows the tenant from the
// key. Unknown survey → not_found; a failed read is upstream_failed.
func (s *Store) SurveyTenant(ctx context.Context, surveyID string) (auth.Tenant, string, error) {
	pk, sk := surveyRefKey(surveyID)
	var it surveyRefItem
	if err := s.getItem(ctx, pk, sk, "survey", &it); err != nil {
		return auth.Tenant{}, "", err
	}
	return auth.Tenant{PartnerID: it.PartnerID, Mode: auth.Mode(it.Mode)}, it.LeadID, nil
}

// linkSetItem is the survey item's live set, as VideoLinkSet reads it.
type linkSetItem struct {
	Links   []string `dynamodbav:"video_links"`
	Version int64    `dynamodbav:"video_version"`
}

// VideoLinkSet returns the live set of tenant t's survey id (strongly
// consistent): the entries as stored (expired ones included) and the
// version to condition a mint or a revoke on. Unknown survey (or another
// tenant's) → not_found; a failed read is upstream_failed.
func (s *Store) VideoLinkSet(ctx context.Context, t auth.Tenant, surveyID string) (videolink.Set, error) {
	pk, sk := surveyKey(t, surveyID)
	var it linkSetItem
	if err := s.getItem(ctx, pk, sk, "survey", &it); err != nil {
		return videolink.Set{}, err
	}
	set := videolink.Set{Version: it.Version}
	for _, raw := range it.Links {
		e, err := videolink.ParseEntry(raw)
		if err != nil {
			return videolink.Set{}, fmt.Errorf("survey %s: %w", surveyID, err)
		}
		set.Entries = append(set.Entries, e)
	}
	return set, nil
}

// setUpdate is the survey item's update to live set entries, conditioned
// on the survey existing and its set still being at version from.
func setUpdate(entries []videolink.Entry, from int64) (expression.Expression, error) {
	list := make([]string, 0, len(entries))
	for _, e := range entries {
		list = append(list, e.String())
	}
	version := expression.Name(attrLinksVersion)
	cond := expression.AttributeExists(expression.Name(table.PK))
	if from == 0 {
		cond = cond.And(expression.AttributeNotExists(version))
	} else {
		cond = cond.And(version.Equal(expression.Value(from)))
	}
	upd := expression.Set(expression.Name(attrLinks), expression.Value(list)).
		Set(version, expression.Value(from+1))
	return expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
}

// MintVideoLink stores grant g of tenant t's survey (with the lookup
// record of its token's hash, g.TokenHash) and adds it to the survey's
// live set, in one TransactWriteItems conditioned on the set still being
// set (its version): the new set is set's entries live at now, plus g's.
// The caller checks the limits (videolink.MaxLive, playable clips) on the
// set it read.
//
// Errors: unknown survey → not_found; the set changed since it was read →
// conflict wrapping ErrChanged (read it again and retry); a grant id or
// token hash already stored → conflict; any other failure →
// upstream_failed. On every error nothing was written.
func (s *Store) MintVideoLink(ctx context.Context, t auth.Tenant, g videolink.Grant, set videolink.Set, now time.Time) error {
	entries := append(set.Live(now), videolink.Entry{GrantID: g.ID, ExpiresAt: g.ExpiresAt})
	expr, err := setUpdate(entries, set.Version)
	if err != nil {
		return fmt.Errorf("build video link update: %w", err)
	}
	gpk, gsk := grantKey(t, g.SurveyID, g.ID)
	grant, err := s.putNew(grantItem{
		PK: gpk, SK: gsk, Type: "video_grant", GrantID: g.ID, SurveyID: g.SurveyID, Label: g.Label,
		TokenHash: g.TokenHash, CreatedAt: lead.FormatTime(g.CreatedAt), LinkUntil: lead.FormatTime(g.ExpiresAt),
	})
	if err != nil {
		return fmt.Errorf("mint video link: %w", err)
	}
	vpk, vsk := viewTokenKey(g.TokenHash)
	view, err := s.putNew(viewItem{
		PK: vpk, SK: vsk, Type: "video_link", PartnerID: t.PartnerID, Mode: string(t.Mode), SurveyID: g.SurveyID,
		GrantID: g.ID, LinkUntil: g.ExpiresAt.Unix(), ExpiresAt: g.ExpiresAt.Add(viewRetention).Unix(),
	})
	if err != nil {
		return fmt.Errorf("mint video link: %w", err)
	}
	pk, sk := surveyKey(t, g.SurveyID)
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{s.update(pk, sk, expr), grant, view}, ReturnConsumedCapacity: capacity,
	})
	if err == nil {
		return nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(0); failed {
		if len(old) == 0 {
			return notFound("survey")
		}
		return changed("survey's video links")
	}
	if tx.anyFailed(1, 3) {
		return errcode.New(errcode.Conflict, "That video link already exists; nothing was written.")
	}
	return tx.otherwise("survey's video links", "mint video link")
}

// RevokeVideoLinks closes every grant of set (tenant t's survey surveyID's
// live set, as read) in one TransactWriteItems: the survey's set empties,
// conditioned on its version still being set's, and each grant live at now
// gets revoked_at now. It returns how many grants were live and are now
// closed; entries already expired leave the set without a revoked_at. An
// empty set writes nothing and returns 0.
//
// Errors: unknown survey → not_found; the set changed since it was read
// (a concurrent mint or revoke) → conflict wrapping ErrChanged (read it
// again and retry); any other failure → upstream_failed. On every error
// nothing was written.
func (s *Store) RevokeVideoLinks(ctx context.Context, t auth.Tenant, surveyID string, set videolink.Set, now time.Time) (int, error) {
	if len(set.Entries) == 0 {
		return 0, nil
	}
	live := set.Live(now)
	if len(live) > videolink.MaxLive {
		return 0, fmt.Errorf("revoke video links of survey %s: %d live, over the %d one transaction holds", surveyID, len(live), videolink.MaxLive)
	}
	expr, err := setUpdate(nil, set.Version)
	if err != nil {
		return 0, fmt.Errorf("build video link update: %w", err)
	}
	pk, sk := surveyKey(t, surveyID)
	items := []types.TransactWriteItem{s.update(pk, sk, expr)}
	at := lead.FormatTime(now)
	for _, e := range live {
		gexpr, err := expression.NewBuilder().
			WithUpdate(expression.Set(expression.Name("revoked_at"), expression.Value(at))).
			WithCondition(expression.AttributeExists(expression.Name(table.PK))).Build()
		if err != nil {
			return 0, fmt.Errorf("build grant update: %w", err)
		}
		gpk, gsk := grantKey(t, surveyID, e.GrantID)
		items = append(items, s.update(gpk, gsk, gexpr))
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: capacity})
	if err == nil {
		return len(live), nil
	}
	tx := cancelled(err)
	if failed, old := tx.failedAt(0); failed {
		if len(old) == 0 {
			return 0, notFound("survey")
		}
		return 0, changed("survey's video links")
	}
	for i := 1; i < len(items); i++ {
		if failed, _ := tx.failedAt(i); failed {
			return 0, fmt.Errorf("revoke video links of survey %s: grant %s of the live set is missing", surveyID, live[i-1].GrantID)
		}
	}
	return 0, tx.otherwise("survey's video links", "revoke video links")
}

// VideoLinkView resolves the token whose hash is tokenHash with one
// strongly consistent GetItem. found is false for a token never issued
// (or whose record DynamoDB's TTL deleted, videolink retention after the
// link expired). Whether the link is live is OpenVideoLink's to decide. A
// failed read is upstream_failed.
func (s *Store) VideoLinkView(ctx context.Context, tokenHash string) (videolink.View, bool, error) {
	pk, sk := viewTokenKey(tokenHash)
	var it viewItem
	err := s.getItem(ctx, pk, sk, "video link", &it)
	if e := errcode.As(err); e != nil && e.Code == errcode.NotFound {
		return videolink.View{}, false, nil
	}
	if err != nil {
		return videolink.View{}, false, err
	}
	return videolink.View{
		Tenant:   auth.Tenant{PartnerID: it.PartnerID, Mode: auth.Mode(it.Mode)},
		SurveyID: it.SurveyID, GrantID: it.GrantID, ExpiresAt: time.Unix(it.LinkUntil, 0).UTC(), TokenHash: tokenHash,
		Opens: it.recentOpens(), OpensVersion: it.OpensVersion,
	}, true, nil
}

// openAttempts bounds OpenVideoLink's tries. A try fails only when
// another open was counted since the read (or, in AWS, a transaction
// conflict), and at most limit opens count at once, so a few more than
// limit always suffice.
func openAttempts(limit int) int { return 2*limit + 2 }

// OpenVideoLink counts and records one open of v in one TransactWriteItems:
// a check that v's grant is still in its survey's live set, the open's
// time added to the token's record (only while fewer than limit opens of
// the last videolink.OpenWindow are recorded there, and only before the
// link expires), and the open's log item with o. Either all three hold and
// are written, or nothing is: an open is counted exactly when it is
// recorded, however many run at once, and no span of OpenWindow serves
// more than limit opens (videolink.Admit).
//
// The record's update is conditioned on its recent opens being the ones
// it was computed from (their version, v's at first); when another open
// moved them, it decides again on the record DynamoDB returns.
//
// It returns the usage; at the limit, Usage.Admitted is false and nothing
// is written. Errors: the grant is no longer live (revoked, or the survey
// is gone) → an error wrapping ErrLinkClosed; the link expired or its
// record is gone → not_found; any other failure → upstream_failed.
// requestID names the log item (unique per open).
func (s *Store) OpenVideoLink(ctx context.Context, v videolink.View, o videolink.Opening, requestID string, limit int) (auth.Usage, error) {
	now := o.At
	spk, ssk := surveyKey(v.Tenant, v.SurveyID)
	live, err := expression.NewBuilder().WithCondition(
		expression.Contains(expression.Name(attrLinks), v.Entry().String())).Build()
	if err != nil {
		return auth.Usage{}, fmt.Errorf("build live check: %w", err)
	}
	check := types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: &s.table, Key: keyAV(spk, ssk), ConditionExpression: live.Condition(),
		ExpressionAttributeNames: live.Names(), ExpressionAttributeValues: live.Values(),
	}}
	opk, osk := openKey(v.Tenant, v.SurveyID, now, v.GrantID, requestID)
	logItem, err := s.putNew(openItem{PK: opk, SK: osk, Type: "video_open", GrantID: v.GrantID,
		At: lead.FormatTime(now), UserAgent: o.UserAgent, Client: o.Client})
	if err != nil {
		return auth.Usage{}, err
	}
	vpk, vsk := viewTokenKey(v.TokenHash)
	recent, version := v.Opens, v.OpensVersion
	for attempt := 0; attempt < openAttempts(limit); attempt++ {
		next, u := videolink.Admit(recent, now, limit)
		var items []types.TransactWriteItem
		if u.Admitted {
			expr, err := openUpdate(next, version, now, limit)
			if err != nil {
				return auth.Usage{}, err
			}
			items = []types.TransactWriteItem{check, s.update(vpk, vsk, expr), logItem}
		} else {
			// Refused as read: confirm that the record is unchanged, and
			// that the link is live (a closed link answers as closed,
			// whatever its count), writing nothing.
			expr, err := expression.NewBuilder().WithCondition(openCondition(version, now)).Build()
			if err != nil {
				return auth.Usage{}, fmt.Errorf("build open check: %w", err)
			}
			items = []types.TransactWriteItem{check, {ConditionCheck: &types.ConditionCheck{
				TableName: &s.table, Key: keyAV(vpk, vsk), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}}}
		}
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: items, ReturnConsumedCapacity: capacity,
		})
		if err == nil {
			return u, nil
		}
		tx := cancelled(err)
		if failed, _ := tx.failedAt(0); failed {
			return auth.Usage{}, fmt.Errorf("video link %s of survey %s: %w", v.GrantID, v.SurveyID, ErrLinkClosed)
		}
		failed, old := tx.failedAt(1)
		if !failed {
			if hasReason(err, "TransactionConflict") {
				continue // a concurrent open or revoke: try again
			}
			return auth.Usage{}, upstream("open video link", err)
		}
		var it viewItem
		if len(old) == 0 {
			return auth.Usage{}, notFound("video link")
		}
		if err := attributevalue.UnmarshalMap(old, &it); err != nil {
			return auth.Usage{}, fmt.Errorf("unmarshal video link: %w", err)
		}
		if it.LinkUntil <= now.Unix() {
			return auth.Usage{}, notFound("video link")
		}
		recent, version = it.recentOpens(), it.OpensVersion
		if _, u := videolink.Admit(recent, now, limit); !u.Admitted {
			return u, nil
		}
	}
	return auth.Usage{}, changed("video link's recent opens")
}

// openCondition holds if the record exists, the link has not expired at
// now and its recent opens are still at version from.
func openCondition(from int64, now time.Time) expression.ConditionBuilder {
	version := expression.Name(attrOpensVersion)
	cond := expression.AttributeExists(expression.Name(table.PK)).
		And(expression.Name("link_expires_at").GreaterThan(expression.Value(now.Unix())))
	if from == 0 {
		return cond.And(expression.AttributeNotExists(version))
	}
	return cond.And(version.Equal(expression.Value(from)))
}

// openUpdate records the recent opens next (videolink.Admit's, now among
// them) over those at version from, under openCondition and the rule
// itself: fewer than limit of the recorded opens are younger than
// videolink.OpenWindow, which for a list written oldest first, with at
// most limit and none older, is "fewer than limit, or the oldest is old
// enough".
func openUpdate(next []time.Time, from int64, now time.Time, limit int) (expression.Expression, error) {
	times := make([]int64, 0, len(next))
	for _, t := range next {
		times = append(times, t.UnixNano())
	}
	opens, version := expression.Name(attrOpens), expression.Name(attrOpensVersion)
	cond := openCondition(from, now).And(expression.Or(
		expression.AttributeNotExists(opens),
		opens.Size().LessThan(expression.Value(limit)),
		expression.Name(attrOpens+"[0]").LessThanEqual(expression.Value(now.Add(-videolink.OpenWindow).UnixNano())),
	))
	upd := expression.Set(opens, expression.Value(times)).Set(version, expression.Value(from+1))
	return expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
}

// VideoGrants lists tenant t's survey's grants, oldest first (grant ids
// are random, so the order is by created_at).
func (s *Store) VideoGrants(ctx context.Context, t auth.Tenant, surveyID string) ([]videolink.Grant, error) {
	return queryPartition(ctx, s, t, surveyID, grantSKPrefix, "video grants", grantItem.grant,
		func(a, b videolink.Grant) int { return a.CreatedAt.Compare(b.CreatedAt) })
}

// VideoOpens lists the open log of tenant t's survey, oldest first.
func (s *Store) VideoOpens(ctx context.Context, t auth.Tenant, surveyID string) ([]videolink.Opening, error) {
	return queryPartition(ctx, s, t, surveyID, openSKPrefix, "video opens", func(it openItem) (videolink.Opening, error) {
		at, err := parseTime(it.PK, "at", it.At)
		return videolink.Opening{GrantID: it.GrantID, At: at, UserAgent: it.UserAgent, Client: it.Client}, err
	}, nil)
}
