package pipeline

import (
	"strings"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/domain/webhook"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// pathID checks c's path parameter against its route's PathParamType and
// sets c.ID. A value not of that form (a UUID in its 36-character form; an
// event id) names no resource, so it answers 404 like an unknown id
// (another tenant's too).
func pathID(c *Call) error {
	switch c.Route.PathParamType {
	case manifest.ParamUUID:
		u, err := uuid.Parse(c.PathParam)
		if err != nil || len(c.PathParam) != 36 {
			return noSuchResource(c)
		}
		c.ID = u.String()
	case manifest.ParamEventID:
		if !webhook.ValidID(c.PathParam) {
			return noSuchResource(c)
		}
		c.ID = c.PathParam
	}
	return nil
}

// noSuchResource is the not_found of a path id, naming the resource by
// the pilot path's parameter ({lead_id}: lead).
func noSuchResource(c *Call) error {
	resource := strings.TrimSuffix(manifest.ParamName(c.Route.PilotPath), "_id")
	return errcode.New(errcode.NotFound, "No %s with that id exists for this API key.", resource)
}
