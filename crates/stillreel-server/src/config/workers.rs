//! `STILLREEL_WORKERS`: how many render jobs this process runs at once, and its default from
//! the machine's cores (docs/SERVER.md, "Workers").

use std::fmt;

use super::error::ConfigError;

/// The fewest job slots the default gives, however few cores: one video's clips still render
/// two at a time, and a short job (a prepare, a stitch, a webhook) does not wait behind a clip.
/// On 2 cores, 2 slots made a 30 s 1080p video in 30.4 s against 34.6 s with 1
/// (docs/BENCHMARKS.md, "Workers").
pub const MIN_DEFAULT_WORKERS: usize = 2;

/// The default of `STILLREEL_WORKERS` on a machine with `cores` available cores: one job slot
/// per core, at least [`MIN_DEFAULT_WORKERS`].
///
/// A slot runs one job, mostly one x264 encode fed by the camera, and one encode keeps about
/// one core busy, so slots beyond the cores only queue on the CPU; slots below them leave
/// cores idle (16 cores with the old fixed default of 2 made a 30 s 1080p video in 5.6 s, 16
/// slots in 3.7 s against 3.5 s for x264 alone on the same frames; on 2 cores, 3 and 4 slots
/// were no faster than 2).
pub fn default_workers(cores: usize) -> usize {
    cores.max(MIN_DEFAULT_WORKERS)
}

/// The cores this process may use (`std::thread::available_parallelism`: CPU affinity and
/// cgroup quotas included), 1 when the system cannot tell.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Where the configured number of workers came from, for the start-up log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkersFrom {
    /// `STILLREEL_WORKERS` was set.
    Variable,
    /// `STILLREEL_WORKERS` was unset: [`default_workers`] of this many available cores.
    Cores(usize),
}

/// The number of workers and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workers {
    pub count: usize,
    pub from: WorkersFrom,
}

impl Workers {
    /// `STILLREEL_WORKERS` as read (trimmed, empty = unset), else the default for `cores`.
    pub fn read(value: Option<&str>, cores: usize) -> Result<Workers, ConfigError> {
        match value {
            None => Ok(Workers {
                count: default_workers(cores),
                from: WorkersFrom::Cores(cores),
            }),
            Some(text) => text
                .parse()
                .map(|count| Workers {
                    count,
                    from: WorkersFrom::Variable,
                })
                .map_err(|_| ConfigError {
                    var: "STILLREEL_WORKERS",
                    message: format!("{text:?} is not a whole number"),
                }),
        }
    }
}

/// The start-up log's line, e.g. `workers: 2 (from 2 available cores; STILLREEL_WORKERS unset)`.
impl fmt::Display for Workers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.from {
            WorkersFrom::Variable => write!(f, "workers: {} (STILLREEL_WORKERS)", self.count),
            WorkersFrom::Cores(cores) => write!(
                f,
                "workers: {} (from {cores} available core{}; STILLREEL_WORKERS unset)",
                self.count,
                if cores == 1 { "" } else { "s" }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_one_worker_per_core_and_at_least_two() {
        for (cores, workers) in [(1, 2), (2, 2), (3, 3), (4, 4), (16, 16), (64, 64)] {
            assert_eq!(default_workers(cores), workers, "{cores} cores");
        }
    }

    #[test]
    fn a_set_variable_wins_over_the_cores() {
        let set = Workers::read(Some("0"), 16).expect("0 is valid");
        assert_eq!(set.count, 0);
        assert_eq!(set.to_string(), "workers: 0 (STILLREEL_WORKERS)");
        let unset = Workers::read(None, 2).expect("unset is valid");
        assert_eq!(unset.count, 2);
        assert_eq!(
            unset.to_string(),
            "workers: 2 (from 2 available cores; STILLREEL_WORKERS unset)"
        );
        assert_eq!(
            Workers::read(None, 1).expect("unset").to_string(),
            "workers: 2 (from 1 available core; STILLREEL_WORKERS unset)"
        );
        assert!(Workers::read(Some("-1"), 2).is_err());
        assert!(Workers::read(Some("two"), 2).is_err());
    }

    #[test]
    fn this_machine_has_at_least_one_core() {
        assert!(available_cores() >= 1);
    }
}
