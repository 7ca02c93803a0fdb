package pipeline

import (
	"strings"

	"github.com/google/uuid"

	"github.com/moveleads/partnerapi/shared/domain/errcode"
	"github.com/moveleads/partnerapi/shared/spec/manifest"
)

// pathID checks c's path parameter against its route's PathParamType and
// sets c.ID. A value that is not a UUID in its 36-character form names no
// resource, so it answers 404 like an unknown id (another tenant's too).
func pathID(c *Call) error {
	if c.Route.PathParamType != manifest.ParamUUID {
		return nil
	}
	u, err := uuid.Parse(c.PathParam)
	if err != nil || len(c.PathParam) != 36 {
		resource := strings.TrimSuffix(manifest.ParamName(c.Route.PilotPath), "_id")
		return errcode.New(errcode.NotFound, "No %s with that id exists for this API key.", resource)
	}
	c.ID = u.String()
	return nil
}
