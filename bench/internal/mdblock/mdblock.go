package mdblock

import (
	"bytes"
	"fmt"
	"os"
)

// Replace puts body between the markers named name in the file at path.
func Replace(path, name string, body []byte) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("updating %s: %w", path, err)
	}
	begin := []byte("<!-- " + name + ":begin -->\n")
	end := []byte("<!-- " + name + ":end -->")
	i := bytes.Index(b, begin)
	j := bytes.Index(b, end)
	if i < 0 || j < i {
		return fmt.Errorf("updating %s: no %q ... %q block", path, begin, end)
	}
	var out bytes.Buffer
	out.Write(b[:i+len(begin)])
	out.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		out.WriteByte('\n')
	}
	out.Write(b[j:])
	return os.WriteFile(path, out.Bytes(), 0o644)
}
