// Command etcd is etcd's server, built for the test control plane
// (test/support/go-programs.ts). go.etcd.io/etcd/server/v3 replaces its sibling
// modules with ../ paths, so `go install` refuses it; this wrapper imports its main
// package's only function instead.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
