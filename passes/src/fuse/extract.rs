//! The cost model and the DAG-aware extractor of `pto-fuse`.
//!
//! **Cost.** A program costs [`BUNDLE_COST`] per bundle plus the bytes of every tile it creates
//! (the result's physical footprint, which allocation must find room for). Every op is one
//! bundle; arguments and type leaves are free. A value is paid for once however many consumers it
//! has: the cost of a selection is the sum over the classes it *reaches* from the roots.
//!
//! **Order.** Every class gets a position: an original op's program index (the earliest one if
//! classes were merged), arguments and type leaves first, and a class the rules created right
//! after its latest operand. A node is *admissible* only if all its operands come strictly
//! earlier. Every selection of admissible nodes is therefore acyclic, every class holding an
//! original op keeps an admissible node (its earliest original), and sorting the chosen classes by
//! position gives a topological order that keeps the program order.
//!
//! **Extraction.** egg's `Extractor` costs terms as trees, so a shared value is charged once per
//! consumer and the choice between a shared expand and fused consumers is arbitrary. Here:
//! 1. an initial choice bottom-up, charging each operand's cost divided by its number of users
//!    (an amortised estimate that cannot overflow on deep DAGs, unlike tree cost);
//! 2. exact local improvement on the DAG cost, kept incrementally with reference counts: (a) for
//!    every value with several users, try moving *all* of them at once to alternatives that do not
//!    use it (this is what fuses a broadcast into each consumer only when the broadcast then
//!    disappears), and (b) for every class, try each alternative node alone (this un-fuses where a
//!    shared value is paid for anyway).
//!
//! A move is kept only if it lowers the exact DAG cost, or keeps it and picks a node earlier in
//! the preference order (the class's original op first, then node order). Nothing depends on hash
//! iteration order, so the result is deterministic.

use super::lang::{TileGraph, TileNode};
use egg::{Id, Language};
use ptoc_ir::TileType;
use ptoc_isa::geometry::predicate_bytes;
use ptoc_isa::Storage;

/// What one bundle costs, in bytes of tile footprint.
pub const BUNDLE_COST: u64 = 1024;

/// Rounds of improvement moves (each round is one sweep of each move kind).
const MAX_ROUNDS: usize = 8;

/// The physical footprint of a tile, in bytes (0 while a dimension is unknown); a predicate's is
/// packed, one bit per element (docs/isa.md §3.6).
pub fn tile_bytes(ty: &TileType) -> u64 {
    match (ty.dims(), ty.storage) {
        (Some((rows, cols, _, _)), Storage::Numeric) => {
            rows as u64 * cols as u64 * ty.dtype.bits() as u64 / 8
        }
        (Some((rows, cols, _, _)), Storage::Predicate) => predicate_bytes(rows, cols),
        (None, _) => 0,
    }
}

/// The cost of one node by itself: a bundle and its result tile for an op, nothing for a leaf.
pub fn node_cost(egraph: &TileGraph, node: &TileNode) -> u64 {
    match node {
        TileNode::Op { .. } => {
            let bytes = node
                .type_child()
                .and_then(|t| egraph[t].data.ty)
                .and_then(|t| egraph.analysis.ty(t))
                .map_or(0, tile_bytes);
            BUNDLE_COST + bytes
        }
        TileNode::Type(_) | TileNode::Arg(_) => 0,
    }
}

/// The DAG cost of an e-graph that still holds one node per class (before saturation): each
/// class reachable from `roots` paid once.
pub fn input_cost(egraph: &TileGraph, roots: &[Id]) -> u64 {
    // Dense by class id: no hashing, and no per-process random seed (the same work every run).
    let mut seen = super::ClassMap::default();
    let mut stack: Vec<Id> = roots.to_vec();
    let mut total: u64 = 0;
    while let Some(id) = stack.pop() {
        let id = egraph.find(id);
        if seen.contains_key(&id) {
            continue;
        }
        seen.insert(id, ());
        if let Some(node) = egraph[id].nodes.first() {
            total = total.saturating_add(node_cost(egraph, node));
            stack.extend_from_slice(node.children());
        }
    }
    total
}

/// Where a class stands in program order: (original position, depth after it).
type Pos = (u32, u32);

/// A class that must exist in the extracted program, with where it comes from.
pub struct Origin {
    pub class: Id,
    /// 0 for arguments, op index + 1 for ops.
    pub position: u32,
    /// The original node (children canonical), preferred on ties.
    pub node: TileNode,
}

/// The extracted program: every reachable class once, in emission order.
pub struct Extraction {
    /// (class, chosen node with canonical children), operands before users.
    pub order: Vec<(Id, TileNode)>,
    /// The DAG cost of the selection.
    pub cost: u64,
}

/// Dense view of the e-graph and the selection being improved.
struct Dag {
    class_ids: Vec<Id>,
    /// Per class, the range of its nodes in `nodes`.
    node_range: Vec<(u32, u32)>,
    nodes: Vec<TileNode>,
    /// Per node, its cost and its children as dense class indices (range into `children`).
    node_cost: Vec<u64>,
    child_range: Vec<(u32, u32)>,
    children: Vec<u32>,
    /// Per class, candidate node indices (admissible and feasible), in preference order.
    candidates: Vec<Vec<u32>>,
    /// Per class, the classes whose candidates use it (deduplicated, ascending).
    users: Vec<Vec<u32>>,
    choice: Vec<u32>,
    refs: Vec<u32>,
    pinned: Vec<bool>,
    log: Vec<Undo>,
    cost: i128,
}

enum Undo {
    Choice(u32, u32),
    Inc(u32),
    Dec(u32),
}

struct Savepoint {
    log: usize,
    cost: i128,
}

impl Dag {
    fn kids(&self, node: u32) -> &[u32] {
        let (a, b) = self.child_range[node as usize];
        &self.children[a as usize..b as usize]
    }

    fn save(&self) -> Savepoint {
        Savepoint {
            log: self.log.len(),
            cost: self.cost,
        }
    }

    fn rollback(&mut self, sp: &Savepoint) {
        while self.log.len() > sp.log {
            match self.log.pop() {
                Some(Undo::Choice(c, old)) => self.choice[c as usize] = old,
                Some(Undo::Inc(c)) => self.refs[c as usize] -= 1,
                Some(Undo::Dec(c)) => self.refs[c as usize] += 1,
                None => break,
            }
        }
        self.cost = sp.cost;
    }

    /// Add one reference to each class in `start`; classes coming alive pay and reference their
    /// operands.
    fn inc(&mut self, start: &[u32]) {
        let mut stack: Vec<u32> = start.to_vec();
        while let Some(c) = stack.pop() {
            self.refs[c as usize] += 1;
            self.log.push(Undo::Inc(c));
            if self.refs[c as usize] == 1 {
                let n = self.choice[c as usize];
                self.cost += self.node_cost[n as usize] as i128;
                stack.extend_from_slice(self.kids(n));
            }
        }
    }

    /// Drop one reference from each class in `start`; classes dying refund and release operands.
    fn dec(&mut self, start: &[u32]) {
        let mut stack: Vec<u32> = start.to_vec();
        while let Some(c) = stack.pop() {
            if self.refs[c as usize] == 0 {
                continue;
            }
            self.refs[c as usize] -= 1;
            self.log.push(Undo::Dec(c));
            if self.refs[c as usize] == 0 {
                let n = self.choice[c as usize];
                self.cost -= self.node_cost[n as usize] as i128;
                stack.extend_from_slice(self.kids(n));
            }
        }
    }

    /// Choose node `n` for class `c`, updating liveness and cost if `c` is alive.
    fn switch(&mut self, c: u32, n: u32) {
        let old = self.choice[c as usize];
        if old == n {
            return;
        }
        self.log.push(Undo::Choice(c, old));
        self.choice[c as usize] = n;
        if self.refs[c as usize] > 0 {
            let new_kids = self.kids(n).to_vec();
            let old_kids = self.kids(old).to_vec();
            self.inc(&new_kids);
            self.dec(&old_kids);
            self.cost += self.node_cost[n as usize] as i128 - self.node_cost[old as usize] as i128;
        }
    }

    /// Preference rank of node `n` in class `c` (lower is preferred).
    fn rank(&self, c: u32, n: u32) -> usize {
        self.candidates[c as usize]
            .iter()
            .position(|&k| k == n)
            .unwrap_or(usize::MAX)
    }

    fn uses(&self, n: u32, c: u32) -> bool {
        self.kids(n).contains(&c)
    }

    /// The best candidate of `c` other than its current choice that `allowed` accepts, by the
    /// cost change of switching to it alone, then by rank: `(change, rank, node)`.
    fn best_alternative(
        &mut self,
        c: u32,
        allowed: impl Fn(&Dag, u32) -> bool,
    ) -> Option<(i128, usize, u32)> {
        let current = self.choice[c as usize];
        let mut best: Option<(i128, usize, u32)> = None;
        for i in 0..self.candidates[c as usize].len() {
            let n = self.candidates[c as usize][i];
            if n == current || !allowed(self, n) {
                continue;
            }
            let sp = self.save();
            self.switch(c, n);
            let delta = self.cost - sp.cost;
            self.rollback(&sp);
            let key = (delta, self.rank(c, n), n);
            if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
            }
        }
        best
    }

    /// Try every alternative of `c` alone; keep the best if it improves (cost, then rank).
    fn improve_alone(&mut self, c: u32) -> bool {
        if self.refs[c as usize] == 0 || self.candidates[c as usize].len() < 2 {
            return false;
        }
        let current_rank = self.rank(c, self.choice[c as usize]);
        match self.best_alternative(c, |_, _| true) {
            Some((delta, rank, n)) if (delta, rank) < (0, current_rank) => {
                self.switch(c, n);
                self.log.clear();
                true
            }
            _ => false,
        }
    }

    /// Try to make shared value `e` unused by moving all its users to alternatives at once; keep
    /// the move if the total cost goes down.
    fn eliminate_shared(&mut self, e: u32) -> bool {
        if self.refs[e as usize] < 2 || self.pinned[e as usize] {
            return false;
        }
        if !matches!(
            self.nodes[self.choice[e as usize] as usize],
            TileNode::Op { .. }
        ) {
            return false;
        }
        let sp = self.save();
        let users = self.users[e as usize].clone();
        for p in users {
            let current = self.choice[p as usize];
            if self.refs[p as usize] == 0 || !self.uses(current, e) {
                continue;
            }
            match self.best_alternative(p, |dag, n| !dag.uses(n, e)) {
                Some((_, _, n)) => self.switch(p, n),
                None => {
                    self.rollback(&sp);
                    return false;
                }
            }
        }
        if self.refs[e as usize] == 0 && self.cost < sp.cost {
            self.log.clear();
            true
        } else {
            self.rollback(&sp);
            false
        }
    }
}

/// Extract a program computing every class in `roots` (a local optimum of the DAG cost, never
/// relying on hash order). `origins` place the original classes and name their preferred nodes.
/// `None` if some root has no acyclic derivation, which the rules never cause: every class holding
/// an original op keeps that op admissible.
pub fn extract(egraph: &TileGraph, roots: &[Id], origins: &[Origin]) -> Option<Extraction> {
    extract_from(egraph, roots, origins, Start::Estimate)
}

/// Where the local search starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// The amortised bottom-up estimate (what the pass uses).
    Estimate,
    /// The input program: each class's original op where it has one (the tests compare the
    /// two starts).
    #[cfg(test)]
    Input,
}

/// [`extract`], with the local search starting from `start`.
pub fn extract_from(
    egraph: &TileGraph,
    roots: &[Id],
    origins: &[Origin],
    start: Start,
) -> Option<Extraction> {
    let mut class_ids: Vec<Id> = egraph.classes().map(|c| c.id).collect();
    class_ids.sort();
    let max_id = class_ids.iter().map(|&i| usize::from(i)).max().unwrap_or(0);
    let mut dense = vec![u32::MAX; max_id + 1];
    for (i, &id) in class_ids.iter().enumerate() {
        dense[usize::from(id)] = i as u32;
    }
    let index = |id: Id| -> u32 { dense[usize::from(egraph.find(id))] };
    let count = class_ids.len();

    let total = egraph.total_size();
    let mut node_range = Vec::with_capacity(count);
    let mut nodes = Vec::with_capacity(total);
    let mut node_costs = Vec::with_capacity(total);
    let mut child_range = Vec::with_capacity(total);
    let mut children = Vec::with_capacity(3 * total);
    for &id in &class_ids {
        let start = nodes.len() as u32;
        for node in &egraph[id].nodes {
            let a = children.len() as u32;
            children.extend(node.children().iter().map(|&c| index(c)));
            child_range.push((a, children.len() as u32));
            node_costs.push(node_cost(egraph, node));
            nodes.push(node.clone());
        }
        node_range.push((start, nodes.len() as u32));
    }

    // Positions: originals, type leaves, then rule-made classes after their latest operand.
    let mut pos: Vec<Option<Pos>> = vec![None; count];
    for o in origins {
        let c = index(o.class) as usize;
        let p = (o.position, 0);
        pos[c] = Some(pos[c].map_or(p, |q: Pos| q.min(p)));
    }
    for (c, &id) in class_ids.iter().enumerate() {
        if egraph[id].data.is_type {
            pos[c] = Some((0, 0));
        }
    }
    loop {
        let mut changed = false;
        for c in 0..count {
            if pos[c].is_some() {
                continue;
            }
            let (a, b) = node_range[c];
            let mut best: Option<Pos> = None;
            for n in a..b {
                let (ca, cb) = child_range[n as usize];
                let mut latest: Option<Pos> = Some((0, 0));
                for &k in &children[ca as usize..cb as usize] {
                    latest = match (latest, pos[k as usize]) {
                        (Some(l), Some(p)) => Some(l.max(p)),
                        _ => None,
                    };
                }
                if let Some((major, minor)) = latest {
                    let p = (major, minor + 1);
                    if best.is_none_or(|q| p < q) {
                        best = Some(p);
                    }
                }
            }
            if best.is_some() {
                pos[c] = best;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let pos: Vec<Pos> = pos
        .into_iter()
        .map(|p| p.unwrap_or((u32::MAX, 0)))
        .collect();
    let mut order: Vec<u32> = (0..count as u32).collect();
    order.sort_by_key(|&c| (pos[c as usize], c));

    // The preferred node of each class: its earliest original op.
    let mut preferred: Vec<Option<(u32, u32)>> = vec![None; count];
    for o in origins {
        let c = index(o.class) as usize;
        let canonical = o.node.clone().map_children(|k| egraph.find(k));
        let (a, b) = node_range[c];
        if let Some(k) = (a..b).find(|&k| nodes[k as usize] == canonical) {
            if preferred[c].is_none_or(|(p, _)| o.position < p) {
                preferred[c] = Some((o.position, k));
            }
        }
    }

    // Initial choice, bottom-up in position order, with amortised operand costs.
    let mut users: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (c, &(a, b)) in node_range.iter().enumerate() {
        for n in a..b {
            let (ca, cb) = child_range[n as usize];
            for &k in &children[ca as usize..cb as usize] {
                users[k as usize].push(c as u32);
            }
        }
    }
    for u in &mut users {
        u.sort_unstable();
        u.dedup();
    }
    let mut estimate = vec![f64::INFINITY; count];
    let mut candidates: Vec<Vec<u32>> = vec![Vec::new(); count];
    let mut choice = vec![u32::MAX; count];
    let mut list: Vec<(f64, u32)> = Vec::new();
    for &c in &order {
        let c = c as usize;
        let (a, b) = node_range[c];
        list.clear();
        for n in a..b {
            let (ca, cb) = child_range[n as usize];
            let kids = &children[ca as usize..cb as usize];
            let admissible = kids
                .iter()
                .all(|&k| pos[k as usize] < pos[c] && estimate[k as usize].is_finite());
            if !admissible {
                continue;
            }
            let est = node_costs[n as usize] as f64
                + kids
                    .iter()
                    .map(|&k| estimate[k as usize] / users[k as usize].len().max(1) as f64)
                    .sum::<f64>();
            list.push((est, n));
        }
        let pref = preferred[c].map(|(_, k)| k);
        // Candidates in preference order: the original first, then node order.
        let mut cands: Vec<u32> = list.iter().map(|&(_, n)| n).collect();
        cands.sort_by_key(|&n| (Some(n) != pref, n));
        let best = list.iter().copied().min_by(|x, y| {
            let key = |n: u32| {
                (
                    start == Start::Estimate || Some(n) != pref,
                    Some(n) != pref,
                    n,
                )
            };
            let (kx, ky) = (key(x.1), key(y.1));
            // With `Start::Input` the original wins outright; otherwise the estimate decides.
            (kx.0.cmp(&ky.0))
                .then_with(|| x.0.total_cmp(&y.0))
                .then(kx.1.cmp(&ky.1))
                .then(kx.2.cmp(&ky.2))
        });
        if let Some((est, n)) = best {
            estimate[c] = est;
            choice[c] = n;
        }
        candidates[c] = cands;
    }
    // Users are only those whose candidates use the class.
    for (c, u) in users.iter_mut().enumerate() {
        u.retain(|&p| {
            candidates[p as usize].iter().any(|&n| {
                let (ca, cb) = child_range[n as usize];
                children[ca as usize..cb as usize].contains(&(c as u32))
            })
        });
    }

    let mut pinned = vec![false; count];
    let root_idx: Vec<u32> = roots.iter().map(|&r| index(r)).collect();
    for &r in &root_idx {
        if choice[r as usize] == u32::MAX {
            return None;
        }
        pinned[r as usize] = true;
    }
    let mut dag = Dag {
        class_ids,
        node_range,
        nodes,
        node_cost: node_costs,
        child_range,
        children,
        candidates,
        users,
        choice,
        refs: vec![0; count],
        pinned,
        log: Vec::new(),
        cost: 0,
    };
    dag.inc(&root_idx);
    dag.log.clear();

    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for &c in &order {
            changed |= dag.eliminate_shared(c);
        }
        for &c in &order {
            changed |= dag.improve_alone(c);
        }
        if !changed {
            break;
        }
    }

    let mut out = Vec::with_capacity(order.len());
    for &c in &order {
        if dag.refs[c as usize] == 0 {
            continue;
        }
        let n = dag.choice[c as usize] as usize;
        let (a, b) = dag.node_range[c as usize];
        if n < a as usize || n >= b as usize {
            return None;
        }
        let node = dag.nodes[n].clone().map_children(|k| egraph.find(k));
        out.push((dag.class_ids[c as usize], node));
    }
    Some(Extraction {
        order: out,
        cost: u64::try_from(dag.cost).unwrap_or(u64::MAX),
    })
}
