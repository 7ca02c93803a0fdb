// Package childproctest holds the checks that the tests of the local
// servers (dynamolocal, s3local) share: that a server dies with its killed
// parent and that it listens on loopback only. Both read /proc, so they
// exist on Linux only. Only tests import this package.
package childproctest
