package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// scalingChart plots best RPS per CPU limit, the least-squares line and
// perfect linear scaling from the smallest limit.
func scalingChart(rep *Report) (*plot.Plot, error) {
	s := rep.Scaling
	p := plot.New()
	p.Title.Text = "Best RPS per CPU limit"
	p.X.Label.Text = "CPU limit (cores)"
	p.Y.Label.Text = "RPS"
	best := make(plotter.XYs, len(s.Points))
	ideal := make(plotter.XYs, len(s.Points))
	fit := make(plotter.XYs, len(s.Points))
	for i, pt := range s.Points {
		best[i] = plotter.XY{X: pt.CPUs, Y: pt.BestRPS}
		ideal[i] = plotter.XY{X: pt.CPUs, Y: pt.CPUs * s.Points[0].RPSPerCore}
		fit[i] = plotter.XY{X: pt.CPUs, Y: s.Intercept + s.Slope*pt.CPUs}
	}
	sc, err := plotter.NewScatter(best)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = draw.CircleGlyph{}, vg.Points(4)
	sc.GlyphStyle.Color = plotutil.Color(0)
	p.Add(sc)
	p.Legend.Add("best RPS", sc)
	p.Legend.Top, p.Legend.Left = true, true
	if err := addLine(p, ideal, "linear from the smallest limit", 1, true); err != nil {
		return nil, err
	}
	if s.Fitted {
		label := fmt.Sprintf("fit %.0f + %.0f x CPU (R² %.3f)", s.Intercept, s.Slope, s.R2)
		if err := addLine(p, fit, label, 2, false); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func addLine(p *plot.Plot, xys plotter.XYs, label string, colour int, dashed bool) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(colour)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

// paretoChart plots every eligible cell's P99 against its RPS, one colour
// per CPU limit, with each limit's frontier as a line.
func paretoChart(rep *Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "RPS vs P99 per CPU limit (lines: Pareto frontiers)"
	p.X.Label.Text = "P99 (ms)"
	p.Y.Label.Text = "RPS"
	p.Legend.Top = true
	for i, cr := range rep.PerCPU {
		var pts plotter.XYs
		for _, c := range cr.Cells {
			if c.eligible() {
				pts = append(pts, plotter.XY{X: c.P99.Mean, Y: c.RPS.Mean})
			}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape = plotutil.Color(i), plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("CPU %g", cr.CPUs), sc)
		front := make(plotter.XYs, len(cr.Frontier))
		for j, c := range cr.Frontier {
			front[j] = plotter.XY{X: c.P99.Mean, Y: c.RPS.Mean}
		}
		l, err := plotter.NewLine(front)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		p.Add(l)
	}
	return p, nil
}
