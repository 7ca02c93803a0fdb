package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/domain/deposit"
	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/estimate"
	"github.com/moveleads/partnerapi/shared/domain/lead"
	"github.com/moveleads/partnerapi/shared/domain/partner"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// partnerItem is a partner's profile and settings (rate card, beta
// features, capture link lifetime): the one record the request pipeline
// reads them from. Key records carry no copy, so a change is one write
// however many keys the partner has.
type partnerItem struct {
	PK        string            `dynamodbav:"pk"`
	SK        string            `dynamodbav:"sk"`
	Type      string            `dynamodbav:"type"`
	PartnerID string            `dynamodbav:"partner_id"`
	Name      string            `dynamodbav:"name"`
	RateCard  estimate.RateCard `dynamodbav:"rate_card"`
	// Beta is a string set: DynamoDB stores no empty set, so a partner
	// with no beta feature has no attribute.
	Beta []string `dynamodbav:"beta,stringset,omitempty"`
	// CaptureLinkSeconds is the capture link lifetime in whole seconds;
	// no attribute means the default (partner.Partner.CaptureLinkTTL).
	CaptureLinkSeconds int64 `dynamodbav:"capture_link_lifetime_seconds,omitempty"`
	// The deposit settings (partner.DepositSettings); no attribute means
	// not set.
	CarrierLegalName    string `dynamodbav:"carrier_legal_name,omitempty"`
	USDOTNumber         string `dynamodbav:"usdot_number,omitempty"`
	StripeAccount       string `dynamodbav:"stripe_account,omitempty"`
	DepositDefaultCents int64  `dynamodbav:"deposit_default_cents,omitempty"`
	CheckoutTTLSeconds  int64  `dynamodbav:"checkout_ttl_seconds,omitempty"`
	CreatedAt           string `dynamodbav:"created_at"`
}

// captureLinkAttr is the partner record's attribute for the capture link
// lifetime.
const captureLinkAttr = "capture_link_lifetime_seconds"

func (it partnerItem) partner() (partner.Partner, error) {
	created, err := parseTime(it.PK, "created_at", it.CreatedAt)
	if err != nil {
		return partner.Partner{}, err
	}
	p := partner.Partner{
		ID: it.PartnerID, Name: it.Name, RateCard: it.RateCard,
		CaptureLinkLifetime: time.Duration(it.CaptureLinkSeconds) * time.Second, CreatedAt: created,
		Deposits: partner.DepositSettings{
			CarrierLegalName: it.CarrierLegalName, USDOTNumber: it.USDOTNumber, StripeAccount: it.StripeAccount,
			DefaultCents: it.DepositDefaultCents, CheckoutTTL: time.Duration(it.CheckoutTTLSeconds) * time.Second,
		},
	}
	beta := slices.Clone(it.Beta)
	slices.Sort(beta)
	for _, f := range beta {
		p.Beta = append(p.Beta, partner.Feature(f))
	}
	return p, nil
}

// CreatePartner stores a new partner with its rate card, beta features,
// capture link lifetime (0: the default) and deposit settings. A lifetime
// that SetCaptureLinkLifetime would refuse, or deposit settings that
// SetDepositSettings would, is validation_failed and nothing is written;
// an id that is taken → conflict; a failed write is upstream_failed.
func (s *Store) CreatePartner(ctx context.Context, p partner.Partner) error {
	secs, err := captureLinkSeconds(p.CaptureLinkLifetime)
	if err != nil {
		return err
	}
	if err := checkDepositSettings(p.Deposits); err != nil {
		return err
	}
	pk, sk := partnerKey(p.ID)
	it := partnerItem{
		PK: pk, SK: sk, Type: "partner", PartnerID: p.ID, Name: p.Name,
		RateCard: p.RateCard, Beta: featureStrings(p.Beta), CaptureLinkSeconds: secs,
		CreatedAt: lead.FormatTime(p.CreatedAt),
	}
	it.setDeposits(p.Deposits)
	item, err := attributevalue.MarshalMap(it)
	if err != nil {
		return fmt.Errorf("marshal partner %s: %w", p.ID, err)
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(table.PK))).Build()
	if err != nil {
		return fmt.Errorf("build put partner condition: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return errcode.New(errcode.Conflict, "A partner with id %s already exists; nothing was written.", p.ID)
	}
	if err != nil {
		return upstream("put partner", err)
	}
	return nil
}

// GetPartner returns the partner with id and its settings (rate card, beta
// features, capture link lifetime: 0 when none is set), in one strongly
// consistent GetItem, or a not_found *errcode.Error. A failed read is
// upstream_failed.
func (s *Store) GetPartner(ctx context.Context, id string) (partner.Partner, error) {
	pk, sk := partnerKey(id)
	var it partnerItem
	if err := s.getItem(ctx, pk, sk, "partner", &it); err != nil {
		return partner.Partner{}, err
	}
	return it.partner()
}

// SetRateCard replaces partner id's rate card, in one conditional
// UpdateItem of the partner record (keys read it from there). Unknown
// partner → not_found; a failed write is upstream_failed.
func (s *Store) SetRateCard(ctx context.Context, id string, rc estimate.RateCard) error {
	av, err := attributevalue.Marshal(rc)
	if err != nil {
		return fmt.Errorf("marshal rate card: %w", err)
	}
	_, err = s.updatePartner(ctx, id, "rate card", expression.Set(expression.Name("rate_card"), expression.Value(av)), nil)
	return err
}

// SetCaptureLinkLifetime sets how long partner id's capture links are
// valid, in one conditional UpdateItem of the partner record; d = 0 removes
// the setting, so links live survey.DefaultTokenLifetime again. It applies
// to links minted afterwards, never to links already sent.
//
// d outside survey.CheckTokenLifetime's bounds, or not a whole number of
// seconds, is validation_failed (details.fields.capture_link_lifetime) and
// nothing is read or written. Unknown partner → not_found (nothing is
// created); a failed write is upstream_failed.
func (s *Store) SetCaptureLinkLifetime(ctx context.Context, partnerID string, d time.Duration) error {
	secs, err := captureLinkSeconds(d)
	if err != nil {
		return err
	}
	attr := expression.Name(captureLinkAttr)
	upd := expression.Remove(attr)
	if secs != 0 {
		upd = expression.Set(attr, expression.Value(secs))
	}
	_, err = s.updatePartner(ctx, partnerID, "capture link lifetime", upd, nil)
	return err
}

// captureLinkSeconds returns the stored form of capture link lifetime d:
// whole seconds, 0 for the default. A lifetime out of
// survey.CheckTokenLifetime's bounds or with a fraction of a second is
// validation_failed.
func captureLinkSeconds(d time.Duration) (int64, error) {
	if d == 0 {
		return 0, nil
	}
	var reason string
	if err := survey.CheckTokenLifetime(d); err != nil {
		reason = err.Error()
	} else if d%time.Second != 0 {
		reason = fmt.Sprintf("capture link lifetime must be a whole number of seconds; got %s", d)
	}
	if reason != "" {
		return 0, errcode.New(errcode.ValidationFailed, "%s", reason).
			WithDetail("fields", map[string]any{"capture_link_lifetime": reason})
	}
	return int64(d / time.Second), nil
}

// SetBeta enables and disables beta features for partner id and returns
// the partner as updated. Enabling an enabled feature or disabling a
// disabled one changes nothing.
//
// Features only enabled, or only disabled, are one atomic conditional
// UpdateItem (ADD to or DELETE from the string set "beta"), so concurrent
// changes of other features are never lost. DynamoDB refuses ADD and
// DELETE of one attribute in one update, so both at once are a
// compare-and-set: read, then write the new set on condition that the set
// is still the one read, again (at most betaAttempts times) while another
// write changes it in between; then conflict.
//
// A feature named in both lists is validation_failed and nothing is
// written; callers parse names with partner.ParseFeature. Unknown partner → not_found; a
// failed read or write is upstream_failed.
func (s *Store) SetBeta(ctx context.Context, partnerID string, enable, disable []partner.Feature) (partner.Partner, error) {
	if err := checkBeta(enable, disable); err != nil {
		return partner.Partner{}, err
	}
	beta := expression.Name("beta")
	switch {
	case len(enable) == 0 && len(disable) == 0:
		return s.GetPartner(ctx, partnerID)
	case len(disable) == 0:
		return s.updatePartner(ctx, partnerID, "beta features",
			expression.Add(beta, stringSet(featureStrings(enable))), nil)
	case len(enable) == 0:
		return s.updatePartner(ctx, partnerID, "beta features",
			expression.Delete(beta, stringSet(featureStrings(disable))), nil)
	}
	cur, err := s.GetPartner(ctx, partnerID)
	if err != nil {
		return partner.Partner{}, err
	}
	for attempt := 1; ; attempt++ {
		next := slices.DeleteFunc(featureStrings(append(slices.Clone(cur.Beta), enable...)),
			func(f string) bool { return slices.Contains(disable, partner.Feature(f)) })
		upd := expression.Remove(beta)
		if len(next) > 0 {
			upd = expression.Set(beta, stringSet(next))
		}
		same := expression.AttributeNotExists(beta)
		if len(cur.Beta) > 0 {
			same = beta.Equal(stringSet(featureStrings(cur.Beta)))
		}
		p, err := s.updatePartner(ctx, partnerID, "beta features", upd, &same)
		if !errors.Is(err, errChanged) {
			return p, err
		}
		if attempt == betaAttempts {
			return partner.Partner{}, errcode.New(errcode.Conflict,
				"The beta features of partner %s kept changing concurrently; nothing was written. Try again.", partnerID)
		}
		if cur, err = s.GetPartner(ctx, partnerID); err != nil {
			return partner.Partner{}, err
		}
	}
}

// betaAttempts bounds SetBeta's compare-and-set tries.
const betaAttempts = 5

// errChanged reports that updatePartner's extra condition failed: the
// record changed since it was read.
var errChanged = errors.New("partner record changed concurrently")

func stringSet(ss []string) expression.ValueBuilder {
	return expression.Value(&types.AttributeValueMemberSS{Value: ss})
}

// checkBeta refuses a feature both enabled and disabled. Whether a
// feature exists is the caller's to check (partner.ParseFeature): the
// store keeps whatever names it is given.
func checkBeta(enable, disable []partner.Feature) error {
	fe := errcode.FieldErrors{}
	for _, f := range enable {
		if slices.Contains(disable, f) {
			fe.Add("disable", fmt.Sprintf("feature %q is also in enable; name it in one list", f))
		}
	}
	return fe.Err()
}

// updatePartner applies upd to partner id's record if it exists (and, when
// cond is set, it holds) and returns the record as updated. Unknown partner
// → not_found; cond false → errChanged.
func (s *Store) updatePartner(ctx context.Context, id, what string, upd expression.UpdateBuilder, cond *expression.ConditionBuilder) (partner.Partner, error) {
	pk, sk := partnerKey(id)
	exists := expression.AttributeExists(expression.Name(table.PK))
	c := exists
	if cond != nil {
		c = exists.And(*cond)
	}
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(c).Build()
	if err != nil {
		return partner.Partner{}, fmt.Errorf("build partner %s update: %w", what, err)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: keyAV(pk, sk),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf) && len(ccf.Item) == 0:
		return partner.Partner{}, notFound("partner")
	case errors.As(err, &ccf):
		return partner.Partner{}, errChanged
	case err != nil:
		return partner.Partner{}, upstream("update partner "+what, err)
	}
	var it partnerItem
	if err := attributevalue.UnmarshalMap(out.Attributes, &it); err != nil {
		return partner.Partner{}, fmt.Errorf("unmarshal partner %s: %w", id, err)
	}
	return it.partner()
}

func featureStrings(fs []partner.Feature) []string {
	if len(fs) == 0 {
		return nil
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// The partner record's attributes of the deposit settings.
const (
	attrCarrierLegalName = "carrier_legal_name"
	attrUSDOTNumber      = "usdot_number"
	attrStripeAccount    = "stripe_account"
	attrDepositDefault   = "deposit_default_cents"
	attrCheckoutTTL      = "checkout_ttl_seconds"
)

// maxCarrierLegalName is the longest carrier legal name kept, in
// characters.
const maxCarrierLegalName = 200

var (
	// (Checked by loops, not regexp: regexp would add ~85 KB to every
	// function that links the store.)
	usdotNumber   = matcher{prefix: "", min: 1, max: 8, digitsOnly: true}
	stripeAccount = matcher{prefix: "acct_", min: 1, max: 255}
)

// setDeposits sets the item's deposit settings from d (validated).
func (it *partnerItem) setDeposits(d partner.DepositSettings) {
	it.CarrierLegalName, it.USDOTNumber, it.StripeAccount = d.CarrierLegalName, d.USDOTNumber, d.StripeAccount
	it.DepositDefaultCents, it.CheckoutTTLSeconds = d.DefaultCents, int64(d.CheckoutTTL/time.Second)
}

// checkDepositSettings refuses deposit settings the deposits could not
// use, with validation_failed naming each field by its attribute: a legal
// name of more than 200 characters, a USDOT number that is not 1 to 8
// digits, a Stripe account that is not acct_ and 1 to 255 letters or
// digits, a default the deposits refuse (deposit.ValidAmount), a checkout
// lifetime Stripe refuses (deposit.ValidCheckoutTTL) or that is not whole
// seconds. Empty values (zero) mean not set and pass.
func checkDepositSettings(d partner.DepositSettings) error {
	fe := errcode.FieldErrors{}
	if n := utf8.RuneCountInString(d.CarrierLegalName); n > maxCarrierLegalName || !utf8.ValidString(d.CarrierLegalName) {
		fe.Add(attrCarrierLegalName, fmt.Sprintf("must be valid UTF-8 of at most %d characters; got %d", maxCarrierLegalName, n))
	}
	if d.USDOTNumber != "" && !usdotNumber.MatchString(d.USDOTNumber) {
		fe.Add(attrUSDOTNumber, fmt.Sprintf("must be 1 to 8 digits; got %q", d.USDOTNumber))
	}
	if d.StripeAccount != "" && !stripeAccount.MatchString(d.StripeAccount) {
		fe.Add(attrStripeAccount, "must be a Stripe account id: acct_ then 1 to 255 letters or digits")
	}
	if d.DefaultCents != 0 {
		if err := deposit.ValidAmount(d.DefaultCents); err != nil {
			fe.Add(attrDepositDefault, err.Error())
		}
	}
	if d.CheckoutTTL != 0 {
		if err := deposit.ValidCheckoutTTL(d.CheckoutTTL); err != nil {
			fe.Add(attrCheckoutTTL, err.Error())
		} else if d.CheckoutTTL%time.Second != 0 {
			fe.Add(attrCheckoutTTL, fmt.Sprintf("must be a whole number of seconds; got %s", d.CheckoutTTL))
		}
	}
	return fe.Err()
}

// SetDepositSettings replaces partner id's deposit settings (opctl
// partner deposits) and returns the partner, in one conditional
// UpdateItem of the partner record: a setting that is empty (zero) is
// removed. The caller validates them (USDOT digits, acct_ prefix,
// deposit.ValidAmount, ValidCheckoutTTL); the store refuses values those
// would refuse with validation_failed naming the field (see
// checkDepositSettings), before any write. Unknown partner → not_found
// (nothing is created); a failed write is upstream_failed.
func (s *Store) SetDepositSettings(ctx context.Context, partnerID string, d partner.DepositSettings) (partner.Partner, error) {
	if err := checkDepositSettings(d); err != nil {
		return partner.Partner{}, err
	}
	var it partnerItem
	it.setDeposits(d)
	var upd expression.UpdateBuilder
	for _, f := range []struct {
		name string
		v    any
		set  bool
	}{
		{attrCarrierLegalName, it.CarrierLegalName, it.CarrierLegalName != ""},
		{attrUSDOTNumber, it.USDOTNumber, it.USDOTNumber != ""},
		{attrStripeAccount, it.StripeAccount, it.StripeAccount != ""},
		{attrDepositDefault, it.DepositDefaultCents, it.DepositDefaultCents != 0},
		{attrCheckoutTTL, it.CheckoutTTLSeconds, it.CheckoutTTLSeconds != 0},
	} {
		if f.set {
			upd = upd.Set(expression.Name(f.name), expression.Value(f.v))
		} else {
			upd = upd.Remove(expression.Name(f.name))
		}
	}
	return s.updatePartner(ctx, partnerID, "deposit settings", upd, nil)
}

// matcher accepts prefix followed by min to max ASCII digits (digitsOnly)
// or letters and digits.
type matcher struct {
	prefix     string
	min, max   int
	digitsOnly bool
}

// MatchString reports whether s matches m.
func (m matcher) MatchString(s string) bool {
	rest, ok := strings.CutPrefix(s, m.prefix)
	if !ok || len(rest) < m.min || len(rest) > m.max {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		digit := '0' <= c && c <= '9'
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !digit && (m.digitsOnly || !letter) {
			return false
		}
	}
	return true
}
