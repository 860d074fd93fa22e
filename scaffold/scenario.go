package scaffold

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/sweep"
)

// scenarioAbout is what every scenario file init writes says first.
const scenarioAbout = "The load of one iteration of a virtual user, for sweep's built-in driver, in its scenario format " +
	"(a subset of Artillery's: get, post, put, patch and delete steps, json or body, capture, expect, think; " +
	"{{ name }} templates of config.variables and captures)."

// skeleton is the scenario of one GET of path, to be filled in.
func skeleton(path string) ([]step, string, []string) {
	head := []string{scenarioAbout, "sweep init wrote it from nothing: one GET of the ready path.",
		"TODO: replace it with the requests your users make, in order; a browser's recording of them " +
			"(developer tools, Save all as HAR) given to sweep init --har writes them for you."}
	return []step{{method: "get", url: path, expect: 200}}, "one GET of " + path + ", to fill in", head
}

// fromHAR is the scenario of the recording's requests to the target at
// base.
func fromHAR(name string, data []byte, base *url.URL) ([]step, string, []string, error) {
	xs, err := readHAR(name, data)
	if err != nil {
		return nil, "", nil, err
	}
	sel := selectTarget(xs, base)
	r, host := record(sel.mine, base), sel.host
	if len(r.steps) == 0 {
		return nil, "", nil, sweep.BadInput("har", "%s records no GET, POST, PUT, PATCH or DELETE request to %s that got a response", name, host)
	}
	caps := len(r.allCaptures())
	head := []string{scenarioAbout, fmt.Sprintf("sweep init wrote it from the recording %s: its %d requests to %s, in order, "+
		"each expecting the status it got; %s.", name, len(r.steps), host, captureWords(caps))}
	if !sel.atTarget {
		head = append(head, fmt.Sprintf("The recording asked nothing of %s, the target's address: the steps are its requests to %s, "+
			"the host it asked most, taken relative to the base URL.", base.Host, host))
	}
	head = append(head, "Recorded headers (cookies, tokens) are left out: add what the API needs under a step's headers:. "+
		"Other ids than those captured are not detected: a value your users vary is a config.variables entry or a capture.")
	if len(sel.others) > 0 {
		r.skipped = append(r.skipped, fmt.Sprintf("%d request(s) to other hosts (%s)", len(sel.others), strings.Join(hosts(sel.others), ", ")))
	}
	if len(r.skipped) > 0 {
		head = append(head, fmt.Sprintf("Left out: %s.", strings.Join(r.skipped, "; ")))
	}
	steps := make([]step, len(r.steps))
	for i, s := range r.steps {
		steps[i] = *s
	}
	return steps, fmt.Sprintf("%d requests recorded in %s, %s", len(steps), name, captureWords(caps)), head, nil
}

// hosts are the hosts xs go to, in their order.
func hosts(xs []exchange) []string {
	var out []string
	for _, x := range xs {
		if h := x.url.Host; !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

func captureWords(n int) string {
	switch n {
	case 0:
		return "no id of a response was named again by a later request, so nothing is captured"
	case 1:
		return "1 id of a response, named again by a later request, is captured"
	}
	return fmt.Sprintf("%d ids of responses, named again by later requests, are captured", n)
}

// renderScenario writes the steps as a scenario file with head as its
// comment, and parses it as the built-in driver will: what init writes
// always loads.
func renderScenario(file, name string, steps []step, head []string) ([]byte, error) {
	flow := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range steps {
		flow.Content = append(flow.Content, stepNode(s))
	}
	sc := mapping(scalar("name"), scalar(name), scalar("flow"), flow)
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: comment(head, commentWidth),
		Content: []*yaml.Node{mapping(scalar("scenarios"), &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{sc}})}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if _, err := scenario.Parse(file, b.Bytes()); err != nil {
		return nil, fmt.Errorf("the scenario init wrote does not parse: %w", err)
	}
	return b.Bytes(), nil
}

// stepNode is one step: method: {url, json or body, capture, expect}.
func stepNode(s step) *yaml.Node {
	u := scalar(s.url)
	if strings.Contains(s.url, "{{") {
		u.Style = yaml.DoubleQuotedStyle
	}
	req := mapping(scalar("url"), u)
	switch {
	case s.json != nil:
		req.Content = append(req.Content, scalar("json"), s.json)
	case s.body != "":
		req.Content = append(req.Content, scalar("body"), scalar(s.body))
	}
	if len(s.captures) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, c := range s.captures {
			list.Content = append(list.Content, mapping(scalar("json"), scalar(c.path), scalar("as"), scalar(c.as)))
		}
		req.Content = append(req.Content, scalar("capture"), list)
	}
	req.Content = append(req.Content, scalar("expect"), &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.Itoa(s.expect)})
	n := mapping(scalar(s.method), req)
	n.HeadComment = comment(s.notes, commentWidth-6)
	return n
}

// mapping is a block mapping of its keys and values, in turn.
func mapping(kv ...*yaml.Node) *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Content: kv} }

// scalar is a string as YAML writes it, quoted where it would be read
// as something else.
func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// comment is paragraphs as a YAML comment wrapped at width, "" for
// none; a paragraph starting with two spaces stays one line.
func comment(paras []string, width int) string {
	var lines []string
	for _, p := range paras {
		if strings.HasPrefix(p, "  ") {
			lines = append(lines, "# "+p)
			continue
		}
		for _, l := range strings.Split(sweep.Wrap(p, width, ""), "\n") {
			lines = append(lines, "# "+l)
		}
	}
	return strings.Join(lines, "\n")
}

// commentWidth is how wide a comment's text runs at the left margin,
// "# " aside.
const commentWidth = 76
