//! The clip's frames drawn from the canvas: [`warp`] is the entry (flat or depth-bent frames,
//! split between threads); the rest are its kernels, each SIMD path beside its scalar twin, each
//! asking [`cpu`] which instruction sets it may use.

mod bent;
mod bent_orbit;
pub mod cpu;
mod flat_points;
mod keystone;
pub mod masks;
mod sampling;
mod taps;
pub mod warp;
mod zoom;
