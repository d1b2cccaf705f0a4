//! The results of a bench run: each game's [`Row`] and its rendering as the
//! `results.md` table, `results.csv` and the `ratios.svg` chart.

use std::fmt::Write as _;

use gdlc_runtime::SimulationReport;

use super::NATIVE;
use super::games::*;

/// A measured rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Complete random playouts per second.
    pub playouts_per_second: f64,
    /// State changes per second.
    pub states_per_second: f64,
}

impl From<&SimulationReport> for Rate {
    fn from(report: &SimulationReport) -> Rate {
        Rate {
            playouts_per_second: report.playouts_per_second(),
            states_per_second: report.states_per_second(),
        }
    }
}

/// One game's results.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The game's name in the results.
    pub label: String,
    /// Its rules, as shown.
    pub rules: String,
    /// Where they come from.
    pub origin: Origin,
    /// The check against the interpreter: `Some(true)` passed, `Some(false)` failed
    /// (the reason is in `failures`), `None` not run.
    pub checked: Option<bool>,
    /// gdlc's time in seconds.
    pub gdlc_seconds: Option<f64>,
    /// rustc's time in seconds.
    pub rustc_seconds: Option<f64>,
    /// The release build of the driver binary linking the game's crate, in seconds.
    pub driver_seconds: Option<f64>,
    /// The generated reasoner.
    pub generated: Option<Rate>,
    /// The Prolog baseline.
    pub prolog: Option<Rate>,
    /// The hand-written reference's name and rate, where one exists.
    pub reference: Option<(String, Option<Rate>)>,
    /// The propnet target.
    pub target: Target,
    /// What failed, one line each (`rustc: …`).
    pub failures: Vec<String>,
    /// Remarks on the figures.
    pub notes: Vec<String>,
}

impl Row {
    pub(super) fn new(game: &BenchGame) -> Row {
        Row {
            label: game.label.clone(),
            rules: game.shown.clone(),
            origin: game.origin,
            checked: None,
            gdlc_seconds: None,
            rustc_seconds: None,
            driver_seconds: None,
            generated: None,
            prolog: None,
            reference: reference_for(game).map(|name| (name.to_owned(), None)),
            target: Target::of(game),
            failures: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Notes that a timed build compiled `others` besides its crate.
    pub(super) fn note_others(&mut self, what: &str, others: &[String]) {
        if !others.is_empty() {
            self.notes.push(format!(
                "the {what} time includes {} other crate(s) ({})",
                others.len(),
                others.join(", ")
            ));
        }
    }

    pub(super) fn reference_rate(&self) -> Option<Rate> {
        self.reference.as_ref().and_then(|(_, rate)| *rate)
    }

    /// Generated playouts/s over Prolog's.
    pub fn over_prolog(&self) -> Option<f64> {
        ratio(self.generated, self.prolog.map(|r| r.playouts_per_second))
    }

    /// Generated playouts/s over the hand-written reference's.
    pub fn over_reference(&self) -> Option<f64> {
        ratio(
            self.generated,
            self.reference_rate().map(|r| r.playouts_per_second),
        )
    }

    /// Generated playouts/s over the propnet target.
    pub fn over_target(&self) -> Option<f64> {
        ratio(self.generated, self.target.playouts_per_second())
    }
}

fn ratio(generated: Option<Rate>, other: Option<f64>) -> Option<f64> {
    let generated = generated?.playouts_per_second;
    let other = other?;
    (other > 0.0).then(|| generated / other)
}

/// Facts about the run, printed above the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    /// The command line.
    pub command: String,
    /// The date (UTC, `YYYY-MM-DD HH:MM`).
    pub date: String,
    /// The CPU model.
    pub cpu: String,
    /// Logical CPUs.
    pub cpus: usize,
    /// `rustc --version`.
    pub rustc: String,
    /// `swipl --version`, or `None` when it is not installed.
    pub swipl: Option<String>,
    /// Seconds of playouts per figure.
    pub seconds: f64,
    /// Seed of the playouts.
    pub seed: u64,
    /// Load averages (1 min) at the start and the end.
    pub load: (Option<f64>, Option<f64>),
    /// Playouts of the check against the interpreter (0: not run).
    pub check_playouts: usize,
    /// Why the games are what they are, when that needs saying (no corpus).
    pub games_note: Option<String>,
}

/// A tick of the chart's log axis: `0.01`, `0.5`, `1`, `1,000`.
fn axis_label(value: f64) -> String {
    if value >= 1.0 {
        thousands(value)
    } else {
        let text = significant(value, 2);
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// `value` with `digits` significant digits (at least), no exponent.
fn significant(value: f64, digits: i32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

/// An integer with thousands separators: `285000` → `285,000`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if value < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// A rate for reading: integers with separators from 100 up, else three significant
/// digits (`231,456`, `55.2`, `4.53`, `0.385`).
pub fn format_rate(value: f64) -> String {
    if value >= 100.0 {
        thousands(value)
    } else {
        significant(value, 3)
    }
}

/// A ratio for reading: integers with separators from 100 up, else two significant
/// digits, at least one decimal (`1,234`, `46.3`, `2.3`, `0.81`, `0.045`).
pub fn format_ratio(value: f64) -> String {
    if value >= 100.0 {
        thousands(value)
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        significant(value, 2)
    }
}

/// Seconds for reading: `0.021`, `2.45`, `14.1`.
pub fn format_seconds(value: f64) -> String {
    if value >= 10.0 {
        format!("{value:.1}")
    } else if value >= 0.1 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// The mark of figures that are for the corpus variant of a team file.
const VARIANT_MARK: &str = "‡";

/// The markdown document: facts, the table, notes and failures.
pub fn render_markdown(facts: &Facts, rows: &[Row]) -> String {
    let mut out = String::new();
    write_facts(facts, &mut out);
    out.push('\n');
    out.push_str(
        "| game | rules | checked | gdlc (s) | rustc (s) | generated playouts/s | generated states/s \
         | Prolog playouts/s | Prolog states/s | generated / Prolog | hand-written playouts/s \
         | generated / hand-written | propnet target playouts/s | generated / target |\n",
    );
    out.push_str("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for row in rows {
        out.push('|');
        for cell in markdown_cells(row) {
            let _ = write!(out, " {} |", cell.replace('|', "\\|"));
        }
        out.push('\n');
    }
    write_explanations(rows, &mut out);
    out
}

/// The list of facts the markdown document starts with: the command, date, machine,
/// toolchains and how rates are measured.
fn write_facts(facts: &Facts, out: &mut String) {
    let load = |l: Option<f64>| l.map_or("unknown".to_owned(), |l| format!("{l:.2}"));
    let _ = writeln!(out, "# gdlc benchmark\n");
    let _ = writeln!(out, "- command: `{}`", facts.command);
    let _ = writeln!(out, "- date: {} UTC", facts.date);
    let _ = writeln!(
        out,
        "- machine: {}, {} logical CPU(s); load average {} at the start, {} at the end",
        facts.cpu,
        facts.cpus,
        load(facts.load.0),
        load(facts.load.1)
    );
    let _ = writeln!(out, "- {}", facts.rustc);
    let _ = writeln!(
        out,
        "- {}",
        facts.swipl.as_deref().unwrap_or(
            "SWI-Prolog: swipl not installed (apt-get install swi-prolog-nox), so the Prolog columns are empty"
        )
    );
    let _ = writeln!(
        out,
        "- every rate: {} s of random playouts from the initial state (seed {}), one core, one measurement at a time",
        facts.seconds, facts.seed
    );
    let _ = writeln!(
        out,
        "- every Rust crate (reasoners, references, gdlc) built with `RUSTFLAGS={NATIVE}`: for the machine that runs it"
    );
    let _ = match facts.check_playouts {
        0 => writeln!(out, "- checked: not run (`--check-playouts 0`)"),
        n => writeln!(
            out,
            "- checked: each generated reasoner against the interpreter first (`cargo xtask verify --playouts {n}`: perft, then legal moves, next states, goals and percepts along {n} seeded playouts)"
        ),
    };
    if let Some(note) = &facts.games_note {
        let _ = writeln!(out, "- games: {note}");
    }
}

/// One row of the markdown table, a cell per column.
fn markdown_cells(row: &Row) -> [String; 14] {
    let dash = || "—".to_owned();
    let failed = |phase: &str| row.failures.iter().any(|f| f.starts_with(phase));
    let or_failed = |value: Option<String>, phase: &str| {
        value.unwrap_or_else(|| {
            if failed(phase) {
                "failed".to_owned()
            } else {
                dash()
            }
        })
    };
    let mark = if row.target.corpus_variant() {
        VARIANT_MARK
    } else {
        ""
    };
    let target = match row.target {
        Target::Published {
            playouts_per_second,
            ..
        } => format!("{}{mark}", format_rate(playouts_per_second)),
        Target::NoPropnet { .. } => format!("no propnet{mark}"),
        Target::None => dash(),
    };
    [
        row.label.clone(),
        format!("`{}`", row.rules),
        match row.checked {
            Some(true) => "PASS".to_owned(),
            Some(false) => "FAIL".to_owned(),
            None => dash(),
        },
        or_failed(row.gdlc_seconds.map(format_seconds), "gdlc"),
        or_failed(row.rustc_seconds.map(format_seconds), "rustc"),
        or_failed(
            row.generated.map(|r| format_rate(r.playouts_per_second)),
            "generated",
        ),
        row.generated
            .map_or_else(dash, |r| format_rate(r.states_per_second)),
        or_failed(
            row.prolog.map(|r| format_rate(r.playouts_per_second)),
            "Prolog",
        ),
        row.prolog
            .map_or_else(dash, |r| format_rate(r.states_per_second)),
        row.over_prolog().map_or_else(dash, format_ratio),
        match &row.reference {
            None => dash(),
            Some((_, rate)) => or_failed(
                rate.map(|r| format_rate(r.playouts_per_second)),
                "hand-written",
            ),
        },
        row.over_reference().map_or_else(dash, format_ratio),
        target,
        row.over_target()
            .map_or_else(dash, |r| format!("{}{mark}", format_ratio(r))),
    ]
}

/// What follows the table: how the figures were taken, the mark of corpus variants,
/// then each row's notes and failures.
fn write_explanations(rows: &[Row], out: &mut String) {
    out.push_str(
        "\ngdlc: parse → check → analysis → plan → Rust emit (`gdlc::compile_rust`), \
         release build, best of up to 5 runs. rustc: `cargo build --release` of the \
         game's generated crate alone (its dependencies built before), this repository's \
         release profile (`codegen-units = 1`, thin LTO). The release build of the \
         measuring binary that links the crate (where the runtime's generic reasoner is \
         instantiated for the game, then thin LTO over every crate and linking) is in \
         `results.csv` (`driver_build_seconds`): mostly the same for every game. Generated, hand-written and \
         Prolog rates: `gdlc_runtime::simulate_for` in release builds and the Prolog \
         driver under SWI-Prolog; goals are read at the end of every playout. The \
         propnet targets are the published random playouts/s of the strongest public \
         GDL reasoner on one core, for the corpus files; \"no propnet\": it could not be \
         built within 120 s.\n",
    );
    if rows.iter().any(|r| r.target.corpus_variant()) {
        let _ = writeln!(
            out,
            "\n{VARIANT_MARK} The target was published for the corpus file of the same name; \
             this row's rules are a different file (the team's), so the ratio compares \
             variants."
        );
    }
    let notes: Vec<String> = rows
        .iter()
        .flat_map(|r| r.notes.iter().map(move |n| format!("- {}: {n}", r.label)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\nNotes:\n\n{}", notes.join("\n"));
    }
    let failures: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.failures
                .iter()
                .map(move |f| format!("- {}: {}", r.label, f.replace('\n', " ")))
        })
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "\nFailures:\n\n{}", failures.join("\n"));
    }
}

/// A CSV field, quoted when needed.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The CSV header.
pub const CSV_HEADER: &str = "game,origin,rules,checked,gdlc_seconds,rustc_seconds,driver_build_seconds,\
    generated_playouts_per_second,generated_states_per_second,prolog_playouts_per_second,\
    prolog_states_per_second,generated_over_prolog,reference,reference_playouts_per_second,\
    reference_states_per_second,generated_over_reference,propnet_target_playouts_per_second,\
    propnet_target_for,generated_over_target,failures,notes";

/// The CSV document: a header and one line per row; numbers unrounded but for
/// floating-point noise, empty fields where there is no figure.
pub fn render_csv(rows: &[Row]) -> String {
    let number = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.6}"));
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for row in rows {
        let target_for = match row.target {
            Target::None => "",
            Target::NoPropnet { .. } => "no propnet",
            _ if row.target.corpus_variant() => "corpus variant",
            _ => "this file",
        };
        let reference_rate = row.reference_rate();
        let fields = [
            csv_field(&row.label),
            row.origin.as_str().to_owned(),
            csv_field(&row.rules),
            match row.checked {
                Some(true) => "pass",
                Some(false) => "fail",
                None => "",
            }
            .to_owned(),
            number(row.gdlc_seconds),
            number(row.rustc_seconds),
            number(row.driver_seconds),
            number(row.generated.map(|r| r.playouts_per_second)),
            number(row.generated.map(|r| r.states_per_second)),
            number(row.prolog.map(|r| r.playouts_per_second)),
            number(row.prolog.map(|r| r.states_per_second)),
            number(row.over_prolog()),
            csv_field(row.reference.as_ref().map_or("", |(name, _)| name)),
            number(reference_rate.map(|r| r.playouts_per_second)),
            number(reference_rate.map(|r| r.states_per_second)),
            number(row.over_reference()),
            number(row.target.playouts_per_second()),
            target_for.to_owned(),
            number(row.over_target()),
            csv_field(&row.failures.join("; ").replace('\n', " ")),
            csv_field(&row.notes.join("; ").replace('\n', " ")),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// The bar chart of the ratios (generated / Prolog, / propnet target, / hand-written)
/// per game, horizontal bars on a log scale, as SVG.
pub fn render_svg(title: &str, rows: &[Row]) -> Result<String, String> {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};

    const SERIES: [(&str, RGBColor); 3] = [
        ("generated / Prolog", RGBColor(31, 119, 180)),
        (
            "generated / propnet target (‡: the corpus file's)",
            RGBColor(255, 127, 14),
        ),
        ("generated / hand-written", RGBColor(44, 160, 44)),
    ];
    const TARGET_SERIES: usize = 1;
    // The legend's band below the games, in game bands (80 px).
    const LEGEND_BAND: f64 = 80.0 / 48.0;
    let values = |row: &Row| [row.over_prolog(), row.over_target(), row.over_reference()];
    let all: Vec<f64> = rows
        .iter()
        .flat_map(values)
        .flatten()
        .filter(|v| *v > 0.0 && v.is_finite())
        .collect();
    // Whole decades around the values and 1 (parity).
    let low = all.iter().copied().fold(1.0_f64, f64::min);
    let high = all.iter().copied().fold(1.0_f64, f64::max);
    let low = 10f64.powi(low.log10().floor() as i32 - i32::from(low >= 1.0));
    let high = 10f64.powi(high.log10().ceil() as i32 + i32::from(high <= 1.0));

    let label_width = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0) as u32
        * 7
        + 20;
    let width = 760 + label_width;
    // One band of 48 px per game, and one of 80 px below them for the legend.
    let height = 210 + 48 * rows.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let error = |e: &dyn std::fmt::Display| format!("cannot draw the chart: {e}");
        root.fill(&WHITE).map_err(|e| error(&e))?;
        let count = rows.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .margin_left(label_width)
            .x_label_area_size(40)
            .build_cartesian_2d((low..high).log_scale(), -LEGEND_BAND..count)
            .map_err(|e| error(&e))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_desc("ratio (log scale; 1 = as fast)")
            .x_label_formatter(&|v| format!("{}×", axis_label(*v)))
            .draw()
            .map_err(|e| error(&e))?;
        // Parity.
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(1.0, -LEGEND_BAND), (1.0, count)],
                BLACK.stroke_width(1),
            )))
            .map_err(|e| error(&e))?;
        let slot = 0.8 / SERIES.len() as f64;
        for (s, (name, color)) in SERIES.iter().enumerate() {
            // (value, bottom, top, label) per bar.
            let bars: Vec<(f64, f64, f64, String)> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, row)| {
                    let value = values(row)[s].filter(|v| *v > 0.0 && v.is_finite())?;
                    // The first game at the top.
                    let top = count - i as f64 - 0.1 - slot * s as f64;
                    let mark = if s == TARGET_SERIES && row.target.corpus_variant() {
                        VARIANT_MARK
                    } else {
                        ""
                    };
                    let label = format!("{}{mark}", format_ratio(value));
                    Some((value, top - slot, top, label))
                })
                .collect();
            let color = *color;
            chart
                .draw_series(bars.iter().map(|&(value, bottom, top, _)| {
                    Rectangle::new([(low, bottom), (value, top)], color.filled())
                }))
                .map_err(|e| error(&e))?
                .label(*name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            chart
                .draw_series(bars.iter().map(|(value, bottom, top, label)| {
                    // A little right of the bar's end (a constant gap on a log axis).
                    Text::new(
                        label.clone(),
                        (value * 1.06, (bottom + top) / 2.0),
                        ("sans-serif", 11)
                            .into_font()
                            .into_text_style(&root)
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    )
                }))
                .map_err(|e| error(&e))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(|e| error(&e))?;
        // Game names left of the plotting area, at the middle of their bars.
        let style = ("sans-serif", 13)
            .into_font()
            .into_text_style(&root)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, row) in rows.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(low, count - i as f64 - 0.5));
            root.draw(&Text::new(row.label.clone(), (x - 8, y), style.clone()))
                .map_err(|e| error(&e))?;
        }
        if all.is_empty() {
            let (x, y) = chart.backend_coord(&(1.0, count / 2.0));
            root.draw(&Text::new(
                "no ratios: no game has both figures",
                (x, y),
                style.pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(|e| error(&e))?;
        }
        root.present().map_err(|e| error(&e))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_for_reading() {
        assert_eq!(format_rate(285_000.0), "285,000");
        assert_eq!(format_rate(1_234_567.4), "1,234,567");
        assert_eq!(format_rate(352.4), "352");
        assert_eq!(format_rate(55.24), "55.2");
        assert_eq!(format_rate(4.527), "4.53");
        assert_eq!(format_rate(0.3851), "0.385");
        assert_eq!(format_rate(0.0), "0");
        assert_eq!(format_ratio(1234.4), "1,234");
        assert_eq!(format_ratio(46.31), "46.3");
        assert_eq!(format_ratio(2.34), "2.3");
        assert_eq!(format_ratio(1.0), "1.0");
        assert_eq!(format_ratio(0.812), "0.81");
        assert_eq!(format_ratio(0.0451), "0.045");
        assert_eq!(axis_label(0.01), "0.01");
        assert_eq!(axis_label(0.5), "0.5");
        assert_eq!(axis_label(1.0), "1");
        assert_eq!(axis_label(1000.0), "1,000");
        assert_eq!(format_seconds(0.0213), "0.021");
        assert_eq!(format_seconds(2.449), "2.45");
        assert_eq!(format_seconds(14.14), "14.1");
    }

    fn rate(playouts_per_second: f64) -> Option<Rate> {
        Some(Rate {
            playouts_per_second,
            states_per_second: playouts_per_second * 10.0,
        })
    }

    fn sample_rows() -> Vec<Row> {
        vec![
            Row {
                label: "tictactoe (team)".to_owned(),
                rules: "games/tictactoe.kif".to_owned(),
                origin: Origin::Team,
                checked: Some(true),
                gdlc_seconds: Some(0.0213),
                rustc_seconds: Some(2.5),
                driver_seconds: Some(7.25),
                generated: rate(200_000.0),
                prolog: rate(4_000.0),
                reference: Some(("tictactoe".to_owned(), rate(8_000_000.0))),
                target: Target::Published {
                    playouts_per_second: 285_000.0,
                    corpus_variant: true,
                },
                failures: Vec::new(),
                notes: Vec::new(),
            },
            Row {
                label: "checkers (corpus)".to_owned(),
                rules: "../shared/games/checkers.kif".to_owned(),
                origin: Origin::Corpus,
                checked: None,
                gdlc_seconds: Some(1.3),
                rustc_seconds: None,
                driver_seconds: None,
                generated: None,
                prolog: rate(3.0),
                reference: None,
                target: Target::NoPropnet {
                    corpus_variant: false,
                },
                failures: vec!["rustc: src/lib.rs:1:1: error: x, \"y\"".to_owned()],
                notes: vec!["Prolog was slow".to_owned()],
            },
        ]
    }

    #[test]
    fn ratios_need_both_figures() {
        let rows = sample_rows();
        assert_eq!(rows[0].over_prolog(), Some(50.0));
        assert_eq!(rows[0].over_reference(), Some(0.025));
        assert!((rows[0].over_target().expect("target") - 0.7018).abs() < 1e-3);
        assert_eq!(rows[1].over_prolog(), None);
        assert_eq!(rows[1].over_target(), None);
    }

    #[test]
    fn markdown_has_one_line_per_game_and_explains_marks_and_failures() {
        let facts = Facts {
            command: "cargo xtask bench --seconds 2".to_owned(),
            date: "2026-01-02 03:04".to_owned(),
            cpu: "Example CPU".to_owned(),
            cpus: 2,
            rustc: "rustc 1.95.0".to_owned(),
            swipl: None,
            seconds: 2.0,
            seed: 1,
            load: (Some(0.5), None),
            check_playouts: 20,
            games_note: Some("no corpus".to_owned()),
        };
        let text = render_markdown(&facts, &sample_rows());
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(
            &"| tictactoe (team) | `games/tictactoe.kif` | PASS | 0.021 | 2.50 | 200,000 | 2,000,000 | 4,000 | 40,000 | 50.0 | 8,000,000 | 0.025 | 285,000‡ | 0.70‡ |"
        ), "{text}");
        assert!(lines.contains(
            &"| checkers (corpus) | `../shared/games/checkers.kif` | — | 1.30 | failed | — | — | 3.00 | 30.0 | — | — | — | no propnet | — |"
        ), "{text}");
        assert!(text.contains("- machine: Example CPU, 2 logical CPU(s); load average 0.50 at the start, unknown at the end"));
        assert!(text.contains("swipl not installed (apt-get install swi-prolog-nox)"));
        assert!(text.contains("`cargo xtask verify --playouts 20`"));
        assert!(text.contains("- games: no corpus"));
        assert!(text.contains("‡ The target was published for the corpus file"));
        assert!(text.contains("- checkers (corpus): rustc: src/lib.rs:1:1: error: x, \"y\""));
        assert!(text.contains("- checkers (corpus): Prolog was slow"));
        // Every table line has as many cells as the header.
        let cells = |line: &str| line.matches('|').count();
        let table: Vec<&&str> = lines.iter().filter(|l| l.starts_with('|')).collect();
        assert_eq!(table.len(), 4);
        assert!(table.iter().all(|l| cells(l) == cells(table[0])));
    }

    #[test]
    fn csv_has_a_header_and_quoted_fields() {
        let text = render_csv(&sample_rows());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[1],
            "tictactoe (team),team,games/tictactoe.kif,pass,0.021300,2.500000,7.250000,200000.000000,\
             2000000.000000,4000.000000,40000.000000,50.000000,tictactoe,8000000.000000,\
             80000000.000000,0.025000,285000.000000,corpus variant,0.701754,,"
        );
        assert!(
            lines[2].ends_with(
                ",no propnet,,\"rustc: src/lib.rs:1:1: error: x, \"\"y\"\"\",Prolog was slow"
            ),
            "{}",
            lines[2]
        );
        let columns = CSV_HEADER.split(',').count();
        assert_eq!(lines[1].split(',').count(), columns);
    }

    #[test]
    fn the_chart_draws_a_bar_per_ratio() {
        let svg = render_svg("ratios", &sample_rows()).expect("chart");
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("tictactoe (team)"));
        assert!(svg.contains("checkers (corpus)"));
        assert!(svg.contains("generated / Prolog"));
        // Bars: the first row's three ratios (50, 0.70, 0.025) in the series' colours.
        for colour in ["#1F77B4", "#FF7F0E", "#2CA02C"] {
            assert!(svg.contains(colour), "no {colour} in the chart");
        }
        for label in ["\n50.0\n", "\n0.70‡\n", "\n0.025\n"] {
            assert!(svg.contains(label), "no {label:?} in the chart");
        }
        let empty = render_svg("ratios", &[]).expect("empty chart");
        assert!(empty.contains("no ratios"));
    }
}
