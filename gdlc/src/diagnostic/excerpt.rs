//! What a diagnostic shows of its source: the lines its labels touch, safe for a
//! terminal and of bounded length, as a small file codespan-reporting renders.
//!
//! - **Only the lines shown are copied** (the labels' lines, the context codespan shows
//!   of multi-line labels, and empty stand-ins where it prints a `·` break), each with
//!   its real line number and the real column of every label start, so the cost of a
//!   diagnostic does not grow with the file.
//! - **Control characters are escaped** (`\x1b`, `\u{9b}`, and the bidirectional
//!   formatting characters), so binary garbage never reaches the terminal raw; a tab
//!   stays a tab. Labels are moved onto the escaped text, so markers still line up.
//! - **Long lines are cut around the markers**: about [`WINDOW`] characters around each
//!   label (a longer label keeps its two ends), with `…` on every cut side.
//!
//! Messages, labels and notes go through [`sanitize`]: the same escapes, and lines of
//! more than [`MAX_TEXT_LINE`] characters cut in the middle.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use codespan_reporting::files::{Error, Files};

/// The characters of source kept around each marker of a long line.
pub const WINDOW: usize = 120;

/// The longest line of a message, label or note; longer ones are cut in the middle.
pub const MAX_TEXT_LINE: usize = 500;

/// Separate windows closer than this (in characters) are joined.
const JOIN_GAP: usize = 8;

/// codespan-reporting's defaults: the lines shown after a multi-line label starts and
/// before it ends.
const START_CONTEXT: usize = 3;
const END_CONTEXT: usize = 1;

/// How a character is shown: `None` as itself, else its escape.
fn escape(c: char) -> Option<String> {
    let format = matches!(c,
        '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2069}' | '\u{feff}');
    if c == '\t' || !(c.is_control() || format) {
        None
    } else if c.is_ascii() {
        Some(format!("\\x{:02x}", c as u32))
    } else {
        Some(format!("\\u{{{:x}}}", c as u32))
    }
}

fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match escape(c) {
            Some(escaped) => out.push_str(&escaped),
            None => out.push(c),
        }
    }
}

/// Text of a message, label, note or file name made safe to print: control
/// characters escaped (newlines kept), every line cut in the middle to at most 500
/// characters (`MAX_TEXT_LINE`).
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * MAX_TEXT_LINE));
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let count = line.chars().take(MAX_TEXT_LINE + 1).count();
        if count <= MAX_TEXT_LINE {
            push_escaped(&mut out, line);
        } else {
            let half = MAX_TEXT_LINE / 2;
            push_escaped(&mut out, &line[..forward(line, 0, half)]);
            out.push('…');
            push_escaped(&mut out, &line[back(line, line.len(), half)..]);
        }
    }
    out
}

/// The byte offset `count` characters before `at` (or 0).
fn back(line: &str, at: usize, count: usize) -> usize {
    line[..at]
        .char_indices()
        .rev()
        .take(count)
        .last()
        .map_or(at, |(i, _)| i)
}

/// The byte offset `count` characters after `at` (or the end).
fn forward(line: &str, at: usize, count: usize) -> usize {
    line[at..]
        .char_indices()
        .nth(count)
        .map_or(line.len(), |(i, _)| at + i)
}

/// Characters in `line[from..to]`, counting no further than `cap`.
fn chars_between(line: &str, from: usize, to: usize, cap: usize) -> usize {
    line[from..to].chars().take(cap).count()
}

/// The ranges of `line` kept around `anchors` (byte ranges in the line), sorted and
/// joined.
fn windows(line: &str, anchors: &[Range<usize>]) -> Vec<Range<usize>> {
    if anchors.is_empty() {
        let start = 0..forward(line, 0, WINDOW);
        return vec![start];
    }
    let mut kept: Vec<Range<usize>> = Vec::new();
    for anchor in anchors {
        let length = chars_between(line, anchor.start, anchor.end, WINDOW + 1);
        if length > WINDOW {
            kept.push(anchor.start..forward(line, anchor.start, WINDOW / 2));
            kept.push(back(line, anchor.end, WINDOW / 2)..anchor.end);
            continue;
        }
        let extra = WINDOW - length;
        let mut start = back(line, anchor.start, extra / 2);
        let moved = chars_between(line, start, anchor.start, extra);
        let end = forward(line, anchor.end, extra - moved);
        let used = moved + chars_between(line, anchor.end, end, extra);
        if used < extra {
            start = back(line, start, extra - used);
        }
        kept.push(start..end);
    }
    kept.sort_by_key(|r| (r.start, r.end));
    let mut joined: Vec<Range<usize>> = Vec::new();
    for range in kept {
        match joined.last_mut() {
            Some(last)
                if range.start <= last.end
                    || chars_between(line, last.end, range.start, JOIN_GAP + 1) <= JOIN_GAP =>
            {
                last.end = last.end.max(range.end);
            }
            _ => joined.push(range),
        }
    }
    joined
}

/// A line as shown: cut to its windows and escaped. Returns the text and, for each
/// offset of `points` (bytes in the line), its offset in the text.
fn show_line(
    line: &str,
    anchors: &[Range<usize>],
    points: &BTreeSet<usize>,
) -> (String, HashMap<usize, usize>) {
    let kept = windows(line, anchors);
    let mut out = String::new();
    let mut map = HashMap::new();
    let mut last_end = 0;
    for range in &kept {
        if range.start > last_end {
            // Points inside a cut part (never a label's) go to the `…`.
            for &p in points.range(last_end..range.start) {
                map.insert(p, out.len());
            }
            out.push('…');
        }
        for (i, c) in line[range.clone()].char_indices() {
            if points.contains(&(range.start + i)) {
                map.insert(range.start + i, out.len());
            }
            match escape(c) {
                Some(escaped) => out.push_str(&escaped),
                None => out.push(c),
            }
        }
        if points.contains(&range.end) {
            map.insert(range.end, out.len());
        }
        last_end = range.end;
    }
    for &p in points.range(last_end..) {
        map.entry(p).or_insert(out.len());
    }
    if last_end < line.len() {
        out.push('…');
    }
    (out, map)
}

/// One line of the source: its index, first byte and end (before `\r\n` or `\n`).
#[derive(Clone, Copy, Debug)]
struct SourceLine {
    index: usize,
    start: usize,
    end: usize,
}

fn source_line(text: &str, at: usize) -> SourceLine {
    let before = &text.as_bytes()[..at];
    let index = before.iter().filter(|&&b| b == b'\n').count();
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut end = text.as_bytes()[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i);
    if end > start && text.as_bytes()[end - 1] == b'\r' && end < text.len() {
        end -= 1;
    }
    SourceLine { index, start, end }
}

/// The part of a source file a diagnostic shows, as a file of its own.
pub struct Excerpt {
    name: String,
    text: String,
    starts: Vec<usize>,
    ends: Vec<usize>,
    numbers: Vec<usize>,
    /// Offset in `text` of a label start → its column in the source.
    columns: HashMap<usize, usize>,
}

impl Excerpt {
    /// The excerpt of `text` showing `labels` (byte ranges, clamped to the text); returns
    /// it with each label's range in the excerpt.
    pub fn new(name: &str, text: &str, labels: &[Range<usize>]) -> (Excerpt, Vec<Range<usize>>) {
        let clamp = |at: usize| {
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        let labels: Vec<Range<usize>> = labels
            .iter()
            .map(|r| {
                let (a, b) = (clamp(r.start), clamp(r.end));
                a.min(b)..a.max(b)
            })
            .collect();
        // The lines of every label end, and each line's anchors and points.
        let mut lines: BTreeMap<usize, SourceLine> = BTreeMap::new();
        let mut anchors: BTreeMap<usize, Vec<Range<usize>>> = BTreeMap::new();
        let mut points: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        let mut shown: BTreeSet<usize> = BTreeSet::new();
        let mut ends = Vec::new();
        for range in &labels {
            let first = source_line(text, range.start);
            let last = source_line(text, range.end);
            let (s, e) = (
                range.start.min(first.end) - first.start,
                range.end.min(last.end).max(last.start) - last.start,
            );
            if first.index == last.index {
                anchors.entry(first.index).or_default().push(s..e.max(s));
            } else {
                anchors.entry(first.index).or_default().push(s..s);
                anchors.entry(last.index).or_default().push(e..e);
                let context = (first.index + 1..=first.index + START_CONTEXT)
                    .chain(last.index.saturating_sub(END_CONTEXT)..last.index)
                    .filter(|&i| i > first.index && i < last.index);
                shown.extend(context);
            }
            points.entry(first.index).or_default().insert(s);
            points.entry(last.index).or_default().insert(e);
            lines.insert(first.index, first);
            lines.insert(last.index, last);
            shown.insert(first.index);
            shown.insert(last.index);
            ends.push((first, s, last, e, range.start));
        }
        // codespan shows a single line between two shown lines; fill those in.
        let between: Vec<usize> = shown
            .iter()
            .zip(shown.iter().skip(1))
            .filter(|(a, b)| **b == **a + 2)
            .map(|(a, _)| a + 1)
            .collect();
        shown.extend(between);
        // Find the shown lines not located yet, in one pass over the text.
        let missing: Vec<usize> = shown
            .iter()
            .copied()
            .filter(|i| !lines.contains_key(i))
            .collect();
        if !missing.is_empty() {
            let mut index = 0;
            let mut start = 0;
            let mut wanted = missing.iter().peekable();
            for (at, byte) in text.bytes().enumerate().chain([(text.len(), b'\n')]) {
                if byte != b'\n' {
                    continue;
                }
                if wanted.peek() == Some(&&index) {
                    wanted.next();
                    let crlf = at < text.len() && at > start && text.as_bytes()[at - 1] == b'\r';
                    let end = if crlf { at - 1 } else { at };
                    lines.insert(index, SourceLine { index, start, end });
                }
                if wanted.peek().is_none() {
                    break;
                }
                index += 1;
                start = at + 1;
            }
        }
        let mut excerpt = Excerpt {
            name: sanitize(name),
            text: String::new(),
            starts: Vec::new(),
            ends: Vec::new(),
            numbers: Vec::new(),
            columns: HashMap::new(),
        };
        let mut offsets: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        let mut previous: Option<usize> = None;
        for &index in &shown {
            let Some(line) = lines.get(&index) else {
                continue;
            };
            if let Some(previous) = previous
                && index > previous + 2
            {
                // Two stand-ins: codespan prints a break for a gap of two lines or more.
                excerpt.push_line("", previous + 2);
                excerpt.push_line("", previous + 2);
            }
            let content = &text[line.start..line.end];
            let (shown_text, map) = show_line(
                content,
                anchors.get(&index).map_or(&[][..], Vec::as_slice),
                points.get(&index).unwrap_or(&BTreeSet::new()),
            );
            let base = excerpt.push_line(&shown_text, index + 1);
            for (point, offset) in map {
                offsets.insert((index, point), base + offset);
            }
            previous = Some(index);
        }
        let mut mapped = Vec::with_capacity(ends.len());
        for (first, s, last, e, at) in ends {
            let start = offsets.get(&(first.index, s)).copied().unwrap_or(0);
            let end = offsets.get(&(last.index, e)).copied().unwrap_or(start);
            let column = text[first.start..at].chars().count() + 1;
            excerpt.columns.insert(start, column);
            mapped.push(start..end.max(start));
        }
        (excerpt, mapped)
    }

    /// Appends a line; returns its first offset.
    fn push_line(&mut self, line: &str, number: usize) -> usize {
        if !self.starts.is_empty() {
            self.text.push('\n');
        }
        let start = self.text.len();
        self.text.push_str(line);
        self.starts.push(start);
        self.ends.push(self.text.len());
        self.numbers.push(number);
        start
    }
}

impl<'a> Files<'a> for Excerpt {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), byte_index: usize) -> Result<usize, Error> {
        Ok(match self.starts.binary_search(&byte_index) {
            Ok(line) => line,
            Err(next) => next.saturating_sub(1),
        })
    }

    fn line_number(&'a self, (): (), line_index: usize) -> Result<usize, Error> {
        self.numbers
            .get(line_index)
            .copied()
            .ok_or(Error::LineTooLarge {
                given: line_index,
                max: self.numbers.len().saturating_sub(1),
            })
    }

    fn column_number(
        &'a self,
        (): (),
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        if let Some(&column) = self.columns.get(&byte_index) {
            return Ok(column);
        }
        let range = self.line_range((), line_index)?;
        let end = byte_index.clamp(range.start, range.end);
        Ok(self
            .text
            .get(range.start..end)
            .map_or(0, |s| s.chars().count())
            + 1)
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        match (self.starts.get(line_index), self.ends.get(line_index)) {
            (Some(&start), Some(&end)) => Ok(start..end),
            _ => Err(Error::LineTooLarge {
                given: line_index,
                max: self.starts.len().saturating_sub(1),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::diagnostic::{Diagnostic, Label};
    use codespan_reporting::files::SimpleFile;
    use codespan_reporting::term::{self, Config};

    fn one(range: Range<usize>) -> Vec<Range<usize>> {
        vec![range]
    }

    /// codespan-reporting's rendering of `labels` (the first primary) against the whole
    /// text, and against the excerpt.
    fn both(text: &str, labels: &[Range<usize>]) -> (String, String) {
        let diagnostic = |ranges: Vec<Range<usize>>| {
            Diagnostic::error().with_message("m").with_labels(
                ranges
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| {
                        if i == 0 {
                            Label::primary((), r).with_message("here")
                        } else {
                            Label::secondary((), r).with_message(format!("also {i}"))
                        }
                    })
                    .collect(),
            )
        };
        let config = Config::default();
        let whole = SimpleFile::new("f.kif", text);
        let expected =
            term::emit_into_string(&config, &whole, &diagnostic(labels.to_vec())).expect("renders");
        let (excerpt, mapped) = Excerpt::new("f.kif", text, labels);
        let actual =
            term::emit_into_string(&config, &excerpt, &diagnostic(mapped)).expect("renders");
        (expected, actual)
    }

    #[test]
    fn plain_text_renders_as_codespan_renders_the_whole_file() {
        let text: String = (1..=30)
            .map(|i| format!("(<= (line{i} ?x)\n  (p ?x))\n"))
            .collect();
        let at = |line: usize, column: usize| {
            text.split_inclusive('\n')
                .take(line - 1)
                .map(str::len)
                .sum::<usize>()
                + column
                - 1
        };
        let cases: Vec<Vec<Range<usize>>> = vec![
            vec![at(3, 5)..at(3, 9)],
            vec![at(1, 1)..at(1, 1)],
            vec![at(1, 1)..at(2, 9)],
            vec![at(3, 1)..at(5, 9)],
            vec![at(3, 2)..at(9, 9)],
            vec![at(3, 2)..at(20, 4)],
            vec![at(5, 5)..at(5, 9), at(7, 1)..at(7, 3)],
            vec![at(5, 5)..at(5, 9), at(8, 1)..at(8, 3)],
            vec![at(5, 5)..at(5, 9), at(30, 1)..at(30, 3)],
            vec![
                at(20, 5)..at(20, 9),
                at(2, 1)..at(2, 3),
                at(4, 1)..at(12, 2),
            ],
            vec![
                at(1, 1)..at(29, 2),
                at(3, 1)..at(27, 2),
                at(14, 3)..at(14, 5),
            ],
            vec![text.len()..text.len()],
            vec![at(60, 1)..text.len()],
        ];
        for labels in cases {
            let (expected, actual) = both(&text, &labels);
            assert_eq!(actual, expected, "labels {labels:?}");
        }
        for text in ["", "(role x)", "(role x)\r\n(p ?x)\r\n"] {
            let (expected, actual) = both(text, &one(text.len() / 2..text.len()));
            assert_eq!(actual, expected, "text {text:?}");
        }
    }

    #[test]
    fn escapes_controls_but_not_tabs() {
        assert_eq!(
            sanitize("a\u{1b}[31mb\tc\u{202e}d"),
            "a\\x1b[31mb\tc\\u{202e}d"
        );
        assert_eq!(sanitize("two\nlines"), "two\nlines");
    }

    #[test]
    fn long_text_lines_are_cut_in_the_middle() {
        let long = "x".repeat(10 * MAX_TEXT_LINE);
        let cut = sanitize(&format!("relation `{long}` is odd"));
        assert!(cut.starts_with("relation `xx") && cut.ends_with("xx` is odd"));
        assert_eq!(cut.chars().count(), MAX_TEXT_LINE + 1);
    }

    #[test]
    fn windows_surround_the_marker() {
        let line = format!("{}(p ?x){}", "a".repeat(1000), "b".repeat(1000));
        let (shown, map) = show_line(&line, &one(1000..1006), &BTreeSet::from([1000, 1006]));
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().count(), WINDOW + 2);
        assert_eq!(&shown[map[&1000]..map[&1006]], "(p ?x)");
    }

    #[test]
    fn a_short_line_is_shown_whole() {
        let (shown, map) = show_line("(role \u{7}x)", &one(6..7), &BTreeSet::from([6, 7]));
        assert_eq!(shown, "(role \\x07x)");
        assert_eq!(&shown[map[&6]..map[&7]], "\\x07");
    }

    #[test]
    fn a_long_label_keeps_both_ends() {
        let line = "c".repeat(5000);
        let (shown, map) = show_line(&line, &one(10..4990), &BTreeSet::from([10, 4990]));
        assert_eq!(shown.matches('…').count(), 3);
        assert!(map[&4990] > map[&10]);
        assert!(shown.chars().count() < 2 * WINDOW);
    }
}
