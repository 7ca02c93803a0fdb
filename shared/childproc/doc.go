// Package childproc manages the local servers the stack runs as child
// processes (DynamoDB Local, MinIO): each in its own process group so it
// can be killed with its children, dying with its parent on Linux so a
// killed test binary leaves nothing behind, and the check that the port a
// server answers on is held by that process and not another.
package childproc
