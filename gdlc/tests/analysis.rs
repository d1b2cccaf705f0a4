//! The analysis against the reference interpreter: on every valid corpus game (and the
//! team's games), every fluent, legal move and goal value the interpreter produces
//! along seeded random playouts fits the flattened columns of its relation, with every
//! column value inside that column's domain and inside the role's legal-move domain,
//! and decodes back to the same term. This is the empirical check that domains are
//! supersets and that flattening is exact and reversible.

mod common;

use std::path::Path;

use gdlc::analysis::{analyze, term_from_kif};
use gdlc::interp::Interpreter;
use gdlc::ir::{Ir, Keyword, Term};
use gdlc_runtime::Game;

/// Valid games whose domains the analysis cannot bound (with the relation named).
const UNBOUNDED: &[&str] = &[];

/// Checks that `args` fit relation `keyword` and its column domains; returns the tuple.
fn check_fits(ir: &Ir, keyword: Keyword, args: &[Term], what: &str) -> Vec<gdlc::ir::SymbolId> {
    let relation = ir
        .keyword(keyword)
        .unwrap_or_else(|| panic!("{what}: no {keyword} relation"));
    let tuple = ir
        .encode(relation, args)
        .unwrap_or_else(|| panic!("{what}: does not fit the shape of {keyword}"));
    for (value, column) in tuple.iter().zip(&ir.relation(relation).columns) {
        assert!(
            column.domain.contains(value),
            "{what}: {} at {} is outside the domain of {keyword}",
            ir.symbols.display(*value),
            ir.path_text(&column.path)
        );
    }
    assert_eq!(
        ir.decode(relation, &tuple).as_deref(),
        Some(args),
        "{what}: decoding differs"
    );
    tuple
}

fn check_game(path: &Path, steps: usize) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = common::read_source(path);
    let front = gdlc::front_end(&file);
    if !front.is_valid() {
        return;
    }
    let ir = match analyze(&front) {
        Ok(ir) => ir,
        Err(diagnostic) => {
            assert!(
                UNBOUNDED.contains(&name.as_str()),
                "{name}: {}",
                diagnostic.render(&file)
            );
            return;
        }
    };
    assert!(
        !UNBOUNDED.contains(&name.as_str()),
        "{name} is now analysed: update UNBOUNDED"
    );
    let mut game = Interpreter::new(&front).unwrap_or_else(|d| panic!("{d}"));
    let term = |text: &str, what: &str| {
        term_from_kif(&ir, text)
            .unwrap_or_else(|| panic!("{name}: {what} `{text}` has a symbol the IR lacks"))
    };
    let roles: Vec<Term> = (0..game.num_roles())
        .map(|r| term(game.role_name(r), "role"))
        .collect();
    assert_eq!(
        roles.iter().map(|t| t.symbol).collect::<Vec<_>>(),
        ir.roles,
        "{name}: roles"
    );
    for seed in 0..2u64 {
        let mut state = game.initial_state();
        let mut stepper = gdlc_runtime::playout::Stepper::new(&game, seed);
        for step in 0..=steps {
            let what = format!("{name} seed {seed} step {step}");
            for fluent in game.state_to_kif(&state) {
                check_fits(
                    &ir,
                    Keyword::True,
                    &[term(&fluent, "fluent")],
                    &format!("{what} fluent {fluent}"),
                );
                if step > 0 {
                    check_fits(
                        &ir,
                        Keyword::Next,
                        &[term(&fluent, "fluent")],
                        &format!("{what} next {fluent}"),
                    );
                }
            }
            if game.is_terminal(&state) {
                for (r, role) in roles.iter().enumerate() {
                    if let Ok(value) = game.goal(&state, r) {
                        let value = term(&value.to_string(), "goal");
                        check_fits(
                            &ir,
                            Keyword::Goal,
                            &[role.clone(), value],
                            &format!("{what} goal"),
                        );
                    }
                }
                break;
            }
            let mut moves = Vec::new();
            for (r, role) in roles.iter().enumerate() {
                game.legal_moves(&state, r, &mut moves);
                for &mv in &moves {
                    let text = game.move_to_kif(mv);
                    let args = [role.clone(), term(&text, "move")];
                    let tuple =
                        check_fits(&ir, Keyword::Legal, &args, &format!("{what} legal {text}"));
                    let legal =
                        ir.relation(ir.keyword(Keyword::Legal).unwrap_or_else(|| unreachable!()));
                    for ((value, column), (path, domain)) in tuple
                        .iter()
                        .zip(&legal.columns)
                        .filter(|(_, c)| c.path[0] == 1)
                        .zip(&ir.move_domains[r])
                    {
                        assert_eq!(&column.path, path);
                        assert!(
                            domain.contains(value),
                            "{what}: move {text} outside the move domain of its role"
                        );
                    }
                }
            }
            match stepper.step(&mut game, &state) {
                Ok(next) => state = next,
                Err(_) => break,
            }
        }
    }
}

#[test]
fn corpus_domains_cover_what_the_interpreter_produces() {
    let Some(dir) = common::games_dir() else {
        return;
    };
    for path in common::kif_files(&dir)
        .into_iter()
        .chain(common::kif_files(&dir.join("test")))
    {
        check_game(&path, 30);
    }
}

#[test]
fn team_games_domains_cover_what_the_interpreter_produces() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    for path in common::kif_files(&dir) {
        check_game(&path, 200);
    }
}
