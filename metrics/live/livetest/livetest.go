// Package livetest scrapes a live metrics endpoint as Prometheus does and
// parses the answer with Prometheus's own text parser (expfmt), for the
// tests of package live and the end-to-end test of `sweep run
// --metrics-addr`: both read a scrape the same way.
package livetest

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Scrape GETs url in Prometheus's text format and parses the answer; an
// error (no answer, a status other than 200, a malformed body) fails the
// test.
func Scrape(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := TryScrape(t, url)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// scrapeTimeout bounds one scrape.
const scrapeTimeout = 10 * time.Second

// TryScrape is Scrape that returns its error, for a caller polling an
// endpoint that may not be up yet or any more.
func TryScrape(t testing.TB, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := (&http.Client{Timeout: scrapeTimeout}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", url, err)
	}
	return fams, nil
}

// Series are a family's samples by their labels ("cell=a,repetition=1";
// "" without labels): a gauge's or a counter's value. A family that is
// absent has none.
func Series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		var kv []string
		for _, l := range m.GetLabel() {
			kv = append(kv, l.GetName()+"="+l.GetValue())
		}
		sort.Strings(kv)
		v := m.GetGauge().GetValue()
		if f.GetType() == dto.MetricType_COUNTER {
			v = m.GetCounter().GetValue()
		}
		out[strings.Join(kv, ",")] = v
	}
	return out
}

// Show renders a scrape's series in a stable order, for messages.
func Show(fams map[string]*dto.MetricFamily) string {
	var lines []string
	for name := range fams {
		for labels, v := range Series(fams, name) {
			lines = append(lines, fmt.Sprintf("%s{%s} %g", name, labels, v))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
