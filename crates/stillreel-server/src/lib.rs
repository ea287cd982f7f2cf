//! The stillreel REST server: configuration, persistence (SQLite or PostgreSQL), the render
//! job queue and its workers, storage of rendered files, and the HTTP API of
//! `docs/API-DESIGN.md`. The `stillreel` binary (`main.rs`) parses the command line and calls
//! [`serve`] or [`worker`].
//!
//! Layers, inward to outward (the persistence layers never name the HTTP side or the worker;
//! `scripts/layers.toml` checks it):
//!
//! - configuration: [`config`] (one typed [`Config`] read from the environment at start-up);
//! - persistence: [`db`] (the SQLite or PostgreSQL handle, [`Db`]), [`queue`] (the job queue:
//!   enqueue, claim, heartbeat, complete, fail), [`repo`] (every other SQL statement),
//!   [`webhook`] (events and signatures, pure), [`storage`] (where rendered files live), and
//!   the SQLite-only answer caches [`cache`] (`get_video`) and [`page_cache`] (`get_videos`);
//! - shared by the worker and the HTTP side: [`samples`] (which bundled sample files may be
//!   read), [`metrics`] (Prometheus text: requests, the queue, the job slots) and [`disk`]
//!   (the free-space guard);
//! - the worker: [`worker`] (job loops that claim jobs and run them, whatever their kind);
//! - the HTTP side: [`routes`] (the endpoints), [`extract`] (request extractors), [`error`]
//!   (the one error envelope), [`headers`] (security headers), [`rate_limit`] and
//!   [`upload_slots`] (per-account limits), [`openapi`] (the OpenAPI document), [`state`]
//!   (what every handler shares, [`AppState`]) and [`app`] (the router and its layers,
//!   [`router`]);
//! - running: [`serve`] (bind, serve, shut down gracefully, periodic maintenance).
//!
//! For the render worker, the entry points are [`queue`] (claim/heartbeat/complete/fail),
//! [`repo::render`] (read a job's input, move statuses and progress forward), and
//! [`storage::Storage`] (write rendered files). See `docs/SERVER.md`.

pub mod app;
pub mod cache;
pub mod config;
pub mod db;
pub mod disk;
pub mod error;
pub mod extract;
pub mod headers;
pub mod metrics;
pub mod openapi;
pub mod page_cache;
pub mod queue;
pub mod rate_limit;
pub mod repo;
pub mod routes;
pub mod samples;
pub mod serve;
pub mod state;
pub mod storage;
pub mod upload_slots;
pub mod webhook;
pub mod worker;

pub use app::router;
pub use config::Config;
pub use db::Db;
pub use state::{AppState, Services};
