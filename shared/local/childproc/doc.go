// Package childproc runs the local servers the stack uses as child
// processes (DynamoDB Local, MinIO). [Start] runs one on free loopback
// ports, retrying when a port was taken, and returns once its own process
// listens and answers a readiness probe; errors quote the end of its
// output (kept by [Tail], which other process runners use too). Each server runs in its own process group so it can be killed
// with its children, dies with its parent on Linux so a killed test binary
// leaves nothing behind, and must hold the port it answers on itself.
// [InstallDir] and [RunInstaller] find and run the servers' install
// scripts. Package childproctest holds the checks their tests share.
package childproc
