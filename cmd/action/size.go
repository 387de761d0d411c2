package main

import (
	"fmt"

	"github.com/vigiles/action/pkg/runner"
)

// sizeFlag is a pflag.Value holding a size in bytes.
type sizeFlag struct{ v *uint64 }

func (f sizeFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return runner.FormatSize(*f.v)
}

func (f sizeFlag) Set(s string) error {
	v, err := runner.ParseSize(s)
	if err != nil {
		if meant := runner.SizeMeant(s); meant != "" {
			return fmt.Errorf("%w (did you mean %s?)", err, meant)
		}
		return err
	}
	*f.v = v
	return nil
}

func (f sizeFlag) Type() string { return "size" }
