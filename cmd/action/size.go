package main

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// sizeRE is the size syntax of .vigiles.yml (the policy parser's sizeRE in
// pkg/runner/config.go, which is not exported): a whole number, then
// optionally a unit K, M, G or T (each times 1024), with "i" and "B" both
// optional (KiB, KB, Ki and K are the same), or B. TestSizeAgreesWithPolicy
// keeps the two parsers the same.
var sizeRE = regexp.MustCompile(`^(\d+)\s*([KMGT]i?B?|B)?$`)

// parseSize reads a size as the policy file writes it: 1048576, 64KiB,
// 512MiB, 2GiB.
func parseSize(s string) (uint64, error) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, errors.New("want a size such as 1048576, 64KiB, 512MiB or 2GiB")
	}
	v, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, errors.New("too large")
	}
	mult := uint64(1)
	switch strings.TrimSuffix(strings.TrimSuffix(m[2], "B"), "i") {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	}
	if v > math.MaxUint64/mult {
		return 0, errors.New("too large")
	}
	return v * mult, nil
}

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
	v, err := parseSize(s)
	if err != nil {
		return err
	}
	*f.v = v
	return nil
}

func (f sizeFlag) Type() string { return "size" }
