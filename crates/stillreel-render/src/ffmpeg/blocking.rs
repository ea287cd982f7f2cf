//! Running blocking work (an ffmpeg run, a check, an upload) on tokio's blocking pool while
//! the job's task reports its progress: frames done come back over a channel, so the observer
//! is only ever called from the job's own task.

use tokio::sync::mpsc;

use crate::ffmpeg::runner::io_error;
use crate::ffmpeg::runner::{RenderError, Step};

/// Runs `work` on a blocking thread, handing it a callback for frames done; each report is
/// passed to `on_frames` on this task. Dropping the returned future does not stop `work`: the
/// caller holds a [`crate::ffmpeg::runner::CancelOnDrop`] for that.
pub(crate) async fn run_blocking<T, E, W>(
    step: Step,
    work: W,
    on_frames: impl Fn(u32),
) -> Result<T, E>
where
    T: Send + 'static,
    E: From<RenderError> + Send + 'static,
    W: FnOnce(&mut dyn FnMut(u32)) -> Result<T, E> + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
    let mut handle = tokio::task::spawn_blocking(move || {
        work(&mut |frames| {
            let _ = tx.send(frames);
        })
    });
    let result = loop {
        tokio::select! {
            Some(frames) = rx.recv() => on_frames(frames),
            result = &mut handle => break result,
        }
    };
    result.map_err(|e| E::from(io_error(step, e)))?
}
