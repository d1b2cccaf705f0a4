//! Located diagnostics: errors and warnings with byte spans into a source file, rendered
//! as `file:line:column` with the source line and a marker (codespan-reporting).
//!
//! Diagnostics are values until the edge of the program; only the CLI, xtask and the
//! build.rs API render them.

use std::fmt;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

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
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Name shown in diagnostics (usually the path as given).
    pub name: String,
    /// The whole text.
    pub text: String,
}

impl SourceFile {
    /// A source file from a name and its text.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }

    /// Reads a file from disk; the error names the path.
    pub fn read(path: &std::path::Path) -> Result<Self, Diagnostic> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(SourceFile::new(
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )),
            Err(err) => Err(Diagnostic::error(
                Code::Io,
                format!("cannot read `{}`: {err}", path.display()),
            )),
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

    /// Writes this diagnostic to a terminal writer (which may colour it).
    pub fn emit(&self, file: &SourceFile, writer: &mut dyn term::WriteStyle) {
        let simple = SimpleFile::new(file.name.as_str(), file.text.as_str());
        let mut out = match self.severity {
            Severity::Error => cs::Diagnostic::error(),
            Severity::Warning => cs::Diagnostic::warning(),
        }
        .with_code(self.code.name())
        .with_message(self.message.as_str())
        .with_notes(self.notes.clone());
        let mut labels = Vec::new();
        if let Some(span) = self.span {
            labels.push(cs::Label::primary((), span.start..span.end).with_message(&self.label));
        }
        for label in &self.secondary {
            labels.push(
                cs::Label::secondary((), label.span.start..label.span.end)
                    .with_message(&label.message),
            );
        }
        out = out.with_labels(labels);
        let config = term::Config::default();
        if term::emit_to_write_style(writer, &config, &simple, &out).is_err() {
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
        write!(f, "{kind}[{}]: {}", self.code.name(), self.message)
    }
}
