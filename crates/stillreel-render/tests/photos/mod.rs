//! Photos for the renderer in tests: a renderer serving local photos as its own files, a PNG
//! writer, and the real photographs of docs/EFFECTS.md. Apart from `common`, which the server's
//! tests include too, because these need the render crate's own dependencies (`png`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Photos a renderer fetches as its own files: `http://test.invalid/f/<index>`.
#[derive(Debug)]
pub struct IndexedFiles(pub Vec<PathBuf>);

impl stillreel_render::OwnFiles for IndexedFiles {
    fn local_file(&self, url_path: &str) -> Option<PathBuf> {
        let index: usize = url_path.strip_prefix("/f/")?.parse().ok()?;
        self.0.get(index).cloned()
    }
}

/// A renderer storing under `root/store` and serving `photos` as
/// `http://test.invalid/f/<index>`, and its storage.
pub fn photo_renderer(
    root: &Path,
    photos: Vec<PathBuf>,
) -> (
    stillreel_render::Renderer,
    Arc<stillreel_render::LocalStorage>,
) {
    let storage = Arc::new(stillreel_render::LocalStorage::new(
        root.join("store"),
        "/files",
    ));
    let fetch = stillreel_render::FetchConfig {
        public_url: Some("http://test.invalid/".parse().expect("url")),
        ..stillreel_render::FetchConfig::default()
    };
    let renderer = stillreel_render::Renderer::new(
        stillreel_render::RenderConfig::default(),
        stillreel_render::Fetcher::new(fetch, Some(Arc::new(IndexedFiles(photos)))),
        Arc::clone(&storage) as Arc<dyn stillreel_render::Storage>,
    );
    (renderer, storage)
}

/// Writes `data` as an 8-bit PNG of `color`.
pub fn write_png(path: &Path, width: u32, height: u32, color: png::ColorType, data: &[u8]) {
    let file = std::fs::File::create(path).expect("create png");
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(color);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()
        .expect("header")
        .write_image_data(data)
        .expect("data");
}

/// The photographs `names` of Debian's `lomiri-wallpapers-16.04` (docs/EFFECTS.md "Real
/// photographs"), or `None` (with the reason printed) where one is missing and
/// `STILLREEL_REQUIRE_PHOTOS` is not set; with it set, a missing one fails the test.
pub fn photographs(names: &[&str]) -> Option<Vec<PathBuf>> {
    let dir = Path::new("/usr/share/backgrounds");
    let paths: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    if paths.iter().all(|p| p.is_file()) {
        return Some(paths);
    }
    assert!(
        std::env::var_os("STILLREEL_REQUIRE_PHOTOS").is_none(),
        "STILLREEL_REQUIRE_PHOTOS is set and a photograph in {} is missing: run scripts/setup.sh",
        dir.display()
    );
    eprintln!("skipped: the real photographs are not installed (scripts/setup.sh installs them)");
    None
}
