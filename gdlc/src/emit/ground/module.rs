//! The generated module of the ground backend: the constant tables (roles, fluents,
//! moves, goals, percepts) and the three evaluation functions around the statements.

use super::*;

/// The parameters of `eval_state` and `eval_goals` (and of their chunks).
const STATE_PARAMS: &str = "s: &[u64; WORDS], d: &mut [u64; D_WORDS]";

impl<'a> Layout<'a> {
    /// The generated module: its sizes and types, the tables and functions the
    /// evaluation functions read, and the `GroundRules` implementation.
    pub(super) fn module(&self) -> String {
        let mut out = self.preamble();
        let mut moves_body = String::new();
        let tables = self.eval_moves(&mut moves_body);
        let mut functions = String::new();
        let moves_body = chunked(
            &moves_body,
            "moves",
            MOVES_PARAMS,
            MOVES_ARGS,
            &mut functions,
        );
        out.push_str(&tables);
        let mut programs = String::new();
        let mut state_body = self.clear_d(false);
        self.statements(&self.state_cone, &mut state_body);
        let state_body = chunked(&state_body, "state", STATE_PARAMS, "s, d", &mut functions);
        let mut goal_body = self.clear_d(true);
        if self.tabled.goals {
            let call = self.goal_program(&self.goal_cone, "GOAL_PROGRAM", &mut programs);
            goal_body.push_str(&call);
        } else {
            self.statements(&self.goal_cone, &mut goal_body);
        }
        let goal_body = chunked(&goal_body, "goals", STATE_PARAMS, "s, d", &mut functions);
        out.push_str(&functions);
        out.push_str(&programs);
        self.rules_impl(&state_body, &goal_body, &moves_body, &mut out);
        out
    }

    /// The module's first lines: the word counts, the reasoner and state types and
    /// the rules type.
    fn preamble(&self) -> String {
        let w = words(self.fluents.len());
        let dw = words(self.d_bits);
        let mw = words(self.m_bits);
        let mut out = String::new();
        let _ = writeln!(out, "use gdlc_runtime::ground as rt;");
        let _ = writeln!(
            out,
            "/// Words of the state (one bit per reachable fluent).\npub const WORDS: usize = {w};"
        );
        let _ = writeln!(
            out,
            "/// Words of the state atoms.\npub const D_WORDS: usize = {dw};"
        );
        let _ = writeln!(
            out,
            "/// Words of the move-dependent atoms.\npub const M_WORDS: usize = {mw};"
        );
        let _ = writeln!(
            out,
            "/// The reasoner.\npub type Reasoner = rt::Ground<Rules, WORDS, D_WORDS, M_WORDS>;"
        );
        let _ = writeln!(
            out,
            "/// A state.\npub type State = gdlc_runtime::compiled::Bits<WORDS>;"
        );
        let _ = writeln!(
            out,
            "/// A new reasoner.\npub fn new() -> Reasoner {{ rt::Ground::new() }}"
        );
        let _ = writeln!(
            out,
            "/// The ground rules.\n#[derive(Clone, Copy, Debug, Default)]\npub struct Rules;"
        );
        out
    }

    /// The `GroundRules` implementation: the layout's constants and the three
    /// evaluation functions around their bodies.
    fn rules_impl(&self, state_body: &str, goal_body: &str, moves_body: &str, out: &mut String) {
        let mut init = vec![0u64; words(self.fluents.len())];
        for &bit in &self.init {
            init[bit / 64] |= 1 << (bit % 64);
        }
        let roles: Vec<String> = self
            .ir
            .roles
            .iter()
            .map(|&r| self.ir.symbols.symbol(r).name.clone())
            .collect();
        let _ = writeln!(
            out,
            "#[allow(clippy::all, unused_parens, unused_mut, unused_variables)]\nimpl rt::GroundRules<WORDS, D_WORDS, M_WORDS> for Rules {{
const ROLES: &'static [&'static str] = &[{roles}];
const FLUENTS: &'static [&'static str] = &[{fluents}];
const MOVES: &'static [&'static str] = &[{moves}];
const ROLE_MOVES: &'static [u32] = &[{role_moves}];
const PERCEPTS: &'static [&'static str] = &[{percepts}];
const INIT: [u64; WORDS] = [{init}];
const LEGAL_WORDS: &'static [&'static [(u32, u64)]] = &[{legal_words}];
const TERMINAL_BIT: Option<u32> = {terminal};
const GOALS: &'static [&'static [(u32, Result<u8, &'static str>)]] = &[{goals}];
const SEES: &'static [&'static [(u32, u32)]] = &[{sees}];{remembered}
#[inline(never)]
fn eval_state(s: &[u64; WORDS], d: &mut [u64; D_WORDS]) {{
{state_body}}}
#[inline(never)]
fn eval_goals(s: &[u64; WORDS], d: &mut [u64; D_WORDS]) {{
{goal_body}}}
#[inline(never)]
fn eval_moves(s: &[u64; WORDS], d: &[u64; D_WORDS], joint: &[u32], m: &mut [u64; M_WORDS], n: &mut [u64; WORDS]) {{
{moves_body}}}
}}",
            roles = string_list(&roles),
            fluents = string_list(&self.fluents),
            moves = string_list(&self.moves),
            role_moves = self.role_moves.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            percepts = string_list(&self.percepts),
            init = init.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", "),
            legal_words = slice_list(&self.legal_words, |(w, mask)| format!("({w}, {mask:#x})")),
            terminal = self.terminal_bit.map_or("None".to_owned(), |b| format!("Some({b})")),
            goals = slice_list(&self.goals, |(bit, text)| match gdlc_runtime::kif::goal_value(text) {
                Some(value) => format!("({bit}, Ok({value}))"),
                None => format!("({bit}, Err({text:?}))"),
            }),
            sees = slice_list(&self.sees, |(bit, p)| format!("({bit}, {p})")),
            // Goals run as a program are long enough to remember by state.
            remembered = if self.tabled.goals {
                "\nconst GOALS_REMEMBERED: bool = true;"
            } else {
                ""
            },
        );
    }
}

/// Strings as the elements of an array literal: `"a", "b"`.
fn string_list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lists as the elements of an array literal of slices, each element written by
/// `element`: `&[(0, "x")], &[]`.
fn slice_list<T>(lists: &[Vec<T>], element: impl Fn(&T) -> String) -> String {
    lists
        .iter()
        .map(|list| {
            format!(
                "&[{}]",
                list.iter().map(&element).collect::<Vec<_>>().join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
