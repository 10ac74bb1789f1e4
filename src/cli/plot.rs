//! `antipode plot` and `analyze --plot`: depth histograms as SVG files, from a run, a
//! table file's header or a JSON report of `analyze`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use antipode::plot::{self, Histogram};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Table files or JSON reports of `analyze --format json` (two or more are overlaid
    /// as fractions of their states).
    #[arg(required = true, num_args = 1..=4, value_name = "TABLE|REPORT.json")]
    inputs: Vec<PathBuf>,
    /// The SVG file to write.
    #[arg(long, short, value_name = "FILE.svg")]
    out: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    check_writable(&args.out)?;
    let histograms = args
        .inputs
        .iter()
        .map(|path| histogram_of(path))
        .collect::<Result<Vec<_>>>()?;
    write_svg(&args.out, &histograms)?;
    super::print(&format!(
        "{}: the depth histogram{} drawn (SVG)\n",
        args.out.display(),
        if histograms.len() > 1 { "s" } else { "" }
    ))
}

/// The histogram recorded in a table file's header, or in a JSON report.
fn histogram_of(path: &Path) -> Result<Histogram> {
    Ok(Histogram::read(path)?)
}

pub fn check_writable(path: &Path) -> Result<()> {
    let shown = path.display();
    if path.is_dir() {
        bail!("{shown} is a directory: give a file name such as plot.svg");
    }
    let partial = antipode::persist::sibling(path, ".partial");
    std::fs::File::create(&partial).with_context(|| format!("cannot write {shown}"))?;
    std::fs::remove_file(&partial).with_context(|| format!("cannot write {shown}"))?;
    Ok(())
}

/// Draws `histograms` into `path`: written beside it first and renamed, so that no
/// half-written picture is left under its name.
pub fn write_svg(path: &Path, histograms: &[Histogram]) -> Result<()> {
    let svg = plot::histogram_svg(histograms)?;
    antipode::persist::replace(path, |out| std::io::Write::write_all(out, svg.as_bytes()))
        .with_context(|| format!("cannot write {}", path.display()))
}
