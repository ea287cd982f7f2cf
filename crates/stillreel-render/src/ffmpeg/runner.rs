//! Runs ffmpeg: an explicit binary, progress from its stats lines, a wall-time limit that kills
//! the process, cancellation that kills it too, and the tail of stderr kept for the error.
//! [`RenderError`] (a failed run or step, naming its [`Step`]) is raised here first and by the
//! steps around a run.
//!
//! Over 400 lines of non-test code on purpose: a run (plain, or fed on standard input), the
//! loop that watches it and the error it ends with are one unit, read together.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use ffmpeg_sidecar::command::FfmpegCommand;
use ffmpeg_sidecar::event::FfmpegEvent;

use crate::ffmpeg::command::FfmpegArgs;

/// The step of a render that ran ffmpeg (or prepared for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Clip(usize),
    Stitch,
    Combine,
    Prepare,
    Store,
    /// The branded render (intro, speed ramp, outro) of a finished video.
    Brand,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Clip(i) => write!(f, "clip {i}"),
            Step::Stitch => f.write_str("stitch"),
            Step::Combine => f.write_str("combine"),
            Step::Prepare => f.write_str("prepare"),
            Step::Store => f.write_str("store"),
            Step::Brand => f.write_str("branding"),
        }
    }
}

/// A failed ffmpeg run or render step. Carries what an operator needs to see why.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// ffmpeg ran and exited unsuccessfully.
    #[error("ffmpeg failed at {step} ({status}): {stderr_tail}")]
    Failed {
        step: Step,
        status: ExitStatus,
        stderr_tail: String,
    },
    /// ffmpeg ran past the wall-time limit and was killed.
    #[error("ffmpeg at {step} exceeded {limit_secs} s and was killed; last output: {stderr_tail}")]
    TimedOut {
        step: Step,
        limit_secs: u64,
        stderr_tail: String,
    },
    /// The render was given up (its job's lease was lost, or the server is stopping) and
    /// ffmpeg was killed. Never stored: the job is settled by whoever owns it now.
    #[error("ffmpeg at {step} was stopped: the render was given up")]
    Cancelled { step: Step },
    /// ffmpeg could not be started (missing binary, permissions).
    #[error("could not start ffmpeg at {step}: {source}")]
    Spawn { step: Step, source: std::io::Error },
    /// A file operation around the run (work dir, concat list, storage) failed.
    #[error("{step}: {message}")]
    Io { step: Step, message: String },
    /// The effect stage (or a branding template) could not build its filters.
    #[error("effect for {step}: {source}")]
    Effect {
        step: Step,
        source: stillreel_effects::EffectError,
    },
    /// ffmpeg succeeded but its output failed the clip check (`probe::check_clip`)
    /// (wrong frame count, size or encoding): it is not joined to its siblings.
    #[error("{step} rejected: {message}")]
    Rejected { step: Step, message: String },
}

impl RenderError {
    /// The step that failed.
    pub fn step(&self) -> Step {
        match self {
            RenderError::Failed { step, .. }
            | RenderError::TimedOut { step, .. }
            | RenderError::Cancelled { step }
            | RenderError::Spawn { step, .. }
            | RenderError::Io { step, .. }
            | RenderError::Effect { step, .. }
            | RenderError::Rejected { step, .. } => *step,
        }
    }

    /// Whether the disk filled up: ffmpeg said "No space left on device", or a file operation
    /// failed with `ENOSPC` (its message keeps the `(os error 28)` of [`std::io::Error`]).
    pub fn is_out_of_space(&self) -> bool {
        match self {
            RenderError::Failed { stderr_tail, .. } | RenderError::TimedOut { stderr_tail, .. } => {
                is_out_of_space(stderr_tail)
            }
            RenderError::Spawn { source, .. } => is_enospc(source),
            RenderError::Io { message, .. } => is_out_of_space(message),
            RenderError::Cancelled { .. }
            | RenderError::Effect { .. }
            | RenderError::Rejected { .. } => false,
        }
    }

    /// The tail of ffmpeg's stderr, when ffmpeg ran.
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            RenderError::Failed { stderr_tail, .. } | RenderError::TimedOut { stderr_tail, .. } => {
                Some(stderr_tail)
            }
            _ => None,
        }
    }
}

/// `ENOSPC` on Linux and the BSDs ("No space left on device").
const ENOSPC: i32 = 28;

/// Whether `error` is the file system being full.
fn is_enospc(error: &std::io::Error) -> bool {
    error.raw_os_error() == Some(ENOSPC) || error.kind() == std::io::ErrorKind::StorageFull
}

/// Whether a failure's text says the disk was full: ffmpeg's stderr (`av_strerror` of
/// `ENOSPC`, "No space left on device") or an I/O error's message, which ends in
/// `(os error 28)`.
fn is_out_of_space(text: &str) -> bool {
    text.contains("No space left on device") || text.contains(&format!("(os error {ENOSPC})"))
}

/// Writes a run's standard input (see [`Runner::run_fed`]).
pub type Feed<'a> = dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()> + Send + 'a;

/// Lines of stderr kept for an error.
const TAIL_LINES: usize = 12;
/// Characters of stderr kept for an error.
const TAIL_CHARS: usize = 2000;

/// How often a run looks at its [`Cancel`] flag while ffmpeg is quiet.
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// A flag that stops the runs of one render. ffmpeg runs on blocking threads, which a dropped
/// future does not stop: without this, a job whose lease was lost, or a server shutting down,
/// left ffmpeg running to the end and threw its output away.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// Kills the runs that share this flag, and refuses new ones.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// A guard that cancels when dropped. The async code that awaits a blocking run holds it,
    /// so dropping that future (a `select!` that chose another branch) kills ffmpeg.
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Cancels its [`Cancel`] when dropped.
#[derive(Debug)]
pub struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// How ffmpeg is run.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The binary (`STILLREEL_FFMPEG`).
    pub ffmpeg: PathBuf,
    /// Wall time after which a run is killed.
    pub time_limit: Duration,
    /// Set when the render no longer wants the result: the run kills ffmpeg.
    pub cancel: Cancel,
    /// Data-segment limit for ffmpeg in bytes (`STILLREEL_FFMPEG_MAX_MEMORY`), `None` for none.
    pub memory_limit: Option<u64>,
}

impl Runner {
    pub fn new(ffmpeg: impl Into<PathBuf>, time_limit: Duration) -> Self {
        let mut ffmpeg = ffmpeg.into();
        // ffmpeg runs in the job's work directory: a relative path like `bin/ffmpeg` must be
        // made absolute first (a bare name is looked up on PATH and stays as it is).
        if ffmpeg.is_relative()
            && ffmpeg.components().count() > 1
            && let Ok(cwd) = std::env::current_dir()
        {
            ffmpeg = cwd.join(ffmpeg);
        }
        Runner {
            ffmpeg,
            time_limit,
            cancel: Cancel::default(),
            memory_limit: None,
        }
    }

    /// Runs ffmpeg under a memory limit of `bytes` (see `Runner::command`).
    pub fn with_memory_limit(mut self, bytes: Option<u64>) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// The process to start. With a memory limit, util-linux `prlimit` sets `RLIMIT_DATA` and
    /// then execs ffmpeg (same process, so killing it kills ffmpeg): the code forbids
    /// `unsafe`, which a `pre_exec` `setrlimit` would need. `RLIMIT_DATA` rather than
    /// `RLIMIT_AS`: it counts the heap and private writable mappings, where frames live, but
    /// not the address space threads and allocator arenas merely reserve, which made an
    /// address-space limit fail healthy encodes.
    fn command(&self) -> FfmpegCommand {
        match self.memory_limit {
            None => FfmpegCommand::new_with_path(&self.ffmpeg),
            Some(bytes) => {
                let mut inner = std::process::Command::new("prlimit");
                inner
                    .arg(format!("--data={bytes}"))
                    .arg("--")
                    .arg(&self.ffmpeg)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                let mut command = FfmpegCommand::from(inner);
                // What `new_with_path` adds, which the event parser relies on.
                command.args(["-loglevel", "level+info"]);
                command
            }
        }
    }

    /// Runs `cmd` in `dir`, calling `progress` with frames done (`0..=planned_frames`, never
    /// decreasing). Blocking: call it from a blocking thread.
    pub fn run(
        &self,
        step: Step,
        cmd: &FfmpegArgs,
        dir: &Path,
        progress: &mut dyn FnMut(u32),
    ) -> Result<(), RenderError> {
        self.run_with_input(step, cmd, dir, progress, None)
    }

    /// Like [`Runner::run`], with `feed` writing ffmpeg's standard input (a `pipe:0` input of
    /// `cmd`) on a thread of its own while this one watches progress, clock and cancellation.
    /// Standard input is closed when `feed` returns. A feed that fails because ffmpeg stopped
    /// reading leaves the verdict to ffmpeg's exit; any other feed error kills ffmpeg and
    /// fails the run with that error.
    pub fn run_fed(
        &self,
        step: Step,
        cmd: &FfmpegArgs,
        dir: &Path,
        progress: &mut dyn FnMut(u32),
        feed: &mut Feed<'_>,
    ) -> Result<(), RenderError> {
        self.run_with_input(step, cmd, dir, progress, Some(feed))
    }

    fn run_with_input(
        &self,
        step: Step,
        cmd: &FfmpegArgs,
        dir: &Path,
        progress: &mut dyn FnMut(u32),
        feed: Option<&mut Feed<'_>>,
    ) -> Result<(), RenderError> {
        if self.cancel.is_cancelled() {
            return Err(RenderError::Cancelled { step });
        }
        let mut command = self.command();
        command.args(&cmd.args);
        command.as_inner_mut().current_dir(dir);
        // Its own process group: a signal for the worker's group (Ctrl-C, `kill -TERM -pgid`
        // at shutdown) does not kill a render the worker still means to finish or hand back.
        // A worker killed with -9 leaves its ffmpeg running; the next worker to start on this
        // data dir kills it (`worker/scratch.rs`: ffmpeg runs inside the dead worker's folder).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(command.as_inner_mut(), 0);
        let mut child = command
            .spawn()
            .map_err(|source| RenderError::Spawn { step, source })?;
        let stdin = child.take_stdin();
        let events = match child.iter() {
            Ok(events) => events,
            Err(e) => {
                // Never leave a running ffmpeg behind.
                let _ = child.kill();
                let _ = child.wait();
                return Err(RenderError::Io {
                    step,
                    message: e.to_string(),
                });
            }
        };

        // The event iterator blocks on ffmpeg's stderr; read it on its own thread so this one
        // can watch the clock.
        let (tx, rx) = mpsc::channel::<FfmpegEvent>();
        let reader = std::thread::spawn(move || {
            for event in events {
                if tx.send(event).is_err() {
                    break;
                }
            }
        });

        let (fed_tx, fed_rx) = mpsc::channel::<std::io::Result<()>>();
        std::thread::scope(|scope| {
            if let Some(feed) = feed {
                let fed_tx = fed_tx.clone();
                scope.spawn(move || {
                    let result = match stdin {
                        Some(mut stdin) => {
                            widen_pipe(&stdin);
                            feed(&mut stdin)
                        }
                        None => Err(std::io::Error::other("ffmpeg has no standard input")),
                    };
                    // `stdin` is dropped here: ffmpeg reads the end of its input.
                    let _ = fed_tx.send(result);
                });
            } else {
                drop(stdin);
                let _ = fed_tx.send(Ok(()));
            }
            drop(fed_tx);
            self.watch(step, cmd, child, rx, reader, progress, &fed_rx)
        })
    }

    /// Watches a started run to its end (see [`Runner::run`]).
    #[expect(clippy::too_many_arguments, reason = "the parts of one started run")]
    fn watch(
        &self,
        step: Step,
        cmd: &FfmpegArgs,
        mut child: ffmpeg_sidecar::child::FfmpegChild,
        rx: mpsc::Receiver<FfmpegEvent>,
        reader: std::thread::JoinHandle<()>,
        progress: &mut dyn FnMut(u32),
        fed: &mpsc::Receiver<std::io::Result<()>>,
    ) -> Result<(), RenderError> {
        let started = Instant::now();
        let mut feed_error: Option<std::io::Error> = None;
        let mut tail: VecDeque<String> = VecDeque::new();
        let mut best = 0u32;
        let mut timed_out = false;
        let mut cancelled = false;
        loop {
            if self.cancel.is_cancelled() {
                cancelled = true;
                let _ = child.kill();
                break;
            }
            if let Ok(Err(e)) = fed.try_recv()
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                // The frames could not be made: ffmpeg must not finish a short clip.
                feed_error = Some(e);
                let _ = child.kill();
                break;
            }
            let left = self.time_limit.saturating_sub(started.elapsed());
            if left.is_zero() {
                timed_out = true;
                let _ = child.kill();
                break;
            }
            match rx.recv_timeout(left.min(CANCEL_POLL)) {
                Ok(FfmpegEvent::Progress(p)) => {
                    let frames = p.frame.min(cmd.planned_frames);
                    if frames > best {
                        best = frames;
                        progress(best);
                    }
                }
                Ok(FfmpegEvent::Log(_, line)) => remember(&mut tail, line),
                // With file output the iterator reports "No streams found" about stdout:
                // benign (TOOLCHAIN.md).
                Ok(FfmpegEvent::Error(e)) if e.contains("No streams found") => {}
                Ok(FfmpegEvent::Error(e)) => remember(&mut tail, e),
                Ok(_) => {}
                // Quiet for a while: look at the flag and the clock again.
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let status = child.wait().map_err(|e| RenderError::Io {
            step,
            message: e.to_string(),
        })?;
        drop(rx);
        let _ = reader.join();
        let stderr_tail = join_tail(&tail);
        if cancelled {
            return Err(RenderError::Cancelled { step });
        }
        // A feed still running ends now (ffmpeg is gone: its writes fail); a late feed
        // error counts too.
        if feed_error.is_none()
            && let Ok(Err(e)) = fed.recv()
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            feed_error = Some(e);
        }
        if let Some(e) = feed_error {
            return Err(RenderError::Io {
                step,
                message: format!("drawing frames: {e}"),
            });
        }
        if timed_out {
            return Err(RenderError::TimedOut {
                step,
                limit_secs: self.time_limit.as_secs(),
                stderr_tail,
            });
        }
        if !status.success() {
            return Err(RenderError::Failed {
                step,
                status,
                stderr_tail,
            });
        }
        if best < cmd.planned_frames {
            progress(cmd.planned_frames);
        }
        Ok(())
    }
}

fn remember(tail: &mut VecDeque<String>, line: String) {
    let line = line.trim();
    if line.is_empty() {
        return;
    }
    if tail.len() == TAIL_LINES {
        tail.pop_front();
    }
    tail.push_back(line.to_owned());
}

fn join_tail(tail: &VecDeque<String>) -> String {
    let text = tail.iter().cloned().collect::<Vec<_>>().join("\n");
    let skip = text.chars().count().saturating_sub(TAIL_CHARS);
    text.chars().skip(skip).collect()
}

/// The pipe size asked for on a fed run's standard input: Linux's default
/// `/proc/sys/fs/pipe-max-size`, the most an unprivileged process may ask for.
pub const FEED_PIPE_BYTES: usize = 1 << 20;

/// Widens the pipe to ffmpeg's standard input from the kernel's 64 KiB to
/// [`FEED_PIPE_BYTES`]. A raw 720p frame is 1.3 MiB: through 64 KiB the feeding thread and
/// ffmpeg's reader hand over twenty times a frame, each a pair of context switches on cores
/// x264 wants, which cost a 150-frame clip about 0.4 s (docs/BENCHMARKS.md). Best effort: a
/// kernel that refuses (a lower `pipe-max-size`) leaves the pipe as it was, only slower.
fn widen_pipe(stdin: &std::process::ChildStdin) {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::pipe::fcntl_setpipe_size(stdin, FEED_PIPE_BYTES) {
        tracing::debug!(error = %e, "ffmpeg's input pipe keeps its size");
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stdin;
}

/// A file error at `step`.
pub(crate) fn io_error(step: Step, error: impl std::fmt::Display) -> RenderError {
    RenderError::Io {
        step,
        message: error.to_string(),
    }
}

#[cfg(test)]
mod out_of_space_tests {
    use super::{ENOSPC, is_enospc, is_out_of_space};

    #[test]
    fn a_full_disk_is_told_from_other_failures() {
        let enospc = std::io::Error::from_raw_os_error(ENOSPC);
        assert!(is_enospc(&enospc));
        assert!(is_out_of_space(&enospc.to_string()), "{enospc}");
        let denied = std::io::Error::from_raw_os_error(13);
        assert!(!is_enospc(&denied));
        assert!(!is_out_of_space(&denied.to_string()));
        assert!(is_out_of_space(
            "[out#0/mp4 @ 0x55d] Error writing trailer: No space left on device"
        ));
        assert!(!is_out_of_space("Invalid data found when processing input"));
        // "(os error 280)" is not ENOSPC.
        assert!(!is_out_of_space("weird (os error 280)"));
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::process::{Command, Stdio};

    use super::{FEED_PIPE_BYTES, widen_pipe};

    #[test]
    fn a_fed_runs_pipe_is_widened_as_far_as_the_kernel_allows() {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("cat starts");
        let stdin = child.stdin.take().expect("piped");
        let before = rustix::pipe::fcntl_getpipe_size(&stdin).expect("pipe size");
        widen_pipe(&stdin);
        let after = rustix::pipe::fcntl_getpipe_size(&stdin).expect("pipe size");
        let max: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
            .expect("pipe-max-size")
            .trim()
            .parse()
            .expect("a number");
        if max >= FEED_PIPE_BYTES {
            assert_eq!(after, FEED_PIPE_BYTES, "widened from {before}");
        } else {
            assert!(
                after >= before,
                "a refused widening keeps the pipe as it was"
            );
        }
        drop(stdin);
        child.wait().expect("cat exits");
    }
}
