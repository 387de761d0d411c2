package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// writeRunJSON writes res to w as run --json does: encoding/json's
// indented document, made inert (annotate.InertJSON, annotate.NoMatchJSON).
// The write record is written an entry at a time, so that a run that
// wrote a million files does not hold its whole document, indented and
// escaped, several times over beside the record (docs/performance.md, "A
// write record of a million files"). The bytes are those of the whole
// document made at once: the document is cut where no string is open,
// and both escapes change only what is inside strings, so each piece is
// escaped as it would be within the whole.
func writeRunJSON(w io.Writer, res *sandbox.Result) error {
	inert := func(b []byte) []byte { return annotate.NoMatchJSON(annotate.InertJSON(b)) }
	writes := res.Writes
	if len(writes) == 0 {
		b, err := indentedJSON(res)
		if err != nil {
			return err
		}
		_, err = w.Write(inert(b))
		return err
	}
	// The document without its writes, cut where they go.
	shallow := *res
	shallow.Writes = nil
	doc, err := indentedJSON(&shallow)
	if err != nil {
		return err
	}
	// A newline is never inside a string (encoding/json escapes it): the
	// key at the top level is the only one with this indentation.
	const key = "\n  \"writes\": "
	at := bytes.Index(doc, []byte(key+"null"))
	if at < 0 {
		return errors.New("the result has no writes key")
	}
	head, tail := doc[:at+len(key)], doc[at+len(key)+len("null"):]
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(inert(head))
	bw.WriteString("[")
	var entry, indented bytes.Buffer
	enc := json.NewEncoder(&entry)
	for i := range writes {
		entry.Reset()
		indented.Reset()
		if err := enc.Encode(&writes[i]); err != nil {
			return err
		}
		// The entry at the depth it has in the document.
		if err := json.Indent(&indented, bytes.TrimSuffix(entry.Bytes(), []byte("\n")), "    ", "  "); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		if plainWrite(&writes[i]) {
			bw.Write(indented.Bytes()) // nothing to escape: as inert writes it
		} else {
			bw.Write(inert(indented.Bytes()))
		}
	}
	bw.WriteString("\n  ]")
	bw.Write(inert(tail))
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

// indentedJSON is v as run --json's encoder writes it, a newline after.
func indentedJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
