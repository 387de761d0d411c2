package main

import (
	"io"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/report"
)

// init wires `vigiles test|audit --format sarif` to pkg/annotate's SARIF
// 2.1.0 writer (GitHub code scanning's limits are applied there).
func init() {
	renderSARIF = func(r *report.Report, w io.Writer) error {
		return annotate.WriteSARIF(w, r, annotate.SARIFOptions{})
	}
}
