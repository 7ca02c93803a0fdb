package dynamo

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/moveleads/partnerapi/shared/app/record"
	"github.com/moveleads/partnerapi/shared/domain/survey"
	"github.com/moveleads/partnerapi/shared/spec/table"
)

// TestRejectCodeDecidesTheSentence: what the customer reads about a
// rejected clip follows its stored reject_code, whatever its reject_reason
// says; a clip stored before codes (no reject_code) gets the fallback.
func TestRejectCodeDecidesTheSentence(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	for _, tc := range []struct{ name, code, reason, want string }{
		{"reworded reason", "too_large", "upload weighs 600000000 bytes, past what we take", "The video is larger than we accept."},
		{"reason naming a codec and a limit", "corrupt", "codec private data over the limit", "The video file is damaged or was only partly saved."},
		{"stored before codes", "", "size 9 bytes does not match the 10 announced at upload", "We could not use this video."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClip(t, "clip_"+tc.code, t0)
			c.Status, c.RejectReason = survey.ClipRejected, tc.reason
			item, err := attributevalue.MarshalMap(newClipItem(surveyTenant, sv.ID, c))
			if err != nil {
				t.Fatal(err)
			}
			delete(item, "reject_code")
			if tc.code != "" {
				item["reject_code"] = &types.AttributeValueMemberS{Value: tc.code}
			}
			if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: item}); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetClip(ctx, surveyTenant, sv.ID, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if v, sentence := got.Verdict(); v != survey.VerdictUnusable || sentence != tc.want {
				t.Errorf("stored clip (reject_code %q, reject_reason %q): Verdict() = %q, %q; want unusable, %q", tc.code, tc.reason, v, sentence, tc.want)
			}
		})
	}
}

// TestAdvanceClipStoresRejectCode: a rejection's code is stored as
// reject_code beside the operator's reason and read back by GetClip and
// ListClips; an accepted clip has none.
func TestAdvanceClipStoresRejectCode(t *testing.T) {
	ctx := context.Background()
	s, sv := clipSurvey(t)
	for _, id := range []string{"clip_bad", "clip_good"} {
		if err := s.PutClip(ctx, surveyTenant, sv.ID, newClip(t, id, t0)); err != nil {
			t.Fatal(err)
		}
	}
	rj := survey.SizeMismatch(9, 5<<20)
	for _, tr := range []record.ClipTransition{
		{SurveyID: sv.ID, ClipID: "clip_bad", From: survey.ClipAnnounced, To: survey.ClipRejected, At: t0, RejectCode: rj.Code, RejectReason: rj.Reason},
		{SurveyID: sv.ID, ClipID: "clip_good", From: survey.ClipAnnounced, To: survey.ClipProcessing, At: t0},
	} {
		if err := s.AdvanceClip(ctx, surveyTenant, tr); err != nil {
			t.Fatal(err)
		}
	}
	pk, sk := clipKey(surveyTenant, sv.ID, "clip_bad")
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: map[string]types.AttributeValue{
		table.PK: &types.AttributeValueMemberS{Value: pk}, table.SK: &types.AttributeValueMemberS{Value: sk}}})
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := out.Item["reject_code"].(*types.AttributeValueMemberS); !ok || a.Value != "size_mismatch" {
		t.Errorf("stored reject_code = %#v; want S size_mismatch", out.Item["reject_code"])
	}
	clips, err := s.ListClips(ctx, surveyTenant, sv.ID)
	if err != nil || len(clips) != 2 {
		t.Fatalf("ListClips = %d clips, %v; want 2", len(clips), err)
	}
	for _, c := range clips {
		want := map[string]survey.Rejection{"clip_bad": rj, "clip_good": {}}[c.ID]
		if c.RejectCode != want.Code || c.RejectReason != want.Reason {
			t.Errorf("clip %s: code %q, reason %q; want %q, %q", c.ID, c.RejectCode, c.RejectReason, want.Code, want.Reason)
		}
	}
}
