//! Measured planning: join orders from the sizes relations have on sample states of
//! the game, and whether a large layer is cheaper on demand or materialised decided by
//! running both on those states, not by its size alone.
//!
//! The threshold plan ([`super::plan`]) puts a large state-dependent layer on demand
//! when every query of it binds a column. That is right when the calls are few
//! (amazons' lines, asked from the few squares a queen stands on: materialised, they
//! cost 70× more) and wrong when they are many (othello-comp2007's `playwillflip`,
//! asked fully bound for every open square and every opponent piece, a memo table
//! each, where the relation materialised for the state is a few hundred tuples: 5×
//! slower on demand). The tuning ([`tune`]):
//!
//! 1. **Samples states**: one seeded random playout with the plan executor of the
//!    threshold plan (at most [`SAMPLE_STEPS`] steps, [`SAMPLE_WORK`] nodes and
//!    [`SAMPLE_VALUES`] values stored), of
//!    which [`SAMPLES`] states spread evenly are kept, each with the joint move played
//!    from it (the last one terminal when the playout ended).
//! 2. **Measures a plan** by the work of its executor (filter-tree nodes visited, and
//!    per new tuple of a materialised relation its store and the hash indexes the join
//!    backend updates where it keeps rows: a count that does not drift with the
//!    machine's load) on one playout step from every sample: terminal, every role's
//!    legal moves and the next state after the sampled joint move; the goals in a
//!    terminal state.
//! 3. **Sizes the relations**: the mean number of tuples of every materialised
//!    relation on the samples, and of distinct values per column
//!    ([`PlanOptions::sampled`]), replace the product of its column domains in the
//!    planner's join-order estimates, and the mean number of fluents per function
//!    symbol of the state over the sampling playout ([`PlanOptions::state_counts`])
//!    replaces the initial state's density (team chess's pawns are scanned before
//!    the 56 squares with a neighbour in their direction); the plan so ordered is a
//!    second start for steps 4 and 5 when it costs no more than the threshold plan (a
//!    relation that holds one square in every state goes first rather than after a
//!    static table of 420 rows). The search runs from both starts and the cheaper end
//!    is kept, the sized one on a tie: from one start alone, a layer that pays from
//!    the other may never pay (othello-comp2007's `closedpiecestring`).
//! 4. **Decides by rounds**: in each, every demand layer is planned materialised
//!    (with the decisions kept so far; layers only it called with their columns bound
//!    follow it), and the cheapest of them is kept when it costs at most [`GAIN`] of
//!    the best plan so far; rounds repeat (up to [`MATERIALISE_ROUNDS`]) while one
//!    is kept. Keeping the best of a round, not the first layer that pays, keeps the
//!    layers' numbering (their relations' names, the text's order) out of the
//!    outcome: a renamed othello-comp2007 kept its first-numbered layer at 0.80 of
//!    the nodes and then neither of the two that pay only together (430k nodes
//!    against 128k). A trial stops as soon as it passes its bound (within a round,
//!    the best trial so far), and no trial starts once the trials could pass
//!    [`TRIALS_WORK`] nodes in all.
//! 5. **Tries materialised layers on demand**, from the first layer to the last: a
//!    materialised state-dependent layer is planned on demand
//!    ([`PlanOptions::on_demand`]; only when every query of it binds a column) and
//!    kept so when that costs at most [`DEMAND_GAIN`] of the best plan so far. Its
//!    queries may ask for a few of its tuples (pacman2p's steps, asked at the pieces'
//!    squares, not the whole board's), and each tuple can cost a whole demand
//!    evaluation (a legal move that asks for one tuple of a chain of relations whose
//!    every tuple asks for two of the next).
//!
//! Everything is deterministic (a fixed seed, node counts), so the same game gives
//! the same plan. The trials are recorded in [`Plan::tuning`] and printed by
//! `gdlc explain --stage plan`.

use gdlc_runtime::Game;
use gdlc_runtime::playout::Stepper;

use super::{PlanOptions, SampledSize, Statics, plan_seeded};
use crate::diagnostic::Diagnostic;
use crate::exec::Executor;
use crate::ir::{Ir, Phase, SymbolId};
use crate::plan::{LayerEvaluation, Plan, Trial, Tuning};

/// The most rounds of trials materialising demand layers (see [`tune`]).
const MATERIALISE_ROUNDS: usize = 8;

/// The most steps of the sampling playout.
pub const SAMPLE_STEPS: usize = 300;

/// The most executor nodes the sampling playout may visit.
pub const SAMPLE_WORK: usize = 50_000_000;

/// The most values (of tuples and memo keys, four bytes each) the sampling playout and
/// the size measurement may store: a plan that fills memory with wide tuples is cut
/// short like one that takes too long.
pub const SAMPLE_VALUES: usize = 50_000_000;

/// The most executor nodes all trials together may visit (bounding compile time: the
/// trials left when it runs out are not made).
pub const TRIALS_WORK: usize = 200_000_000;

/// The sample states kept.
pub const SAMPLES: usize = 24;

/// A layer is materialised when that costs at most this fraction of the best plan.
/// Below 1 because the executor's work is a proxy for the generated code's
/// instructions (it counts neither hash lookups nor bit scans): a layer moves only on
/// a clear gain.
pub const GAIN: f64 = 0.8;

/// A layer tried on demand is kept so when that costs at most this fraction of the best
/// plan: lower than [`GAIN`], because a call's memo table costs the generated code a
/// hash lookup and often an allocation that the executor's node count does not see
/// (atarigo_7x7's liberties at 0.75 of the nodes ran 32 % slower on demand).
pub const DEMAND_GAIN: f64 = 0.6;

/// The seed of the sampling playout.
const SEED: u64 = 0x5eed;

/// One sample: a state (fluents as KIF text) and the joint move played from it (KIF
/// text per role; empty in a terminal state).
#[derive(Clone, Debug)]
struct Sample {
    state: Vec<String>,
    joint: Vec<String>,
}

/// The threshold plan of `ir`, tuned ([`tune`]).
pub fn tuned(ir: &Ir) -> Result<Plan, Diagnostic> {
    let (threshold, statics) = plan_seeded(ir, &PlanOptions::default(), None)?;
    Ok(tune(ir, threshold, &statics))
}

/// Measured planning from `threshold`, the threshold plan of `ir`, whose static
/// results `statics` every trial reuses (see the module documentation). Without sample
/// states (a game whose sampling playout fails at once), it is returned as is.
pub fn tune(ir: &Ir, threshold: Plan, statics: &Statics) -> Plan {
    let (samples, state_counts) = sample(ir, &threshold);
    if samples.is_empty() {
        return threshold;
    }
    let Some(threshold_work) = cost(ir, &threshold, &samples, usize::MAX) else {
        return threshold;
    };
    // Join orders from the relations' sizes on the samples, a second start when no
    // dearer than the threshold plan.
    let sampled = PlanOptions {
        sampled: sizes(ir, &threshold, &samples),
        state_counts,
        ..PlanOptions::default()
    };
    let sized = plan_seeded(ir, &sampled, Some(statics))
        .ok()
        .and_then(|(plan, _)| Some((cost(ir, &plan, &samples, threshold_work)?, plan)));
    let sized_work = sized.as_ref().map(|(work, _)| *work);
    // The greedy search from each start; the cheaper end is kept (the sized start on
    // a tie). One start can trap the search: othello's sized orders make
    // materialising `closedpiecestring` cost more than the rounds allow, where from
    // the threshold plan it pays 3×.
    let mut best =
        Search::start(threshold, threshold_work, PlanOptions::default()).run(ir, statics, &samples);
    let mut from_sized = false;
    if let Some((work, plan)) = sized {
        let other = Search::start(plan, work, sampled).run(ir, statics, &samples);
        if other.best_work <= best.best_work {
            best = other;
            from_sized = true;
        }
    }
    let mut plan = best.best;
    plan.tuning = Some(Tuning {
        samples: samples.len(),
        threshold_work,
        sized_work,
        from_sized,
        trials: best.trials,
        best_work: best.best_work,
    });
    plan
}

/// The greedy search of measured planning: the best plan so far, its work and options,
/// the work the trials may have spent, and the trials made.
struct Search {
    best: Plan,
    best_work: usize,
    options: PlanOptions,
    spent: usize,
    trials: Vec<Trial>,
}

impl Search {
    /// A search from plan `best`, of work `best_work`, planned with `options`.
    fn start(best: Plan, best_work: usize, options: PlanOptions) -> Self {
        Search {
            best,
            best_work,
            options,
            spent: best_work,
            trials: Vec::new(),
        }
    }

    /// The rounds materialising demand layers, then the trials of materialised layers
    /// on demand (see the module docs); returns the search at its end.
    fn run(mut self, ir: &Ir, statics: &Statics, samples: &[Sample]) -> Self {
        // Rounds: every demand layer is tried materialised (from the last back), and
        // the one that costs least, within GAIN of the best plan, is kept; rounds
        // repeat while one is (a layer can pay only once another is materialised).
        // Keeping the best of a round rather than the first that pays makes the
        // outcome independent of the layers' numbering (their relations' names and
        // the text's order).
        for _ in 0..MATERIALISE_ROUNDS {
            let demand_layers: Vec<usize> = (0..ir.layers.len())
                .rev()
                .filter(|&l| {
                    self.best.layers[l].evaluation == LayerEvaluation::Demand
                        && ir.layers[l].phase != Phase::Static
                })
                .collect();
            let Some(kept) = self.round(ir, statics, samples, &demand_layers) else {
                break;
            };
            if !kept {
                break;
            }
        }
        // Then, from the first layer to the last, a materialised layer is tried on
        // demand: its queries may ask for a few of its tuples (a step rule asked at
        // the pieces' squares only), and each tuple can cost a whole demand
        // evaluation.
        for l in 0..ir.layers.len() {
            if demand_candidate(ir, &self.best, l) && !self.try_on_demand(ir, statics, samples, l) {
                break;
            }
        }
        self
    }

    /// One round of trials materialising each of `layers`: the cheapest within
    /// [`GAIN`] of the best plan (later trials need only beat it; ties go to the
    /// first tried) is kept. Whether a plan was kept; `None` when the trials' budget
    /// ([`TRIALS_WORK`]) ran out.
    fn round(
        &mut self,
        ir: &Ir,
        statics: &Statics,
        samples: &[Sample],
        layers: &[usize],
    ) -> Option<bool> {
        let mut chosen: Option<Measured> = None;
        let mut exhausted = false;
        for &l in layers {
            let limit = match &chosen {
                Some(measured) => measured.work.saturating_sub(1),
                None => (self.best_work as f64 * GAIN) as usize,
            };
            match self.trial(ir, statics, samples, l, false, limit) {
                Err(Spent) => {
                    exhausted = true;
                    break;
                }
                Ok(Some(measured)) => chosen = Some(measured),
                Ok(None) => {}
            }
        }
        match chosen {
            Some(measured) => {
                self.keep(measured);
                Some(true)
            }
            None if exhausted => None,
            None => Some(false),
        }
    }

    /// Tries layer `l` on demand and keeps that plan when it costs at most
    /// [`DEMAND_GAIN`] of the best. `false` when the trials' budget ([`TRIALS_WORK`])
    /// is spent.
    fn try_on_demand(&mut self, ir: &Ir, statics: &Statics, samples: &[Sample], l: usize) -> bool {
        let limit = (self.best_work as f64 * DEMAND_GAIN) as usize;
        match self.trial(ir, statics, samples, l, true, limit) {
            Err(Spent) => false,
            Ok(measured) => {
                if let Some(measured) = measured {
                    self.keep(measured);
                }
                true
            }
        }
    }

    /// Plans layer `l` on demand (`on_demand`) or materialised and measures that plan
    /// within `limit`, recording the trial: the plan when it stayed within. A trial
    /// whose plan leaves the layer as it was is not made (`Ok(None)`, unrecorded).
    fn trial(
        &mut self,
        ir: &Ir,
        statics: &Statics,
        samples: &[Sample],
        l: usize,
        on_demand: bool,
        limit: usize,
    ) -> Result<Option<Measured>, Spent> {
        if self.spent + limit > TRIALS_WORK {
            return Err(Spent);
        }
        let mut options = self.options.clone();
        if on_demand {
            options.on_demand.insert(l);
        } else {
            options.materialise.insert(l);
        }
        let Some((plan, _)) = plan_seeded(ir, &options, Some(statics))
            .ok()
            .filter(|(plan, _)| {
                (plan.layers[l].evaluation == LayerEvaluation::Demand) == on_demand
            })
        else {
            return Ok(None);
        };
        self.spent += limit;
        let work = cost(ir, &plan, samples, limit);
        self.trials.push(Trial {
            layer: l,
            on_demand,
            before: self.best_work,
            limit,
            work,
            kept: false,
        });
        Ok(work.map(|work| Measured {
            trial: self.trials.len() - 1,
            work,
            plan,
            options,
        }))
    }

    /// Makes a measured trial's plan the best.
    fn keep(&mut self, measured: Measured) {
        self.trials[measured.trial].kept = true;
        self.best = measured.plan;
        self.best_work = measured.work;
        self.options = measured.options;
    }
}

/// The trials' budget ([`TRIALS_WORK`]) is spent.
struct Spent;

/// A trial that stayed within its limit: its index, work, plan and options.
struct Measured {
    trial: usize,
    work: usize,
    plan: Plan,
    options: PlanOptions,
}

/// Whether layer `l` can be tried on demand: materialised once per state (not static,
/// not an input) in `plan`, of relations with columns and without keywords.
fn demand_candidate(ir: &Ir, plan: &Plan, l: usize) -> bool {
    let layer = &ir.layers[l];
    matches!(
        plan.layers[l].evaluation,
        LayerEvaluation::Once | LayerEvaluation::Fixpoint
    ) && layer.phase != Phase::Static
        && layer.relations.iter().all(|&r| {
            let relation = ir.relation(r);
            relation.keyword.is_none() && !relation.columns.is_empty()
        })
}

/// States of one seeded random playout of the threshold plan (its moves chosen in the
/// structural order, so the same in every spelling), spread evenly, and the
/// mean number of fluents per function symbol of `true`'s argument over every state of
/// that playout (sorted by symbol).
fn sample(ir: &Ir, plan: &Plan) -> (Vec<Sample>, Vec<(SymbolId, f64)>) {
    let mut game = Executor::new(ir, plan);
    game.set_work_limit(SAMPLE_WORK);
    game.set_value_limit(SAMPLE_VALUES);
    game.order_moves_by_structure();
    let mut stepper = Stepper::new(&game, SEED);
    let mut state = game.initial_state();
    let mut all = Vec::new();
    let mut counts: std::collections::BTreeMap<SymbolId, usize> = Default::default();
    let mut states = 0usize;
    for _ in 0..SAMPLE_STEPS {
        states += 1;
        for root in game.fluent_roots(&state) {
            *counts.entry(root).or_default() += 1;
        }
        let terminal = game.is_terminal(&state);
        if game.over_limit() {
            break;
        }
        if terminal {
            all.push(Sample {
                state: game.state_to_kif(&state),
                joint: Vec::new(),
            });
            break;
        }
        let Ok(next) = stepper.step(&mut game, &state) else {
            break;
        };
        if game.over_limit() {
            break;
        }
        all.push(Sample {
            state: game.state_to_kif(&state),
            joint: stepper.joint.iter().map(|&m| game.move_to_kif(m)).collect(),
        });
        state = next;
    }
    let means = counts
        .into_iter()
        .map(|(root, count)| (root, count as f64 / states.max(1) as f64))
        .collect();
    if all.len() <= SAMPLES {
        return (all, means);
    }
    let last = all.len() - 1;
    let spread = (0..SAMPLES)
        .map(|i| all[i * last / (SAMPLES - 1)].clone())
        .collect();
    (spread, means)
}

/// The mean size of each materialised relation over one playout step from every
/// sample (where its layer was computed), as the plan executor of `plan` finds it.
fn sizes(ir: &Ir, plan: &Plan, samples: &[Sample]) -> Vec<Option<SampledSize>> {
    let mut game = Executor::new(ir, plan);
    game.set_work_limit(SAMPLE_WORK);
    game.set_value_limit(SAMPLE_VALUES);
    let mut sums: Vec<Option<(usize, usize, Vec<usize>)>> = vec![None; ir.relations.len()];
    for sample in samples {
        if !step(&mut game, sample) {
            break;
        }
        for (sum, size) in sums.iter_mut().zip(game.computed_sizes()) {
            let Some((rows, distinct)) = size else {
                continue;
            };
            let (count, total, totals) = sum.get_or_insert_with(|| (0, 0, vec![0; distinct.len()]));
            *count += 1;
            *total += rows;
            for (t, d) in totals.iter_mut().zip(distinct) {
                *t += d;
            }
        }
    }
    sums.into_iter()
        .map(|sum| {
            sum.map(|(count, total, totals)| SampledSize {
                rows: total as f64 / count as f64,
                distinct: totals.iter().map(|&t| t as f64 / count as f64).collect(),
            })
        })
        .collect()
}

/// One playout step from `sample` (terminal, every role's legal moves and the next
/// state; the goals in a terminal state); false when the sampled move is not legal
/// or the executor went past its work limit.
fn step(game: &mut Executor, sample: &Sample) -> bool {
    let texts: Vec<&str> = sample.state.iter().map(String::as_str).collect();
    let Ok(state) = game.state_from_kif(&texts) else {
        return false;
    };
    game.is_terminal(&state);
    if sample.joint.is_empty() {
        for role in 0..game.num_roles() {
            let _ = game.goal(&state, role);
        }
    } else {
        let mut legal = Vec::new();
        let mut joint = Vec::with_capacity(sample.joint.len());
        for (role, text) in sample.joint.iter().enumerate() {
            game.legal_moves(&state, role, &mut legal);
            let Some(&m) = legal.iter().find(|&&m| game.move_to_kif(m) == *text) else {
                return false;
            };
            joint.push(m);
        }
        game.next_state(&state, &joint);
    }
    !game.over_limit()
}

/// The executor's work for one playout step from every sample, or `None` past
/// `limit` (or when a sampled move is not legal under `plan`, which would be a
/// planner bug: the trial is then not kept).
fn cost(ir: &Ir, plan: &Plan, samples: &[Sample], limit: usize) -> Option<usize> {
    let mut game = Executor::new(ir, plan);
    game.set_work_limit(limit);
    for sample in samples {
        if !step(&mut game, sample) {
            return None;
        }
    }
    Some(game.work())
}
