//! The preview of a video before it is rendered, for the browser: the npm package's second
//! WebAssembly module, loaded only when a page asks for a preview (the validation module stays
//! within its own budget). See `docs/PREVIEW.md`.
//!
//! - [`cache`]: canvases and depth fields kept between rebuilds;
//! - [`clip`]: one clip's frames, made by the camera crate's own calls (the canvas, the depth
//!   field, the clip plan, [`stillreel_camera::draw::warp::draw_frame`]);
//! - [`timeline`]: which clip each frame of the video shows, the transitions' blends, the
//!   speed ramp, the intro and outro, frame-exact with the renderer's plans;
//! - [`pixels`]: xfade's blend and the yuv420p frame as RGBA for a `<canvas>`;
//! - [`overlay`]: captions, the intro's band, the outro card and the names of what only the
//!   renderer draws, as data the page draws;
//! - [`bindings`]: the wasm-bindgen class the package's `preview.js` wraps.

pub mod bindings;
pub mod cache;
pub mod clip;
pub mod overlay;
pub mod pixels;
pub mod timeline;
