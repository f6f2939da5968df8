package main

// watchClock times a sync's watch from the client's side: when its response headers came and
// when the client read the last of the body it read before HasSynced (the bookmark). Against
// the replay the whole body is there at once, so the reads go at the client's pace; against
// serve a later last read than the replay's means the client waited for serve.

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

type watchClock struct {
	mu       sync.Mutex
	headers  time.Time
	lastRead time.Time
}

// reset starts a sync's clock and returns when it started.
func (c *watchClock) reset() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.headers, c.lastRead = time.Time{}, time.Time{}
	return time.Now()
}

// since returns the headers' and the last read's times after began (zero when not seen).
func (c *watchClock) since(began time.Time) (headers, lastRead time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.headers.IsZero() {
		headers = c.headers.Sub(began)
	}
	if !c.lastRead.IsZero() {
		lastRead = c.lastRead.Sub(began)
	}
	return headers, lastRead
}

// wrap times the watches sent through next (one per rest.Config: serve's and the replay's
// transports differ, the clock is one).
func (c *watchClock) wrap(next http.RoundTripper) http.RoundTripper {
	return clockedTransport{next: next, c: c}
}

type clockedTransport struct {
	next http.RoundTripper
	c    *watchClock
}

func (t clockedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := t.c
	resp, err := t.next.RoundTrip(req)
	if err != nil || !strings.Contains(req.URL.RawQuery, "watch=true") {
		return resp, err
	}
	c.mu.Lock()
	c.headers = time.Now()
	c.mu.Unlock()
	resp.Body = &clockedBody{ReadCloser: resp.Body, c: c}
	return resp, nil
}

type clockedBody struct {
	io.ReadCloser
	c *watchClock
}

func (b *clockedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		now := time.Now()
		b.c.mu.Lock()
		b.c.lastRead = now
		b.c.mu.Unlock()
	}
	return n, err
}
