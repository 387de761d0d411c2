package annotatetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
)

// Request is what GitHubAPI keeps of a request: its method, path,
// Authorization header and JSON body.
type Request struct {
	Method, Path, Auth string
	Body               map[string]any
}

// GitHubAPI is a fake GitHub REST API for an httptest server, over which a
// real go-github client posts: it keeps every request, and answers each
// with Status where that is not 0, as GitHub answers a token that may not
// do what it asked, and else with Answer (404 where Answer is nil). Set
// Status before the requests it is to answer.
type GitHubAPI struct {
	Status int
	Answer http.HandlerFunc

	mu   sync.Mutex
	reqs []Request
}

func (g *GitHubAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.Serve(w, r, g.Answer)
}

// Serve keeps r and answers it as ServeHTTP does, with answer in
// Answer's place: for a fake that answers by state of its own.
func (g *GitHubAPI) Serve(w http.ResponseWriter, r *http.Request, answer http.HandlerFunc) {
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	g.mu.Lock()
	g.reqs = append(g.reqs, Request{r.Method, r.URL.Path, r.Header.Get("Authorization"), m})
	status := g.Status
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case status != 0:
		w.WriteHeader(status)
		fmt.Fprint(w, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com/rest"}`)
	case answer == nil:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	default:
		answer(w, r)
	}
}

// Requests returns the requests kept so far, in the order they came.
func (g *GitHubAPI) Requests() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.reqs)
}
