//! ptoc's pass pipeline over the tile IR, one pass per file.
//!
//! Default pipeline: `pto-verify`, `pto-infer-shapes`, `pto-fuse`, `pto-allocate`. Every pass
//! implements [`Pass`] and works on one function at a time, as MLIR function passes do.

#![warn(missing_docs)]

mod allocate;
mod convert_linalg;
pub mod fuse;
mod gm;
mod gm_allocate;
mod gm_schedule;
mod infer_shapes;
mod manager;
mod queue_plan;
mod rules;
mod verify;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod testutil;

pub(crate) use allocate::Allocate;
pub(crate) use convert_linalg::ConvertLinalg;
pub use convert_linalg::FOLD_PIECE_ATTR;
pub use gm_allocate::{allocate_gm, GmStats};
pub(crate) use infer_shapes::InferShapes;
pub use manager::{known_passes, pass_by_name, IrPrinting, PassManager, PipelineError, When};
pub(crate) use verify::Verify;

use ptoc_ir::linalg::Program;
use ptoc_ir::{Diagnostic, Function, GmKernel};
use ptoc_isa::profile::NamingModel;
use ptoc_isa::PeMask;

/// Options every pass may read (from the command line).
#[derive(Clone, Debug)]
pub struct Options {
    /// 0 leaves `pto-fuse` out of the default pipeline (`-O0`); an explicit pipeline runs exactly
    /// the passes it names.
    pub opt_level: u8,
    /// PE mask of every binding (`--pe-mask`), which also scales capacity accounting.
    pub pe_mask: PeMask,
    /// How the target names tiles (`--target-profile`, docs/isa.md §9 decisions 1–2).
    pub target_profile: NamingModel,
    /// `--assume-no-nans`: linalg's NaN-propagating `maximumf`/`minimumf` may lower to the
    /// ISA's MAX/MIN, which return the number (README, linalg-on-tensors input; fastmath `nnan` does the same per op).
    pub assume_no_nans: bool,
    /// `--allow-reassociation`: a float sum or product may fold its init in after the ISA's
    /// fold, which reassociates it (README, linalg-on-tensors input).
    pub allow_reassociation: bool,
    /// `--strip-assertions`: the linalg import drops `cf.assert` ops (torch-mlir's checks)
    /// instead of refusing them (README, Compiling IREE and torch-mlir output).
    pub strip_assertions: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            opt_level: 2,
            pe_mask: PeMask::ALL_PES,
            target_profile: ptoc_isa::profile::PROFILE.naming,
            assume_no_nans: false,
            allow_reassociation: false,
            strip_assertions: false,
        }
    }
}

/// What a pass may read and report while it runs.
#[derive(Debug, Default)]
pub struct PassContext {
    /// The options of this compilation.
    pub options: Options,
    /// `(pass, statistic, value)` rows for `--pass-statistics`, in the order recorded.
    pub statistics: Vec<(&'static str, &'static str, u64)>,
    /// The passes that had nothing to do ([`Pass::skips`]), left out of the statistics report.
    pub skipped: Vec<&'static str>,
    /// Remarks of a run that succeeds (what an option let a pass do, at the op it changed).
    pub remarks: Vec<Diagnostic>,
}

impl PassContext {
    /// A context with `options` and no statistics yet.
    pub fn new(options: Options) -> Self {
        PassContext {
            options,
            statistics: Vec::new(),
            skipped: Vec::new(),
            remarks: Vec::new(),
        }
    }

    /// Add `value` to the named statistic of `pass` (summed over functions).
    pub fn record(&mut self, pass: &'static str, statistic: &'static str, value: u64) {
        match self
            .statistics
            .iter_mut()
            .find(|(p, s, _)| *p == pass && *s == statistic)
        {
            Some(row) => row.2 += value,
            None => self.statistics.push((pass, statistic, value)),
        }
    }
}

/// One pass of the pipeline. `Send`, so a [`PassManager`] (and the driver holding it) can move
/// to another thread.
pub trait Pass: Send {
    /// The pipeline name (`pto-verify`).
    fn name(&self) -> &'static str;
    /// One line for `--help`-style listings.
    fn description(&self) -> &'static str;
    /// Run on one function; errors are reported at their source locations.
    fn run(&self, func: &mut Function, ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>>;
    /// Run on one GM kernel (README, Kernels over global memory). A pass that has not been taught GM kernels refuses
    /// them at the kernel's location rather than passing them through unchecked.
    fn run_gm(&self, kernel: &mut GmKernel, _ctx: &mut PassContext) -> Result<(), Vec<Diagnostic>> {
        Err(vec![Diagnostic::error(
            kernel.loc.clone(),
            format!(
                "pass `{}` does not run on kernels over global memory yet",
                self.name()
            ),
        )])
    }
    /// Convert a linalg-on-tensors program (README, linalg-on-tensors input) into the GM kernel that replaces it;
    /// `None` from every pass but the conversion, which leaves programs to it.
    fn convert_linalg(
        &self,
        _program: &Program,
        _ctx: &mut PassContext,
    ) -> Option<Result<GmKernel, Vec<Diagnostic>>> {
        None
    }
    /// Whether the pass has nothing to do on `module` (then it is skipped: no IR dump, no
    /// statistics), as the conversion does without linalg programs.
    fn skips(&self, _module: &ptoc_ir::Module) -> bool {
        false
    }
    /// The statistics the pass records, as `(name, description)` for `--pass-statistics`.
    fn statistics(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
}
