//! `ptoc run`'s progress line on standard error: bundles executed, their rate and the time
//! elapsed, for runs longer than a second. Only on a terminal (a redirected or captured standard
//! error stays clean, and standard output never gets it), redrawn in place at most four times a
//! second and cleared when the run ends. The hidden `--progress-interval=N` forces one line per
//! N bundles wherever standard error goes, so tests can see it on a short run.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Bundles between two looks at the clock on a terminal: a few hundred looks a second at about a
/// microsecond a bundle (optimised), several a second unoptimised; one look costs less than a
/// bundle.
const TERMINAL_EVERY: usize = 1 << 12;
/// Runs shorter than this show nothing.
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// The shortest time between two redraws.
const REFRESH: Duration = Duration::from_millis(250);

/// A progress display for one run.
pub struct Progress {
    start: Instant,
    /// A line redrawn in place on a terminal, or one line per report (forced).
    terminal: bool,
    /// When the line was last drawn (on a terminal).
    drawn: Option<Instant>,
}

impl Progress {
    /// The display and how many bundles apart it wants to be called, or `None` when standard
    /// error is not a terminal and no interval forces it.
    pub fn new(forced_every: Option<usize>) -> Option<(Progress, usize)> {
        let (terminal, every) = match forced_every {
            Some(every) => (false, every),
            None if std::io::stderr().is_terminal() => (true, TERMINAL_EVERY),
            None => return None,
        };
        let progress = Progress {
            start: Instant::now(),
            terminal,
            drawn: None,
        };
        Some((progress, every))
    }

    /// `bundles` bundles have started.
    pub fn report(&mut self, bundles: usize) {
        let now = Instant::now();
        let elapsed = now - self.start;
        let mut err = std::io::stderr().lock();
        if !self.terminal {
            let _ = writeln!(err, "{}", line(bundles, elapsed));
            return;
        }
        let due = self.drawn.is_none_or(|at| now - at >= REFRESH);
        if elapsed >= SHOW_AFTER && due {
            // Carriage return, the line, then erase whatever a longer previous line left.
            let _ = write!(err, "\r{}\x1b[K", line(bundles, elapsed));
            let _ = err.flush();
            self.drawn = Some(now);
        }
    }
}

impl Drop for Progress {
    /// Clear a drawn line, so whatever is printed next starts on a clean line.
    fn drop(&mut self) {
        if self.drawn.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

/// `ptoc run: 2500000 bundles, 1.25 M bundles/s, 2.0 s elapsed`.
fn line(bundles: usize, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64();
    let rate = if seconds > 0.0 {
        bundles as f64 / seconds
    } else {
        0.0
    };
    let rate = if rate >= 1e6 {
        format!("{:.2} M", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.1} k", rate / 1e3)
    } else {
        format!("{rate:.0}")
    };
    format!("ptoc run: {bundles} bundles, {rate} bundles/s, {seconds:.1} s elapsed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_bundles_rate_and_time() {
        let at = |ms| Duration::from_millis(ms);
        assert_eq!(
            line(2_500_000, at(2000)),
            "ptoc run: 2500000 bundles, 1.25 M bundles/s, 2.0 s elapsed"
        );
        assert_eq!(
            line(4096, at(1500)),
            "ptoc run: 4096 bundles, 2.7 k bundles/s, 1.5 s elapsed"
        );
        assert_eq!(
            line(12, at(4000)),
            "ptoc run: 12 bundles, 3 bundles/s, 4.0 s elapsed"
        );
        assert_eq!(
            line(0, at(0)),
            "ptoc run: 0 bundles, 0 bundles/s, 0.0 s elapsed"
        );
    }
}
