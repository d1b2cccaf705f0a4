//! Bad input on the command line and through the library: a file that is not UTF-8 is
//! an error located at its first invalid byte; control characters of the source, of
//! symbols quoted in messages and of file names never reach the terminal raw; a huge
//! one-line file is echoed as a window around the marker, not whole. Markers stay under
//! what they mark.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use gdlc::SourceFile;

/// A temporary file, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(label: &str, bytes: &[u8]) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "gdlc-bad-input-{}-{n}-{label}.kif",
            std::process::id()
        ));
        std::fs::write(&path, bytes)
            .unwrap_or_else(|err| panic!("cannot write {}: {err}", path.display()));
        TempFile(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    fn name(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    stderr_bytes: Vec<u8>,
}

fn gdlc(args: &[&str], file: &TempFile) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .arg(file.path())
        .output()
        .expect("the gdlc binary runs");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        stderr_bytes: output.stderr,
    };
    assert_ne!(run.code, 101, "gdlc panicked:\n{}", run.stderr);
    assert!(
        !run.stderr.contains("panicked"),
        "gdlc panicked:\n{}",
        run.stderr
    );
    run
}

/// Asserts that `text` holds no terminal control: no C0 control but newline (and the
/// tab codespan expands to spaces), no DEL, no C1 control, valid UTF-8.
fn assert_terminal_safe(bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).expect("stderr is UTF-8");
    for (i, c) in text.char_indices() {
        assert!(
            c == '\n' || !c.is_control(),
            "raw control {c:?} at byte {i} of stderr:\n{}",
            text.escape_debug()
        );
    }
}

/// The source line shown for line `number` and the marker line under it.
fn shown_line(stderr: &str, number: usize) -> (&str, &str) {
    let prefix = format!("{number} │ ");
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        if let Some(source) = line.strip_prefix(&prefix) {
            let marker = lines.next().expect("a marker line follows");
            let gutter = " ".repeat(number.to_string().len());
            let marker = marker
                .strip_prefix(&format!("{gutter} │ "))
                .expect("marker line has the gutter");
            return (source, marker);
        }
    }
    panic!("line {number} is not shown:\n{stderr}");
}

/// Asserts that the `^` markers of the line stand exactly under `marked`.
fn assert_marks(stderr: &str, number: usize, marked: &str) {
    let (source, marker) = shown_line(stderr, number);
    let first = marker.chars().position(|c| c == '^').expect("a ^ marker");
    let count = marker.chars().skip(first).take_while(|&c| c == '^').count();
    let under: String = source.chars().skip(first).take(count).collect();
    assert_eq!(under, marked, "markers misplaced:\n{source}\n{marker}");
}

#[test]
fn a_file_that_is_not_utf8_is_a_located_error() {
    let file = TempFile::new("latin1", b"(role x)\n(init (a 1))\n(foo \xe9t\xe9 bar)\n");
    let run = gdlc(&["check"], &file);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("error[encoding]: the file is not UTF-8"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{}:3:6", file.name())),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("byte 0xe9"), "{}", run.stderr);
    assert_marks(&run.stderr, 3, "\\xe9");
    assert_terminal_safe(&run.stderr_bytes);
    assert!(run.stdout.contains("0 valid, 1 invalid"), "{}", run.stdout);
    // The commands that load one game say the same.
    for args in [&["perft", "1"][..], &["explain", "--stage", "domains"][..]] {
        let run = Command::new(env!("CARGO_BIN_EXE_gdlc"))
            .args(&args[..1])
            .arg(file.path())
            .args(&args[1..])
            .output()
            .expect("the gdlc binary runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{}:3:6", file.name())) && stderr.contains("not UTF-8"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_file_ending_inside_a_sequence_is_a_located_error() {
    let file = TempFile::new(
        "cut",
        "(role x)\n(p \u{e9}"
            .as_bytes()
            .split_last()
            .expect("bytes")
            .1,
    );
    let run = gdlc(&["check"], &file);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("{}:2:4", file.name())),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("ends inside a UTF-8 sequence (0xc3)"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_library_reports_the_location_of_bad_bytes() {
    let error =
        SourceFile::from_bytes("g.kif", b"(role x)\n  (\xff)\n".to_vec()).expect_err("not UTF-8");
    assert_eq!(
        error.to_string(),
        "g.kif:2:4: error[encoding]: the file is not UTF-8: byte 0xff is not valid UTF-8"
    );
    // Rendered against any file (the CLI has none to give), it shows its own line.
    let rendered = error.render(&SourceFile::new("g.kif", ""));
    assert!(rendered.contains("g.kif:2:4"), "{rendered}");
    assert!(rendered.contains("2 │   (\\xff)"), "{rendered}");
    let fine = SourceFile::from_bytes("g.kif", "(role é)".as_bytes().to_vec()).expect("UTF-8");
    assert_eq!(fine.text, "(role é)");
    // Lines ended by a lone carriage return (classic Mac OS) are lines here too.
    let error = SourceFile::from_bytes("g.kif", b"(role x)\r; \xe9\r  (\xff)\r".to_vec())
        .expect_err("not UTF-8");
    assert!(error.to_string().starts_with("g.kif:2:3: "), "{error}");
}

#[test]
fn control_characters_are_escaped_and_markers_line_up() {
    // ESC sequences, BEL, DEL and a C1 control on the line of an error, and in a symbol
    // the messages quote.
    let text = "(role x)\n(<= (p ?x \u{1b}[2J\u{7}\u{7f}\u{9b}31m) (not (q ?x)))\n\
                (f\u{1b}]0:pwned\u{7} 1)\n(f\u{1b}]0:pwned\u{7} 1 2)\n";
    let file = TempFile::new("controls", text.as_bytes());
    let run = gdlc(&["check"], &file);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_terminal_safe(&run.stderr_bytes);
    assert!(
        run.stderr.contains("\\x1b[2J\\x07\\x7f\\u{9b}31m"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("relation `f\\x1b]0:pwned\\x07` used with"),
        "{}",
        run.stderr
    );
    assert_marks(&run.stderr, 2, "?x");
    assert!(
        run.stderr.contains(&format!("{}:2:8", file.name())),
        "{}",
        run.stderr
    );
}

#[test]
fn binary_garbage_is_never_echoed_raw() {
    // Every byte value below 0x80 (valid UTF-8), shuffled by a fixed LCG, with
    // parentheses balanced so that the parser gets past its first check.
    let mut state: u32 = 12345;
    let mut bytes: Vec<u8> = Vec::new();
    for _ in 0..4096 {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let byte = ((state >> 16) % 128) as u8;
        if byte != b'(' && byte != b')' {
            bytes.push(byte);
        }
    }
    let mut text = b"(role x)\n(p ".to_vec();
    text.extend_from_slice(&bytes);
    text.extend_from_slice(b")\n");
    let file = TempFile::new("garbage", &text);
    let run = gdlc(&["check"], &file);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_terminal_safe(&run.stderr_bytes);
    assert!(
        run.stderr.len() < 20_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
}

#[test]
fn a_huge_one_line_file_is_echoed_around_the_marker() {
    // 5 MB on one line; the unsafe `?y` sits in the middle.
    let filler = "(a b) ".repeat(450_000);
    let mut text = format!("(role x) {filler}");
    let column = text.chars().count() + 8;
    text.push_str("(<= (p ?y) (q ?x)) ");
    text.push_str(&filler);
    assert!(text.len() > 5_000_000);
    let file = TempFile::new("huge", text.as_bytes());
    let run = gdlc(&["check"], &file);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.len() < 4_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
    assert!(
        run.stderr.contains(&format!("{}:1:{column}", file.name())),
        "{}",
        run.stderr
    );
    let (source, _) = shown_line(&run.stderr, 1);
    assert!(source.starts_with('…') && source.ends_with('…'), "{source}");
    assert!(source.chars().count() <= 130, "{source}");
    assert_marks(&run.stderr, 1, "?y");
}

#[test]
fn a_huge_symbol_in_a_message_is_cut() {
    let symbol = "s".repeat(1_000_000);
    let text = format!("(role x)\n({symbol} 1)\n({symbol} 1 2)\n");
    let file = TempFile::new("symbol", text.as_bytes());
    let run = gdlc(&["check"], &file);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.len() < 8_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
    assert!(run.stderr.contains("relation `sss"), "{}", run.stderr);
}
