//! `pto-fuse`: fold broadcasts into the expand-op forms by equality saturation (egg).
//!
//! Each function's dataflow DAG becomes an e-graph (`lang`): one class per value, every op node
//! carrying its result type as a leaf. The bit-exact rewrites of `rules` run to saturation
//! within a node and an iteration limit (never a time limit, so the output does not depend on the
//! machine's speed). The DAG-aware extractor of `extract` then picks, per value, the form with
//! the lowest program cost (bundles and tile bytes, each value paid for once), and the function is
//! rebuilt from it in program order: ops keep their SSA names, locations and result types; a
//! fused op takes the location and name of the op it replaces; argument and result order are kept.
//!
//! A function of more than a few thousand ops fuses window by window ([`window`]): one e-graph
//! for 100 000 ops spends its time in cache misses, a window's stays in cache.
//!
//! The pass never removes an op that was dead in its input (a dead op can still fault or raise
//! status flags); it only drops ops that the rewrites made redundant. It is skipped at `-O0`.
//! Any internal inconsistency leaves the function unchanged rather than failing.

mod extract;
mod lang;
mod rules;
pub mod synth;
#[cfg(test)]
mod tests;
mod window;

use crate::{Pass, PassContext};
use egg::{Id, Runner, SimpleScheduler, StopReason};
use extract::{Extraction, Origin};
use lang::{leaf_type, OpCode, OpControl, TileAnalysis, TileGraph, TileNode};
use ptoc_ir::{Diagnostic, Function, GmKernel, Location, ValueId};
use std::collections::BTreeMap;
use std::time::Duration;

/// The pass.
pub(crate) struct Fuse;

const NAME: &str = "pto-fuse";

/// What `--pass-statistics` reports, summed over functions.
const STATISTICS: [(&str, &str); 7] = [
    ("egraph-nodes", "Number of e-nodes after saturation"),
    ("egraph-classes", "Number of e-classes after saturation"),
    ("iterations", "Number of saturation iterations"),
    ("rules-applied", "Number of rewrites applied"),
    ("ops-before", "Number of ops before fusion"),
    ("ops-after", "Number of ops after fusion"),
    (
        "stopped-at-limit",
        "Number of functions whose saturation stopped at the node or iteration limit",
    ),
];

/// Saturation limits. Each rule application adds at most three nodes per matched op and no rule
/// feeds itself unboundedly, so real kernels saturate in a few iterations well inside these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most saturation iterations.
    pub iterations: usize,
    /// Most e-nodes; saturation stops once the e-graph holds more.
    pub nodes: usize,
}

impl Limits {
    /// Limits for an e-graph that starts with `initial_nodes` nodes: 16 iterations and four times
    /// the initial size (plus slack for tiny functions), so big kernels stay linear.
    pub fn for_size(initial_nodes: usize) -> Limits {
        Limits {
            iterations: 16,
            nodes: initial_nodes.saturating_mul(4).saturating_add(1024),
        }
    }
}

/// What one run of the pass on one function did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// E-nodes after saturation.
    pub egraph_nodes: usize,
    /// E-classes after saturation.
    pub egraph_classes: usize,
    /// Saturation iterations run.
    pub iterations: usize,
    /// Rewrites applied, over all rules.
    pub rules_applied: usize,
    /// Per rule name, how often it applied (sorted by name).
    pub applied: BTreeMap<String, usize>,
    /// Ops in the input function.
    pub ops_before: usize,
    /// Ops in the rewritten function.
    pub ops_after: usize,
    /// The DAG cost of the input (bundles and tile bytes, each value paid once).
    pub cost_before: u64,
    /// The output's cost (as `cost_before`).
    pub cost_after: u64,
    /// True when saturation stopped at a limit rather than saturating.
    pub hit_limit: bool,
}

impl Pass for Fuse {
    fn name(&self) -> &'static str {
        NAME
    }

    fn description(&self) -> &'static str {
        "Fuse broadcasts into expand ops by equality saturation (egg) with DAG-aware extraction"
    }

    fn statistics(&self) -> &'static [(&'static str, &'static str)] {
        &STATISTICS
    }

    /// Each block's tile ops fuse as a function's DAG ([`crate::gm::block_dag`]): values of
    /// enclosing blocks and loaded or carried tiles are its arguments, every tile the rest of the
    /// kernel reads is a result, so nothing fuses across a block boundary and no stored, yielded
    /// or nested-block value is dropped.
    fn run_gm(&self, kernel: &mut GmKernel, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        crate::gm::for_each_block_mut(kernel, &mut |kernel, block| {
            let dag = crate::gm::block_dag(kernel, block, crate::gm::ScalarOps::Opaque);
            if dag.func.ops.is_empty() {
                return Ok(());
            }
            let mut func = dag.func.clone();
            self.run(&mut func, ctx)?;
            crate::gm::splice(kernel, block, &dag, &func, false).map_err(|e| vec![e])
        })
    }

    fn run(&self, func: &mut Function, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        let Some((fused, report)) = fuse_function(func) else {
            return Ok(());
        };
        let [nodes, classes, iterations, applied, before, after, limited] =
            STATISTICS.map(|(name, _)| name);
        ctx.record(NAME, nodes, report.egraph_nodes as u64);
        ctx.record(NAME, classes, report.egraph_classes as u64);
        ctx.record(NAME, iterations, report.iterations as u64);
        ctx.record(NAME, applied, report.rules_applied as u64);
        ctx.record(NAME, before, report.ops_before as u64);
        ctx.record(NAME, after, report.ops_after as u64);
        ctx.record(NAME, limited, report.hit_limit as u64);
        *func = fused;
        Ok(())
    }
}

/// The e-graph of a function, with the class of every value and what must be kept.
struct Built {
    egraph: TileGraph,
    /// The class of each value (indexed by `ValueId`).
    class_of: Vec<Option<Id>>,
    origins: Vec<Origin>,
    roots: Vec<Id>,
}

fn build(func: &Function) -> Option<Built> {
    let mut analysis = TileAnalysis::default();
    for &a in &func.args {
        let t = analysis.intern(func.values.get(a.0 as usize)?.ty);
        analysis.arg_types.push(t);
    }
    let mut egraph = TileGraph::new(analysis);
    let mut class_of: Vec<Option<Id>> = vec![None; func.values.len()];
    let mut origins = Vec::with_capacity(func.args.len() + func.ops.len());
    // The type-leaf class of each interned type.
    let mut leaves: Vec<Option<Id>> = Vec::new();
    for (i, &a) in func.args.iter().enumerate() {
        let node = TileNode::Arg(i as u32);
        let id = egraph.add(node.clone());
        *class_of.get_mut(a.0 as usize)? = Some(id);
        origins.push(Origin {
            class: id,
            position: 0,
            node,
        });
    }
    for (i, op) in func.ops.iter().enumerate() {
        let code = OpCode::of(op.info)?;
        let sources = op
            .operands
            .iter()
            .map(|v| class_of.get(v.0 as usize).copied().flatten())
            .collect::<Option<Vec<Id>>>()?;
        let ty = egraph
            .analysis
            .intern(func.values.get(op.result.0 as usize)?.ty) as usize;
        if leaves.len() <= ty {
            leaves.resize(ty + 1, None);
        }
        let leaf = *leaves[ty].get_or_insert_with(|| egraph.add(TileNode::Type(ty as u32)));
        let node = TileNode::op_with(code, OpControl::of(op)?, &sources, leaf)?;
        let id = egraph.add(node.clone());
        *class_of.get_mut(op.result.0 as usize)? = Some(id);
        origins.push(Origin {
            class: id,
            position: i as u32 + 1,
            node,
        });
    }
    // Roots: the results, and every op whose result was already unused (never deleted here).
    let mut roots = Vec::new();
    for r in &func.results {
        roots.push(class_of.get(r.0 as usize).copied().flatten()?);
    }
    // Every operand and result is known to be in range here.
    let uses = func.use_counts();
    for op in &func.ops {
        if uses.get(op.result.0 as usize) == Some(&0) {
            roots.push(class_of[op.result.0 as usize]?);
        }
    }
    Some(Built {
        egraph,
        class_of,
        origins,
        roots,
    })
}

/// Run saturation and extraction on `func`; the rewritten function and what happened, or `None`
/// if the function could not be represented (it is then left alone). A function of more than
/// [`window::Window::DEFAULT`] ops fuses window by window ([`window`]), each window's e-graph
/// under its own limits; the report sums the windows' e-graph statistics.
pub fn fuse_function(func: &Function) -> Option<(Function, Report)> {
    window::fuse_windowed(func, Limits::for_size, window::Window::DEFAULT)
}

/// Saturation and extraction of `func` as one e-graph, with the saturation limits `limits`
/// gives for its initial size.
pub(crate) fn fuse_function_with(
    func: &Function,
    limits: impl FnOnce(usize) -> Limits,
) -> Option<(Function, Report)> {
    let built = build(func)?;
    let before = extract::input_cost(&built.egraph, &built.roots);
    let limits = limits(built.egraph.total_size());
    let runner = saturate(built.egraph, limits);
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    for iteration in &runner.iterations {
        for (rule, n) in &iteration.applied {
            *applied.entry(rule.to_string()).or_default() += n;
        }
    }
    let hit_limit = !matches!(runner.stop_reason, Some(StopReason::Saturated));
    let egraph = runner.egraph;
    let extraction = extract::extract(&egraph, &built.roots, &built.origins)?;
    // The extractor's local search never ends above the input's cost in practice; if it ever did,
    // the input is the better program.
    let fused = if extraction.cost > before {
        func.clone()
    } else {
        rebuild(func, &egraph, &built.class_of, &extraction)?
    };
    let report = Report {
        egraph_nodes: egraph.total_size(),
        egraph_classes: egraph.number_of_classes(),
        iterations: runner.iterations.len(),
        rules_applied: applied.values().sum(),
        applied,
        ops_before: func.ops.len(),
        ops_after: fused.ops.len(),
        cost_before: before,
        cost_after: extraction.cost.min(before),
        hit_limit,
    };
    Some((fused, report))
}

/// Run every rule on `egraph` until it saturates or reaches `limits`.
fn saturate(egraph: TileGraph, limits: Limits) -> Runner<TileNode, TileAnalysis> {
    Runner::new(TileAnalysis::default())
        .with_egraph(egraph)
        .with_iter_limit(limits.iterations)
        .with_node_limit(limits.nodes)
        // Only the node and iteration limits bound the run: a time limit would make the output
        // depend on the machine's speed.
        .with_time_limit(Duration::MAX)
        .with_scheduler(SimpleScheduler)
        .run(rules::rules())
}

/// The function the extraction describes, in its order, with `func`'s names, locations and
/// attributes where an op survives or replaces one.
fn rebuild(
    func: &Function,
    egraph: &TileGraph,
    class_of: &[Option<Id>],
    extraction: &Extraction,
) -> Option<Function> {
    // The earliest original op of each class.
    let mut original: ClassMap<usize> = ClassMap::default();
    for (i, op) in func.ops.iter().enumerate() {
        let class = egraph.find(class_of.get(op.result.0 as usize).copied().flatten()?);
        if !original.contains_key(&class) {
            original.insert(class, i);
        }
    }
    // A class the rules created takes the location of its earliest user.
    let mut inherited: ClassMap<Location> = ClassMap::default();
    for (class, node) in extraction.order.iter().rev() {
        let loc = match original.get(class) {
            Some(&i) => func.ops[i].loc.clone(),
            None => inherited
                .get(class)
                .cloned()
                .unwrap_or_else(|| func.loc.clone()),
        };
        for src in node.sources() {
            if !original.contains_key(src) {
                inherited.insert(*src, loc.clone());
            }
        }
    }

    let mut out = Function::new(func.name.clone(), func.loc.clone());
    out.attrs = func.attrs.clone();
    out.ops.reserve(extraction.order.len());
    out.values.reserve(func.args.len() + extraction.order.len());
    for &a in &func.args {
        let v = func.value(a);
        out.add_arg(v.name.clone(), v.ty);
    }
    out.arg_attrs = func.arg_attrs.clone();
    let mut value_of: ClassMap<ValueId> = ClassMap::default();
    for (class, node) in &extraction.order {
        match node {
            TileNode::Type(_) => {}
            TileNode::Arg(i) => {
                value_of.insert(*class, *out.args.get(*i as usize)?);
            }
            TileNode::Op { code, .. } => {
                let operands = node
                    .sources()
                    .iter()
                    .map(|s| value_of.get(s).copied())
                    .collect::<Option<Vec<_>>>()?;
                let ty = leaf_type(egraph, node.type_child()?)?;
                let (name, loc, attrs) = match original.get(class) {
                    Some(&i) => {
                        let op = &func.ops[i];
                        let same = OpCode::of(op.info) == Some(*code)
                            && OpControl::of(op) == Some(node.control())
                            && op
                                .operands
                                .iter()
                                .map(|v| class_of[v.0 as usize].map(|c| egraph.find(c)))
                                .eq(node.sources().iter().map(|&s| Some(s)));
                        let attrs = if same {
                            op.attrs.clone()
                        } else {
                            BTreeMap::new()
                        };
                        (func.value(op.result).name.clone(), op.loc.clone(), attrs)
                    }
                    None => (
                        None,
                        inherited
                            .get(class)
                            .cloned()
                            .unwrap_or_else(|| func.loc.clone()),
                        BTreeMap::new(),
                    ),
                };
                let result = out.push_op(code.info(), operands, ty, name, loc);
                if let Some(op) = out.ops.last_mut() {
                    op.attrs = attrs;
                    // An op the rules created or rewired (a mirrored TCMP) takes its control,
                    // the relation included, from its node.
                    node.control().apply(op);
                }
                value_of.insert(*class, result);
            }
        }
    }
    for r in &func.results {
        let class = egraph.find(class_of.get(r.0 as usize).copied().flatten()?);
        out.results.push(*value_of.get(&class)?);
    }
    Some(out)
}

/// A map from e-class ids (small dense integers) to values.
struct ClassMap<T> {
    slots: Vec<Option<T>>,
}

impl<T> Default for ClassMap<T> {
    fn default() -> Self {
        ClassMap { slots: Vec::new() }
    }
}

impl<T> ClassMap<T> {
    fn get(&self, id: &Id) -> Option<&T> {
        self.slots.get(usize::from(*id)).and_then(Option::as_ref)
    }

    fn contains_key(&self, id: &Id) -> bool {
        self.get(id).is_some()
    }

    fn insert(&mut self, id: Id, value: T) {
        let i = usize::from(id);
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i] = Some(value);
    }
}
