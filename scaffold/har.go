package scaffold

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// harFile is the part of a HAR file (HTTP Archive 1.2, what a browser's
// developer tools save) that init reads.
type harFile struct {
	Log struct {
		Entries []struct {
			Request struct {
				Method   string `json:"method"`
				URL      string `json:"url"`
				PostData *struct {
					MimeType string `json:"mimeType"`
					Text     string `json:"text"`
				} `json:"postData"`
			} `json:"request"`
			Response struct {
				Status  int `json:"status"`
				Content struct {
					MimeType string `json:"mimeType"`
					Text     string `json:"text"`
					Encoding string `json:"encoding"`
				} `json:"content"`
			} `json:"response"`
		} `json:"entries"`
	} `json:"log"`
}

// exchange is one recorded request with its response.
type exchange struct {
	method   string
	url      *url.URL
	body     string
	jsonBody bool
	status   int
	response string // a JSON response's body; "" otherwise
}

// readHAR reads the exchanges of a HAR file, in its order.
func readHAR(name string, data []byte) ([]exchange, error) {
	var h harFile
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, sweep.BadInput("har", "%s is not a HAR file (the JSON a browser's developer tools save): %v", name, err)
	}
	var out []exchange
	for _, e := range h.Log.Entries {
		u, err := url.Parse(e.Request.URL)
		if err != nil || u.Host == "" {
			continue
		}
		x := exchange{method: strings.ToUpper(e.Request.Method), url: u, status: e.Response.Status}
		if p := e.Request.PostData; p != nil {
			x.body, x.jsonBody = p.Text, isJSON(p.MimeType) && json.Valid([]byte(p.Text))
		}
		if c := e.Response.Content; isJSON(c.MimeType) {
			text := c.Text
			if c.Encoding == "base64" {
				b, _ := base64.StdEncoding.DecodeString(text) // what does not decode is no JSON
				text = string(b)
			}
			if json.Valid([]byte(text)) {
				x.response = text
			}
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil, sweep.BadInput("har", "%s records no request (log.entries is empty)", name)
	}
	return out, nil
}

// isJSON reports whether a MIME type is JSON's (application/json,
// application/problem+json; charset aside).
func isJSON(mime string) bool {
	mime, _, _ = strings.Cut(strings.ToLower(mime), ";")
	mime = strings.TrimSpace(mime)
	return mime == "application/json" || strings.HasSuffix(mime, "+json")
}

// selection is a recording's requests to the target and the others.
type selection struct {
	mine, others []exchange
	// host is the target's host as the recording names it; atTarget is
	// false when no request went to the target's address and host is
	// the one the recording asks most.
	host     string
	atTarget bool
}

// selectTarget picks the recording's requests to the target: those to
// base's host and port (any loopback name for a loopback host), else
// those to the host the recording asks most.
func selectTarget(xs []exchange, base *url.URL) selection {
	is := func(u *url.URL) bool { return sameHost(u, base) }
	sel := selection{atTarget: slices.ContainsFunc(xs, func(x exchange) bool { return is(x.url) })}
	if !sel.atTarget {
		count := map[string]int{}
		top := ""
		for _, x := range xs {
			count[x.url.Host]++
			if count[x.url.Host] > count[top] {
				top = x.url.Host
			}
		}
		is = func(u *url.URL) bool { return u.Host == top }
	}
	for _, x := range xs {
		if is(x.url) {
			sel.mine = append(sel.mine, x)
		} else {
			sel.others = append(sel.others, x)
		}
	}
	sel.host = sel.mine[0].url.Host
	return sel
}

// sameHost reports whether a and b name the same host and port, taking
// every loopback name for one.
func sameHost(a, b *url.URL) bool {
	if port(a) != port(b) {
		return false
	}
	return a.Hostname() == b.Hostname() || loopback(a.Hostname()) && loopback(b.Hostname())
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}
