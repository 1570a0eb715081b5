//! Answers to requests hyper cannot parse, as AWS JSON faults.
//!
//! When a request's head is too large, or malformed (bytes a header may not hold, a duplicate
//! or negative `Content-Length`, a bad request line), hyper answers it itself, before any
//! service sees a request, with a bodiless `400`, `414` or `431` that says `connection: close`,
//! and then closes the connection. hyper offers no hook to shape that answer, and a pre-parse
//! of our own would have to follow hyper's framing of every request on a kept-alive connection.
//! So [`Rewrite`] sits between hyper and the socket and replaces that one answer as it is
//! written: every answer Weft's handlers give carries `x-amzn-requestid`, `content-type` and a
//! body, so a bodiless answer with only hyper's three headers is hyper's own. hyper writes it
//! last, into a buffer it flushes whole (vectored writes are off), so it is the end of one
//! write: what comes before it (the end of the previous answer) goes out unchanged.
//!
//! Should a future hyper word its answer differently, nothing is replaced and clients get
//! hyper's bodiless answer again; the end-to-end tests (`edge::malformed`) would say so.
//!
//! A client that speaks HTTP/2 from its first byte (prior knowledge) gets no answer from hyper
//! at all, only a close: [`Rewrite`] recognises HTTP/2's preface as the connection's first
//! bytes, answers it with a fault itself, and gives hyper an end of stream instead.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::super::request_id;
use super::super::response::{self, Face};
use crate::fault::Fault;

/// A connection's socket, with hyper's answer to a request it could not parse replaced by an
/// AWS JSON fault.
pub(super) struct Rewrite<S> {
    inner: S,
    /// Bytes taken from hyper but not yet written: the replaced answer and what came before it
    /// in the same write. They go out before anything else, and before a flush or shutdown
    /// completes.
    owed: Vec<u8>,
    /// How much of `owed` is written.
    written: usize,
    /// Whether anything has been read yet: only a connection's first bytes can be HTTP/2's
    /// preface.
    read_any: bool,
    /// The connection began with HTTP/2's preface: it is answered, and reads nothing more.
    refused: bool,
}

/// How HTTP/2's connection preface begins (RFC 9113, 3.4).
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";

impl<S> Rewrite<S> {
    pub(super) fn new(inner: S) -> Self {
        Rewrite {
            inner,
            owed: Vec::new(),
            written: 0,
            read_any: false,
            refused: false,
        }
    }
}

impl<S: AsyncWrite + Unpin> Rewrite<S> {
    /// Writes what is owed; ready once all of it is written.
    fn poll_owed(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.owed.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.owed[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.owed.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Rewrite<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.refused {
            // Answered: the answer goes out, then hyper reads the end of the stream.
            ready!(this.poll_owed(cx))?;
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
        let first = !std::mem::replace(&mut this.read_any, true);
        if first && buf.filled()[before..].starts_with(HTTP2_PREFACE) {
            buf.set_filled(before);
            this.refused = true;
            this.owed = response::raw(
                Face::Swf,
                &request_id(),
                Fault::BadRequest(
                    "This server speaks HTTP/1.1, as AWS SDKs do to SWF; this connection \
                     began with HTTP/2's preface"
                        .into(),
                ),
            );
            ready!(this.poll_owed(cx))?;
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Rewrite<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_owed(cx))?;
        let Some((at, fault)) = hypers_answer(buf) else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        this.owed.extend_from_slice(&buf[..at]);
        this.owed
            .extend(response::raw(Face::Swf, &request_id(), fault));
        // Taken whole: whatever the socket does not take now goes out before the flush
        // hyper makes next completes.
        if let Poll::Ready(Err(e)) = this.poll_owed(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_owed(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_owed(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        // One write per flush, so hyper's answer is always the end of a write.
        false
    }
}

/// If `written` ends with hyper's own answer to a request it could not parse: where that
/// answer starts, and the fault that replaces it. The answer is exactly
/// `HTTP/1.1 <400|414|431> <reason>` with the headers `connection: close`,
/// `content-length: 0` and `date`, in any order.
fn hypers_answer(written: &[u8]) -> Option<(usize, Fault)> {
    const STATUS_LINE: &[u8] = b"HTTP/1.1 ";
    let head = written.strip_suffix(b"\r\n\r\n")?;
    let at = head
        .windows(STATUS_LINE.len())
        .rposition(|w| w == STATUS_LINE)?;
    let head = std::str::from_utf8(&head[at..]).ok()?;
    let mut lines = head.split("\r\n");
    let status = lines.next()?.get(STATUS_LINE.len()..)?.get(..3)?;
    let mut headers: Vec<(String, &str)> = lines
        .map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.to_ascii_lowercase(), value.trim()))
        })
        .collect::<Option<_>>()?;
    headers.sort_unstable();
    let [(c, close), (l, zero), (d, _)] = headers.as_slice() else {
        return None;
    };
    let framing = (c.as_str(), *close, l.as_str(), *zero, d.as_str());
    if framing != ("connection", "close", "content-length", "0", "date") {
        return None;
    }
    let fault = match status {
        "431" => Fault::HeaderTooLarge(
            "Your request header section exceeds the maximum allowed size.".into(),
        ),
        "414" => Fault::BadRequest("The request line is longer than the server accepts.".into()),
        "400" => Fault::BadRequest(
            "The request is not valid HTTP/1.1: its request line or a header is malformed \
             (bytes a header may not hold, or a duplicate, negative or non-numeric \
             Content-Length)."
                .into(),
        ),
        _ => return None,
    };
    Some((at, fault))
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    const HYPERS_431: &[u8] =
        b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\n\
        content-length: 0\r\ndate: Mon, 23 Nov 2026 19:56:22 GMT\r\n\r\n";

    #[test]
    fn only_hypers_bodiless_answers_are_recognised() {
        let (at, fault) = hypers_answer(HYPERS_431).unwrap();
        assert_eq!((at, fault.code()), (0, "RequestHeaderSectionTooLarge"));
        // After the end of a previous answer, in the same write.
        let mut after = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}".to_vec();
        let previous = after.len();
        after.extend_from_slice(&HYPERS_431.replace_431_with(b"400"));
        let (at, fault) = hypers_answer(&after).unwrap();
        assert_eq!((at, fault.code()), (previous, "BadRequestException"));
        // Weft's own answers carry more headers, and a body.
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/x-amz-json-1.0\r\n\
            x-amzn-requestid: 1\r\nconnection: close\r\ncontent-length: 0\r\n\
            date: Mon, 23 Nov 2026 19:56:22 GMT\r\n\r\n";
        assert!(hypers_answer(ours).is_none());
        assert!(hypers_answer(&HYPERS_431[..HYPERS_431.len() - 2]).is_none());
        assert!(hypers_answer(&HYPERS_431.replace_431_with(b"200")).is_none());
        assert!(hypers_answer(b"{}").is_none());
    }

    trait Replace {
        fn replace_431_with(&self, status: &[u8]) -> Vec<u8>;
    }

    impl Replace for [u8] {
        fn replace_431_with(&self, status: &[u8]) -> Vec<u8> {
            let mut v = self.to_vec();
            v[9..12].copy_from_slice(status);
            v
        }
    }

    #[tokio::test]
    async fn the_replacement_goes_out_even_through_a_slow_socket() {
        // A socket that takes 7 bytes at a time.
        let (client, mut server) = tokio::io::duplex(7);
        let mut rewrite = Rewrite::new(client);
        let reader = tokio::spawn(async move {
            let mut read = Vec::new();
            tokio::io::AsyncReadExt::read_to_end(&mut server, &mut read)
                .await
                .unwrap();
            read
        });
        rewrite.write_all(b"before;").await.unwrap();
        rewrite.write_all(HYPERS_431).await.unwrap();
        rewrite.shutdown().await.unwrap();
        drop(rewrite);
        let read = String::from_utf8(reader.await.unwrap()).unwrap();
        assert!(read.starts_with("before;HTTP/1.1 431 "), "{read}");
        assert!(read.ends_with(r#"maximum allowed size."}"#), "{read}");
    }
}
