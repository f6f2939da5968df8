package main

// The recording half of -floor: a RoundTripper on the informer's rest.Config that keeps, for
// each request the informer sends to serve, the response as the client read it (status, the
// headers, the body byte for byte up to where the informer stopped reading), so that replay.go
// can answer the same requests with the same bytes from a server that does no work.

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// exchange is one recorded request and its response.
type exchange struct {
	method, path, query, accept string
	status                      int
	proto                       string // "HTTP/2.0" or "HTTP/1.1": what client-go negotiated with serve
	header                      http.Header
	transferEncoding            []string
	uncompressed                bool // Go's transport un-gzipped the body (serve sent it gzipped)
	tlsVersion, tlsCipher       uint16
	peer                        *x509.Certificate // serve's certificate
	mu                          sync.Mutex
	body                        []byte
}

func (e *exchange) bytes() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]byte(nil), e.body...)
}

// isWatch: the informer's watch-list request (everything else it asks is answered whole).
func (e *exchange) isWatch() bool { return strings.Contains(e.query, "watch=true") }

func (e *exchange) String() string {
	tlsv := "no TLS"
	if e.tlsVersion != 0 {
		tlsv = tls.VersionName(e.tlsVersion) + " " + tls.CipherSuiteName(e.tlsCipher)
	}
	if e.peer != nil {
		tlsv += fmt.Sprintf(", server key %v %d bits", e.peer.PublicKeyAlgorithm, keyBits(e.peer))
	}
	return fmt.Sprintf("%s %s?%s -> %d %s, %s, Content-Type %q, Transfer-Encoding %v, "+
		"gzip %v, body %d bytes", e.method, e.path, e.query, e.status, e.proto, tlsv,
		e.header.Get("Content-Type"), e.transferEncoding, e.uncompressed, len(e.bytes()))
}

func keyBits(c *x509.Certificate) int {
	switch k := c.PublicKey.(type) {
	case *ecdsa.PublicKey:
		return k.Curve.Params().BitSize
	case *rsa.PublicKey:
		return k.N.BitLen()
	}
	return 0
}

// recorder records while on; the clientsets of the timed rounds share its rest.Config only
// when it is off (a pass-through then).
type recorder struct {
	next      http.RoundTripper
	mu        sync.Mutex
	on        bool
	exchanges []*exchange
}

func (r *recorder) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on, r.exchanges = true, nil
}

// stop ends a recording and returns what it kept.
func (r *recorder) stop() []*exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.exchanges
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	r.mu.Lock()
	on := r.on
	r.mu.Unlock()
	if err != nil || !on {
		return resp, err
	}
	e := &exchange{method: req.Method, path: req.URL.Path, query: req.URL.RawQuery,
		accept: req.Header.Get("Accept"), status: resp.StatusCode, proto: resp.Proto,
		header: resp.Header.Clone(), transferEncoding: resp.TransferEncoding,
		uncompressed: resp.Uncompressed}
	if resp.TLS != nil {
		e.tlsVersion, e.tlsCipher = resp.TLS.Version, resp.TLS.CipherSuite
		if len(resp.TLS.PeerCertificates) > 0 {
			e.peer = resp.TLS.PeerCertificates[0]
		}
	}
	resp.Body = &teeBody{ReadCloser: resp.Body, e: e}
	r.mu.Lock()
	r.exchanges = append(r.exchanges, e)
	r.mu.Unlock()
	return resp, nil
}

// teeBody appends what the client reads to the exchange, as it reads it.
type teeBody struct {
	io.ReadCloser
	e *exchange
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 {
		t.e.mu.Lock()
		t.e.body = append(t.e.body, p[:n]...)
		t.e.mu.Unlock()
	}
	return n, err
}
