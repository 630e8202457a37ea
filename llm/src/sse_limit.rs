//! A bound on one server-sent event before it is parsed: the SSE parser keeps a line (and an
//! event's `data:` lines) in memory until it ends, so a server that sends one endless line would
//! grow that buffer without limit. This guard counts the bytes of the event being received and
//! fails the stream when it passes the cap.

/// Counts bytes since the last event boundary (an empty line) across chunks.
#[derive(Debug)]
pub struct EventSizeGuard {
    max: usize,
    /// Bytes of the current event, line terminators excluded.
    event: usize,
    /// Whether the current line has any byte yet (an empty line ends the event).
    line_has_bytes: bool,
    /// The previous byte was `\r` (so a following `\n` is part of the same line end).
    after_cr: bool,
}

/// One event grew past the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("one streamed event was longer than {0} bytes")]
pub struct EventTooLong(pub usize);

impl EventSizeGuard {
    pub fn new(max: usize) -> Self {
        Self { max, event: 0, line_has_bytes: false, after_cr: false }
    }

    /// Accounts for the next chunk of the body.
    pub fn check(&mut self, chunk: &[u8]) -> Result<(), EventTooLong> {
        for &b in chunk {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if !self.line_has_bytes {
                        self.event = 0;
                    }
                    self.line_has_bytes = false;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.after_cr = false;
                    self.line_has_bytes = true;
                    self.event += 1;
                }
            }
        }
        if self.event > self.max {
            return Err(EventTooLong(self.max));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_small_events_pass_in_any_chunking() {
        let body = "data: {\"a\":1}\n\ndata: {\"b\":2}\r\n\r\n".repeat(1000);
        let mut guard = EventSizeGuard::new(20);
        for chunk in body.as_bytes().chunks(7) {
            assert_eq!(guard.check(chunk), Ok(()));
        }
    }

    #[test]
    fn one_endless_line_fails_once_past_the_cap() {
        let mut guard = EventSizeGuard::new(1000);
        let chunk = [b'x'; 300];
        assert!(guard.check(b"data: ").is_ok());
        assert!(guard.check(&chunk).is_ok());
        assert!(guard.check(&chunk).is_ok());
        assert!(guard.check(&chunk).is_ok());
        assert_eq!(guard.check(&chunk), Err(EventTooLong(1000)));
    }

    #[test]
    fn many_data_lines_of_one_event_count_together() {
        let mut guard = EventSizeGuard::new(100);
        let line = b"data: 0123456789\n";
        let mut failed = false;
        for _ in 0..10 {
            failed |= guard.check(line).is_err();
        }
        assert!(failed, "ten 16-byte lines without an empty line are one 160-byte event");
    }
}
