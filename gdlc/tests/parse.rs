//! The KIF parser (`gdlc::syntax::parse`), one test per construct: the AST it builds
//! (through its `Display` and its structure), the repairs it makes with their warnings,
//! and the located errors it reports. Also: every corpus game parses without error.

mod common;

use gdlc::diagnostic::Code;
use gdlc::syntax::ast::{Literal, Term};
use gdlc::syntax::{self, Parsed};
use gdlc::{Diagnostic, Severity, SourceFile};

fn parse(text: &str) -> Parsed {
    syntax::parse(&SourceFile::new("test.kif", text))
}

/// Each sentence as displayed.
fn sentences(parsed: &Parsed) -> Vec<String> {
    parsed
        .description
        .rules
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// Parses text that must have no error; returns the sentences and the warning codes.
fn parse_ok(text: &str) -> (Parsed, Vec<String>, Vec<Code>) {
    let parsed = parse(text);
    let errors: Vec<String> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(ToString::to_string)
        .collect();
    assert!(
        errors.is_empty(),
        "unexpected errors for {text:?}: {errors:?}"
    );
    let warnings = parsed.diagnostics.iter().map(|d| d.code).collect();
    let shown = sentences(&parsed);
    (parsed, shown, warnings)
}

/// Parses text that must give exactly one error; returns it with its 1-based
/// line and column.
fn parse_error(text: &str) -> (Diagnostic, (usize, usize)) {
    let parsed = parse(text);
    assert!(parsed.has_errors(), "no error for {text:?}");
    let errors: Vec<&Diagnostic> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(
        errors.len(),
        1,
        "expected one error for {text:?}, got {errors:?}"
    );
    let error = errors[0].clone();
    let span = error
        .span
        .unwrap_or_else(|| panic!("error without a location: {error}"));
    let position = SourceFile::new("test.kif", text).line_column(span.start);
    (error, position)
}

fn the_text<'a>(text: &'a str, error: &Diagnostic) -> &'a str {
    let span = error.span.expect("located");
    &text[span.start..span.end]
}

#[test]
fn symbols_and_variables_are_case_insensitive() {
    let (parsed, shown, warnings) = parse_ok("(ROLE White)\n(<= (Legal ?P NoOp) (ROLE ?p))");
    assert_eq!(shown, ["(role white)", "(<= (legal ?p noop) (role ?p))"]);
    assert!(warnings.is_empty(), "{warnings:?}");
    let role = &parsed.description.rules[0].head;
    assert_eq!(role.name.text, "role");
    assert!(role.is("role", 1));
    match &role.args[0] {
        Term::Const(name) => assert_eq!(name.text, "white"),
        other => panic!("expected a constant, got {other:?}"),
    }
    // The two spellings of the variable are one variable.
    let rule = &parsed.description.rules[1];
    let mut names = Vec::new();
    rule.head.for_each_var(&mut |v| names.push(v.text.clone()));
    match &rule.body[0] {
        Literal::Atom(atom) => atom.for_each_var(&mut |v| names.push(v.text.clone())),
        other => panic!("expected an atom, got {other:?}"),
    }
    assert_eq!(names, ["p", "p"]);
}

#[test]
fn comments_are_skipped_including_at_end_of_file_without_newline() {
    let text = "; a comment with ( and ) in it\n(role a) ; after a sentence (\n(role b)\n; last line, no newline )";
    let (_, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(role a)", "(role b)"]);
    assert!(warnings.is_empty());

    // A comment right after the last sentence, then end of file.
    let (_, shown, _) = parse_ok("(role a);end");
    assert_eq!(shown, ["(role a)"]);

    // A file that is only a comment.
    let (parsed, shown, _) = parse_ok(";; nothing here");
    assert!(shown.is_empty());
    assert!(parsed.diagnostics.is_empty());

    // A `;` inside a list starts a comment that runs to the end of the line.
    let (_, shown, _) = parse_ok("(<= (p ?x) ; head\n    (q ?x)) ; body\n");
    assert_eq!(shown, ["(<= (p ?x) (q ?x))"]);
}

#[test]
fn crlf_line_endings_and_tabs_are_whitespace() {
    let text = "(role\ta)\r\n(<=\t(p ?x)\r\n\t\t(q ?x))\r\n\t(q\t1)\r\n";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(role a)", "(<= (p ?x) (q ?x))", "(q 1)"]);
    assert!(warnings.is_empty());
    // Spans still point at the right bytes and lines.
    let fact = &parsed.description.rules[2];
    assert_eq!(&text[fact.span.start..fact.span.end], "(q\t1)");
    let file = SourceFile::new("test.kif", text);
    assert_eq!(file.line_column(fact.span.start), (4, 2));

    // An error after CRLF lines is reported on the right line.
    let (error, position) = parse_error("(role a)\r\n(role b)\r\n  (p))");
    assert_eq!(error.code, Code::Syntax);
    assert_eq!(position, (3, 6));
}

#[test]
fn lone_carriage_returns_end_lines_and_comments() {
    // Classic Mac OS line endings (an old game of the Dresden server's libraries):
    // every comment ended only at a line feed, so the first one ran to the end of the
    // file and the game had no sentences at all.
    let text = ";;; Maze\r(role robot)\r; the start\r(init (cell a)) ; a comment\r(<= (p ?x)\r    (q ?x))\r";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(
        shown,
        ["(role robot)", "(init (cell a))", "(<= (p ?x) (q ?x))"]
    );
    assert!(warnings.is_empty());
    let file = SourceFile::new("test.kif", text);
    let rule = &parsed.description.rules[2];
    assert_eq!(file.line_column(rule.span.start), (5, 1));
    // A CRLF file is unchanged, and an error after lone carriage returns is reported
    // on its line.
    assert_eq!(SourceFile::new("crlf.kif", "(a)\r\n(b)").text, "(a)\r\n(b)");
    let (error, position) = parse_error("(role a)\r(role b) ; (\r  (p))");
    assert_eq!(error.code, Code::Syntax);
    assert_eq!(position, (3, 6));
}

#[test]
fn names_with_dashes_dots_pluses_and_leading_digits() {
    let (parsed, shown, warnings) = parse_ok("(<= (p 1st-move a.b x+) (q ?x-1 ?y.z 2nd+))");
    assert_eq!(shown, ["(<= (p 1st-move a.b x+) (q ?x-1 ?y.z 2nd+))"]);
    assert!(warnings.is_empty());
    let head = &parsed.description.rules[0].head;
    let args: Vec<String> = head.args.iter().map(ToString::to_string).collect();
    assert_eq!(args, ["1st-move", "a.b", "x+"]);
    assert!(head.args.iter().all(|t| matches!(t, Term::Const(_))));
    // Other punctuation is part of a symbol too.
    let (_, shown, _) = parse_ok("(f <- a_b c/d e=f *g* #h)");
    assert_eq!(shown, ["(f <- a_b c/d e=f *g* #h)"]);
}

#[test]
fn numbers_are_symbols_and_leading_zeros_matter() {
    let (parsed, shown, _) = parse_ok("(goal r 0100)\n(goal r 100)\n(goal r -1)");
    assert_eq!(shown, ["(goal r 0100)", "(goal r 100)", "(goal r -1)"]);
    let value = |i: usize| match &parsed.description.rules[i].head.args[1] {
        Term::Const(name) => name.text.clone(),
        other => panic!("expected a constant, got {other:?}"),
    };
    assert_eq!(value(0), "0100");
    assert_eq!(value(1), "100");
    assert_ne!(value(0), value(1));
}

#[test]
fn parenthesised_constant_as_a_fact() {
    let text = "(role a)\n(open2)";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(role a)", "open2"]);
    assert_eq!(warnings, [Code::ParenthesisedConstant]);
    let head = &parsed.description.rules[1].head;
    assert!(head.is("open2", 0), "{head:?}");
    let warning = &parsed.diagnostics[0];
    assert_eq!(warning.severity, Severity::Warning);
    assert_eq!(the_text(text, warning), "(open2)");
}

#[test]
fn parenthesised_constant_in_a_body() {
    let text = "(<= (legal r go) (Ready) (true (cell 1)))";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(<= (legal r go) ready (true (cell 1)))"]);
    assert_eq!(warnings, [Code::ParenthesisedConstant]);
    match &parsed.description.rules[0].body[0] {
        Literal::Atom(atom) => assert!(atom.is("ready", 0), "{atom:?}"),
        other => panic!("expected an atom, got {other:?}"),
    }
    assert_eq!(the_text(text, &parsed.diagnostics[0]), "(Ready)");

    // Also as a rule head, and inside `not`.
    let (_, shown, warnings) = parse_ok("(<= (terminal) (not (over)))");
    assert_eq!(shown, ["(<= terminal (not over))"]);
    assert_eq!(
        warnings,
        [Code::ParenthesisedConstant, Code::ParenthesisedConstant]
    );
}

#[test]
fn parenthesised_constant_as_a_term() {
    let text = "(init (control (gameOver)))";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(init (control gameover))"]);
    assert_eq!(warnings, [Code::ParenthesisedConstant]);
    match &parsed.description.rules[0].head.args[0] {
        Term::Func { name, args, .. } => {
            assert_eq!(name.text, "control");
            match args.as_slice() {
                [Term::Const(c)] => assert_eq!(c.text, "gameover"),
                other => panic!("expected one constant, got {other:?}"),
            }
        }
        other => panic!("expected a function term, got {other:?}"),
    }
    assert_eq!(the_text(text, &parsed.diagnostics[0]), "(gameOver)");
}

#[test]
fn nested_or() {
    let (parsed, shown, warnings) = parse_ok("(<= p (or a (or b (or c d)) e))");
    assert_eq!(shown, ["(<= p (or a (or b (or c d)) e))"]);
    assert!(warnings.is_empty());
    match &parsed.description.rules[0].body[..] {
        [Literal::Or(items, _)] => {
            assert_eq!(items.len(), 3);
            assert!(matches!(&items[1], Literal::Or(inner, _) if inner.len() == 2));
        }
        other => panic!("expected one `or`, got {other:?}"),
    }
}

#[test]
fn not_around_or() {
    let (parsed, shown, warnings) = parse_ok("(<= p q (not (or a (true b))))");
    assert_eq!(shown, ["(<= p q (not (or a (true b))))"]);
    assert!(warnings.is_empty());
    match &parsed.description.rules[0].body[1] {
        Literal::Not(inner, _) => {
            assert!(matches!(**inner, Literal::Or(ref items, _) if items.len() == 2))
        }
        other => panic!("expected `not`, got {other:?}"),
    }
}

#[test]
fn not_around_distinct_is_repaired_with_a_warning() {
    let text = "(<= (same ?x ?y) (q ?x) (q ?y) (not (distinct ?x ?y)))";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(
        shown,
        ["(<= (same ?x ?y) (q ?x) (q ?y) (not (distinct ?x ?y)))"]
    );
    assert_eq!(warnings, [Code::NegatedDistinct]);
    match &parsed.description.rules[0].body[2] {
        Literal::Not(inner, _) => assert!(matches!(**inner, Literal::Distinct(..))),
        other => panic!("expected `not`, got {other:?}"),
    }
    assert_eq!(
        the_text(text, &parsed.diagnostics[0]),
        "(not (distinct ?x ?y))"
    );
}

#[test]
fn distinct_is_a_literal_with_two_terms() {
    let (parsed, shown, warnings) = parse_ok("(<= (p ?x) (q ?x) (distinct ?x (f a)))");
    assert_eq!(shown, ["(<= (p ?x) (q ?x) (distinct ?x (f a)))"]);
    assert!(warnings.is_empty());
    match &parsed.description.rules[0].body[1] {
        Literal::Distinct(Term::Var(x), Term::Func { .. }, _) => assert_eq!(x.text, "x"),
        other => panic!("expected `distinct`, got {other:?}"),
    }
}

#[test]
fn and_inside_or_is_accepted_with_a_warning() {
    let text = "(<= p (or (and a b) c))";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(<= p (or (and a b) c))"]);
    assert_eq!(warnings, [Code::AndConnective]);
    match &parsed.description.rules[0].body[..] {
        [Literal::Or(items, _)] => {
            assert!(matches!(&items[0], Literal::And(inner, _) if inner.len() == 2))
        }
        other => panic!("expected one `or`, got {other:?}"),
    }
    assert_eq!(the_text(text, &parsed.diagnostics[0]), "(and a b)");
}

#[test]
fn empty_body_rule_is_a_fact_with_a_warning() {
    let text = "(role ship)\n(<= (legal ship thrust))";
    let (parsed, shown, warnings) = parse_ok(text);
    assert_eq!(shown, ["(role ship)", "(legal ship thrust)"]);
    assert_eq!(warnings, [Code::EmptyBody]);
    let rule = &parsed.description.rules[1];
    assert!(rule.body.is_empty());
    assert!(rule.head.is("legal", 2));
    let warning = &parsed.diagnostics[0];
    assert_eq!(warning.severity, Severity::Warning);
    assert_eq!(the_text(text, warning), "(<= (legal ship thrust))");

    // A proposition head too.
    let (_, shown, warnings) = parse_ok("(<= terminal)");
    assert_eq!(shown, ["terminal"]);
    assert_eq!(warnings, [Code::EmptyBody]);
}

#[test]
fn error_unclosed_parenthesis() {
    let text = "(role a)\n(init (cell 1 1 b)\n(role b)";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Syntax);
    assert!(error.message.contains("unclosed"), "{error}");
    assert_eq!(position, (2, 1));
    assert_eq!(the_text(text, &error), "(");
}

#[test]
fn error_unmatched_close_parenthesis() {
    let text = "(role a)\n(init (cell 1 1 b)))\n";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Syntax);
    assert!(error.message.contains("unmatched"), "{error}");
    assert_eq!(position, (2, 20));
    assert_eq!(the_text(text, &error), ")");
}

#[test]
fn parenthesis_inside_a_comment_is_not_counted() {
    let (error, position) = parse_error("(role a) ; (\n(role b))");
    assert!(error.message.contains("unmatched"), "{error}");
    assert_eq!(position, (2, 9));
}

#[test]
fn error_empty_list_as_a_sentence() {
    let text = "(role a)\n  ()\n(role b)";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Structure);
    assert_eq!(position, (2, 3));
    assert_eq!(the_text(text, &error), "()");
    // The sentences around it are still read.
    assert_eq!(sentences(&parse(text)), ["(role a)", "(role b)"]);
}

#[test]
fn error_empty_list_in_a_body_and_as_a_term() {
    let (error, position) = parse_error("(<= p\n (q ()))");
    assert_eq!(error.code, Code::Structure);
    assert_eq!(position, (2, 5));
    let (error, _) = parse_error("(<= p ())");
    assert_eq!(error.code, Code::Structure);
}

#[test]
fn error_variable_as_a_sentence() {
    let text = "(role a)\n?x\n";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Structure);
    assert_eq!(position, (2, 1));
    assert_eq!(the_text(text, &error), "?x");

    // In a body, and as a relation name.
    let (error, _) = parse_error("(<= p ?x)");
    assert_eq!(error.code, Code::Structure);
    let text = "(<= p (?r a))";
    let (error, _) = parse_error(text);
    assert_eq!(error.code, Code::Structure);
    assert_eq!(the_text(text, &error), "?r");
}

#[test]
fn error_not_with_two_literals() {
    let text = "(<= p q\n    (not a b))";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Structure);
    assert!(
        error.message.contains("`not` takes one literal, found 2"),
        "{error}"
    );
    assert_eq!(position, (2, 5));
    assert_eq!(the_text(text, &error), "(not a b)");
    let (error, _) = parse_error("(<= p q (not))");
    assert!(error.message.contains("found 0"), "{error}");
}

#[test]
fn error_distinct_with_one_term() {
    let text = "(<= (p ?x) (q ?x) (distinct ?x))";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Structure);
    assert!(
        error
            .message
            .contains("`distinct` takes two terms, found 1"),
        "{error}"
    );
    assert_eq!(position, (1, 19));
    assert_eq!(the_text(text, &error), "(distinct ?x)");
    let (error, _) = parse_error("(<= (p ?x) (q ?x) (distinct ?x a b))");
    assert!(error.message.contains("found 3"), "{error}");
}

#[test]
fn error_string() {
    let text = "(role a)\n(name \"tic tac toe\")";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Syntax);
    assert!(error.message.contains("string"), "{error}");
    assert_eq!(position, (2, 7));
}

#[test]
fn error_bare_question_mark() {
    let text = "(<= (p ?x)\n  (q ? x))";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Syntax);
    assert!(error.message.contains("variable needs a name"), "{error}");
    assert_eq!(position, (2, 6));
    assert_eq!(the_text(text, &error), "?");
    // At the end of the file, too.
    let (error, position) = parse_error("(role a) ?");
    assert_eq!(error.code, Code::Syntax);
    assert_eq!(position, (1, 10));
}

#[test]
fn error_rule_without_head() {
    let (error, _) = parse_error("(<=)");
    assert_eq!(error.code, Code::Structure);
}

#[test]
fn error_list_as_relation_name() {
    let text = "((f a) b)";
    let (error, position) = parse_error(text);
    assert_eq!(error.code, Code::Structure);
    assert_eq!(position, (1, 2));
    assert_eq!(the_text(text, &error), "(f a)");
}

#[test]
fn several_structure_errors_are_all_reported_in_file_order() {
    let parsed = parse("()\n(role a)\n?x\n(<= p (not a b))");
    let lines: Vec<usize> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let span = d.span.expect("located");
            SourceFile::new("t", "()\n(role a)\n?x\n(<= p (not a b))")
                .line_column(span.start)
                .0
        })
        .collect();
    assert_eq!(lines, [1, 3, 4]);
    assert_eq!(sentences(&parsed), ["(role a)"]);
}

#[test]
fn split_terms_reads_moves_with_spans() {
    let text = " (mark 1 1)  noop\t(f (g A))";
    let terms = syntax::split_terms(text).expect("well formed");
    let texts: Vec<&str> = terms.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts, ["(mark 1 1)", "noop", "(f (g A))"]);
    for (term, span) in &terms {
        assert_eq!(&text[span.start..span.end], term);
    }
    let error = syntax::split_terms("(mark ?x 1)").expect_err("variables are rejected");
    assert_eq!(error.code, Code::Move);
    assert!(syntax::split_terms("(mark 1").is_err());
    assert!(syntax::split_terms("a)").is_err());
}

#[test]
fn all_corpus_games_parse_without_errors() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    let mut failures = Vec::new();
    let mut count = 0;
    for sub in [dir.clone(), dir.join("test")] {
        for path in common::kif_files(&sub) {
            let file = common::read_source(&path);
            let parsed = syntax::parse(&file);
            if sub == dir {
                count += 1;
            }
            for diagnostic in parsed.diagnostics.iter().filter(|d| d.is_error()) {
                failures.push(diagnostic.render(&file));
            }
            assert!(
                !parsed.description.rules.is_empty(),
                "{}: no sentences read",
                path.display()
            );
        }
    }
    assert!(count >= 145, "expected the 145 corpus games, found {count}");
    assert!(
        failures.is_empty(),
        "parse errors:\n{}",
        failures.join("\n")
    );
}
