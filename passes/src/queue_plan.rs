//! Queue naming for a straight-line program: which hand each new tile is pushed onto, which code
//! names each source when it is read, and which values must be re-pushed (a TMOV) so that a later
//! read still finds them (docs/isa.md §9 decisions 1–2).
//!
//! Under queue naming a tile stays reachable, and keeps its capacity, until 16 newer tiles were
//! pushed onto its hand. The planner replays the program on the one register-file model the
//! interpreter uses ([`RegisterFile`] with [`NamingModel::Queue`]) and chooses, for every push, the
//! hand that costs least:
//! 1. a full hand whose oldest tile is dead: the push retires it and gives its capacity back;
//! 2. a hand with room: nothing retires;
//! 3. otherwise a hand whose oldest tiles are live is rotated: each live oldest tile is re-pushed
//!    (TMOV onto the same hand, which retires the original) until a dead one is oldest.
//!
//! A tile is dead once its last read is done (a step's sources are read before its destination is
//! pushed) and it is not a result. The plan fails only when every one of the 64 names holds a live
//! tile, or when the tiles that cannot be retired exceed the core's capacity.

use ptoc_isa::cube::accumulator_clashes;
use ptoc_isa::profile::NamingModel;
use ptoc_isa::regfile::{PlaceError, RegisterFile};
use ptoc_isa::{Hand, TileReg};
use std::collections::HashMap;

/// One op of the program: the values it reads, and the value it writes, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub sources: Vec<usize>,
    pub dest: Option<usize>,
    /// A `_ACC` matrix op's accumulator: the destination may not go to the hand whose DstTile
    /// code equals the accumulator's code when it is read ([`ptoc_isa::cube::accumulator_clashes`]).
    pub accumulator: Option<usize>,
}

/// A straight-line program over values `0..footprints.len()`.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The capacity each value's tile takes (SizeCode bytes × PEs of the mask).
    pub footprints: Vec<u64>,
    /// Arguments, in the order the loader pushes them.
    pub args: Vec<usize>,
    pub steps: Vec<Step>,
    /// Values that must be reachable when the program ends.
    pub results: Vec<usize>,
    /// Per value, whether no TMOV may copy it (a CUBE tile, docs/isa.md §18.2); values beyond
    /// the end are movable.
    pub immovable: Vec<bool>,
}

/// What the code does, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Re-push `value` (read as `source`) onto `hand` with a TMOV.
    Move {
        value: usize,
        source: TileReg,
        hand: Hand,
    },
    /// Run step `step`, reading its sources by these codes and pushing its destination onto
    /// `hand`.
    Step {
        step: usize,
        sources: Vec<TileReg>,
        hand: Option<Hand>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The hand each argument is pushed onto, in argument order.
    pub arg_hands: Vec<Hand>,
    /// The code each argument has once all are loaded.
    pub arg_codes: Vec<TileReg>,
    pub actions: Vec<Action>,
    /// The code each result has when the program ends.
    pub results: Vec<TileReg>,
    /// The most capacity in use after any push.
    pub peak_bytes: u64,
}

/// Why no plan exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// At step `step` (`None`: while loading arguments) all 64 names hold live tiles.
    TooManyLive { step: Option<usize> },
    /// At step `step` the live and not yet retired tiles need `need` bytes.
    Capacity { step: Option<usize>, need: u64 },
}

/// Plan `program` for queue naming.
pub fn plan(program: &Program) -> Result<Plan, PlanError> {
    Planner::new(program).run()
}

struct Planner<'a> {
    program: &'a Program,
    file: RegisterFile,
    /// The value each physical slot holds.
    holds: HashMap<TileReg, usize>,
    /// For each value, the steps that read it, in order (results read at `steps.len()`).
    reads: Vec<Vec<usize>>,
    actions: Vec<Action>,
    peak: u64,
}

impl<'a> Planner<'a> {
    fn new(program: &'a Program) -> Planner<'a> {
        let mut reads = vec![Vec::new(); program.footprints.len()];
        for (i, step) in program.steps.iter().enumerate() {
            for &v in &step.sources {
                reads[v].push(i);
            }
        }
        for &v in &program.results {
            reads[v].push(program.steps.len());
        }
        Planner {
            program,
            file: RegisterFile::with_naming(NamingModel::Queue),
            holds: HashMap::new(),
            reads,
            actions: Vec::new(),
            peak: 0,
        }
    }

    /// Whether `value` is still read after step `now` has read its sources.
    fn live_after(&self, value: usize, now: Option<usize>) -> bool {
        let last = self.reads[value].last().copied();
        match (last, now) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(last), Some(now)) => last > now,
        }
    }

    /// The oldest tile of `hand` when the hand is full.
    fn oldest_of_full(&self, hand: Hand) -> Option<(TileReg, usize)> {
        let code = TileReg::of(hand, 16)?;
        let slot = self.file.resolve(code)?;
        Some((slot, self.holds[&slot]))
    }

    fn run(mut self) -> Result<Plan, PlanError> {
        let mut arg_hands = Vec::new();
        let mut arg_slots = Vec::new();
        for &v in &self.program.args {
            let hand = self.choose(self.program.footprints[v], None, None)?;
            arg_slots.push(self.push(v, hand, None)?);
            arg_hands.push(hand);
        }
        let arg_codes = arg_slots.iter().map(|&s| self.code(s)).collect();
        for (i, step) in self.program.steps.iter().enumerate() {
            // Rotations (if any) come first, then the step reads its sources, then pushes.
            let hand = match step.dest {
                Some(v) => {
                    Some(self.choose(self.program.footprints[v], Some(i), step.accumulator)?)
                }
                None => None,
            };
            let sources = step.sources.iter().map(|&v| self.locate(v)).collect();
            if let (Some(v), Some(hand)) = (step.dest, hand) {
                self.push(v, hand, Some(i))?;
            }
            self.actions.push(Action::Step {
                step: i,
                sources,
                hand,
            });
        }
        let results = self
            .program
            .results
            .iter()
            .map(|&v| self.locate(v))
            .collect();
        Ok(Plan {
            arg_hands,
            arg_codes,
            actions: self.actions,
            results,
            peak_bytes: self.peak,
        })
    }

    fn code(&self, slot: TileReg) -> TileReg {
        self.file
            .code_of(slot)
            .expect("a slot the plan placed is live")
    }

    /// The code naming the newest copy of `value`.
    fn locate(&self, value: usize) -> TileReg {
        Hand::ALL
            .into_iter()
            .flat_map(|hand| (1..=16).filter_map(move |k| TileReg::of(hand, k)))
            .find(|&code| {
                self.file
                    .resolve(code)
                    .is_some_and(|slot| self.holds[&slot] == value)
            })
            .expect("every live value stays reachable")
    }

    /// Push `value` at step `now` (`None`: an argument) onto `hand`; returns its slot.
    fn push(&mut self, value: usize, hand: Hand, now: Option<usize>) -> Result<TileReg, PlanError> {
        let bytes = self.program.footprints[value];
        let placement = self.file.place(hand, bytes).map_err(|e| match e {
            PlaceError::Capacity(c) => PlanError::Capacity {
                step: now,
                need: c.need,
            },
            PlaceError::HandFull(_) => PlanError::TooManyLive { step: now },
        })?;
        if let Some(old) = placement.retired {
            self.holds.remove(&old);
        }
        self.holds.insert(placement.reg, value);
        self.peak = self.peak.max(self.file.allocated_bytes());
        Ok(placement.reg)
    }

    /// Whether a push onto `hand` after re-pushing `rotated` (its oldest tiles, oldest first)
    /// breaks the accumulator rule for `accumulator`, read where the rotation leaves it.
    fn clashes(&self, accumulator: Option<usize>, hand: Hand, rotated: &[usize]) -> bool {
        accumulator.is_some_and(|c| {
            let now = self.locate(c);
            let r = rotated.len() as u8;
            let code = match rotated.iter().position(|&v| v == c) {
                Some(t) => TileReg::of(hand, r - t as u8),
                None if now.hand() == hand => TileReg::of(hand, now.number() + r),
                None => Some(now),
            };
            code.is_some_and(|code| accumulator_clashes(code, hand))
        })
    }

    /// The hand the next push of `bytes` goes to, rotating one if no hand is free of live oldest
    /// tiles; never one that breaks the accumulator rule of a `_ACC` step.
    fn choose(
        &mut self,
        bytes: u64,
        now: Option<usize>,
        accumulator: Option<usize>,
    ) -> Result<Hand, PlanError> {
        let mut capacity_need = None;
        // 1 and 2: a full hand with a dead oldest tile, else the emptiest hand with room.
        let mut candidates: Vec<(u8, usize, Hand)> = Vec::new();
        for hand in Hand::ALL
            .into_iter()
            .filter(|&h| !self.clashes(accumulator, h, &[]))
        {
            let rank = match self.oldest_of_full(hand) {
                Some((_, v)) if !self.live_after(v, now) => 0,
                Some(_) => continue,
                None => 1,
            };
            let depth = (1..=16)
                .filter(|&k| {
                    TileReg::of(hand, k)
                        .and_then(|c| self.file.resolve(c))
                        .is_some()
                })
                .count();
            candidates.push((rank, depth, hand));
        }
        candidates.sort();
        for &(_, _, hand) in &candidates {
            match self.file.preview(hand, bytes) {
                Ok(_) => return Ok(hand),
                Err(PlaceError::Capacity(c)) => capacity_need = Some(c.need),
                Err(PlaceError::HandFull(_)) => {}
            }
        }
        if let Some(need) = capacity_need {
            return Err(PlanError::Capacity { step: now, need });
        }
        // 3. Every hand is full with a live oldest tile: rotate the hand that needs the fewest
        // re-pushes until a dead tile is its oldest (none that would copy a CUBE tile).
        let rotations = |hand: Hand| {
            let live: Vec<usize> = (1..=16u8)
                .rev()
                .map(|k| {
                    let slot = self.file.resolve(TileReg::of(hand, k).expect("1..=16"));
                    slot.map(|s| self.holds[&s])
                })
                .take_while(|v| v.is_some_and(|v| self.live_after(v, now)))
                .flatten()
                .collect();
            let immovable = |v: usize| self.program.immovable.get(v).is_some_and(|&i| i);
            let usable =
                !live.iter().any(|&v| immovable(v)) && !self.clashes(accumulator, hand, &live);
            usable.then_some(live.len())
        };
        let Some((count, hand)) = Hand::ALL
            .into_iter()
            .filter_map(|h| Some((rotations(h)?, h)))
            .min()
        else {
            return Err(PlanError::TooManyLive { step: now });
        };
        if count == 16 {
            return Err(PlanError::TooManyLive { step: now });
        }
        for _ in 0..count {
            let (slot, v) = self.oldest_of_full(hand).expect("the hand is full");
            let source = self.code(slot);
            self.push(v, hand, now)?;
            self.actions.push(Action::Move {
                value: v,
                source,
                hand,
            });
        }
        Ok(hand)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(hand: Hand, k: u8) -> TileReg {
        TileReg::of(hand, k).unwrap()
    }

    /// A chain `v[i+1] = op(v[i])` of `n` steps over 1 KiB tiles.
    fn chain(n: usize) -> Program {
        Program {
            footprints: vec![1024; n + 1],
            args: vec![0],
            steps: (0..n)
                .map(|i| Step {
                    sources: vec![i],
                    dest: Some(i + 1),
                    accumulator: None,
                })
                .collect(),
            results: vec![n],
            immovable: Vec::new(),
        }
    }

    #[test]
    fn a_long_chain_recycles_dead_tiles() {
        let p = plan(&chain(1000)).unwrap();
        replay(&chain(1000), &p);
        assert_eq!(p.arg_codes, vec![code(Hand::T, 1)]);
        // Every source is the tile pushed just before it.
        for a in &p.actions {
            match a {
                Action::Step { sources, .. } => assert_eq!(sources[0].number(), 1, "{a:?}"),
                Action::Move { .. } => panic!("a chain needs no re-push: {a:?}"),
            }
        }
        assert_eq!(p.results[0].number(), 1);
        // Four hands of 16 tiles of 1 KiB at most, and far less than 1000 tiles.
        assert!(p.peak_bytes <= 64 * 1024);
    }

    /// Replay `p` on a fresh register file (the interpreter's model) and check that every code
    /// names the value the program reads there, and that every result is reachable at the end.
    fn replay(prog: &Program, p: &Plan) {
        let mut file = RegisterFile::with_naming(NamingModel::Queue);
        let mut holds = HashMap::new();
        let value_at = |file: &RegisterFile, holds: &HashMap<TileReg, usize>, c: TileReg| {
            holds[&file.resolve(c).expect("the code names a live tile")]
        };
        for (&v, &h) in prog.args.iter().zip(&p.arg_hands) {
            let pl = file.place(h, prog.footprints[v]).unwrap();
            assert_eq!(pl.retired, None);
            holds.insert(pl.reg, v);
        }
        for (&v, &c) in prog.args.iter().zip(&p.arg_codes) {
            assert_eq!(value_at(&file, &holds, c), v);
        }
        let mut next = 0;
        for a in &p.actions {
            let (reads, dest, hand) = match a {
                Action::Move {
                    value,
                    source,
                    hand,
                } => {
                    let immovable = prog.immovable.get(*value).is_some_and(|&i| i);
                    assert!(!immovable, "{value} cannot be copied: {a:?}");
                    (vec![(*value, *source)], Some(*value), Some(*hand))
                }
                Action::Step {
                    step,
                    sources,
                    hand,
                } => {
                    assert_eq!(*step, next, "steps in program order");
                    next += 1;
                    let st = &prog.steps[*step];
                    assert_eq!(st.sources.len(), sources.len());
                    if let (Some(c), Some(h)) = (st.accumulator, *hand) {
                        let at = st.sources.iter().position(|&v| v == c).unwrap();
                        assert!(!accumulator_clashes(sources[at], h), "{a:?}");
                    }
                    (
                        st.sources
                            .iter()
                            .copied()
                            .zip(sources.iter().copied())
                            .collect(),
                        st.dest,
                        *hand,
                    )
                }
            };
            for (v, c) in reads {
                assert_eq!(value_at(&file, &holds, c), v, "{a:?}");
            }
            if let (Some(v), Some(h)) = (dest, hand) {
                let pl = file.place(h, prog.footprints[v]).expect("the plan fits");
                if let Some(old) = pl.retired {
                    holds.remove(&old);
                }
                holds.insert(pl.reg, v);
            }
        }
        assert_eq!(next, prog.steps.len());
        for (&v, &c) in prog.results.iter().zip(&p.results) {
            assert_eq!(value_at(&file, &holds, c), v);
        }
    }

    #[test]
    fn sources_are_named_by_age() {
        // a, b args; c = f(a, b); d = g(c, a); results d and b.
        let prog = Program {
            footprints: vec![512; 4],
            args: vec![0, 1],
            steps: vec![
                Step {
                    sources: vec![0, 1],
                    dest: Some(2),
                    accumulator: None,
                },
                Step {
                    sources: vec![2, 0],
                    dest: Some(3),
                    accumulator: None,
                },
            ],
            results: vec![3, 1],
            immovable: Vec::new(),
        };
        replay(&prog, &plan(&prog).unwrap());
        let long = chain(300);
        replay(&long, &plan(&long).unwrap());
    }

    /// Random DAG programs: whenever a plan exists, replaying it names every value right.
    #[test]
    fn random_programs_replay_exactly() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rand = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let (mut planned, mut moved) = (0, 0);
        for _ in 0..300 {
            let args = 1 + rand(40);
            let steps = rand(200);
            let mut prog = Program {
                footprints: (0..args + steps).map(|_| 128 << rand(5)).collect(),
                args: (0..args).collect(),
                ..Program::default()
            };
            for i in 0..steps {
                let n = args + i;
                // Mostly recent values, sometimes old ones (which forces re-pushes).
                let pick = |r: &mut dyn FnMut(usize) -> usize| {
                    if r(4) == 0 {
                        r(n)
                    } else {
                        n - 1 - r(n.min(8))
                    }
                };
                let k = 1 + rand(3);
                let sources: Vec<usize> = (0..k).map(|_| pick(&mut rand)).collect();
                // Some steps are `_ACC` matrix ops, whose first source is the accumulator.
                let accumulator = (rand(4) == 0).then_some(sources[0]);
                prog.steps.push(Step {
                    sources,
                    dest: Some(n),
                    accumulator,
                });
            }
            // Some values are CUBE tiles, which no TMOV may copy.
            prog.immovable = (0..args + steps).map(|_| rand(8) == 0).collect();
            prog.results = (0..1 + rand(4)).map(|_| rand(args + steps)).collect();
            if let Ok(p) = plan(&prog) {
                replay(&prog, &p);
                planned += 1;
                moved += p.actions.iter().any(|a| matches!(a, Action::Move { .. })) as usize;
            }
        }
        assert!(planned > 200, "most random programs fit: {planned}");
        assert!(moved > 10, "some need re-pushes: {moved}");
    }

    /// 64 live arguments fill every name; a 65th live tile cannot be named.
    #[test]
    fn sixty_five_live_tiles_do_not_fit() {
        let mut prog = Program {
            footprints: vec![128; 66],
            args: (0..64).collect(),
            steps: vec![Step {
                sources: vec![0],
                dest: Some(64),
                accumulator: None,
            }],
            results: (0..65).collect(),
            immovable: Vec::new(),
        };
        assert_eq!(plan(&prog), Err(PlanError::TooManyLive { step: Some(0) }));
        // With argument 0 dead after the step, its name is recycled.
        prog.results = (1..65).collect();
        let p = plan(&prog).unwrap();
        replay(&prog, &p);
    }

    /// Live tiles older than 16 pushes are rotated to the front instead of lost.
    #[test]
    fn live_old_tiles_are_re_pushed() {
        // 64 arguments, all read again at the very end; 10 more steps each reading the newest.
        let n = 64;
        let mut prog = Program {
            footprints: vec![128; n + 10],
            args: (0..n).collect(),
            steps: Vec::new(),
            results: Vec::new(),
            immovable: Vec::new(),
        };
        for i in 0..10 {
            let src = if i == 0 { 0 } else { n + i - 1 };
            prog.steps.push(Step {
                sources: vec![src],
                dest: Some(n + i),
                accumulator: None,
            });
        }
        // Every argument but 0 is read by a last step; argument 0 is dead after step 0.
        prog.steps.push(Step {
            sources: (1..n).collect(),
            dest: None,
            accumulator: None,
        });
        let p = plan(&prog).unwrap();
        replay(&prog, &p);
        let moves = p
            .actions
            .iter()
            .filter(|a| matches!(a, Action::Move { .. }))
            .count();
        assert!(
            moves > 0,
            "the hands fill with live tiles, so some must be re-pushed"
        );
    }

    #[test]
    fn capacity_counts_tiles_not_yet_retired() {
        // Two live 128 KiB tiles (×1 PE) and a third: 384 KiB > 256 KiB.
        let prog = Program {
            footprints: vec![128 * 1024; 3],
            args: vec![0, 1],
            steps: vec![Step {
                sources: vec![0, 1],
                dest: Some(2),
                accumulator: None,
            }],
            results: vec![2, 0],
            immovable: Vec::new(),
        };
        assert!(matches!(
            plan(&prog),
            Err(PlanError::Capacity { step: Some(0), .. })
        ));
    }

    /// `_ACC`: C at T#1 cannot go with `->T`, so the result takes another hand.
    #[test]
    fn an_accumulator_at_t1_sends_the_result_elsewhere() {
        let prog = Program {
            footprints: vec![128; 4],
            args: vec![2, 0, 1],
            steps: vec![Step {
                sources: vec![2, 0, 1],
                dest: Some(3),
                accumulator: Some(2),
            }],
            results: vec![3],
            immovable: vec![true; 4],
        };
        let p = plan(&prog).unwrap();
        // The arguments go to the emptiest hands in order, so C (pushed first) is T#1.
        assert_eq!(p.arg_codes[0], code(Hand::T, 1));
        replay(&prog, &p);
        let Action::Step { hand, .. } = &p.actions[0] else {
            panic!("{p:?}")
        };
        assert_ne!(*hand, Some(Hand::T));
    }

    /// A hand full of live tiles whose oldest is a CUBE tile is not rotated: another is.
    #[test]
    fn cube_tiles_are_never_re_pushed() {
        // 64 arguments go round the hands: 0..4 are the oldest of T, U, M and N, 4..8 the next.
        // 4..8 die at step 0, which pushes one more tile: one hand must re-push its oldest.
        let n = 64;
        let mut prog = Program {
            footprints: vec![128; n + 1],
            args: (0..n).collect(),
            steps: vec![
                Step {
                    sources: vec![8],
                    dest: Some(n),
                    accumulator: None,
                },
                Step {
                    sources: (0..4).chain(8..=n).collect(),
                    dest: None,
                    accumulator: None,
                },
            ],
            results: Vec::new(),
            immovable: Vec::new(),
        };
        let rotated = |prog: &Program| {
            let p = plan(prog).unwrap();
            replay(prog, &p);
            let hands: Vec<Hand> = p
                .actions
                .iter()
                .filter_map(|a| match a {
                    Action::Move { hand, .. } => Some(*hand),
                    Action::Step { .. } => None,
                })
                .collect();
            hands
        };
        assert_eq!(rotated(&prog), [Hand::T]);
        // 0, 1 and 2 are CUBE tiles: N rotates.
        prog.immovable = (0..=n).map(|v| v < 3).collect();
        assert_eq!(rotated(&prog), [Hand::N]);
        // With every hand's oldest a CUBE tile, nothing can make room.
        prog.immovable = (0..=n).map(|v| v < 4).collect();
        assert_eq!(plan(&prog), Err(PlanError::TooManyLive { step: Some(0) }));
    }
}
