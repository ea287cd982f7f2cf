//! Group commit for new videos on SQLite.
//!
//! SQLite has one writer. Committing each video on its own costs a transaction per request:
//! two extra round trips to sqlx's connection thread, and a WAL append of every page the
//! request touched (the same B-tree leaves of `videos`, `clips`, `jobs` and their indexes,
//! again and again). A single writer task instead takes every create waiting at that moment
//! (up to [`MAX_BATCH`]), inserts them in one transaction and commits once; each request still
//! gets its own record, and its idempotency answer is stored in that same transaction. Under
//! no load a batch is one request and nothing waits for company.
//!
//! If a batch fails, each of its requests is retried alone, so one bad request cannot fail
//! the others. PostgreSQL has concurrent writers and does not use this.

use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot};

use super::write::{NewVideo, store};
use crate::db::{Db, DbError};

/// Most videos committed together.
pub const MAX_BATCH: usize = 64;

type Reply = Result<String, DbError>;

/// Handle to the writer task. Cheap to clone; the task ends when every handle is gone.
#[derive(Debug, Clone)]
pub(super) struct GroupCommit {
    queue: mpsc::Sender<(NewVideo, oneshot::Sender<Reply>)>,
}

impl GroupCommit {
    /// Starts the writer task on `db` (call inside a Tokio runtime).
    pub fn spawn(db: Db) -> Self {
        let (queue, rx) = mpsc::channel(1024);
        tokio::spawn(run(db, rx));
        Self { queue }
    }

    /// Stores `video` (in some batch) and returns its `queued` record's JSON.
    pub async fn create(&self, video: NewVideo) -> Reply {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send((video, reply))
            .await
            .map_err(|_| DbError::Writer("has stopped"))?;
        answer
            .await
            .map_err(|_| DbError::Writer("dropped a request"))?
    }
}

/// The writer's loop. It is the only writer of creates on SQLite, so it must outlive any bug
/// in one batch: a panic while storing is caught and answered as that batch's error (the
/// requests get a 500, later ones are served as usual) instead of ending the task, which
/// would fail every create until a restart.
async fn run(db: Db, mut rx: mpsc::Receiver<(NewVideo, oneshot::Sender<Reply>)>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while rx.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let items: Vec<&NewVideo> = batch.iter().map(|(v, _)| v).collect();
        match guarded_store(&db, &items).await {
            Ok(records) => {
                for ((_, reply), record) in batch.drain(..).zip(records) {
                    let _ = reply.send(Ok(record));
                }
            }
            Err(err) if batch.len() == 1 => {
                if let Some((_, reply)) = batch.pop() {
                    let _ = reply.send(Err(err));
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, size = batch.len(), "batched create failed; retrying one by one");
                for (video, reply) in batch.drain(..) {
                    let result = guarded_store(&db, &[&video]).await.and_then(|mut r| {
                        r.pop()
                            .ok_or_else(|| DbError::Writer("answered an empty batch"))
                    });
                    let _ = reply.send(result);
                }
            }
        }
    }
}

/// [`store`], with a panic turned into an error.
async fn guarded_store(db: &Db, items: &[&NewVideo]) -> Result<Vec<String>, DbError> {
    guarded(items.len(), store(db, items)).await
}

/// Runs one batch's work; a panic in it becomes that batch's error, so the writer lives on.
async fn guarded<T>(
    size: usize,
    work: impl Future<Output = Result<T, DbError>>,
) -> Result<T, DbError> {
    std::panic::AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .unwrap_or_else(|_| {
            tracing::error!(size, "the create writer panicked storing a batch");
            Err(DbError::Writer("panicked"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_batch_is_an_error_and_the_next_one_runs() {
        let failed = guarded::<()>(3, async { panic!("a bug in one batch") }).await;
        assert!(
            matches!(&failed, Err(DbError::Writer("panicked"))),
            "{failed:?}"
        );
        assert_eq!(guarded(1, async { Ok(7) }).await.ok(), Some(7));
    }
}
