//! Located diagnostics: errors and warnings with byte spans into a source file, rendered
//! as `file:line:column` with the source line and a marker (codespan-reporting).
//!
//! Diagnostics are values until the edge of the program; only the CLI, xtask and the
//! build.rs API render them. Rendering shows only the lines the labels touch, with
//! control characters escaped and long lines cut around the markers (module `excerpt`), so
//! neither binary garbage nor a huge one-line file reaches the terminal raw or whole.
//!
//! Source files are UTF-8: [`SourceFile::read`] refuses any other bytes with an error
//! located at the first invalid byte.

mod excerpt;

use std::fmt;
use std::sync::Arc;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::term;

pub use excerpt::sanitize;

/// A byte range `start..end` in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// A source file: its name as shown in diagnostics, and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Name shown in diagnostics (usually the path as given).
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl SourceFile {
    /// A source file from a name and its text. A carriage return not followed by a
    /// line feed (classic Mac OS files: some old GDL games) ends a line, as it does for
    /// the line readers of other GDL systems: it becomes a line feed, so comments end
    /// there and diagnostics count it as a line break (one byte for one: every offset
    /// stays the same).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let mut text: String = text.into();
        if text.contains('\r') {
            let mut bytes = text.into_bytes();
            lone_carriage_returns_as_line_feeds(&mut bytes);
            // One ASCII byte for another: still UTF-8.
            text = String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        }
        SourceFile {
            name: name.into(),
            text,
        }
    }

    /// Reads a file from disk; the error names the path. A file that is not UTF-8 is
    /// an error located at its first invalid byte (see [`from_bytes`](Self::from_bytes)).
    pub fn read(path: &std::path::Path) -> Result<Self, Diagnostic> {
        match std::fs::read(path) {
            Ok(bytes) => SourceFile::from_bytes(path.display().to_string(), bytes),
            Err(err) => Err(Diagnostic::error(
                Code::Io,
                format!("cannot read `{}`: {err}", path.display()),
            )),
        }
    }

    /// A source file from its bytes, which must be UTF-8. Otherwise the error
    /// ([`Code::Encoding`]) is located at the first invalid byte and carries its own
    /// [`source`](Diagnostic::source) — the line with that byte, invalid bytes shown as
    /// `\xNN` — so it renders with the line whatever file it is rendered against, and its
    /// `Display` starts with `file:line:column`.
    pub fn from_bytes(name: impl Into<String>, mut bytes: Vec<u8>) -> Result<Self, Diagnostic> {
        let name = name.into();
        // Lines as `new` counts them, for the error's line too.
        lone_carriage_returns_as_line_feeds(&mut bytes);
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(name, text)),
            Err(err) => Err(not_utf8(name, err.as_bytes(), err.utf8_error())),
        }
    }

    /// 1-based line and column of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let before = &self.text.as_bytes()[..offset];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        (line, column)
    }
}

/// Replaces each carriage return that no line feed follows by a line feed, in place
/// (a byte that is never part of a longer UTF-8 sequence: text stays text).
fn lone_carriage_returns_as_line_feeds(bytes: &mut [u8]) {
    for i in 0..bytes.len() {
        if bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n') {
            bytes[i] = b'\n';
        }
    }
}

/// The error for bytes that are not UTF-8: located at the first invalid byte, with its
/// line (as far as the file goes) as the diagnostic's own source.
fn not_utf8(name: String, bytes: &[u8], error: std::str::Utf8Error) -> Diagnostic {
    let at = error.valid_up_to();
    let before = &bytes[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    let invalid = error.error_len().unwrap_or(bytes.len() - at);
    // The excerpt: empty lines up to the bad one, then that line with every byte that
    // is not UTF-8 written `\xNN`.
    let mut text = "\n".repeat(line - 1);
    let mut start = text.len();
    for chunk in bytes[line_start..line_end].utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    start += at - line_start;
    let span = Span::new(start, start + 4 * invalid);
    let shown: Vec<String> = bytes[at..at + invalid]
        .iter()
        .map(|b| format!("0x{b:02x}"))
        .collect();
    let what = if error.error_len().is_none() {
        format!(
            "the file ends inside a UTF-8 sequence ({})",
            shown.join(" ")
        )
    } else if invalid == 1 {
        format!("byte {} is not valid UTF-8", shown[0])
    } else {
        format!("bytes {} are not valid UTF-8", shown.join(" "))
    };
    let source = SourceFile::new(name, text);
    Diagnostic::error(Code::Encoding, format!("the file is not UTF-8: {what}"))
        .at(span, "not UTF-8")
        .with_note("GDL files are read as UTF-8 (ASCII is UTF-8): convert the file, e.g. with `iconv -t UTF-8`")
        .with_source(source)
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The description is valid; the defect has one unambiguous repair, which was made.
    Warning,
    /// The description is not valid GDL.
    Error,
}

/// What kind of problem a diagnostic reports; its stable name appears in the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// A file could not be read.
    Io,
    /// A file is not UTF-8.
    Encoding,
    /// Malformed KIF (unbalanced parentheses, a stray character …).
    Syntax,
    /// A move text that is malformed or not legal.
    Move,
    /// Well-formed KIF that is not a GDL sentence, literal or term.
    Structure,
    /// A rule with an empty body, read as a fact.
    EmptyBody,
    /// `(p)` written for the constant or proposition `p`.
    ParenthesisedConstant,
    /// `and` inside a body, read as a conjunction.
    AndConnective,
    /// `(not (distinct s t))`, read as the equality of `s` and `t`.
    NegatedDistinct,
    /// A GDL keyword where it may not stand (e.g. `true` in a head, `next` in a body).
    KeywordPlacement,
    /// A keyword relation used with the wrong arity (an error), or `base`/`input` with
    /// another arity, read as ordinary relations (a warning).
    KeywordArity,
    /// A GDL keyword used as a function symbol inside a term.
    KeywordAsFunction,
    /// A relation used with different arities.
    RelationArity,
    /// A function symbol used with different arities (read as distinct symbols).
    FunctionArity,
    /// A variable not bound by a positive body literal.
    Unsafe,
    /// Negation through recursion.
    Unstratified,
    /// A recursive literal breaking the recursion restriction.
    Recursion,
    /// A keyword relation depending on something it may not depend on.
    KeywordDependency,
    /// A required relation (`role`, `legal`, `terminal`, `goal`) or fact is missing.
    Missing,
    /// A goal value that is not an integer in 0..=100.
    GoalValue,
    /// Argument domains that cannot be bounded (analysis).
    Unbounded,
    /// A malformed invariant formula, or one naming an unknown relation or domain
    /// (`gdlc prove --formula`).
    Formula,
    /// The answer set solver failed (`gdlc prove`).
    Solver,
    /// A construct the Rust backend cannot compile.
    Backend,
}

impl Code {
    /// The stable name shown in brackets after `error`/`warning`.
    pub fn name(self) -> &'static str {
        match self {
            Code::Io => "io",
            Code::Encoding => "encoding",
            Code::Syntax => "syntax",
            Code::Move => "move",
            Code::Structure => "structure",
            Code::EmptyBody => "empty-body",
            Code::ParenthesisedConstant => "parenthesised-constant",
            Code::AndConnective => "and-connective",
            Code::NegatedDistinct => "negated-distinct",
            Code::KeywordPlacement => "keyword-placement",
            Code::KeywordArity => "keyword-arity",
            Code::KeywordAsFunction => "keyword-as-function",
            Code::RelationArity => "relation-arity",
            Code::FunctionArity => "function-arity",
            Code::Unsafe => "unsafe",
            Code::Unstratified => "unstratified",
            Code::Recursion => "recursion",
            Code::KeywordDependency => "keyword-dependency",
            Code::Missing => "missing",
            Code::GoalValue => "goal-value",
            Code::Unbounded => "unbounded",
            Code::Formula => "formula",
            Code::Solver => "solver",
            Code::Backend => "backend",
        }
    }
}

/// A secondary location with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there.
    pub message: String,
}

/// One error or warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The kind of problem.
    pub code: Code,
    /// One-line summary.
    pub message: String,
    /// The main location, if the problem has one.
    pub span: Option<Span>,
    /// Text under the marker of the main location.
    pub label: String,
    /// Other locations that explain the problem.
    pub secondary: Vec<Label>,
    /// Free-text notes (how to fix, how it was repaired).
    pub notes: Vec<String>,
    /// The text the spans point into, when the diagnostic brings its own (e.g. a file
    /// that could not be read as text): rendering uses it instead of the file given.
    pub source: Option<Arc<SourceFile>>,
}

impl Diagnostic {
    /// An error without a location.
    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span: None,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            source: None,
        }
    }

    /// A warning without a location.
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Sets the main location and its label.
    pub fn at(mut self, span: Span, label: impl Into<String>) -> Self {
        self.span = Some(span);
        self.label = label.into();
        self
    }

    /// Adds a secondary location.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Gives the diagnostic its own source text (see [`Diagnostic::source`]).
    pub fn with_source(mut self, source: SourceFile) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// The same diagnostic with every span moved `offset` bytes later (for text that
    /// was read out of a larger text).
    pub fn shifted(mut self, offset: usize) -> Self {
        let shift = |span: Span| Span::new(span.start + offset, span.end + offset);
        self.span = self.span.map(shift);
        for label in &mut self.secondary {
            label.span = shift(label.span);
        }
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders this diagnostic against its source file, without colours.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut buffer = term::termcolor::NoColor::new(Vec::new());
        self.emit(file, &mut buffer);
        String::from_utf8_lossy(&buffer.into_inner()).into_owned()
    }

    /// Writes this diagnostic to a terminal writer (which may colour it): the lines its
    /// labels touch, escaped and cut around the markers (see the module docs), of its
    /// own [`source`](Self::source) if it has one, else of `file`.
    pub fn emit(&self, file: &SourceFile, writer: &mut dyn term::WriteStyle) {
        let file = self.source.as_deref().unwrap_or(file);
        let mut ranges = Vec::new();
        if let Some(span) = self.span {
            ranges.push(span.start..span.end);
        }
        ranges.extend(self.secondary.iter().map(|l| l.span.start..l.span.end));
        let (excerpt, mapped) = excerpt::Excerpt::new(&file.name, &file.text, &ranges);
        let mut mapped = mapped.into_iter();
        let mut labels = Vec::new();
        if self.span.is_some()
            && let Some(range) = mapped.next()
        {
            labels.push(cs::Label::primary((), range).with_message(sanitize(&self.label)));
        }
        for (label, range) in self.secondary.iter().zip(mapped) {
            labels.push(cs::Label::secondary((), range).with_message(sanitize(&label.message)));
        }
        let out = match self.severity {
            Severity::Error => cs::Diagnostic::error(),
            Severity::Warning => cs::Diagnostic::warning(),
        }
        .with_code(self.code.name())
        .with_message(sanitize(&self.message))
        .with_notes(self.notes.iter().map(|note| sanitize(note)).collect())
        .with_labels(labels);
        let config = term::Config::default();
        if term::emit_to_write_style(writer, &config, &excerpt, &out).is_err() {
            // The writer failed (e.g. a closed pipe); there is nowhere left to report it.
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if let (Some(source), Some(span)) = (&self.source, self.span) {
            let (line, column) = source.line_column(span.start);
            write!(f, "{}:{line}:{column}: ", sanitize(&source.name))?;
        }
        write!(
            f,
            "{kind}[{}]: {}",
            self.code.name(),
            sanitize(&self.message)
        )
    }
}
