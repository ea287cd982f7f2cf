//! Two deadlines on one connection's reads, which hyper 1.x folds into its single header read
//! timer: a connection idle between requests may stay `idle` long, but once the first byte of
//! a request arrives its headers must be complete within `header`.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// Where the connection is in its request cycle, as far as the bytes show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request (after connecting, or after an answer was written).
    Idle,
    /// Reading a request head; `matched` counts the bytes of `\r\n\r\n` seen so far.
    Head { matched: u8 },
    /// The head is complete; the body (and the handler) are other deadlines' business.
    Past,
}

/// Wraps a stream; a read past the current deadline fails with `TimedOut`, which ends the
/// connection.
#[derive(Debug)]
pub struct HeadDeadline<S> {
    inner: S,
    phase: Phase,
    idle: Duration,
    header: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<S> HeadDeadline<S> {
    pub fn new(inner: S, idle: Duration, header: Duration) -> Self {
        Self {
            inner,
            phase: Phase::Idle,
            idle,
            header,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    /// Follows the bytes just read through the phases.
    fn saw(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match self.phase {
                Phase::Idle => {
                    self.phase = Phase::Head { matched: 0 };
                    self.deadline.as_mut().reset(Instant::now() + self.header);
                    self.advance(b);
                }
                Phase::Head { .. } => self.advance(b),
                Phase::Past => return,
            }
        }
    }

    fn advance(&mut self, b: u8) {
        let Phase::Head { matched } = self.phase else {
            return;
        };
        let matched = match (matched, b) {
            (0 | 2, b'\r') => matched + 1,
            (1 | 3, b'\n') => matched + 1,
            (_, b'\r') => 1,
            _ => 0,
        };
        self.phase = if matched == 4 {
            Phase::Past
        } else {
            Phase::Head { matched }
        };
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let fresh = buf.filled()[before..].to_vec();
                self.saw(&fresh);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(err)) => Poll::Ready(Err(err)),
            Poll::Pending => {
                if self.phase != Phase::Past && self.deadline.as_mut().poll(cx).is_ready() {
                    let what = if self.phase == Phase::Idle {
                        "idle connection"
                    } else {
                        "request headers not received in time"
                    };
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, what)));
                }
                Poll::Pending
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, data);
        // `100 Continue` goes out before the body is read: not the end of a request.
        let informational = data.starts_with(b"HTTP/1.1 1");
        if !informational && matches!(written, Poll::Ready(Ok(n)) if n > 0) {
            // An answer is going out: the next bytes read start a new request.
            self.phase = Phase::Idle;
            let at = Instant::now() + self.idle;
            self.deadline.as_mut().reset(at);
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phases(chunks: &[&[u8]]) -> Phase {
        let (a, _b) = tokio::io::duplex(64);
        let mut d = HeadDeadline::new(a, Duration::from_secs(60), Duration::from_secs(10));
        for c in chunks {
            d.saw(c);
        }
        d.phase
    }

    #[tokio::test]
    async fn the_head_ends_at_the_blank_line_across_reads() {
        assert_eq!(phases(&[]), Phase::Idle);
        assert_eq!(phases(&[b"GET / HTTP/1.1\r\n"]), Phase::Head { matched: 2 });
        assert_eq!(phases(&[b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"]), Phase::Past);
        assert_eq!(
            phases(&[b"GET / HTTP/1.1\r\nHost: x\r", b"\n\r", b"\n"]),
            Phase::Past
        );
        assert_eq!(
            phases(&[b"GET / HTTP/1.1\r\n\r\r\n"]),
            Phase::Head { matched: 2 }
        );
    }
}
