package main

import (
	"fmt"
	"math/big"
	"strings"

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
		if meant := sizeMeant(s); meant != "" {
			return fmt.Errorf("%w (did you mean %s?)", err, meant)
		}
		return err
	}
	*f.v = v
	return nil
}

func (f sizeFlag) Type() string { return "size" }

// sizeMeant is the size s means, written as ParseSize reads it, where s
// is one ParseSize refuses only for the way it is written: a unit in
// lower case (64k, 2gb, 512mib, 100b), or a number with a fraction that
// is a whole number of bytes (1.5GiB is 1536MiB); "" for anything else.
func sizeMeant(s string) string {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return ""
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	shift := uint(0)
	switch strings.TrimSuffix(strings.TrimSuffix(unit, "b"), "i") {
	case "":
		if unit != "b" {
			return ""
		}
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	case "t":
		shift = 40
	default:
		return ""
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok || r.Sign() <= 0 {
		return ""
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), shift)))
	if !r.IsInt() || !r.Num().IsUint64() {
		return ""
	}
	meant := runner.FormatSize(r.Num().Uint64())
	if _, err := runner.ParseSize(meant); err != nil {
		return ""
	}
	return meant
}
