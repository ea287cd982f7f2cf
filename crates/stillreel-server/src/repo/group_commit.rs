//! Group commit for `create_video` on SQLite.
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
use stillreel_core::{CreateVideoRequest, Video};
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use crate::db::{Db, DbError};
use crate::repo::{idempotency, videos};

/// Most creates committed together.
pub const MAX_BATCH: usize = 64;

/// One create to store.
#[derive(Debug)]
pub struct NewVideo {
    pub account: Uuid,
    pub project: Uuid,
    pub request: CreateVideoRequest,
    /// The request's `Idempotency-Key`, whose answer is stored with the video.
    pub idempotency_key: Option<String>,
}

type Reply = Result<(Video, String), DbError>;

/// Handle to the writer task. Cheap to clone; the task ends when every handle is gone.
#[derive(Debug, Clone)]
pub struct CreateWriter {
    queue: mpsc::Sender<(NewVideo, oneshot::Sender<Reply>)>,
}

impl CreateWriter {
    /// Starts the writer task on `db` (call inside a Tokio runtime).
    pub fn spawn(db: Db) -> Self {
        let (queue, rx) = mpsc::channel(1024);
        tokio::spawn(run(db, rx));
        Self { queue }
    }

    /// Stores `video` (in some batch) and returns its `queued` record and that record's JSON.
    pub async fn create(&self, video: NewVideo) -> Reply {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send((video, reply))
            .await
            .map_err(|_| DbError::Corrupt("the create writer has stopped".to_owned()))?;
        answer
            .await
            .map_err(|_| DbError::Corrupt("the create writer dropped a request".to_owned()))?
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
                            .ok_or_else(|| DbError::Corrupt("empty batch result".to_owned()))
                    });
                    let _ = reply.send(result);
                }
            }
        }
    }
}

/// [`store`], with a panic turned into an error.
async fn guarded_store(db: &Db, items: &[&NewVideo]) -> Result<Vec<(Video, String)>, DbError> {
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
            Err(DbError::Corrupt("the create writer panicked".to_owned()))
        })
}

/// Inserts `items` in one transaction.
async fn store(db: &Db, items: &[&NewVideo]) -> Result<Vec<(Video, String)>, DbError> {
    let mut tx = db.begin().await?;
    let mut records = Vec::with_capacity(items.len());
    for item in items {
        let video =
            videos::insert_create(&mut tx, item.account, item.project, &item.request).await?;
        let json = serde_json::to_string(&video)
            .map_err(|err| DbError::Corrupt(format!("serialize: {err}")))?;
        if let Some(key) = &item.idempotency_key {
            idempotency::finish(&mut tx, item.account, key, &json).await?;
        }
        records.push((video, json));
    }
    tx.commit().await?;
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_batch_is_an_error_and_the_next_one_runs() {
        let failed = guarded::<()>(3, async { panic!("a bug in one batch") }).await;
        assert!(
            matches!(&failed, Err(DbError::Corrupt(m)) if m.contains("panicked")),
            "{failed:?}"
        );
        assert_eq!(guarded(1, async { Ok(7) }).await.ok(), Some(7));
    }
}
