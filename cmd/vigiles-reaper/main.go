package main

import (
	"fmt"
	"os"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

func main() {
	if reaper.Is(os.Args) {
		os.Exit(reaper.Main())
	}
	fmt.Fprintln(os.Stderr, "vigiles-reaper: the sandbox's reaper, started by vigiles inside each sandbox; run vigiles instead (vigiles --help)")
	os.Exit(2)
}
