// Package childproctest holds the checks that the tests of the local
// servers (dynamolocal, s3local, detectlocal, stripelocal) share: their
// installers' contracts, starting and stopping a server, that a server dies
// with its killed parent and that it listens on loopback only (the last two
// read /proc, so they exist on Linux only). Only tests import this package.
package childproctest
