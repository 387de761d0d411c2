package sandbox

import "testing"

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
	} {
		if got := holdsCredential([]byte(tc.text)); got != tc.want {
			t.Errorf("holdsCredential(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
