// Package linktoken is the secret in a link a partner hands its customer:
// the capture, viewer and quote pages' URLs each end in one. New mints a
// token, Derive computes one again for a retried call, Hash is the only
// form stored, and Parse refuses a malformed path segment before any
// lookup. Link holds one page's words for an unknown and an expired link.
package linktoken
