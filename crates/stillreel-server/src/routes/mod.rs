//! The HTTP surface: one module per group of endpoints, and [`api`], the one list of the
//! documented routes (the router and the OpenAPI paths both come from it).

pub mod brand_kits;
pub mod catalog;
mod disk_guard;
pub mod files;
pub mod library;
pub mod ops;
mod params;
pub mod projects;
pub mod stored_uploads;
mod upload_kind;
pub mod uploads;
pub mod videos;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub use self::params::{QueryPairs, uuid_body};

/// The documented API routes, relative to `/api/v1`: each handler's `#[utoipa::path]` gives
/// its method and path to the router and its operation to the document.
pub fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(videos::create_video))
        .routes(routes!(videos::combine_video_clips))
        .routes(routes!(videos::get_video))
        .routes(routes!(library::get_videos))
        .routes(routes!(library::delete_video))
        .routes(routes!(uploads::upload_media))
        .routes(routes!(stored_uploads::get_uploads))
        .routes(routes!(stored_uploads::delete_upload))
        .routes(routes!(brand_kits::create_brand_kit))
        .routes(routes!(brand_kits::get_brand_kits))
        .routes(routes!(brand_kits::update_brand_kit))
        .routes(routes!(brand_kits::delete_brand_kit))
        .routes(routes!(projects::create_project))
        .routes(routes!(projects::get_projects))
        .routes(routes!(catalog::get_templates))
        .routes(routes!(catalog::get_engines))
        .routes(routes!(projects::get_account))
}
