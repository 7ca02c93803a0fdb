package streamlocal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// DynamoDB Local 3.3.1 writes an empty map attribute in a stream record as
// {} instead of {"M":{}} (its GetItem answers {"M":{}}), and the Streams
// SDK decodes a union with no member by leaving its variable alone: the
// attribute comes out as a copy of the one decoded before it in the same
// map, or nil when it is the first. A webhook payload with an empty
// object would reach the handler as another attribute's value. So Poll
// reads GetRecords' answers through repairEmptyMaps, which rewrites those
// {} as {"M":{}} before the SDK decodes them. Amazon DynamoDB Streams
// never sends {} for an attribute value, so the repair changes nothing
// there.

// repairEmptyMaps is a GetRecords option: it routes the call's response
// through emptyMapRepair.
func repairEmptyMaps(o *dynamodbstreams.Options) {
	o.HTTPClient = emptyMapRepair{next: o.HTTPClient}
}

// emptyMapRepair is an HTTP client that repairs the empty maps of a
// successful GetRecords answer.
type emptyMapRepair struct{ next dynamodbstreams.HTTPClient }

func (c emptyMapRepair) Do(r *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read GetRecords answer: %w", err)
	}
	if fixed, changed, err := repairRecords(body); err == nil && changed {
		body = fixed
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	// An answer that is not JSON goes on unchanged: the SDK reports it.
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// repairRecords rewrites every {} that stands for an attribute value in
// the keys and images of a GetRecords answer as {"M":{}}, and reports
// whether there was any. Numbers keep their text.
func repairRecords(body []byte) ([]byte, bool, error) {
	if !bytes.Contains(body, []byte("{}")) {
		return body, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var answer map[string]any
	if err := dec.Decode(&answer); err != nil {
		return nil, false, err
	}
	records, _ := answer["Records"].([]any)
	changed := false
	for _, r := range records {
		rec, _ := r.(map[string]any)
		change, _ := rec["dynamodb"].(map[string]any)
		for _, part := range []string{"Keys", "NewImage", "OldImage"} {
			if img, ok := change[part].(map[string]any); ok {
				changed = repairImage(img) || changed
			}
		}
	}
	if !changed {
		return body, false, nil
	}
	out, err := json.Marshal(answer)
	return out, err == nil, err
}

// repairImage repairs the attribute values of an image or map, in place.
func repairImage(img map[string]any) bool {
	changed := false
	for name, v := range img {
		var c bool
		img[name], c = repairValue(v)
		changed = changed || c
	}
	return changed
}

// repairValue returns v with every empty map in it written {"M":{}}.
func repairValue(v any) (any, bool) {
	av, ok := v.(map[string]any)
	if !ok {
		return v, false
	}
	if len(av) == 0 {
		return map[string]any{"M": map[string]any{}}, true
	}
	changed := false
	if m, ok := av["M"].(map[string]any); ok {
		changed = repairImage(m)
	}
	if l, ok := av["L"].([]any); ok {
		for i, e := range l {
			var c bool
			l[i], c = repairValue(e)
			changed = changed || c
		}
	}
	return av, changed
}
