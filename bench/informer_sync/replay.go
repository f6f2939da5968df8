package main

// The replaying half of -floor: an in-process HTTPS server on loopback that answers the
// informer's requests with what serve answered (record.go), the watch's body written whole at
// once and the stream then held open as serve holds it. It speaks what client-go negotiated
// with serve (HTTP/2 or HTTP/1.1), with a certificate of serve's key type and a client
// certificate asked for, so the client pays the same TLS as against serve; what it does not
// pay is any work of a server.

import (
	"bytes"
	"compress/gzip"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

type replay struct {
	srv     *httptest.Server
	caPEM   []byte
	answers map[string]*answer
	done    chan struct{}
	misses  atomic.Int64 // requests nothing was recorded for (answered 404)
}

type answer struct {
	e     *exchange
	body  []byte // as sent on the wire: gzipped again when serve sent it gzipped
	watch bool
}

func replayKey(method, path string, watch bool) string {
	return fmt.Sprintf("%s %s watch=%v", method, path, watch)
}

// newReplay answers exchanges' requests; peer is serve's certificate, whose key type it copies.
func newReplay(exchanges []*exchange, peer *x509.Certificate) (*replay, error) {
	r := &replay{answers: map[string]*answer{}, done: make(chan struct{})}
	http2 := false
	for _, e := range exchanges {
		a := &answer{e: e, body: e.bytes(), watch: e.isWatch()}
		if e.uncompressed {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(a.body)
			zw.Close()
			a.body = b.Bytes()
		}
		http2 = http2 || e.proto == "HTTP/2.0"
		key := replayKey(e.method, e.path, a.watch)
		if _, seen := r.answers[key]; !seen { // the first answer of the recorded sync
			r.answers[key] = a
		}
	}
	cert, caPEM, err := certificateLike(peer)
	if err != nil {
		return nil, err
	}
	r.caPEM = caPEM
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serveHTTP))
	r.srv.EnableHTTP2 = http2
	r.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAnyClientCert}
	r.srv.StartTLS()
	return r, nil
}

func (r *replay) serveHTTP(w http.ResponseWriter, req *http.Request) {
	a, ok := r.answers[replayKey(req.Method, req.URL.Path, req.URL.Query().Get("watch") == "true")]
	if !ok {
		r.misses.Add(1)
		http.NotFound(w, req)
		return
	}
	h := w.Header()
	for k, v := range a.e.header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Transfer-Encoding", "Connection", "Date":
			continue // the server's own framing: chunked or HTTP/2 frames, as serve's was
		}
		h[k] = v
	}
	if a.e.uncompressed {
		h.Set("Content-Encoding", "gzip")
	}
	if !a.watch {
		h.Set("Content-Length", fmt.Sprint(len(a.body)))
	}
	w.WriteHeader(a.e.status)
	w.Write(a.body)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if a.watch { // serve keeps a watch open after its initial events: so does the replay
		select {
		case <-req.Context().Done():
		case <-r.done:
		}
	}
}

// config is base pointed at the replay: the same client certificate, the replay's CA.
func (r *replay) config(base *rest.Config) *rest.Config {
	c := rest.CopyConfig(base)
	c.Host = r.srv.URL
	c.TLSClientConfig.CAFile, c.TLSClientConfig.CAData = "", r.caPEM
	c.TLSClientConfig.ServerName, c.TLSClientConfig.Insecure = "", false
	return c
}

func (r *replay) close() {
	close(r.done)
	r.srv.Close()
}

// certificateLike makes a self-signed certificate for 127.0.0.1 with a key of peer's type and
// size, returned with its PEM for the client to trust.
func certificateLike(peer *x509.Certificate) (tls.Certificate, []byte, error) {
	var key crypto.Signer
	var err error
	switch pub := peer.PublicKey.(type) {
	case *ecdsa.PublicKey:
		curve := elliptic.P256()
		if pub.Curve != nil {
			curve = pub.Curve
		}
		key, err = ecdsa.GenerateKey(curve, rand.Reader)
	case *rsa.PublicKey:
		key, err = rsa.GenerateKey(rand.Reader, pub.N.BitLen())
	case ed25519.PublicKey:
		_, key, err = ed25519.GenerateKey(rand.Reader)
	default:
		return tls.Certificate{}, nil, fmt.Errorf("serve's certificate has a %T key", pub)
	}
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "informer-sync-replay"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
