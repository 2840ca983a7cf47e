//! The `interp` bundles against their memcpy, measured alternately in one process: round after
//! round, a batch of one and then a batch of the other (the order swapping each round), each
//! round giving one ratio. On a shared virtual machine whose speed drifts over seconds, the
//! median of those ratios moves much less than a ratio of two medians measured seconds apart.
//! Run: `taskset -c 1 cargo bench -p ptoc-runtime --bench interp_paired [-- --rounds N]`; prints
//! one line per op: median ns of the op and of the memcpy, and the median ratio
//! (`benches/interp_ratio.py --paired` reads it).

mod common;

use common::{Bundle, Memcpy, RegisterCopy, OPS, TYPES};
use std::time::Instant;

/// Runs per batch: long enough that the clock's resolution does not matter (a 64 KiB bundle takes
/// about 1.5 µs), short enough that a round sees the machine in one state.
const BATCH: u32 = 100;

/// The name the register-copy floor ([`RegisterCopy`]) is reported under, after the ops.
const FLOOR: &str = "REGISTER_COPY";

/// Mean ns of one call over a batch.
fn batch(f: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..BATCH {
        f();
    }
    start.elapsed().as_nanos() as f64 / f64::from(BATCH)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `--rounds N` (default 300); cargo's own `--bench` flag and anything else are ignored.
fn rounds() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .find(|w| w[0] == "--rounds")
        .and_then(|w| w[1].parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(300)
}

fn main() {
    let rounds = rounds();
    println!(
        "{:<15}{:<6}{:>9}{:>11}{:>10}",
        "op", "type", "op ns", "memcpy ns", "ratio"
    );
    for (dtype, name) in TYPES {
        let mut copy = Memcpy::new(dtype);
        for (mnemonic, axis_row) in OPS {
            let mut bundle = Bundle::new(mnemonic, axis_row, dtype);
            let line = paired(&mut || drop(bundle.run()), &mut || copy.run(), rounds);
            println!("{mnemonic:<15}{name:<6}{line}");
        }
        let mut floor = RegisterCopy::new(dtype);
        let line = paired(&mut || floor.run(), &mut || copy.run(), rounds);
        println!("{FLOOR:<15}{name:<6}{line}");
    }
}

/// `op` against `baseline` over `rounds` alternated rounds: the median ns of each and the
/// median ratio, as the columns of one output line.
fn paired(op: &mut impl FnMut(), baseline: &mut impl FnMut(), rounds: usize) -> String {
    for _ in 0..10 {
        batch(op);
        batch(baseline);
    }
    let (mut ops, mut copies, mut ratios) = (vec![], vec![], vec![]);
    for round in 0..rounds {
        let (t_op, t_copy) = if round % 2 == 0 {
            let t = batch(op);
            (t, batch(baseline))
        } else {
            let t = batch(baseline);
            (batch(op), t)
        };
        ops.push(t_op);
        copies.push(t_copy);
        ratios.push(t_op / t_copy);
    }
    format!(
        "{:>9.0}{:>11.0}{:>10.3}",
        median(ops),
        median(copies),
        median(ratios)
    )
}
