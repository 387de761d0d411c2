package annotatetest

import (
	"encoding/json"
	"fmt"
)

// SARIFTexts reads a SARIF log of one run and returns the texts GitHub
// shows of it as messages, each rule's short description (a message too,
// SARIF §3.49.9) and then each result's message, and the uri of each of
// its results' locations.
func SARIFTexts(log []byte) (texts, uris []string, err error) {
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ShortDescription struct{ Text string } `json:"shortDescription"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				Message   struct{ Text string } `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(log, &doc); err != nil {
		return nil, nil, err
	}
	if len(doc.Runs) != 1 {
		return nil, nil, fmt.Errorf("%d runs, want 1", len(doc.Runs))
	}
	for _, r := range doc.Runs[0].Tool.Driver.Rules {
		texts = append(texts, r.ShortDescription.Text)
	}
	for _, res := range doc.Runs[0].Results {
		texts = append(texts, res.Message.Text)
		for _, l := range res.Locations {
			uris = append(uris, l.PhysicalLocation.ArtifactLocation.URI)
		}
	}
	return texts, uris, nil
}

// SARIFSyntax returns what in a SARIF message m would not read as itself:
// each unescaped '[' or ']' (a link, [text](target)) and each single '{'
// or '}' (a placeholder, {0}); a character after a backslash is escaped,
// and a doubled brace is a literal one.
func SARIFSyntax(m string) []string {
	var found []string
	for i := 0; i < len(m); i++ {
		switch {
		case m[i] == '\\':
			i++ // an escaped character
		case m[i] == '[', m[i] == ']':
			found = append(found, fmt.Sprintf("an unescaped %q (a link)", m[i]))
		case (m[i] == '{' || m[i] == '}') && i+1 < len(m) && m[i+1] == m[i]:
			i++ // a doubled, literal brace
		case m[i] == '{', m[i] == '}':
			found = append(found, fmt.Sprintf("a single %q (a placeholder)", m[i]))
		}
	}
	return found
}
