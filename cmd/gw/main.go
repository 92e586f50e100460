// Command gw connects coding tools to the hosted Model Gateway Service.
package main

import (
	"os"

	"github.com/modelgateway/gw/cmd/root"
)

func main() { os.Exit(int(root.Main())) }
