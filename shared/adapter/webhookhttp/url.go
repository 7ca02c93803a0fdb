package webhookhttp

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ErrInvalidURL is wrapped by every error of [CheckURL], and by
// [Client.Post] when the URL fails those checks.
var ErrInvalidURL = errors.New("invalid webhook URL")

// maxURLLength bounds a registered URL. Real webhook endpoints are far
// shorter; the bound keeps a stored URL, and the logs that quote its
// host, small.
const maxURLLength = 2048

// CheckURL validates a webhook endpoint URL when it is registered, and
// again before each delivery. It accepts an absolute http or https URL
// with a host, an optional port from 1 to 65535, no userinfo, no
// fragment and no IPv6 zone; live endpoints must use https. It does not
// resolve the host or judge its address: the connection does that at
// delivery time, when the answer counts. On failure the error wraps
// [ErrInvalidURL] and says, in words a partner can act on, what is wrong.
func CheckURL(raw string, live bool) error {
	if len(raw) > maxURLLength {
		return fmt.Errorf("%w: longer than %d characters", ErrInvalidURL, maxURLLength)
	}
	// url.Parse drops an empty fragment ("https://x/#"), so look for the
	// character itself.
	if strings.Contains(raw, "#") {
		return fmt.Errorf("%w: a fragment (#...) is never sent to the server; remove it", ErrInvalidURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: cannot be parsed", ErrInvalidURL)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w: must be an absolute http or https URL", ErrInvalidURL)
	case live && u.Scheme != "https":
		return fmt.Errorf("%w: live-mode endpoints must use https", ErrInvalidURL)
	case u.Opaque != "" || u.Host == "":
		return fmt.Errorf("%w: has no host", ErrInvalidURL)
	case u.User != nil:
		return fmt.Errorf("%w: must not hold a user name or password", ErrInvalidURL)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: has no host", ErrInvalidURL)
	}
	if strings.Contains(host, "%") {
		return fmt.Errorf("%w: an IPv6 zone (%%...) has no meaning outside the local network", ErrInvalidURL)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w: port must be a number from 1 to 65535", ErrInvalidURL)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("%w: port must be a number from 1 to 65535", ErrInvalidURL)
	}
	return nil
}
