//! Depth histograms drawn as SVG: one bar per depth on a linear and a log-scaled
//! count axis (two panels), God's number and the antipode count in the title. Two or
//! more histograms (two puzzles, one puzzle under two metrics) are overlaid as
//! fractions of their totals, so that spaces of different sizes compare.
//!
//! ```
//! use antipode::plot::{Histogram, histogram_svg};
//!
//! let histogram = Histogram::new("8puzzle", 181_440, vec![1, 2, 4, 8, 16, 20, 39]);
//! let svg = histogram_svg(&[histogram]).unwrap();
//! assert!(svg.starts_with("<svg"));
//! assert_eq!(svg.matches("class=\"bar\"").count(), 2 * 7); // two panels
//! ```

use plotters::prelude::*;

/// Width and height of the picture in pixels (a README image).
pub const SIZE: (u32, u32) = (960, 540);

/// Colours of overlaid histograms, in order.
const PALETTE: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
];

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Nothing to draw.
    #[error("no histogram to plot")]
    Empty,
    /// More histograms than colours.
    #[error("at most {max} histograms can be overlaid, not {given}")]
    TooMany {
        /// Histograms given.
        given: usize,
        /// The most that can be told apart.
        max: usize,
    },
    /// The drawing backend failed.
    #[error("drawing the plot: {0}")]
    Drawing(String),
    /// A table file that cannot be read, or is damaged.
    #[error(transparent)]
    Table(#[from] crate::table::TableError),
    /// A table whose levels are not all done.
    #[error("{0}: the table is unfinished (an analysis into it resumes it)")]
    Unfinished(String),
    /// A file that is neither a table nor a JSON report, or cannot be read.
    #[error("{0}")]
    Input(String),
}

/// One puzzle's states per depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Histogram {
    /// The puzzle's name (the legend and the subtitle).
    pub name: String,
    /// Its index count.
    pub indices: u64,
    /// States at each depth, from depth 0.
    pub counts: crate::engine::Histogram,
    /// A pattern database's entries (placements per value), not a puzzle's depths.
    pub database: bool,
}

impl Histogram {
    /// A histogram of `name`, with `indices` indices in all.
    #[must_use]
    pub fn new(name: &str, indices: u64, counts: Vec<u64>) -> Histogram {
        Histogram {
            name: name.into(),
            indices,
            counts: crate::engine::Histogram(counts),
            database: false,
        }
    }

    /// The states at God's number (the last depth).
    #[must_use]
    pub fn antipodes(&self) -> u64 {
        self.counts.0.last().copied().unwrap_or(0)
    }

    /// The histogram a file holds: a complete table's header, or a JSON report of
    /// `analyze --format json` ([`crate::analysis::Analysis`]).
    ///
    /// # Errors
    /// [`PlotError`] if the file cannot be read, is not a table, or is unfinished.
    ///
    /// ```
    /// use antipode::{Analyze, plot::Histogram, puzzles::SlidingPuzzle};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("2x3.table");
    /// Analyze::new(&SlidingPuzzle::new(2, 3).unwrap()).table(&path).run().unwrap();
    /// let histogram = Histogram::read(&path).unwrap();
    /// assert_eq!((histogram.name.as_str(), histogram.antipodes()), ("sliding:2x3", 1));
    /// ```
    pub fn read(path: &std::path::Path) -> Result<Histogram, PlotError> {
        use crate::table::{HeaderError, TableError};
        let shown = path.display().to_string();
        match crate::table::read_header_of(path) {
            Ok(header) if !header.complete => return Err(PlotError::Unfinished(shown)),
            Ok(header) => {
                // The file must be the table its header describes (a file cut short
                // is refused); the payload's checksum is `verify`'s to check.
                crate::table::check_file(path, false)?;
                return Ok(Histogram {
                    database: header.pattern.is_some(),
                    ..Histogram::new(&header.puzzle, header.indices, header.histogram)
                });
            }
            // Not a table: perhaps a JSON report.
            Err(TableError::Header {
                cause: HeaderError::Magic,
                ..
            }) => {}
            // A table, but a damaged one (or unreadable): say so.
            Err(other) => return Err(other.into()),
        }
        #[derive(serde::Deserialize)]
        struct Report {
            puzzle: String,
            indices: u64,
            histogram: Vec<u64>,
        }
        let text = std::fs::read(path)
            .map_err(|e| PlotError::Input(format!("cannot read {shown}: {e}")))?;
        let report: Report = serde_json::from_slice(&text).map_err(|_| {
            PlotError::Input(format!(
                "{shown}: neither a table file nor a JSON report of `analyze --format json`"
            ))
        })?;
        if report.histogram.is_empty() {
            return Err(PlotError::Input(format!(
                "{shown}: the report has an empty histogram"
            )));
        }
        Ok(Histogram::new(
            &report.puzzle,
            report.indices,
            report.histogram,
        ))
    }
}

/// The SVG text of `histograms`: bars of states per depth for one, overlaid bars of
/// the fraction of states per depth for several. Every bar is a `<rect>` of class
/// `bar`, in both panels (linear, then log scale).
///
/// # Errors
/// [`PlotError`] if there is no histogram, too many to overlay, or the drawing fails.
pub fn histogram_svg(histograms: &[Histogram]) -> Result<String, PlotError> {
    if histograms.is_empty() {
        return Err(PlotError::Empty);
    }
    if histograms.len() > PALETTE.len() {
        return Err(PlotError::TooMany {
            given: histograms.len(),
            max: PALETTE.len(),
        });
    }
    let mut svg = String::new();
    draw(histograms, &mut svg).map_err(|e| PlotError::Drawing(e.to_string()))?;
    Ok(mark_bars(&svg))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw(histograms: &[Histogram], svg: &mut String) -> DrawResult {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (title, subtitle) = titles(histograms);
    let root = root.titled(&title, ("sans-serif", 24))?;
    let (subtitle_area, panels) = root.split_vertically(26);
    subtitle_area.draw(&Text::new(
        subtitle,
        (12, 4),
        ("sans-serif", 15).into_font().color(&RGBColor(90, 90, 90)),
    ))?;
    let (linear, log) = panels.split_horizontally(SIZE.0 / 2);
    let relative = histograms.len() > 1;
    let values: Vec<Vec<f64>> = histograms
        .iter()
        .map(|h| {
            let total = h.counts.reachable().max(1) as f64;
            h.counts
                .0
                .iter()
                .map(|&c| if relative { c as f64 / total } else { c as f64 })
                .collect()
        })
        .collect();
    let depths = histograms
        .iter()
        .map(|h| h.counts.0.len())
        .max()
        .unwrap_or(1);
    let top = values
        .iter()
        .flatten()
        .cloned()
        .fold(0.0, f64::max)
        .max(1e-300);
    let least = values
        .iter()
        .flatten()
        .cloned()
        .filter(|&v| v > 0.0)
        .fold(top, f64::min);
    let y_label = if relative {
        "fraction of states"
    } else {
        "states"
    };
    panel(
        &linear,
        histograms,
        &values,
        depths,
        0.0..top * 1.05,
        y_label,
        "linear scale",
    )?;
    panel(
        &log,
        histograms,
        &values,
        depths,
        (least / 2.0..top * 2.0).log_scale(),
        y_label,
        "log scale",
    )?;
    root.present()?;
    Ok(())
}

/// The counts of every histogram as bars on one pair of axes.
fn panel<Y>(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    histograms: &[Histogram],
    values: &[Vec<f64>],
    depths: usize,
    y_range: Y,
    y_label: &str,
    caption: &str,
) -> DrawResult
where
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..depths as f64 - 0.5, y_range)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("depth (moves from the goal)")
        .y_desc(y_label)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| short_number(*y))
        .label_style(("sans-serif", 13))
        .draw()?;
    let width = 0.8 / histograms.len() as f64;
    for (k, (histogram, series)) in histograms.iter().zip(values).enumerate() {
        let colour = PALETTE[k];
        let offset = -0.4 + width * k as f64;
        let floor = chart.y_range().start;
        let drawn = chart.draw_series(series.iter().enumerate().map(|(depth, &v)| {
            let left = depth as f64 + offset;
            Rectangle::new(
                [(left, floor), (left + width, v.max(floor))],
                colour.mix(0.85).filled(),
            )
        }))?;
        if histograms.len() > 1 {
            drawn.label(describe(histogram)).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
            });
        }
    }
    if histograms.len() > 1 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 13))
            .draw()?;
    }
    Ok(())
}

/// The most characters of a title (24 px) and of a subtitle (15 px) that fit the
/// picture's width.
const TITLE_CHARS: usize = 72;
const SUBTITLE_CHARS: usize = 118;

/// `text` cut to `most` characters, with `…` where it was cut.
fn fit(text: String, most: usize) -> String {
    if text.chars().count() <= most {
        return text;
    }
    let mut cut: String = text.chars().take(most - 1).collect();
    cut.push('…');
    cut
}

/// A histogram's figures in words: God's number and the antipodes, or of a pattern
/// database its largest value and the placements at it.
fn describe(h: &Histogram) -> String {
    let last = h.antipodes();
    let (largest, at) = if h.database {
        ("pattern database, largest value", "placement")
    } else {
        ("God's number", "antipode")
    };
    let separator = if h.database { " (" } else { ", " };
    format!(
        "{}: {largest} {}{separator}{} {at}{}{}",
        h.name,
        h.counts.gods_number(),
        crate::units::thousands(last),
        if last == 1 { "" } else { "s" },
        if h.database { ")" } else { "" }
    )
}

/// The title (one histogram's figures; of several, their names, each one's figures in
/// the legend) and the subtitle (sizes), each cut to the picture's width.
fn titles(histograms: &[Histogram]) -> (String, String) {
    let sizes = |h: &Histogram| {
        let reachable = h.counts.reachable();
        if reachable == h.indices {
            format!("{}: {} states", h.name, crate::units::thousands(h.indices))
        } else {
            format!(
                "{}: {} indices, {} reachable",
                h.name,
                crate::units::thousands(h.indices),
                crate::units::thousands(reachable)
            )
        }
    };
    let title = match histograms {
        [one] => describe(one),
        several => format!(
            "Depths of {}",
            several
                .iter()
                .map(|h| h.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut subtitle = histograms.iter().map(sizes).collect::<Vec<_>>().join("; ");
    subtitle.push_str(if histograms.len() > 1 {
        " (bars: fraction of each puzzle's states)"
    } else {
        " (bars: states per depth)"
    });
    (fit(title, TITLE_CHARS), fit(subtitle, SUBTITLE_CHARS))
}

/// An axis label: 1234567 as "1.2M" ([`crate::units::compact`]), 0.085 as "0.085",
/// 0.00001 as "1e-5".
fn short_number(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude == 0.0 {
        "0".into()
    } else if magnitude < 0.001 {
        format!("{value:.0e}")
    } else if magnitude < 1.0 {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').to_string()
    } else {
        crate::units::compact(value)
    }
}

/// Tags the bars' rectangles with `class="bar"` (they are the only rectangles drawn
/// with the bars' translucent fill) so that readers and tests can find them.
fn mark_bars(svg: &str) -> String {
    svg.lines()
        .map(|line| {
            if line.starts_with("<rect ") && line.contains(" opacity=\"0.85\" ") {
                line.replacen("<rect ", "<rect class=\"bar\" ", 1)
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_depth_in_each_panel_and_the_figures_in_the_title() {
        let histogram = Histogram::new("8puzzle", 181_440, vec![1, 2, 4, 8, 0, 3]);
        let svg = histogram_svg(std::slice::from_ref(&histogram)).unwrap();
        assert_eq!(svg.matches("class=\"bar\"").count(), 2 * 6);
        assert!(svg.contains("number 5, 3 antipodes"));
        assert!(svg.contains("181,440 indices, 18 reachable"));
        let other = Histogram::new("other", 10, vec![1, 9]);
        let overlaid = histogram_svg(&[histogram, other]).unwrap();
        assert_eq!(overlaid.matches("class=\"bar\"").count(), 2 * (6 + 2));
        assert!(overlaid.contains("fraction of each puzzle"));
        assert!(overlaid.contains("number 1, 9 antipodes"), "in the legend");
    }

    #[test]
    fn long_titles_are_cut_to_the_width_and_databases_have_their_own_words() {
        let long = |k: usize| {
            Histogram::new(
                &format!("FTO.tws --orbits C4RNER+EDGE --up-to-rotation {k}"),
                1,
                vec![1],
            )
        };
        let (title, subtitle) = titles(&[long(1), long(2), long(3)]);
        assert_eq!(title.chars().count(), TITLE_CHARS);
        assert!(title.ends_with('…') && title.starts_with("Depths of FTO.tws"));
        assert!(subtitle.chars().count() <= SUBTITLE_CHARS);
        let database = Histogram {
            database: true,
            ..Histogram::new("15puzzle tiles 1-7", 57_657_600, vec![1, 2, 5])
        };
        assert_eq!(
            titles(&[database]).0,
            "15puzzle tiles 1-7: pattern database, largest value 2 (5 placements)"
        );
    }

    #[test]
    fn nothing_or_too_much_to_draw_is_an_error() {
        assert!(matches!(histogram_svg(&[]), Err(PlotError::Empty)));
        let many = vec![Histogram::new("x", 1, vec![1]); 5];
        assert!(matches!(
            histogram_svg(&many),
            Err(PlotError::TooMany { given: 5, max: 4 })
        ));
    }

    #[test]
    fn axis_labels_are_short() {
        assert_eq!(short_number(0.0), "0");
        assert_eq!(short_number(0.085), "0.085");
        assert_eq!(short_number(0.1), "0.1");
        assert_eq!(short_number(0.00001), "1e-5");
        assert_eq!(short_number(21_500_000.0), "21.5M");
    }
}
