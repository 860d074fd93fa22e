package report

import (
	"fmt"
	"math"

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
	if u := rep.USL; u != nil {
		if err := addUSL(p, u); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// uslSamples is how many points draw the USL curve.
const uslSamples = 100

// addUSL draws the fitted USL curve from the smallest measured CPU limit
// to the largest measured or predicted one, and the predictions with
// their intervals.
func addUSL(p *plot.Plot, u *USL) error {
	lo, hi := u.Points[0].CPUs, u.Points[len(u.Points)-1].CPUs
	for _, pr := range u.Predictions {
		lo, hi = min(lo, pr.CPUs), max(hi, pr.CPUs)
	}
	curve := make(plotter.XYs, uslSamples)
	for i := range curve {
		n := lo + (hi-lo)*float64(i)/(uslSamples-1)
		curve[i] = plotter.XY{X: n, Y: u.At(n)}
	}
	label := fmt.Sprintf("USL σ %.3g, κ %.3g, λ %.0f (R² %.3f)", u.Sigma, u.Kappa, u.Lambda, u.R2)
	if err := addLine(p, curve, label, 3, false); err != nil {
		return err
	}
	if len(u.Predictions) == 0 {
		return nil
	}
	pts := make(predictedXYs, len(u.Predictions))
	for i, pr := range u.Predictions {
		pts[i] = pr
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = draw.RingGlyph{}, vg.Points(4)
	sc.GlyphStyle.Color = plotutil.Color(3)
	p.Add(sc)
	p.Legend.Add("predicted (extrapolation outside the measured limits)", sc)
	if math.IsNaN(u.Predictions[0].Lo) {
		return nil
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	bars.Color = plotutil.Color(3)
	p.Add(bars)
	return nil
}

// predictedXYs adapts predictions to plotter.XYer and YErrorer.
type predictedXYs []Prediction

func (ps predictedXYs) Len() int                    { return len(ps) }
func (ps predictedXYs) XY(i int) (float64, float64) { return ps[i].CPUs, ps[i].Value }
func (ps predictedXYs) YError(i int) (float64, float64) {
	return ps[i].Value - ps[i].Lo, ps[i].Hi - ps[i].Value
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
