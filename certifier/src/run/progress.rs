//! What a long run shows on a terminal: scenarios done of the total, each failure as it
//! happens, and the dates being waited for in real time with their due time on the target's
//! clock. A hidden one (output that is not a terminal, tests) shows nothing.
use std::sync::{
    Mutex, PoisonError,
    atomic::{AtomicU64, Ordering},
};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use time::{OffsetDateTime, macros::format_description};

use crate::{
    run::outcome::Verdict,
    target::waits::{WaitBoard, Waiting},
};

/// The status lines of one run.
#[derive(Debug)]
pub struct Progress {
    shown: Option<Shown>,
    waits: Mutex<Vec<Wait>>,
    next_id: AtomicU64,
}

#[derive(Debug)]
struct Shown {
    lines: MultiProgress,
    scenarios: ProgressBar,
    waiting: ProgressBar,
    /// Failed and skipped scenarios so far.
    counts: Mutex<(usize, usize)>,
}

#[derive(Debug)]
struct Wait {
    id: u64,
    scenario: String,
    what: String,
    due: OffsetDateTime,
}

impl Progress {
    /// Shows nothing.
    pub fn hidden() -> Progress {
        Progress {
            shown: None,
            waits: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        }
    }

    /// Status lines on stderr for a run of `total` scenarios.
    pub fn on_terminal(total: usize) -> Progress {
        Progress::drawn_to(ProgressDrawTarget::stderr(), total)
    }

    /// Status lines drawn to `target` for a run of `total` scenarios.
    pub fn drawn_to(target: ProgressDrawTarget, total: usize) -> Progress {
        let lines = MultiProgress::with_draw_target(target);
        let scenarios = lines.add(ProgressBar::new(total as u64));
        scenarios.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} scenarios{msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        scenarios.enable_steady_tick(std::time::Duration::from_millis(500));
        let waiting = lines.add(ProgressBar::new(0));
        waiting.set_style(
            ProgressStyle::with_template("{wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        Progress {
            shown: Some(Shown {
                lines,
                scenarios,
                waiting,
                counts: Mutex::new((0, 0)),
            }),
            waits: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        }
    }

    fn waits(&self) -> std::sync::MutexGuard<'_, Vec<Wait>> {
        self.waits.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Shows that `scenario` waits until `due` for `what`, for as long as the guard lives.
    pub fn waiting(&self, scenario: &str, what: &str, due: OffsetDateTime) -> Waiting<'_> {
        Waiting::on(self, scenario, what, due)
    }

    /// The dates waited for, as the status line shows them: how many, and the soonest.
    pub fn waits_line(&self) -> String {
        let waits = self.waits();
        let Some(next) = waits.iter().min_by_key(|w| w.due) else {
            return String::new();
        };
        let clock = format_description!(
            "[hour]:[minute]:[second] [offset_hour sign:mandatory]:[offset_minute]"
        );
        let due = |w: &Wait| w.due.format(&clock).unwrap_or_default();
        let last = waits
            .iter()
            .max_by_key(|w| w.due)
            .map(due)
            .unwrap_or_default();
        format!(
            "next due {}: {} ({}) · {} wait(s) on the target's clock, the last due {last}",
            due(next),
            next.what,
            next.scenario,
            waits.len(),
        )
    }

    fn show_waits(&self) {
        if let Some(shown) = &self.shown {
            shown.waiting.set_message(self.waits_line());
        }
    }

    /// Counts a finished scenario; a failure is printed above the status lines.
    pub fn finished(&self, verdict: Verdict, scenario: &str) {
        let Some(shown) = &self.shown else {
            return;
        };
        let mut counts = shown.counts.lock().unwrap_or_else(PoisonError::into_inner);
        match verdict {
            Verdict::Failed => {
                counts.0 += 1;
                let _ = shown.lines.println(format!("FAILED  {scenario}"));
            }
            Verdict::Skipped => counts.1 += 1,
            Verdict::Passed => {}
        }
        let mut message = String::new();
        if counts.0 > 0 {
            message.push_str(&format!(", {} failed", counts.0));
        }
        if counts.1 > 0 {
            message.push_str(&format!(", {} skipped", counts.1));
        }
        shown.scenarios.set_message(message);
        shown.scenarios.inc(1);
    }

    /// Takes the status lines away and prints the final count in their place, before the
    /// summary. A bar draws at a limited rate, so its last count may never have been shown.
    pub fn clear(&self) {
        if let Some(shown) = &self.shown {
            let secs = shown.scenarios.elapsed().as_secs();
            let last = format!(
                "{}/{} scenarios{} in {:02}:{:02}:{:02}",
                shown.scenarios.position(),
                shown.scenarios.length().unwrap_or(0),
                shown.scenarios.message(),
                secs / 3600,
                secs / 60 % 60,
                secs % 60
            );
            // Printed above the bars while they stand, so that it ends with a newline.
            let _ = shown.lines.println(last);
            shown.waiting.finish_and_clear();
            shown.scenarios.finish_and_clear();
        }
    }
}

impl WaitBoard for Progress {
    fn show_wait(&self, scenario: &str, what: &str, due: OffsetDateTime) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.waits().push(Wait {
            id,
            scenario: scenario.to_owned(),
            what: what.to_owned(),
            due,
        });
        self.show_waits();
        id
    }

    fn end_wait(&self, id: u64) {
        self.waits().retain(|w| w.id != id);
        self.show_waits();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use time::macros::datetime;

    /// A terminal that keeps the lines drawn on it.
    #[derive(Debug, Default, Clone)]
    struct Screen(Arc<Mutex<Vec<String>>>);

    impl Screen {
        fn lines(&self) -> Vec<String> {
            self.0.lock().unwrap().clone()
        }
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push(s.to_owned());
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.write_line(s)
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_status_line_ends_with_every_scenario_counted() {
        let screen = Screen::default();
        let progress = Progress::drawn_to(
            ProgressDrawTarget::term_like_with_hz(Box::new(screen.clone()), 20),
            30,
        );
        for i in 0..30 {
            let verdict = if i == 7 {
                Verdict::Failed
            } else {
                Verdict::Passed
            };
            progress.finished(verdict, &format!("f.feature:{i} S"));
        }
        progress.clear();
        let lines = screen.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("30/30 scenarios, 1 failed in 00:00:0")),
            "{lines:#?}"
        );
        assert!(
            lines.iter().any(|l| l == "FAILED  f.feature:7 S"),
            "{lines:#?}"
        );
    }

    #[test]
    fn the_waits_line_names_the_soonest_date_until_its_wait_ends() {
        let progress = Progress::hidden();
        assert_eq!(progress.waits_line(), "");
        let late = progress.waiting("B", "the auction", datetime!(2026-11-23 21:05:40 +2));
        {
            let _soon = progress.waiting(
                "A",
                "the end of the tender period",
                datetime!(2026-11-23 21:05:10 +2),
            );
            assert_eq!(
                progress.waits_line(),
                "next due 21:05:10 +02:00: the end of the tender period (A) · 2 wait(s) on the \
                 target's clock, the last due 21:05:40 +02:00"
            );
        }
        assert_eq!(
            progress.waits_line(),
            "next due 21:05:40 +02:00: the auction (B) · 1 wait(s) on the target's clock, the \
             last due 21:05:40 +02:00"
        );
        drop(late);
        assert_eq!(progress.waits_line(), "");
    }
}
