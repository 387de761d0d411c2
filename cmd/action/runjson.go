package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// writeRunJSON writes res to w as run --json does: encoding/json's
// indented document, made inert (annotate.InertJSON, annotate.NoMatchJSON).
// The write record is written an entry at a time (listedJSON), so that a
// run that wrote a million files does not hold its whole document,
// indented and escaped, several times over beside the record
// (docs/performance.md, "A write record of a million files").
func writeRunJSON(w io.Writer, res *sandbox.Result) error {
	shallow := *res
	shallow.Writes = nil
	doc, err := indentedJSON(&shallow, true)
	if err != nil {
		return err
	}
	d := listedJSON{doc: doc, key: "\n  \"writes\": ", lists: [][]evidence.Write{res.Writes}, escapeHTML: true}
	return d.write(w, true)
}

// reportJSON is rep as the JSON report holds it, to be written with its
// runs' write records an entry at a time: encoding/json's indented
// document, '<', '>' and '&' escaped where escapeHTML says so (as the
// action's report file has them; the CLI's keeps a path's '<' one).
// What can fail in encoding it fails here, before anything is written.
func reportJSON(rep *report.Report, escapeHTML bool) (*listedJSON, error) {
	shallow := *rep
	shallow.Runs = nil
	lists := make([][]evidence.Write, len(rep.Runs))
	if rep.Runs != nil {
		shallow.Runs = make([]report.HookRun, len(rep.Runs))
		for i, r := range rep.Runs {
			lists[i] = r.Writes
			r.Writes = nil
			shallow.Runs[i] = r
		}
	}
	doc, err := indentedJSON(&shallow, escapeHTML)
	if err != nil {
		return nil, err
	}
	return &listedJSON{doc: doc, key: "\n      \"writes\": ", lists: lists, escapeHTML: escapeHTML}, nil
}

// listedJSON is a document whose write records are written an entry at a
// time: doc is encoding/json's indented document of it with each record
// null, and lists are the records, the i-th at the i-th place where key
// (a newline, the key's indentation, "writes" and its ':') is followed by
// null. A newline is never inside a string (encoding/json escapes it), so
// key is found only where the document holds it, at that depth.
//
// The bytes written are those of the whole document made at once: it is
// cut where no string is open, and the two inert escapes change only what
// is inside strings, so each piece is escaped as it would be within the
// whole.
type listedJSON struct {
	doc        []byte
	key        string
	lists      [][]evidence.Write
	escapeHTML bool // as the document's encoder escapes '<', '>' and '&'
}

// write writes d to w, made inert (annotate.InertJSON, NoMatchJSON) where
// inert says so.
func (d *listedJSON) write(w io.Writer, inert bool) error {
	escape := func(b []byte) []byte { return b }
	if inert {
		escape = func(b []byte) []byte { return annotate.NoMatchJSON(annotate.InertJSON(b)) }
	}
	// An entry is at its key's depth and one more.
	indent := strings.TrimPrefix(d.key, "\n")
	indent = indent[:len(indent)-len(strings.TrimLeft(indent, " "))] + "  "
	newline := "\n" + indent
	bw := bufio.NewWriterSize(w, 64<<10)
	rest := d.doc
	var entry, indented bytes.Buffer
	enc := json.NewEncoder(&entry)
	enc.SetEscapeHTML(d.escapeHTML)
	for n, writes := range d.lists {
		at := bytes.Index(rest, []byte(d.key+"null"))
		if at < 0 {
			return fmt.Errorf("the document has %d write records where it lists %d", n, len(d.lists))
		}
		bw.Write(escape(rest[:at+len(d.key)]))
		rest = rest[at+len(d.key)+len("null"):]
		switch {
		case writes == nil:
			bw.WriteString("null")
			continue
		case len(writes) == 0:
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[")
		for i := range writes {
			entry.Reset()
			indented.Reset()
			if err := enc.Encode(&writes[i]); err != nil {
				return err
			}
			// The entry at the depth it has in the document.
			if err := json.Indent(&indented, bytes.TrimSuffix(entry.Bytes(), []byte("\n")), indent, "  "); err != nil {
				return err
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString(newline)
			if !inert || plainWrite(&writes[i]) {
				bw.Write(indented.Bytes()) // nothing to escape: as escape writes it
			} else {
				bw.Write(escape(indented.Bytes()))
			}
		}
		bw.WriteString("\n" + indent[:len(indent)-2] + "]")
	}
	if bytes.Contains(rest, []byte(d.key)) {
		return errors.New("the document has more write records than it lists")
	}
	bw.Write(escape(rest))
	return bw.Flush()
}

// plainWrite says whether w's strings hold nothing that InertJSON and
// NoMatchJSON escape in the JSON text of w: no '#', no ':' and no byte
// past ASCII's printable ones (DEL, and every byte of a character past
// U+007F, which holds the format and C1 characters). The ':' between a
// key and its value is outside every string, and both leave it. Most
// entries are such, and are then written without the two copies the
// escapes make.
func plainWrite(w *evidence.Write) bool {
	for _, s := range [...]string{w.Path, string(w.Op), w.Kind, w.Target, w.Was, w.From} {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '#' || c == ':' || c >= 0x7f {
				return false
			}
		}
	}
	return true
}

// indentedJSON is v as an encoder indenting by two spaces writes it, a
// newline after, '<', '>' and '&' escaped where escapeHTML says so.
func indentedJSON(v any, escapeHTML bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
