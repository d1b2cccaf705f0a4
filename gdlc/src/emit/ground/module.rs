//! The generated module of the ground backend: the constant tables (roles, fluents,
//! moves, goals, percepts) and the three evaluation functions around the statements.

use super::*;

impl<'a> Layout<'a> {
    pub(super) fn module(&self) -> String {
        let w = words(self.fluents.len());
        let dw = words(self.d_bits);
        let mw = words(self.m_bits);
        let strings = |items: &[String]| {
            items
                .iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut init = vec![0u64; w];
        for &bit in &self.init {
            init[bit / 64] |= 1 << (bit % 64);
        }
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
        let mut state_body = self.clear_d();
        self.statements(&self.state_cone, &mut state_body);
        let state_body = chunked(
            &state_body,
            "state",
            "s: &[u64; WORDS], d: &mut [u64; D_WORDS]",
            "s, d",
            &mut functions,
        );
        let mut goal_body = String::new();
        if self.tabled.goals {
            goal_body = self.goal_program(&self.goal_cone, "GOAL_PROGRAM", &mut programs);
        } else {
            self.statements(&self.goal_cone, &mut goal_body);
        }
        let goal_body = chunked(
            &goal_body,
            "goals",
            "s: &[u64; WORDS], d: &mut [u64; D_WORDS]",
            "s, d",
            &mut functions,
        );
        out.push_str(&functions);
        out.push_str(&programs);
        let goals: Vec<String> = self
            .goals
            .iter()
            .map(|g| {
                format!(
                    "&[{}]",
                    g.iter()
                        .map(|(bit, text)| format!("({bit}, {text:?})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
        let sees: Vec<String> = self
            .sees
            .iter()
            .map(|s| {
                format!(
                    "&[{}]",
                    s.iter()
                        .map(|(bit, p)| format!("({bit}, {p})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .collect();
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
const LEGAL_BITS: &'static [u32] = &[{legal_bits}];
const TERMINAL_BIT: Option<u32> = {terminal};
const GOALS: &'static [&'static [(u32, &'static str)]] = &[{goals}];
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
            roles = strings(&roles),
            fluents = strings(&self.fluents),
            moves = strings(&self.moves),
            role_moves = self.role_moves.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            percepts = strings(&self.percepts),
            init = init.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", "),
            legal_bits = self.legal_bits.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            terminal = self.terminal_bit.map_or("None".to_owned(), |b| format!("Some({b})")),
            goals = goals.join(", "),
            sees = sees.join(", "),
            // Goals run as a program are long enough to remember by state.
            remembered = if self.tabled.goals {
                "\nconst GOALS_REMEMBERED: bool = true;"
            } else {
                ""
            },
        );
        out
    }
}
