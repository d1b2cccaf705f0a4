//! `cargo xtask house`: the house rules of the source tree, checked and reported.
//!
//! - **The compiler's pipeline flows one way.** Every top-level module of `gdlc` sits in
//!   one layer of [`GDLC_LAYERS`]; a module imports only modules of its own layer or of
//!   earlier ones. A module added to the crate must be placed in a layer.
//! - **No import circles** between files of `gdlc` or `gdlc-runtime`: the graph "file A
//!   names an item of file B" (a `use` or a path through `crate::`, `super::` or
//!   `self::`) is acyclic once edges between a module and the modules inside it are left
//!   out (a child module is part of its parent: `use super::*` in a file that holds
//!   part of its parent's `impl` is no circle).
//! - **No source file over [`MAX_FILE_LINES`] lines, no function over [`MAX_FN_LINES`]**,
//!   in every crate of the workspace (generated crates, test files and `#[cfg(test)]`
//!   modules aside).
//!
//! The sources are read as text: comments, strings and character literals are blanked
//! first (line structure kept), then `mod`, `use` and qualified paths are read from
//! what is left. That is exact for `rustfmt`-formatted code without `#[path]` attributes,
//! which the check also rejects. The tests below run the rules on the workspace, so
//! `cargo xtask test` fails on a break.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The most lines a source file may have.
pub const MAX_FILE_LINES: usize = 1500;

/// The most lines a function may have, signature to closing brace.
pub const MAX_FN_LINES: usize = 150;

/// The layers of `gdlc`'s top-level modules, first to last: a module imports only from
/// its own layer and earlier ones. Normalisation comes before the checks, which read
/// normalised rules; the plan's data comes before the executor and the grounder, which
/// run it, and the planner after both, because it measures candidate plans with the
/// executor and lays out the state from the grounder's reachable fluents.
pub const GDLC_LAYERS: &[(&str, &[&str])] = &[
    ("diagnostics", &["diagnostic"]),
    ("KIF to AST", &["syntax"]),
    ("normalisation and the dependency graph", &["normalize"]),
    ("validity checks", &["check"]),
    ("the reference interpreter", &["interp"]),
    ("the IR", &["ir"]),
    (
        "canonical order, domains, flattening, layers",
        &["analysis"],
    ),
    ("the evaluation plan, as data", &["plan"]),
    ("the plan executor", &["exec"]),
    ("grounding", &["ground"]),
    ("the planner", &["planner"]),
    (
        "backends: the Rust join and ground backends, Prolog",
        &["emit"],
    ),
    ("the invariant prover and its ASP encoding", &["prove"]),
    (
        "drivers",
        &[
            "compile",
            "builder",
            "game_crate",
            "explain",
            "differential",
            "scramble",
        ],
    ),
];

/// The crates whose files must not import in circles, by directory.
const ACYCLIC_CRATES: &[&str] = &["gdlc", "gdlc-runtime"];

/// The workspace's crates whose sources are held to the length limits.
const LENGTH_CHECKED: &[&str] = &[
    "gdlc",
    "gdlc-runtime",
    "clingo-build",
    "benches",
    "xtask",
    "examples/builder-demo",
    "player",
    "search",
];

/// A module of a crate (its path from the crate root, `["emit", "ground"]`, is the key
/// of [`crate_modules`]'s map).
#[derive(Clone, Debug)]
struct Module {
    /// The file's text with comments, strings and characters blanked.
    code: String,
}

/// The modules of one library crate, from `src/lib.rs` down its `mod` declarations
/// (`#[cfg(test)]` modules left out).
fn crate_modules(src: &Path) -> Result<BTreeMap<Vec<String>, Module>, String> {
    let mut modules = BTreeMap::new();
    let mut pending = vec![(Vec::new(), src.join("lib.rs"))];
    while let Some((path, file)) = pending.pop() {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let code = blank_literals(&text);
        if code.contains("#[path") {
            return Err(format!(
                "{}: #[path] attributes are not supported",
                file.display()
            ));
        }
        let dir = if path.is_empty() || file.ends_with("mod.rs") {
            file.parent().expect("a file's directory").to_path_buf()
        } else {
            file.with_extension("")
        };
        for name in declared_modules(&without_test_modules(&code)) {
            let mut child = path.clone();
            child.push(name.clone());
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(&name).join("mod.rs");
            let file = if flat.is_file() { flat } else { nested };
            pending.push((child, file));
        }
        modules.insert(path, Module { code });
    }
    Ok(modules)
}

/// Blanks comments, string literals and character literals with spaces, keeping every
/// newline, so lines and braces can be read from what is left.
fn blank_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&chars, i) {
            chars[i..end].iter().for_each(|&c| blank(&mut out, c));
            i = end;
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                for _ in 0..skip.min(chars.len() - i) {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            out.push('\'');
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                let skip = if chars[i] == '\\' { 2 } else { 1 };
                for _ in 0..skip.min(chars.len() - i) {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether `c` can be part of an identifier.
fn is_ident_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The end of a raw string literal (`r"…"`, `r#"…"#`, `br#"…"#`) starting at `i`.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    if is_ident_char(i.checked_sub(1).map(|p| chars[p])) {
        return None;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// Whether the quote at `i` opens a character literal (not a lifetime or a label).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// `code` without the bodies of inline `#[cfg(test)]` modules (blanked, lines kept).
fn without_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    for (start, end) in test_module_spans(code) {
        for c in &mut out[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
    out.into_iter().collect()
}

/// The character spans of `#[cfg(test)]` items: an inline module to its closing brace,
/// a module declared in its own file (`mod tests;`) to its semicolon.
fn test_module_spans(code: &str) -> Vec<(usize, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let start_byte = from + found;
        from = start_byte + 1;
        let start = code[..start_byte].chars().count();
        let mut i = start + "#[cfg(test)]".len();
        let mut depth = 0usize;
        while i < chars.len() {
            match chars[i] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        spans.push((start, i.min(chars.len())));
    }
    spans
}

/// The names of the modules declared in a file (`mod name;`, any visibility).
fn declared_modules(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in code.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = words.iter().position(|&w| w == "mod") else {
            continue;
        };
        let visibility_only = words[..at]
            .iter()
            .all(|w| *w == "pub" || w.starts_with("pub("));
        if let Some(name) = words.get(at + 1).and_then(|w| w.strip_suffix(';'))
            && visibility_only
        {
            names.push(name.to_owned());
        }
    }
    names
}

/// Every path a file names through `crate::`, `super::` or `self::`, as written:
/// `use` trees expanded (`use crate::a::{b, c::d}` gives `crate::a::b` and
/// `crate::a::c::d`), then every other qualified path.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    let mut others = String::new();
    while let Some(at) = find_word(rest, "use") {
        others.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        let tree: String = after[..end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        expand_use_tree("", &tree, &mut paths);
        rest = &after[end..];
    }
    others.push_str(rest);
    for root in ["crate", "super", "self"] {
        let mut rest = others.as_str();
        while let Some(at) = find_word(rest, root) {
            let path: String = rest[at..]
                .chars()
                .take_while(|&c| c.is_alphanumeric() || c == '_' || c == ':')
                .collect();
            if path.len() > root.len() + 2 && path[root.len()..].starts_with("::") {
                paths.push(path.trim_end_matches(':').to_owned());
            }
            rest = &rest[at + root.len()..];
        }
    }
    paths
}

/// The byte position of `word` in `text` as a whole word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !is_ident_char(before) && !is_ident_char(after) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Adds the paths of a `use` tree (whitespace removed) under `prefix`.
fn expand_use_tree(prefix: &str, tree: &str, out: &mut Vec<String>) {
    for part in split_top_level(tree) {
        match part.find('{') {
            None => out.push(format!("{prefix}{part}")),
            Some(open) => {
                let inner = &part[open + 1..part.rfind('}').unwrap_or(part.len())];
                expand_use_tree(&format!("{prefix}{}", &part[..open]), inner, out);
            }
        }
    }
}

/// `tree` split at its commas outside braces.
fn split_top_level(tree: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The module a path written in module `at` leads to: the longest known module prefix
/// of the path, resolved from the crate root, `super` or `self`.
fn resolve(
    at: &[String],
    path: &str,
    modules: &BTreeMap<Vec<String>, Module>,
) -> Option<Vec<String>> {
    let mut segments = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut full: Vec<String> = match segments.peek().copied() {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        Some("super" | "self") => {
            let mut base = at.to_vec();
            while let Some(&s @ ("super" | "self")) = segments.peek() {
                if s == "super" {
                    base.pop();
                }
                segments.next();
            }
            base
        }
        _ => return None,
    };
    full.extend(segments.map(str::to_owned));
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|prefix| modules.contains_key(prefix))
}

/// The import graph between the modules of one crate: `a → b` when a file of `a` names
/// an item of `b`, `a` and `b` not one inside the other.
fn import_graph(
    modules: &BTreeMap<Vec<String>, Module>,
) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (path, module) in modules {
        let edges = graph.entry(path.clone()).or_default();
        for named in named_paths(&without_test_modules(&module.code)) {
            let Some(target) = resolve(path, &named, modules) else {
                continue;
            };
            let nested = target.starts_with(path) || path.starts_with(&target);
            if !nested {
                edges.insert(target);
            }
        }
    }
    graph
}

/// A module path as text (`emit::ground`; the crate root is `lib`).
fn module_name(path: &[String]) -> String {
    if path.is_empty() {
        "lib".to_owned()
    } else {
        path.join("::")
    }
}

/// The import circles of a graph: its strongly connected components of more than one
/// module, each sorted, with the edges inside it.
fn circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let reaches = |from: &Vec<String>| -> BTreeSet<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> =
        graph.keys().map(|m| (m, reaches(m))).collect();
    let mut found = Vec::new();
    let mut placed = BTreeSet::new();
    for m in graph.keys() {
        if placed.contains(m) || !reach[m].contains(m) {
            continue;
        }
        let component: Vec<&Vec<String>> =
            reach[m].iter().filter(|o| reach[*o].contains(m)).collect();
        let mut text = String::from("import circle:");
        for a in &component {
            placed.insert((*a).clone());
            for b in graph[*a].iter().filter(|b| component.contains(b)) {
                let _ = write!(text, " {} → {};", module_name(a), module_name(b));
            }
        }
        found.push(text.trim_end_matches(';').to_owned());
    }
    found
}

/// Imports of `gdlc` from a later layer, and top-level modules in no layer.
fn layer_breaks(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<String> {
    let rank = |top: &str| GDLC_LAYERS.iter().position(|(_, mods)| mods.contains(&top));
    let mut breaks = BTreeSet::new();
    for (from, targets) in graph {
        let Some(top) = from.first() else { continue };
        let Some(from_rank) = rank(top) else {
            breaks.insert(format!(
                "module `{top}` is in no layer of GDLC_LAYERS (xtask/src/house.rs)"
            ));
            continue;
        };
        for target in targets {
            let Some(target_top) = target.first() else {
                continue;
            };
            if rank(target_top).is_some_and(|r| r > from_rank) {
                breaks.insert(format!(
                    "`{}` ({}) imports `{}` ({}), a later layer",
                    module_name(from),
                    GDLC_LAYERS[from_rank].0,
                    module_name(target),
                    GDLC_LAYERS[rank(target_top).expect("ranked")].0,
                ));
            }
        }
    }
    breaks.into_iter().collect()
}

/// A function's length: its file, first line, name and lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnLength {
    pub file: PathBuf,
    pub line: usize,
    pub name: String,
    pub lines: usize,
}

/// The functions of a file with a body, outside `#[cfg(test)]` items, with their
/// lengths from the `fn` line to the closing brace.
fn function_lengths(file: &Path, code: &str) -> Vec<FnLength> {
    let code = without_test_modules(code);
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(at) = find_word(line, "fn") else {
            continue;
        };
        let name: String = line[at + 2..]
            .trim_start()
            .chars()
            .take_while(|&c| c.is_alphanumeric() || c == '_')
            .collect();
        if name.is_empty() || !line[..at].split_whitespace().all(is_fn_qualifier) {
            continue;
        }
        if let Some(end) = body_end(&lines, i) {
            found.push(FnLength {
                file: file.to_path_buf(),
                line: i + 1,
                name,
                lines: end - i + 1,
            });
        }
    }
    found
}

/// Whether a word may stand before `fn` in a function's signature.
fn is_fn_qualifier(word: &str) -> bool {
    matches!(word, "pub" | "const" | "async" | "unsafe" | "extern") || word.starts_with("pub(")
}

/// The line of the closing brace of the body that opens at or after line `from`, or
/// `None` for a declaration without a body.
fn body_end(lines: &[&str], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut opened = false;
    for (i, line) in lines.iter().enumerate().skip(from) {
        for c in line.chars() {
            match c {
                ';' if !opened && depth == 0 => return None,
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if opened && depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The `.rs` files of a crate directory held to the length limits: `src/` and
/// `build.rs` (not `tests/`, `benches/` or generated crates).
fn checked_files(crate_dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let build = crate_dir.join("build.rs");
    if build.is_file() {
        files.push(build);
    }
    let mut dirs = vec![crate_dir.join("src")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// What the house check found.
#[derive(Debug, Default)]
pub struct House {
    /// Broken rules, one line each.
    pub breaks: Vec<String>,
    /// Every checked file with its lines, longest first.
    pub files: Vec<(PathBuf, usize)>,
    /// Every function with its lines, longest first.
    pub functions: Vec<FnLength>,
    /// Per acyclic crate: its modules and imports between files.
    pub graphs: Vec<(String, usize, usize)>,
}

/// Checks the house rules on the workspace at `root`.
pub fn check(root: &Path) -> Result<House, String> {
    let mut house = House::default();
    for name in ACYCLIC_CRATES {
        let modules = crate_modules(&root.join(name).join("src"))?;
        let graph = import_graph(&modules);
        house
            .breaks
            .extend(circles(&graph).into_iter().map(|c| format!("{name}: {c}")));
        if *name == "gdlc" {
            house.breaks.extend(
                layer_breaks(&graph)
                    .into_iter()
                    .map(|b| format!("gdlc: {b}")),
            );
        }
        let edges = graph.values().map(BTreeSet::len).sum();
        house.graphs.push((name.to_string(), modules.len(), edges));
    }
    for name in LENGTH_CHECKED {
        for file in checked_files(&root.join(name)) {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            let shown = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
            let code = blank_literals(&text);
            house.functions.extend(function_lengths(&shown, &code));
            house.files.push((shown, text.lines().count()));
        }
    }
    house
        .files
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    house
        .functions
        .sort_by(|a, b| b.lines.cmp(&a.lines).then_with(|| a.file.cmp(&b.file)));
    for (file, lines) in house.files.iter().filter(|f| f.1 > MAX_FILE_LINES) {
        house.breaks.push(format!(
            "{}: {lines} lines (at most {MAX_FILE_LINES})",
            file.display()
        ));
    }
    for f in house.functions.iter().filter(|f| f.lines > MAX_FN_LINES) {
        house.breaks.push(format!(
            "{}:{}: fn {} has {} lines (at most {MAX_FN_LINES})",
            f.file.display(),
            f.line,
            f.name,
            f.lines
        ));
    }
    Ok(house)
}

/// The report `cargo xtask house` prints: the layers, the largest files and longest
/// functions, and every broken rule.
pub fn report(house: &House) -> String {
    let mut out = String::from(
        "gdlc's layers, first to last (a module imports only from its own layer and earlier ones):\n",
    );
    for (i, (what, modules)) in GDLC_LAYERS.iter().enumerate() {
        let _ = writeln!(out, "  {:>2}. {} ({what})", i + 1, modules.join(", "));
    }
    for (name, modules, edges) in &house.graphs {
        let _ = writeln!(
            out,
            "{name}: {modules} modules, {edges} imports between them"
        );
    }
    out.push_str("ten largest files:\n");
    for (file, lines) in house.files.iter().take(10) {
        let _ = writeln!(out, "  {lines:>5}  {}", file.display());
    }
    out.push_str("ten longest functions:\n");
    for f in house.functions.iter().take(10) {
        let _ = writeln!(
            out,
            "  {:>5}  {} ({}:{})",
            f.lines,
            f.name,
            f.file.display(),
            f.line
        );
    }
    if house.breaks.is_empty() {
        out.push_str("every house rule holds\n");
    } else {
        let _ = writeln!(out, "{} broken house rules:", house.breaks.len());
        for b in &house.breaks {
            let _ = writeln!(out, "  {b}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn the_workspace_keeps_the_house_rules() {
        let house = check(&workspace()).expect("the sources are readable");
        assert!(house.breaks.is_empty(), "{}", report(&house));
        assert!(
            house.files.len() > 100 && house.functions.len() > 1000,
            "the check reads the sources"
        );
    }

    #[test]
    fn literals_and_comments_are_blanked_lines_kept() {
        let text =
            "let s = \"a { b\"; // c {\nlet r = r#\"}\"#; let c = '{'; /* x\n{ */ fn f<'a>() {}";
        let code = blank_literals(text);
        assert_eq!(code.lines().count(), text.lines().count());
        assert!(!code.contains("a {") && !code.contains("c {") && !code.contains("'{'"));
        assert!(code.contains("fn f<'a>() {}"));
        assert_eq!(code.matches('{').count(), 1);
    }

    #[test]
    fn use_trees_expand_and_paths_resolve() {
        let code = "use crate::a::{b, c::{self, D}};\nuse super::*;\nfn f() { crate::e::g(); }";
        let paths = named_paths(code);
        for p in [
            "crate::a::b",
            "crate::a::c::self",
            "crate::a::c::D",
            "super::*",
            "crate::e::g",
        ] {
            assert!(paths.contains(&p.to_owned()), "{p} in {paths:?}");
        }
        let modules: BTreeMap<Vec<String>, Module> =
            [vec![], vec!["a".to_owned()], vec!["a".into(), "c".into()]]
                .into_iter()
                .map(|p| {
                    (
                        p,
                        Module {
                            code: String::new(),
                        },
                    )
                })
                .collect();
        let at = vec!["a".to_owned(), "c".to_owned()];
        assert_eq!(resolve(&at, "crate::a::c::D", &modules), Some(at.clone()));
        assert_eq!(
            resolve(&at, "super::b", &modules),
            Some(vec!["a".to_owned()])
        );
        assert_eq!(resolve(&at, "std::fmt", &modules), None);
    }

    /// A graph from `(from, to)` pairs of module names.
    fn graph(edges: &[(&str, &str)]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
        let path = |m: &str| m.split("::").map(str::to_owned).collect::<Vec<_>>();
        let mut g: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(path(a)).or_default().insert(path(b));
            g.entry(path(b)).or_default();
        }
        g
    }

    #[test]
    fn circles_and_backward_imports_are_found() {
        let circle = graph(&[
            ("analysis::domains", "analysis::statics"),
            ("analysis::statics", "analysis::domains"),
        ]);
        assert_eq!(circles(&circle).len(), 1);
        assert!(circles(&graph(&[("emit", "plan"), ("plan", "ir")])).is_empty());
        let backward = graph(&[("plan", "emit::rust")]);
        let breaks = layer_breaks(&backward);
        assert!(
            breaks.iter().any(|b| b.contains("a later layer")),
            "{breaks:?}"
        );
        let unplaced = layer_breaks(&graph(&[("newphase", "ir")]));
        assert!(
            unplaced.iter().any(|b| b.contains("in no layer")),
            "{unplaced:?}"
        );
    }

    #[test]
    fn function_lengths_skip_declarations_and_tests() {
        let code = "trait T {\n    fn decl(&self);\n}\npub(crate) fn long() {\n    let x = 1;\n}\n#[cfg(test)]\nmod tests {\n    fn t() {\n    }\n}\n";
        let lengths = function_lengths(Path::new("f.rs"), &blank_literals(code));
        assert_eq!(lengths.len(), 1, "{lengths:?}");
        assert_eq!(
            (lengths[0].name.as_str(), lengths[0].line, lengths[0].lines),
            ("long", 4, 3)
        );
    }

    #[test]
    fn test_modules_are_no_modules_of_the_crate() {
        let code = "pub mod a;\nmod b;\n#[cfg(test)]\nmod tests;\npub(crate) mod c;\n";
        assert_eq!(
            declared_modules(&without_test_modules(code)),
            ["a", "b", "c"]
        );
    }
}
