package main

import (
	"fmt"
	"strconv"

	"github.com/vigiles/action/pkg/runner"
)

// formatSize writes n in the largest binary unit that divides it.
func formatSize(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return strconv.FormatUint(n, 10)
}

// sizeFlag is a pflag.Value holding a size in bytes.
type sizeFlag struct{ v *uint64 }

func (f sizeFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return formatSize(*f.v)
}

func (f sizeFlag) Set(s string) error {
	v, err := runner.ParseSize(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

func (f sizeFlag) Type() string { return "size" }
