package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is one rendered chart: an SVG document and the file name it is
// saved under.
type Chart struct {
	File  string
	Title string
	SVG   []byte
}

// Charts renders the heatmaps of RPS and P99 per CPU limit, the scaling
// line and the Pareto scatter, with gonum/plot.
func Charts(rep *Report) ([]Chart, error) {
	var out []Chart
	add := func(file, title string, p *plot.Plot, err error) error {
		if err != nil {
			return fmt.Errorf("chart %s: %w", file, err)
		}
		svg, err := renderSVG(p, 16*vg.Centimeter, 11*vg.Centimeter)
		if err != nil {
			return fmt.Errorf("chart %s: %w", file, err)
		}
		out = append(out, Chart{File: file, Title: title, SVG: svg})
		return nil
	}
	for _, cr := range rep.PerCPU {
		for _, m := range []Metric{MetricRPS, MetricP99} {
			title := fmt.Sprintf("CPU %g: %s", cr.CPUs, m.Title())
			p, err := heatmap(cr, m, title)
			if err := add(fmt.Sprintf("heatmap-%s-cpu-%g.svg", m, cr.CPUs), title, p, err); err != nil {
				return nil, err
			}
		}
	}
	p, err := scalingChart(rep)
	if err := add("scaling.svg", "Scaling: best RPS per CPU limit", p, err); err != nil {
		return nil, err
	}
	p, err = paretoChart(rep)
	if err := add("pareto.svg", "Pareto: RPS vs P99", p, err); err != nil {
		return nil, err
	}
	return out, nil
}

func renderSVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// grid adapts a CPU limit's matrix to plotter.GridXYZ: columns are pool
// multipliers, rows web multipliers, ineligible cells NaN.
type grid struct {
	cr *CPUReport
	m  Metric
}

func (g grid) Dims() (c, r int)    { return len(g.cr.DBMults), len(g.cr.WebMults) }
func (g grid) X(c int) float64     { return float64(c) }
func (g grid) Y(r int) float64     { return float64(r) }
func (g grid) cell(c, r int) *Cell { return g.cr.At(g.cr.WebMults[r], g.cr.DBMults[c]) }
func (g grid) Z(c, r int) float64 {
	cell := g.cell(c, r)
	if cell == nil || !cell.eligible() {
		return math.NaN()
	}
	return cell.value(g.m).Mean
}

func heatmap(cr *CPUReport, m Metric, title string) (*plot.Plot, error) {
	g := grid{cr: cr, m: m}
	cmap := moreland.SmoothGreenRed()
	var colors palette.ColorMap = cmap
	if m.higherIsBetter() {
		colors = palette.Reverse(cmap)
	}
	colors.SetMin(0)
	colors.SetMax(1)
	h := plotter.NewHeatMap(g, colors.Palette(64))
	h.NaN = color.Gray{Y: 200}
	p := plot.New()
	p.Title.Text = title + " (grey: failed, missing or above the error bound)"
	p.X.Label.Text = "pool multiplier (x web threads)"
	p.Y.Label.Text = "web multiplier (x CPU)"
	p.Add(h)
	labels, err := heatLabels(g)
	if err != nil {
		return nil, err
	}
	p.Add(labels)
	p.X.Tick.Marker = indexTicks(cr.DBMults, "%g x")
	p.Y.Tick.Marker = indexTicks(cr.WebMults, "%g x")
	return p, nil
}

func heatLabels(g grid) (*plotter.Labels, error) {
	var xyl plotter.XYLabels
	cols, rows := g.Dims()
	for r := range rows {
		for c := range cols {
			cell := g.cell(c, r)
			if cell == nil {
				continue
			}
			text := cellText(g.cr, cell, g.m)
			xyl.XYs = append(xyl.XYs, plotter.XY{X: float64(c) - 0.4, Y: float64(r)})
			xyl.Labels = append(xyl.Labels, text)
		}
	}
	return plotter.NewLabels(xyl)
}

// indexTicks labels integer positions with the axis values.
func indexTicks(vals []float64, format string) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(vals))
	for i, v := range vals {
		ticks[i] = plot.Tick{Value: float64(i), Label: fmt.Sprintf(format, v)}
	}
	return ticks
}
