package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
)

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{"screened": isScreenedText}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Sweep report: run {{.RunID}}</title>
<style>
body { font-family: sans-serif; margin: 2em; max-width: 80em; color: #222; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 90%; }
th, td { border: 1px solid #bbb; padding: .2em .6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
p.note { color: #555; font-size: 90%; }
{{if .Halving}}td.screened { color: #999; font-style: italic; }
{{end}}</style></head><body>
<h1>Sweep report: run {{.RunID}}</h1>
{{range .Intro}}<p>{{.}}</p>
{{end}}{{range .Sections}}<h2>{{.Heading}}</h2>
{{range .Paras}}<p>{{.}}</p>
{{end}}{{with .Links}}<ul>
{{range .}}<li><a href="{{.Href}}">{{.Text}}</a></li>
{{end}}</ul>
{{end}}{{range .Tables}}<h3>{{.Title}}</h3>
<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{if screened .}} class="screened"{{end}}>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{with .Note}}<p class="note">{{.}}</p>{{end}}
{{end}}{{range .Charts}}<figure class="chart" id="{{.File}}"><figcaption>{{.Title}}</figcaption>
{{.SVG}}</figure>
{{end}}{{end}}</body></html>
`))

type htmlSection struct {
	section
	Charts []htmlChart
}

type htmlChart struct {
	File, Title string
	SVG         template.HTML
}

// WriteHTML writes report.html: one self-contained page with every chart
// inlined as SVG, no scripts and no outside resources.
func WriteHTML(w io.Writer, rep *Report, charts []Chart) error {
	data := struct {
		RunID    string
		Halving  bool
		Intro    []string
		Sections []htmlSection
	}{RunID: rep.RunID, Halving: rep.Strategy == StrategyHalving && rep.Noise.Pairing == nil, Intro: introParas(rep)}
	for _, s := range document(rep, charts) {
		hs := htmlSection{section: s}
		for _, c := range s.Charts {
			// The SVG comes from gonum/plot, not from user input.
			hs.Charts = append(hs.Charts, htmlChart{File: c.File, Title: c.Title, SVG: template.HTML(inlineSVG(c.SVG))})
		}
		data.Sections = append(data.Sections, hs)
	}
	if err := htmlPage.Execute(w, data); err != nil {
		return fmt.Errorf("render html: %w", err)
	}
	return nil
}

// inlineSVG drops the XML prolog so the document can sit inside HTML.
func inlineSVG(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
