package sandbox

import (
	"regexp"
	"testing"
)

// TestHoldsCredential: the system-wide files' text that holds a token or
// a password, in each tool's shape, and text that names none.
func TestHoldsCredential(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"http_proxy=\"http://user:pw@proxy.test:3128\"\n", true},
		{"https_proxy=https://TOKEN@proxy.test\n", true},
		{"[global]\nindex-url = https://__token__:tok@pypi.test/simple\n", true},
		{"//npm.test/:_authToken=tok\n", true},
		{"//npm.test/:_auth=dXNlcjpwdw==\n", true},
		{"_password=cHc=\n", true},
		{"[Credentials]\naws_secret_access_key = k\n", true},
		{"channel_token: t\n", true},
		{"export API_TOKEN=t\n", true},
		{"<server><password>pw</password></server>\n", true},
		{"[global]\ntimeout = 60\nindex-url = https://pypi.test/simple\n", false},
		{"PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\"\n", false},
		{"registry=https://npm.test/\ncafile=/etc/ssl/certs/ca.pem\n", false},
		{"ssh_url = ssh://git@host.test/x\n", false},
		{"# set a token here\n", false},
		// Maven's stock settings.xml: an example in a comment.
		{"<settings>\n<servers>\n<!-- server\n<server>\n<username>repouser</username>\n<password>repopwd</password>\n</server>\n-->\n</servers>\n</settings>\n", false},
		// A comment never closed hides nothing; one closed hides only
		// itself.
		{"<settings><!-- <password>pw</password>\n", true},
		{"<!-- x --><server><password>pw</password></server><!-- y -->\n", true},
		{"<!-- a --><!-- b -->\n", false},
		// What the hints pass over, and what they may not: the
		// expressions fold U+017F to an s and U+212A to a K.
		{"PASSWORD=x\n", true},
		{"pa\u017fsword=x\n", true},
		{"user=x\nhost=y\n", false},
	} {
		if got := holdsCredential([]byte(tc.text)); got != tc.want {
			t.Errorf("holdsCredential(%q) = %v, want %v", tc.text, got, tc.want)
		}
		// The hints never pass over what the expressions match.
		b := withoutXMLComments([]byte(tc.text))
		if full := credentialURL().Match(b) || credentialKey().Match(b); full && !hintsCredential(b) {
			t.Errorf("hintsCredential(%q) passes over a text the expressions match", tc.text)
		}
	}
}

// FuzzHoldsCredential: holdsCredential, with its hints and its comment
// cut, says what the expressions say over the text with every XML
// comment taken out by an expression too: the hints pass over no text
// they match.
func FuzzHoldsCredential(f *testing.F) {
	for _, s := range []string{"http_proxy=http://u:p@h\n", "//n/:_authToken=t\n", "<!-- <password>p</password> -->",
		"<!-- a <!-- b --> <password>x</password>", "pa\u017fsword=1", "\u212aey_token: 1", "export A_SECRET=1", "user=x\n"} {
		f.Add([]byte(s))
	}
	comment := regexp.MustCompile(`(?s)<!--.*?-->`)
	f.Fuzz(func(t *testing.T, b []byte) {
		c := comment.ReplaceAll(b, nil)
		want := credentialURL().Match(c) || credentialKey().Match(c)
		if got := holdsCredential(b); got != want {
			t.Errorf("holdsCredential(%q) = %v, the expressions say %v", b, got, want)
		}
	})
}
