//! Terms: the expressions symbolic execution builds.
//!
//! Terms are hash-consed in a [`TermStore`], so two structurally equal terms
//! have the same [`TermId`]: `==` on ids is semantic identity, which is what
//! MultiSE's `⊎` needs to coalesce values (seed 000 §3.2). Concrete operands
//! are folded on construction (seed 000 §2.3: `1.3 > 1` is `true`), so they
//! never reach the solver.

mod op;
mod range;
mod store;
mod value;

pub use op::{eval_bv, eval_bv_bits, eval_op, int_range, read_at, saturation_bits, BvResult, EvalError, Op};
pub use store::{EvalMemo, Model, Node, SymId, Symbol, TermId, TermStore};
pub use value::{mask, Sort, Value};
