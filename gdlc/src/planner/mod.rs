//! The planner: decides a game's [`crate::plan::Plan`] from its IR — every relation's
//! evaluation (static, materialised or on demand) and storage, every rule's filter tree
//! and join order, the state's column orders and fluent layout — and records why.
//!
//! - `build.rs`: the threshold plan ([`plan`], [`plan_with`]): evaluation modes from the
//!   analysis' size estimates, static relations computed into tables, filter trees.
//! - `tune.rs`: measured planning ([`tuned`]): the threshold plan run by the plan
//!   executor ([`crate::exec`]) on sample states of a seeded playout, layers tried
//!   materialised or on demand, the plan with the least work kept ([`crate::plan::Tuning`]).
//! - `answers.rs`: the expected answers of a demand call from its rules (the join
//!   order's estimate for demand relations).
//! - `fluents.rs`: the state layout per function symbol of `true`, dense or listed
//!   ([`fluent_layouts`]), from the fluents of the relaxed game
//!   ([`crate::ground::reachable_fluents`]).
//!
//! The planner sits above the executor and the grounder because it measures with them;
//! the plan itself ([`crate::plan`]) is plain data below both.

mod answers;
mod build;
mod fluents;
mod order;
mod tune;

pub use build::{
    DEMAND_THRESHOLD, PlanOptions, STATIC_DEMAND_THRESHOLD, STATIC_LIMIT, SampledSize, Statics,
    plan, plan_seeded, plan_with,
};
pub use fluents::{LISTED_ABOVE, fluent_layouts};
pub use tune::{DEMAND_GAIN, GAIN, SAMPLE_STEPS, SAMPLE_WORK, SAMPLES, TRIALS_WORK, tune, tuned};
