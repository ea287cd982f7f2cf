//! The clip's frames on their way to the encoder, handed to a [`FrameTap`] when the renderer
//! has one: the frames the clip step really encodes, which the browser preview's same-pixels
//! test compares with its own.

use std::io::{self, Write};

use stillreel_camera::draw::warp::frame_bytes;
use stillreel_camera::geometry::clip_plan::ClipPlan;

use crate::config::FrameTap;

/// Writes through to `inner`, and hands each whole frame to the tap.
pub(super) struct Tap<'a, W> {
    inner: W,
    tap: Option<&'a FrameTap>,
    index: usize,
    frame_len: usize,
    current: Vec<u8>,
    frame: u32,
}

impl<'a, W: Write> Tap<'a, W> {
    pub(super) fn new(inner: W, tap: Option<&'a FrameTap>, index: usize, plan: &ClipPlan) -> Self {
        Tap {
            inner,
            tap,
            index,
            frame_len: frame_bytes(plan.width, plan.height),
            current: Vec::new(),
            frame: 0,
        }
    }
}

impl<W: Write> Write for Tap<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        let Some(tap) = self.tap else {
            return Ok(written);
        };
        let mut rest = &buf[..written];
        while !rest.is_empty() {
            let take = (self.frame_len - self.current.len()).min(rest.len());
            self.current.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.current.len() == self.frame_len {
                (tap.0)(self.index, self.frame, &self.current);
                self.current.clear();
                self.frame += 1;
            }
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
