//! The report's charts as inline SVG, drawn with `plotters`' SVG backend (no fonts or network
//! needed: text stays SVG text for the browser to render).

use plotters::prelude::*;

/// A bot's cumulative winnings: points (hands played, units won, half-width of the 95% band).
pub struct Curve {
    pub points: Vec<(f64, f64, f64)>,
}

/// One interval of the pairing chart.
pub struct Bar {
    pub label: String,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

fn color(i: usize) -> RGBColor {
    const C: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    C[i % C.len()]
}

/// Bot `i`'s colour as CSS, for the legend the page draws under the chart.
pub fn css_color(i: usize) -> String {
    let c = color(i);
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn failed(what: &str, e: impl std::fmt::Display) -> String {
    format!("<p class=\"error\">{what} chart could not be drawn: {e}</p>")
}

/// Cumulative winnings per bot with a 95% band; bot `i` (index into `curves`) in
/// [`css_color`]`(i)`. No legend inside the plot: it hid the start of every curve, where they are
/// closest together; the page writes it under the chart.
pub fn cumulative(curves: &[Curve]) -> String {
    let mut svg = String::new();
    let res = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (960, 460)).into_drawing_area();
        root.fill(&WHITE)?;
        let all = curves.iter().flat_map(|c| c.points.iter());
        let xmax = all.clone().map(|p| p.0).fold(1.0, f64::max);
        let ymax = all.clone().map(|p| p.1 + p.2).fold(1.0, f64::max);
        let ymin = all.map(|p| p.1 - p.2).fold(-1.0, f64::min);
        let pad = (ymax - ymin) * 0.05;
        // The right margin leaves room for half of the last tick label (`800k`), which is
        // centred on the plot's edge and was clipped with the default margin.
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .margin_right(40)
            .x_label_area_size(42)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..xmax, (ymin - pad)..(ymax + pad))?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .x_desc("hands played by the bot")
            .y_desc("cumulative winnings (game units)")
            .x_label_formatter(&|x| short_count(*x))
            .y_label_formatter(&|y| short_count(*y))
            .draw()?;
        for (i, c) in curves.iter().enumerate() {
            let col = color(i);
            let mut band: Vec<(f64, f64)> = c.points.iter().map(|p| (p.0, p.1 + p.2)).collect();
            band.extend(c.points.iter().rev().map(|p| (p.0, p.1 - p.2)));
            chart.draw_series(std::iter::once(Polygon::new(band, col.mix(0.25).filled())))?;
            // Dashed-looking edges (thin, light): the band stays visible where it is thinner
            // than the line itself.
            for sign in [1.0, -1.0] {
                chart.draw_series(LineSeries::new(
                    c.points.iter().map(move |p| (p.0, p.1 + sign * p.2)),
                    col.mix(0.6).stroke_width(1),
                ))?;
            }
            chart.draw_series(LineSeries::new(
                c.points.iter().map(|p| (p.0, p.1)),
                col.stroke_width(2),
            ))?;
        }
        root.present()?;
        Ok(())
    })();
    match res {
        Ok(()) => svg,
        Err(e) => failed("cumulative winnings", e),
    }
}

/// A tick label short enough not to be clipped: `800k`, `1.5M`, `950`.
fn short_count(x: f64) -> String {
    let a = x.abs();
    if a >= 1e6 {
        let m = x / 1e6;
        if (m - m.round()).abs() < 1e-9 {
            format!("{m:.0}M")
        } else {
            format!("{m:.1}M")
        }
    } else if a >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Horizontal 95% intervals, one per pairing, coloured by significance.
pub fn intervals(bars: &[Bar]) -> String {
    let mut svg = String::new();
    let height = 70 + 24 * bars.len().max(1) as u32;
    let res = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (960, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let lo = bars
            .iter()
            .map(|b| b.low)
            .filter(|x| x.is_finite())
            .fold(0.0, f64::min);
        let hi = bars
            .iter()
            .map(|b| b.high)
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max);
        let pad = ((hi - lo) * 0.05).max(1.0);
        let n = bars.len();
        let labels: Vec<String> = bars.iter().map(|b| b.label.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(260)
            .build_cartesian_2d((lo - pad)..(hi + pad), -0.5..(n as f64 - 0.5))?;
        chart
            .configure_mesh()
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 15))
            .x_desc("mbb/hand of the first bot (95% interval)")
            .y_labels(n.max(1))
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    labels[labels.len() - 1 - i as usize].clone()
                } else {
                    String::new()
                }
            })
            .x_label_formatter(&|x| format!("{x:.0}"))
            .disable_y_mesh()
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, -0.5), (0.0, n as f64 - 0.5)],
            BLACK.mix(0.6).stroke_width(1),
        )))?;
        for (i, b) in bars.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            let col = if b.low > 0.0 {
                RGBColor(26, 140, 60)
            } else if b.high < 0.0 {
                RGBColor(200, 40, 40)
            } else {
                RGBColor(110, 110, 110)
            };
            let (l, h) = (
                if b.low.is_finite() { b.low } else { lo - pad },
                if b.high.is_finite() { b.high } else { hi + pad },
            );
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(l, y), (h, y)],
                col.stroke_width(3),
            )))?;
            chart.draw_series(std::iter::once(Circle::new((b.mean, y), 4, col.filled())))?;
        }
        root.present()?;
        Ok(())
    })();
    match res {
        Ok(()) => svg,
        Err(e) => failed("pairing", e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(short_count(800_000.0), "800k");
        assert_eq!(short_count(1_500_000.0), "1.5M");
        assert_eq!(short_count(2_000_000.0), "2M");
        assert_eq!(short_count(950.0), "950");
    }

    /// Every x tick label of the cumulative chart lies inside the picture (the last one was cut
    /// to `80000` at the right edge).
    #[test]
    fn the_last_x_label_is_not_clipped() {
        let curves = vec![Curve {
            points: vec![
                (0.0, 0.0, 0.0),
                (400_000.0, 50.0, 9.0),
                (800_000.0, 90.0, 12.0),
            ],
        }];
        let svg = cumulative(&curves);
        let mut found = false;
        for part in svg.split("<text").skip(1) {
            let Some(label) = part
                .split('>')
                .nth(1)
                .and_then(|t| t.split('<').next())
                .map(str::trim)
            else {
                continue;
            };
            if label != "800k" {
                continue;
            }
            found = true;
            let x: f64 = part
                .split("x=\"")
                .nth(1)
                .and_then(|t| t.split('"').next())
                .and_then(|t| t.parse().ok())
                .expect("x attribute");
            // Centred on x: half of ~4 glyphs of a 14 px font must fit in the 960 px picture.
            assert!(x + 16.0 < 960.0, "label at {x}");
        }
        assert!(found, "no 800k tick label: {svg}");
    }
}
