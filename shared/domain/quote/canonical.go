package quote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// canonical builds the byte encodings that ShownHash and Evidence.Hash are
// computed over. The format is line-based and unambiguous whatever the
// values hold:
//
//	<tag>\n
//	<name>:<length>:<value>\n     one line per field, in a fixed order
//
// where <tag> names the record and its version (for example
// "moveleads.quote.shown.v1"), <name> is a fixed ASCII field name,
// <length> is the decimal count of bytes of <value>, and <value> is the
// raw UTF-8 bytes, unescaped. The length prefix makes every value
// self-delimiting, so a value holding ":" or a line break cannot be read
// as the start of another field, and moving bytes between two adjacent
// fields changes the encoding. Integers are written in decimal, booleans
// as "true" or "false", times in lead.TimeLayout (UTC, six fractional
// digits), the form they are stored in.
//
// Nothing in it depends on Go's own formatting of strings (no %q, no
// JSON), which changes with Unicode versions; only on bytes and decimal
// integers. Any change to a tag's fields or their order is a new version.
type canonical struct {
	b bytes.Buffer
}

// start writes the tag line.
func (c *canonical) start(tag string) {
	c.b.WriteString(tag)
	c.b.WriteByte('\n')
}

// field writes one field line.
func (c *canonical) field(name, value string) {
	c.b.WriteString(name)
	c.b.WriteByte(':')
	c.b.WriteString(strconv.Itoa(len(value)))
	c.b.WriteByte(':')
	c.b.WriteString(value)
	c.b.WriteByte('\n')
}

// bytes returns the encoding.
func (c *canonical) bytes() []byte { return bytes.Clone(c.b.Bytes()) }

// sha256 returns the lowercase hex SHA-256 of the encoding.
func (c *canonical) sha256() string {
	sum := sha256.Sum256(c.b.Bytes())
	return hex.EncodeToString(sum[:])
}
