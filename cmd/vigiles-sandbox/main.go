package main

import (
	"fmt"
	"os"

	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/pkg/sandbox"
)

func main() {
	netwire.Install()
	sandbox.MaybeInit()
	fmt.Fprintln(os.Stderr, "vigiles-sandbox: the in-sandbox half of vigiles; run vigiles instead (vigiles --help)")
	os.Exit(2)
}
