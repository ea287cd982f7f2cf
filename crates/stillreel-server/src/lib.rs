//! The stillreel REST server: configuration, persistence (SQLite or PostgreSQL), the render
//! job queue, storage of rendered files, and the HTTP API of `docs/API-DESIGN.md`.
//!
//! For the render worker, the entry points are [`queue`] (claim/heartbeat/complete/fail),
//! [`repo::render`] (read a job's input, move statuses and progress forward), and
//! [`storage::Storage`] (write rendered files). See `docs/SERVER.md`.

pub mod app;
pub mod cache;
pub mod config;
pub mod db;
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
