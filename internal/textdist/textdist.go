package textdist

import "strings"

// Distance is the optimal string alignment distance between a and b, by
// characters: insertions, deletions, substitutions and swaps of two
// neighbours (tset, test), one edit each.
func Distance(a, b string) int {
	r, s := []rune(a), []rune(b)
	d := make([][]int, len(r)+1)
	for i := range d {
		d[i] = make([]int, len(s)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(r); i++ {
		for j := 1; j <= len(s); j++ {
			cost := 1
			if r[i-1] == s[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && r[i-1] == s[j-2] && r[i-2] == s[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(r)][len(s)]
}

// Nearest is the one of words that name is a slip of the keys away from,
// or "": the same word in another case, else one edit away from a word of
// four characters or more, or two from one of six or more (Distance,
// case aside), the nearest first and, among as near, the first in words.
func Nearest(name string, words []string) string {
	low := strings.ToLower(name)
	best, bestD := "", 3
	for _, w := range words {
		n := len([]rune(w))
		d := Distance(low, strings.ToLower(w))
		if d == 0 && name == w {
			continue // the word itself is no slip
		}
		if d < bestD && (d == 0 || d == 1 && n >= 4 || d == 2 && n >= 6) {
			best, bestD = w, d
		}
	}
	return best
}
