package live

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape GETs url as Prometheus does and parses the answer with
// Prometheus's own text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// series are a family's samples by their labels ("cell=a,repetition=1";
// "" without labels): a gauge's or a counter's value.
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
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

// show renders a scrape's series in a stable order, for messages.
func show(fams map[string]*dto.MetricFamily) string {
	var lines []string
	for name := range fams {
		for labels, v := range series(fams, name) {
			lines = append(lines, fmt.Sprintf("%s{%s} %g", name, labels, v))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
