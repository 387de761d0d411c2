package main

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxGitMessage bounds what an error keeps of git's stderr.
const maxGitMessage = 300

// gitMessage is git's stderr as an error keeps it: the user information
// of every URL in it redacted (redactUserinfo), then cut at
// maxGitMessage bytes, on a character's boundary. Redacted first: a cut
// in the middle of a URL would leave its "@" out, and with it what marks
// the secret before it.
func gitMessage(stderr string) string {
	msg := redactUserinfo(strings.TrimSpace(stderr))
	if len(msg) > maxGitMessage {
		n := maxGitMessage
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n--
		}
		msg = msg[:n] + "…"
	}
	return msg
}

// urlUserinfo is the scheme and user information of a URL
// (https://x-access-token:SECRET@, ssh://TOKEN@): up to the last "@"
// before the authority ends.
var urlUserinfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://)[^/?#\s]*@`)
})

// bareUserinfo is a user and password before a host with no scheme
// before them, as git says a git:// remote's host it cannot look up
// ("unable to look up user:SECRET@host") and ssh names its login
// ("user:SECRET@host: Permission denied"): a name, a colon and anything
// up to the last "@" before a space or slash.
var bareUserinfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[^\s'"/@:()<>\[\]]+:[^\s/]*@`)
})

// lookUpUserinfo is the user information git names with a git://
// remote's host it cannot look up ("unable to look up TOKEN@host"; with
// a password, bareUserinfo's too): git:// has no login, so a user alone
// there is no ssh login but what a URL held, a token as likely as not.
var lookUpUserinfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(unable to look up )[^\s/]*@`)
})

// redactUserinfo is s with the user information of every URL in it
// (https://user:password@host, and a user alone: a token may be the
// user's name), of a git:// remote's host git could not look up, and
// every bare user:password@ replaced by "***@". A clone's origin may
// hold a token so (https://x-access-token:TOKEN@…); git leaves it out
// of most of its messages, not all (TestGitErrorRedactsUserinfo), and
// an older git of the caller's, out of fewer. A user without a password
// and with no scheme before it (git@github.com:owner/repo, ssh's login)
// stays.
func redactUserinfo(s string) string {
	s = urlUserinfo().ReplaceAllString(s, "${1}***@")
	s = lookUpUserinfo().ReplaceAllString(s, "${1}***@")
	return bareUserinfo().ReplaceAllString(s, "***@")
}
