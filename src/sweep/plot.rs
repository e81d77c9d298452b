//! A sweep's plots (plotters, PNG and SVG): each metric against each swept key, one line
//! per value of the other keys (and per workload), and the area/throughput Pareto front.
//! Text needs a TrueType font: DejaVu Sans from Debian's fonts-dejavu-core, or the file
//! `$GPURTL_FONT` names.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use super::Plan;
use super::report::{METRICS, Row, Status};

const SIZE: (u32, u32) = (900, 560);
const FONT: &str = "sans-serif";
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];

/// A line's identity: the level of each other key, and the workload.
type SeriesKey = (Vec<usize>, String);

/// One output file.
pub struct PlotFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Loads and registers the font once; the error says how to get one.
fn font() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let paths: Vec<PathBuf> = std::env::var_os("GPURTL_FONT")
            .map(PathBuf::from)
            .into_iter()
            .chain(FONT_PATHS.iter().map(PathBuf::from))
            .collect();
        let Some((path, bytes)) = paths
            .iter()
            .find_map(|p| std::fs::read(p).ok().map(|b| (p, b)))
        else {
            return Err(format!(
                "no TrueType font for the plots' text (tried {}): install Debian's fonts-dejavu-core, or set GPURTL_FONT to a .ttf file",
                FONT_PATHS.join(", ")
            ));
        };
        // plotters keeps fonts for the life of the process.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        register_font(FONT, FontStyle::Normal, bytes)
            .map_err(|_| format!("{} is not a TrueType font plotters can read", path.display()))
    })
    .clone()
}

/// A line chart over one key's values, placed evenly (geometric ranges read well).
struct LineChart {
    title: String,
    x_label: String,
    y_label: String,
    categories: Vec<String>,
    /// Legend label and (category index, value) points.
    series: Vec<(String, Vec<(usize, f64)>)>,
}

/// A scatter of points with the front drawn through it and labelled.
struct Scatter {
    title: String,
    x_label: String,
    y_label: String,
    points: Vec<(String, f64, f64)>,
    front: Vec<usize>,
}

fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.08
    } else {
        lo.abs().max(1.0) * 0.1
    };
    (lo - pad, hi + pad)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn draw_lines<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &LineChart) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(&c.title, (FONT, 22)).map_err(err)?;
    let (lo, hi) = y_range(c.series.iter().flat_map(|s| s.1.iter().map(|p| p.1)));
    // The legend gets a panel of its own on the right, so it never hides a line.
    let legend = c.series.len() > 1 || c.series.first().is_some_and(|s| !s.0.is_empty());
    let (area, panel) = if legend {
        let w = root.dim_in_pixel().0;
        let (a, p) = root.split_horizontally(w * 64 / 100);
        (a, Some(p))
    } else {
        (root.clone(), None)
    };
    // Categories at 0, 1, ..., n-1, half a step of room at each end.
    let n = c.categories.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&area)
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(-0.5..n - 0.5, lo..hi)
        .map_err(err)?;
    let cats = &c.categories;
    chart
        .configure_mesh()
        .x_desc(&c.x_label)
        .y_desc(&c.y_label)
        .x_labels(cats.len() + 1)
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                cats.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(err)?;
    for (k, (label, pts)) in c.series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let xy: Vec<(f64, f64)> = pts.iter().map(|(i, y)| (*i as f64, *y)).collect();
        chart
            .draw_series(LineSeries::new(xy.clone(), color.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(xy.into_iter().map(|p| Circle::new(p, 4, color.filled())))
            .map_err(err)?;
        if let Some(panel) = &panel {
            let y = 24 + 22 * k as i32;
            panel
                .draw(&PathElement::new([(8, y), (34, y)], color.stroke_width(3)))
                .map_err(err)?;
            panel
                .draw(&Text::new(label.clone(), (42, y - 8), (FONT, 14)))
                .map_err(err)?;
        }
    }
    root.present().map_err(err)
}

fn draw_scatter<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &Scatter) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (x0, x1) = y_range(c.points.iter().map(|p| p.1));
    let (y0, y1) = y_range(c.points.iter().map(|p| p.2));
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, (FONT, 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let whole = |v: &f64| {
        if v.abs() >= 100.0 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(&c.x_label)
        .y_desc(&c.y_label)
        .x_label_formatter(&whole)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(
            c.points
                .iter()
                .map(|(_, x, y)| Circle::new((*x, *y), 4, RGBColor(150, 150, 150).filled())),
        )
        .map_err(err)?;
    let front: Vec<(f64, f64)> = c
        .front
        .iter()
        .map(|&i| (c.points[i].1, c.points[i].2))
        .collect();
    chart
        .draw_series(LineSeries::new(front.clone(), RED.stroke_width(2)))
        .map_err(err)?;
    chart
        .draw_series(c.front.iter().map(|&i| {
            let (name, x, y) = &c.points[i];
            EmptyElement::at((*x, *y))
                + Circle::new((0, 0), 5, RED.filled())
                + Text::new(name.clone(), (6, -16), (FONT, 13))
        }))
        .map_err(err)?;
    root.present().map_err(err)
}

/// Renders one chart to PNG (encoded with the `png` crate) and SVG.
fn render(
    name: &str,
    line: Option<&LineChart>,
    scatter: Option<&Scatter>,
) -> Result<Vec<PlotFile>, String> {
    let (w, h) = SIZE;
    let mut rgb = vec![0u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, SIZE).into_drawing_area();
        match (line, scatter) {
            (Some(l), _) => draw_lines(root, l)?,
            (_, Some(s)) => draw_scatter(root, s)?,
            _ => return Ok(Vec::new()),
        }
    }
    let mut png_bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut png_bytes, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().map_err(err)?;
        wr.write_image_data(&rgb).map_err(err)?;
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        match (line, scatter) {
            (Some(l), _) => draw_lines(root, l)?,
            (_, Some(s)) => draw_scatter(root, s)?,
            _ => {}
        }
    }
    Ok(vec![
        PlotFile {
            name: format!("plots/{name}.png"),
            bytes: png_bytes,
        },
        PlotFile {
            name: format!("plots/{name}.svg"),
            bytes: svg.into_bytes(),
        },
    ])
}

/// Every plot the rows support, and notes on those they do not.
pub fn plots(plan: &Plan, rows: &[Row]) -> Result<(Vec<PlotFile>, Vec<String>), String> {
    let ok: Vec<&Row> = rows.iter().filter(|r| r.status == Status::Ok).collect();
    let mut files = Vec::new();
    let mut notes = Vec::new();
    if ok.is_empty() || plan.spec.axes.is_empty() {
        notes.push("no plots: no point finished".into());
        return Ok((files, notes));
    }
    font()?;
    let many_workloads = plan.settings.runs().len() > 1;
    let area_unit = ok
        .iter()
        .find_map(|r| r.area_unit.clone())
        .unwrap_or_default();
    for m in METRICS {
        if !ok.iter().any(|r| (m.get)(r).is_some()) {
            continue;
        }
        for (k, axis) in plan.spec.axes.iter().enumerate() {
            if axis.levels.len() < 2 {
                continue; // a key with one value is a dot, not a line
            }
            // One line per value of the other keys (and per workload).
            let mut series: BTreeMap<SeriesKey, Vec<(usize, f64)>> = BTreeMap::new();
            for r in &ok {
                let Some(y) = (m.get)(r) else { continue };
                let point = plan.spec.point(r.index);
                let others: Vec<usize> = (0..plan.spec.axes.len())
                    .filter(|&j| j != k)
                    .map(|j| r.index_of(j, &point.levels[j], plan))
                    .collect();
                let x = r.index_of(k, &point.levels[k], plan);
                series
                    .entry((others, r.workload.clone()))
                    .or_default()
                    .push((x, y));
            }
            let series: Vec<(String, Vec<(usize, f64)>)> = series
                .into_iter()
                .map(|((others, w), mut pts)| {
                    pts.sort_by_key(|p| p.0);
                    let mut parts: Vec<String> = plan
                        .spec
                        .axes
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != k)
                        .zip(&others)
                        .filter(|((_, a), _)| a.levels.len() > 1)
                        .map(|((_, a), &l)| format!("{}={}", short(&a.key), a.levels[l].label))
                        .collect();
                    if many_workloads {
                        parts.push(w);
                    }
                    (parts.join(", "), pts)
                })
                .collect();
            let y_label = if m.name == "area" {
                format!("area ({area_unit})")
            } else {
                m.label.to_string()
            };
            let chart = LineChart {
                title: format!("{} against {} ({})", y_label, axis.key, plan.settings.unit),
                x_label: axis.key.clone(),
                y_label,
                categories: axis.levels.iter().map(|l| l.label.clone()).collect(),
                series,
            };
            files.extend(render(
                &format!("{}-vs-{}", m.name, axis.key),
                Some(&chart),
                None,
            )?);
        }
    }
    match pareto(&ok) {
        Some((mut points, front, y_name)) => {
            // Label each point with its values of the keys that vary.
            for p in &mut points {
                let Some(r) = ok.iter().find(|r| r.point == p.0) else {
                    continue;
                };
                let vals: Vec<String> = plan
                    .spec
                    .axes
                    .iter()
                    .zip(&r.values)
                    .filter(|(a, _)| a.levels.len() > 1)
                    .map(|(a, v)| format!("{}={}", short(&a.key), v.value))
                    .collect();
                p.0 = format!("{} {}", p.0, vals.join(" "));
            }
            let y_name = if many_workloads {
                format!("{y_name} (mean over workloads)")
            } else {
                y_name.to_string()
            };
            let s = Scatter {
                title: format!(
                    "{} against area: the Pareto front ({})",
                    y_name, plan.settings.unit
                ),
                x_label: format!("area ({area_unit})"),
                y_label: y_name.clone(),
                points,
                front,
            };
            files.extend(render("pareto", None, Some(&s))?);
        }
        None => {
            notes.push("no Pareto plot: it needs an area, which `--synth TARGET` measures".into())
        }
    }
    Ok((files, notes))
}

fn short(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

/// Per point: area and mean throughput over its workloads (texels per clock where the
/// unit reports them); the front is the points no other beats on both.
#[allow(clippy::type_complexity)]
fn pareto(ok: &[&Row]) -> Option<(Vec<(String, f64, f64)>, Vec<usize>, &'static str)> {
    let texels = ok.iter().any(|r| r.figures.texels_per_clock.is_some());
    let (get, name): (fn(&Row) -> Option<f64>, &'static str) = if texels {
        (|r| r.figures.texels_per_clock, "texels per clock")
    } else {
        (|r| r.figures.throughput, "items per clock")
    };
    let mut by_point: BTreeMap<usize, (String, f64, Vec<f64>)> = BTreeMap::new();
    for r in ok {
        let (Some(a), Some(y)) = (r.area, get(r)) else {
            continue;
        };
        by_point
            .entry(r.index)
            .or_insert_with(|| (r.point.clone(), a, Vec::new()))
            .2
            .push(y);
    }
    if by_point.is_empty() {
        return None;
    }
    let points: Vec<(String, f64, f64)> = by_point
        .into_values()
        .map(|(id, a, ys)| {
            let mean = ys.iter().sum::<f64>() / ys.len() as f64;
            (id, a, mean)
        })
        .collect();
    let mut front: Vec<usize> = (0..points.len())
        .filter(|&i| {
            !points.iter().enumerate().any(|(j, q)| {
                j != i
                    && q.1 <= points[i].1
                    && q.2 >= points[i].2
                    && (q.1 < points[i].1 || q.2 > points[i].2)
            })
        })
        .collect();
    front.sort_by(|&a, &b| points[a].1.total_cmp(&points[b].1));
    Some((points, front, name))
}

impl Row {
    /// Which level of axis `k` this row's point has (levels may repeat: take the index
    /// the point was built from).
    fn index_of(&self, k: usize, level: &super::Level, plan: &Plan) -> usize {
        let a = &plan.spec.axes[k];
        if plan.spec.zip {
            return self.index;
        }
        // The mixed-radix digit of the point's index for axis k.
        let below: usize = plan.spec.axes[k + 1..]
            .iter()
            .map(|b| b.levels.len())
            .product();
        let digit = (self.index / below.max(1)) % a.levels.len().max(1);
        debug_assert_eq!(&a.levels[digit], level);
        digit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: usize, area: f64, y: f64) -> Row {
        Row {
            point: format!("p{i:03}"),
            index: i,
            status: Status::Ok,
            values: Vec::new(),
            workload: "w".into(),
            figures: crate::sweep::Figures {
                throughput: Some(y),
                ..Default::default()
            },
            fmax_mhz: None,
            area: Some(area),
            area_unit: Some("LUT4".into()),
            resources: BTreeMap::new(),
            config: String::new(),
            config_hash: None,
            error: None,
            reproduce: None,
        }
    }

    #[test]
    fn the_front_holds_the_points_nothing_beats() {
        let rows = [
            row(0, 100.0, 0.5),
            row(1, 200.0, 0.9),
            row(2, 150.0, 0.4), // beaten by p0: more area, less throughput
            row(3, 300.0, 0.9), // beaten by p1: same throughput, more area
            row(4, 400.0, 1.0),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let (points, front, name) = pareto(&refs).unwrap();
        assert_eq!(name, "items per clock");
        let ids: Vec<&str> = front.iter().map(|&i| points[i].0.as_str()).collect();
        assert_eq!(ids, ["p000", "p001", "p004"]);
    }
}
