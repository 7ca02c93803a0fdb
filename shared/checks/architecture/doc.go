// Package architecture holds no code: its tests check the folder rules of
// docs/ARCHITECTURE.md. A package's layer is its folder under shared/
// (rules_test.go says what each may import); the exceptions, each with its
// reason, are in exceptions_test.go; no function links local/, testkit/ or
// checks/ (its release build's import closure); a main imports only an
// edge/ and a wire/ package; a few package rules (only stripepay imports
// stripe-go, only s3store the S3 client, clients linked where granted)
// stand beside them.
package architecture
