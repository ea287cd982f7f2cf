//! The router and its layers.

use std::any::Any;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderName, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use stillreel_core::{Engine, PROCEDURAL_VFX, catalog};
use tower::ServiceBuilder;
use tower_http::LatencyUnit;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::config::Config;
use crate::db::Db;
use crate::error::{ApiError, envelope_response};
use crate::metrics::Metrics;
use crate::openapi;
use crate::rate_limit::AccountLimiter;
use crate::routes::{self, files, ops};
use crate::state::{AppState, AuthCache, Services};
use crate::storage::{self, Storage};

/// The built-in catalog, followed by the deployment's own templates when it has any. The
/// state holds `&'static` templates; a catalog with extra templates is built once per state
/// (once per process in production) and kept for the process's life.
fn with_extra_templates(extra: &[stillreel_core::Template]) -> &'static [stillreel_core::Template] {
    if extra.is_empty() {
        return catalog::builtin_templates();
    }
    let mut all = catalog::builtin_templates().to_vec();
    all.extend_from_slice(extra);
    Vec::leak(all)
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

impl Services {
    /// The services of a process on `db` with `config` and `storage` (what [`storage::open`]
    /// made of the config): the built-in templates and the deployment's own, the procedural vfx.
    pub fn new(db: Db, config: Config, storage: Arc<dyn Storage>) -> Self {
        Services {
            db,
            templates: with_extra_templates(&config.extra_templates),
            config: Arc::new(config),
            storage,
            available_vfx: Arc::new(RwLock::new(PROCEDURAL_VFX.to_vec())),
            available_engines: Arc::new(RwLock::new(Engine::BUILT_IN.to_vec())),
            metrics: Arc::new(Metrics::default()),
            providers: Arc::default(),
            jobs_queued: Arc::new(tokio::sync::Notify::new()),
        }
    }
}

impl AppState {
    /// The state of a server on `db` with `config`: local media storage (the configured
    /// folder, by default under the data dir), the built-in templates, the procedural vfx.
    pub fn new(db: Db, config: Config) -> Self {
        let storage: Arc<dyn Storage> = Arc::new(storage::local(&config));
        Self::with_storage(db, config, storage)
    }

    /// [`AppState::new`] with the given storage (what [`storage::open`] made of the config).
    pub fn with_storage(db: Db, config: Config, storage: Arc<dyn Storage>) -> Self {
        Self::from_services(Services::new(db, config, storage))
    }

    /// The API's state over `services`, adding what only the API uses.
    pub fn from_services(services: Services) -> Self {
        let config = &services.config;
        let videos = crate::repo::videos::Writer::new(
            services.db.clone(),
            Arc::clone(&services.jobs_queued),
        );
        let rate_limiter = config
            .rate_limit
            .map(|limit| Arc::new(AccountLimiter::new(limit)));
        let auth_cache = Arc::new(AuthCache::new(config.http.auth_failures_per_minute));
        let upload_slots = crate::upload_slots::UploadSlots::new(config.http.account_uploads);
        AppState::from_api(crate::state::Api {
            services,
            auth_cache,
            videos,
            rate_limiter,
            upload_slots,
        })
    }
}

/// The route a response came from, copied from the request so outer layers can label metrics.
#[derive(Debug, Clone)]
struct RouteLabel(String);

async fn label_route(matched: Option<MatchedPath>, request: Request, next: Next) -> Response {
    let label = matched.map(|m| m.as_str().to_owned());
    let mut response = next.run(request).await;
    if let Some(label) = label {
        response.extensions_mut().insert(RouteLabel(label));
    }
    response
}

async fn record_metrics(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let is_files = request.uri().path().starts_with("/files/");
    let response = next.run(request).await;
    let route = match response.extensions().get::<RouteLabel>() {
        Some(RouteLabel(route)) => route.as_str(),
        None if is_files => "/files",
        None => "unmatched",
    };
    state
        .metrics
        .record(route, response.status().as_u16(), started.elapsed());
    response
}

/// Gives errors produced outside our handlers (axum's 405, `ServeDir`'s 404, ...) the
/// envelope, keeping their headers (`Allow` on 405).
async fn envelope_bare_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error())
        || response.headers().contains_key(header::CONTENT_TYPE)
    {
        return response;
    }
    let (parts, _) = response.into_parts();
    let (code, message) = match status {
        StatusCode::NOT_FOUND => ("not_found", "no such resource".to_owned()),
        StatusCode::METHOD_NOT_ALLOWED => {
            ("method_not_allowed", ApiError::MethodNotAllowed.to_string())
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            ("payload_too_large", ApiError::PayloadTooLarge.to_string())
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => (
            "unsupported_media_type",
            ApiError::UnsupportedMediaType.to_string(),
        ),
        StatusCode::RANGE_NOT_SATISFIABLE => (
            "range_not_satisfiable",
            "the requested range is not satisfiable".to_owned(),
        ),
        s if s.is_server_error() => ("internal", "internal error".to_owned()),
        _ => ("bad_request", "the request is not valid".to_owned()),
    };
    let mut fixed = envelope_response(status, code, message, &[]);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_LENGTH {
            fixed.headers_mut().insert(name.clone(), value.clone());
        }
    }
    fixed
}

fn panic_response(err: Box<dyn Any + Send + 'static>) -> Response {
    let detail = err
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| err.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    tracing::error!(panic = detail, "handler panicked");
    envelope_response(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "internal error; the fault is ours and has been logged".to_owned(),
        &[],
    )
}

async fn route_not_found() -> ApiError {
    ApiError::NotFound {
        message: "no such route".to_owned(),
        details: Vec::new(),
    }
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

async fn serve_openapi() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        openapi::json(),
    )
        .into_response()
}

/// The API routes, under `/api/v1`: the documented ones and the document itself.
fn api() -> Router<AppState> {
    let (router, _) = routes::api().split_for_parts();
    router
        .route("/openapi.json", get(serve_openapi))
        .fallback(route_not_found)
}

/// What a `stillreel worker` process answers on `STILLREEL_WORKER_LISTEN`, and `serve` on
/// `STILLREEL_METRICS_LISTEN`: `/healthz` and `/metrics` (queue depth included), nothing of
/// the API. Here, beside the API's router, so
/// the worker depends on nothing of the HTTP side.
pub fn worker_health_router(services: Services) -> Router {
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/metrics", get(ops::metrics))
        .with_state(services)
}

/// The whole application: API, operations endpoints, media files, web form; with request ids,
/// tracing, metrics, envelopes for every error, and a panic guard.
pub fn router(state: AppState) -> Router {
    let web_dir = state.config.web_dir.clone();
    let samples_root = state.config.samples_dir.clone();
    let routed = Router::new()
        .nest("/api/v1", api())
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz));
    // With STILLREEL_METRICS_LISTEN, /metrics lives on that address only (`serve.rs`).
    let routed = if state.config.metrics_listen.is_none() {
        routed.route("/metrics", get(ops::metrics))
    } else {
        routed
    };
    let routed = routed
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn(label_route))
        .merge(files::media(&state.config.storage))
        .merge(files::samples(&samples_root));
    let routed = files::with_web(routed, &web_dir, route_not_found);

    let layers = ServiceBuilder::new()
        .layer(middleware::from_fn(crate::headers::drop_unsafe_request_id))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .layer(TraceLayer::new_for_http().make_span_with(|request: &Request| {
            let id = request
                .extensions()
                .get::<RequestId>()
                .and_then(|id| id.header_value().to_str().ok())
                .unwrap_or("-");
            tracing::info_span!("request", id = %id, method = %request.method(), path = %request.uri().path())
        })
        .on_request(())
        // The access line is at debug (RUST_LOG=info,tower_http=debug): at info it costs a
        // third of a cheap request's time, and /metrics already counts every request.
        .on_response(DefaultOnResponse::new().level(Level::DEBUG).latency_unit(LatencyUnit::Micros)))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(middleware::from_fn(crate::headers::security_headers))
        .layer(middleware::from_fn_with_state(state.clone(), record_metrics))
        .layer(middleware::from_fn(envelope_bare_errors))
        .layer(CatchPanicLayer::custom(panic_response));

    routed.layer(layers).with_state(state)
}
