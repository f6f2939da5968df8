package main

// The apiserver's answers to invalid ListOptions: each query below is decoded with
// apimachinery's own parameter codec and validated with its ValidateListOptions (the WatchList
// feature on, as in kube-apiserver 1.36), as the apiserver's list/watch handler does; the
// server must answer 422 with exactly the message apimachinery's errors.NewInvalid makes of
// that. Valid combinations next to them must be served.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type listOptionsCase struct {
	name  string
	query url.Values
	valid bool // served (200), not refused
}

func q(pairs ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Set(pairs[i], pairs[i+1])
	}
	return v
}

var listOptionsTable = []listOptionsCase{
	{name: "list-with-sendInitialEvents-true", query: q("sendInitialEvents", "true")},
	{name: "list-with-sendInitialEvents-false", query: q("sendInitialEvents", "false")},
	{name: "list-with-sendInitialEvents-and-NotOlderThan",
		query: q("sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan", "resourceVersion", "0")},
	{name: "list-resourceVersionMatch-without-resourceVersion",
		query: q("resourceVersionMatch", "NotOlderThan")},
	{name: "list-resourceVersionMatch-with-continue",
		query: q("resourceVersionMatch", "NotOlderThan", "resourceVersion", "1", "continue", "abc")},
	{name: "list-resourceVersionMatch-unsupported",
		query: q("resourceVersionMatch", "Newest", "resourceVersion", "1")},
	{name: "list-exact-at-resourceVersion-0",
		query: q("resourceVersionMatch", "Exact", "resourceVersion", "0")},
	{name: "list-every-error-at-once",
		query: q("resourceVersionMatch", "Bogus", "continue", "abc", "sendInitialEvents", "true")},
	{name: "watch-sendInitialEvents-without-resourceVersionMatch",
		query: q("watch", "true", "sendInitialEvents", "true")},
	{name: "watch-sendInitialEvents-false-without-resourceVersionMatch",
		query: q("watch", "true", "sendInitialEvents", "false", "allowWatchBookmarks", "true")},
	{name: "watch-sendInitialEvents-with-Exact",
		query: q("watch", "true", "sendInitialEvents", "true", "resourceVersionMatch", "Exact")},
	{name: "watch-resourceVersionMatch-without-sendInitialEvents",
		query: q("watch", "true", "resourceVersionMatch", "NotOlderThan", "resourceVersion", "1")},
	{name: "watch-resourceVersionMatch-with-continue",
		query: q("watch", "true", "sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan",
			"continue", "abc")},
	{name: "watch-unsupported-match-without-sendInitialEvents-with-continue",
		query: q("watch", "true", "resourceVersionMatch", "Exact", "continue", "abc", "limit", "5")},
	// Served: what client-go's informers and kubectl send.
	{name: "valid-watch-list", valid: true,
		query: q("watch", "true", "sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan",
			"allowWatchBookmarks", "true", "timeoutSeconds", "1")},
	{name: "valid-watch-list-from-a-resourceVersion", valid: true,
		query: q("watch", "true", "sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan",
			"resourceVersion", "1", "timeoutSeconds", "1")},
	{name: "valid-watch-with-limit-and-bookmarks", valid: true,
		query: q("watch", "true", "allowWatchBookmarks", "true", "limit", "500", "timeoutSeconds", "1")},
	{name: "valid-list-not-older-than", valid: true,
		query: q("resourceVersionMatch", "NotOlderThan", "resourceVersion", "0", "limit", "500")},
	{name: "valid-list-with-allowWatchBookmarks", valid: true, query: q("allowWatchBookmarks", "true")},
}

// expectedInvalid is what the apiserver answers for query: apimachinery's validation of the
// options its parameter codec decodes, as a 422 Invalid on ListOptions.meta.k8s.io "".
func expectedInvalid(query url.Values) (string, error) {
	var opts internalversion.ListOptions
	if err := metainternalscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion,
		&opts); err != nil {
		return "", fmt.Errorf("apimachinery cannot decode %v: %w", query, err)
	}
	errs := validation.ValidateListOptions(&opts, true)
	if len(errs) == 0 {
		return "", nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "",
		errs).Error(), nil
}

func listOptionsCases() []testCase {
	var cases []testCase
	for _, c := range listOptionsTable {
		c := c
		cases = append(cases, testCase{name: "list-options/" + c.name,
			run: func(ctx context.Context, e *env) error { return checkListOptions(ctx, e, c) }})
	}
	return cases
}

func checkListOptions(ctx context.Context, e *env, c listOptionsCase) error {
	want, err := expectedInvalid(c.query)
	if err != nil {
		return err
	}
	if c.valid != (want == "") {
		return fmt.Errorf("the table is wrong: apimachinery says %q for %v", want, c.query)
	}
	cs, err := e.clientset(jsonContent)
	if err != nil {
		return err
	}
	req := cs.CoreV1().RESTClient().Get().Namespace(e.namespace).Resource("configmaps")
	for k, vs := range c.query {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	// A watch the server wrongly accepts streams until its timeout: bounded here.
	reqCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	result := req.Do(reqCtx)
	code := 0
	result.StatusCode(&code)
	err = result.Error()
	if c.valid {
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("%v: want 200, got %d: %v", c.query.Encode(), code, err)
		}
		return nil
	}
	if code != http.StatusUnprocessableEntity {
		return fmt.Errorf("%v: want 422 %q, got %d: %v", c.query.Encode(), want, code, err)
	}
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return fmt.Errorf("%v: the 422 carries no Status: %v", c.query.Encode(), err)
	}
	if got := status.Status().Message; got != want {
		return fmt.Errorf("%v: message differs from apimachinery's\nwant: %s\ngot:  %s",
			c.query.Encode(), want, got)
	}
	if got := status.Status().Reason; got != metav1.StatusReasonInvalid {
		return fmt.Errorf("%v: reason %q, want Invalid", c.query.Encode(), got)
	}
	return nil
}
