package runner

import "time"

// stampless is p with each date or time stamp in it replaced by one
// placeholder, so that a path a hook names after the day it runs
// (~/.claude/hooks-logs/2026-12-04.jsonl, an npm debug log's
// 2026-12-04T12_34_56_789Z) compares equal to the one it wrote the day the
// baseline was: what a baseline's writes are matched by (compareBaseline). A
// stamp is a calendar date, YYYY-MM-DD, YYYY_MM_DD or YYYYMMDD, a valid one
// whose digits are no part of a longer run of them (build-20261399 and
// v2026-12-40 are none), and the time after it where there is one:
// THH:MM:SS, THH_MM_SS or -HH-MM-SS, then a fraction (.789 or _789) and a Z
// where there are. The placeholder is a NUL, which no path holds. The
// baseline keeps its paths as written: this is for comparing only.
func stampless(p string) string {
	var b []byte // nil until a stamp is found: most paths hold none
	last := 0
	for i := 0; i < len(p); i++ {
		if !isDigit(p[i]) || i > 0 && isDigit(p[i-1]) {
			continue
		}
		n := dateAt(p, i)
		if n == 0 {
			continue
		}
		n += timeAt(p, i+n)
		b = append(append(b, p[last:i]...), 0)
		last = i + n
		i = last - 1
	}
	if b == nil {
		return p
	}
	return string(append(b, p[last:]...))
}

// dateAt is the length of the date stamp at p[i:] (stampless), or 0.
func dateAt(p string, i int) int {
	s := p[i:]
	var y, m, d string
	var n int
	switch {
	case len(s) >= 10 && (s[4] == '-' || s[4] == '_') && s[7] == s[4]:
		y, m, d, n = s[:4], s[5:7], s[8:10], 10
	case len(s) >= 8:
		y, m, d, n = s[:4], s[4:6], s[6:8], 8
	default:
		return 0
	}
	if !allDigits(y+m+d) || n < len(s) && isDigit(s[n]) {
		return 0
	}
	yy, mm, dd := atoi(y), atoi(m), atoi(d)
	if mm < 1 || mm > 12 || dd < 1 || yy < 1 {
		return 0
	}
	if t := time.Date(yy, time.Month(mm), dd, 0, 0, 0, 0, time.UTC); t.Day() != dd {
		return 0 // past the month's end: 2026-02-30
	}
	return n
}

// timeAt is the length of the time stamp that follows a date at p[i:]
// (stampless), or 0.
func timeAt(p string, i int) int {
	s := p[i:]
	if len(s) < 9 {
		return 0
	}
	var sep byte
	switch {
	case s[0] == 'T' && (s[3] == ':' || s[3] == '_'):
		sep = s[3]
	case s[0] == '-':
		sep = '-'
	default:
		return 0
	}
	h, m, sec := s[1:3], s[4:6], s[7:9]
	if s[3] != sep || s[6] != sep || !allDigits(h+m+sec) || atoi(h) > 23 || atoi(m) > 59 || atoi(sec) > 60 {
		return 0
	}
	n := 9
	if n+1 < len(s) && (s[n] == '.' || s[n] == '_') && isDigit(s[n+1]) {
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	if n < len(s) && s[n] == 'Z' {
		n++
	}
	if n < len(s) && isDigit(s[n]) {
		return 0 // T12:34:567: no time
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
