//! Running the server: bind, serve until SIGTERM/SIGINT, then stop accepting and let requests
//! in flight finish; periodic queue, idempotency and rate-limit maintenance alongside.

use std::future::Future;
use std::time::Duration;

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::config::HttpLimits;

mod head_deadline;

use crate::db::{Db, DbError};
use crate::repo::accounts::{self, NewAccount};
use crate::state::AppState;
use crate::{rate_limit, repo};

/// How often expired job leases are put back and old idempotency keys deleted.
const MAINTENANCE_EVERY: Duration = Duration::from_secs(30);

/// How often the SQLite WAL is checkpointed.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// A failure to start or run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        source: std::io::Error,
    },
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Creates an account with default limits when the database has none, so a fresh install is
/// usable at once. Returns it (with its only copy of the key) when it did.
pub async fn ensure_first_account(db: &Db) -> Result<Option<NewAccount>, DbError> {
    if accounts::count(db).await? > 0 {
        return Ok(None);
    }
    accounts::create(db, "local", stillreel_core::limits::DEFAULT_CLIP_LIMIT)
        .await
        .map(Some)
}

/// Binds the configured address.
pub async fn bind(state: &AppState) -> Result<TcpListener, ServeError> {
    let addr = state.config.listen;
    TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })
}

/// Serves `state` on `listener` until `shutdown` completes, then drains requests in flight.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    // Bound first: a taken port stops here, before anything runs.
    let metrics = match state.config.metrics_listen {
        None => None,
        Some(addr) => {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| ServeError::Bind {
                    addr: format!("{addr} (STILLREEL_METRICS_LISTEN)"),
                    source,
                })?;
            let app = crate::app::worker_health_router(state.services.clone());
            Some(tokio::spawn(async move {
                if let Err(err) = axum::serve(listener, app).await {
                    tracing::warn!(error = %err, "the metrics listener stopped");
                }
            }))
        }
    };
    let maintenance = tokio::spawn(maintain(state.db.clone()));
    let (sweep_db, sweep_storage) = (state.db.clone(), state.storage.clone());
    tokio::spawn(async move { sweep_leftovers(&sweep_db, &sweep_storage).await });
    let checkpoints = tokio::spawn(checkpoint(state.db.clone()));
    let rate_sweeps = state
        .rate_limiter
        .clone()
        .map(|limiter| tokio::spawn(rate_limit::sweep_periodically(limiter)));
    let app = crate::router(state.clone());
    let result = accept_loop(listener, app, state.config.http, shutdown).await;
    if let Some(metrics) = metrics {
        metrics.abort();
    }
    maintenance.abort();
    checkpoints.abort();
    if let Some(sweeps) = rate_sweeps {
        sweeps.abort();
    }
    state.db.close().await;
    result.map_err(ServeError::Io)
}

/// Accepts connections and serves each with hyper's HTTP/1, under the operator's limits:
/// at most `max_connections` open at once (the rest wait in the kernel's listen backlog, so an
/// overload is back-pressure, not dropped work), and `header_timeout` to send a request's
/// headers once they start, `idle_timeout` between requests. hyper only enforces a timeout with a timer, which `axum::serve` does not set;
/// hence this loop instead of it. The body deadline is the JSON extractor's (`extract.rs`).
async fn accept_loop(
    listener: TcpListener,
    app: axum::Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // hyper's timer runs from when it waits for a request, idle time included: a backstop
        // here. The two real deadlines are `HeadDeadline`'s.
        .header_read_timeout(limits.idle_timeout + limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(error = %err, "cannot set TCP_NODELAY");
        }
        let service =
            app.clone()
                .map_request(move |mut request: hyper::Request<hyper::body::Incoming>| {
                    request
                        .extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                    request
                });
        let connection = graceful.watch(builder.serve_connection(
            TokioIo::new(head_deadline::HeadDeadline::new(
                stream,
                limits.idle_timeout,
                limits.header_timeout,
            )),
            TowerToHyperService::new(service),
        ));
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, %peer, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// Once per start: stored files no record accounts for. Uploads are stored and recorded, and
/// deleted videos' files removed, on tasks no client can cancel, so only a stopped process
/// leaves such files (`repo/stray_uploads.rs`, `repo/deleted_videos.rs`). Answers how many
/// uploads and how many deleted videos' files it removed.
pub async fn sweep_leftovers(
    db: &Db,
    storage: &Arc<dyn crate::storage::Storage>,
) -> (usize, usize) {
    let uploads = match repo::stray_uploads::sweep(db, storage).await {
        Ok(n) => n,
        Err(err) => {
            tracing::warn!(error = %err, "the stray upload sweep failed");
            0
        }
    };
    if uploads > 0 {
        tracing::warn!(files = uploads, "removed uploads no record points at");
    }
    let videos = match repo::deleted_videos::sweep(db, storage).await {
        Ok(n) => n,
        Err(err) => {
            tracing::warn!(error = %err, "the deleted videos' file sweep failed");
            0
        }
    };
    if videos > 0 {
        tracing::warn!(files = videos, "removed files of deleted videos");
    }
    (uploads, videos)
}

async fn maintain(db: Db) {
    let mut tick = tokio::time::interval(MAINTENANCE_EVERY);
    loop {
        tick.tick().await;
        match repo::sweep::expired_leases(&db).await {
            Ok(0) => {}
            Ok(n) => tracing::warn!(jobs = n, "put back jobs whose worker lease expired"),
            Err(err) => tracing::warn!(error = %err, "queue maintenance failed"),
        }
        if let Err(err) = repo::idempotency::purge_expired(&db).await {
            tracing::warn!(error = %err, "idempotency key purge failed");
        }
    }
}

/// Keeps the SQLite WAL small: a passive checkpoint every [`CHECKPOINT_EVERY`] (the writer's
/// automatic checkpoints are off, see `db.rs`).
async fn checkpoint(db: Db) {
    if db.backend() != crate::db::Backend::Sqlite {
        return;
    }
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    loop {
        tick.tick().await;
        if let Err(err) = db.checkpoint().await {
            tracing::warn!(error = %err, "WAL checkpoint failed");
        }
    }
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %err, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down: no new connections; finishing requests in flight");
}
