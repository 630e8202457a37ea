//! Tokens are bytes, and a character can be split across two of them: text is passed on only up to the
//! last complete character, the rest waits for the next token.

#[derive(Default)]
pub struct Utf8Buffer {
    pending: Vec<u8>,
}

impl Utf8Buffer {
    /// Adds a token's bytes; returns the text that is complete so far (may be empty).
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // An invalid sequence (not just an unfinished one) is replaced, so nothing waits for ever.
            Err(e) if e.error_len().is_some() => {
                let text = String::from_utf8_lossy(&self.pending).into_owned();
                self.pending.clear();
                return text;
            }
            Err(e) => e.valid_up_to(),
        };
        let rest = self.pending.split_off(valid);
        String::from_utf8(std::mem::replace(&mut self.pending, rest)).unwrap_or_default()
    }

    /// What is left at the end of the answer.
    pub fn finish(&mut self) -> String {
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        text
    }
}

#[cfg(test)]
mod tests {
    use super::Utf8Buffer;

    #[test]
    fn a_character_split_across_tokens_comes_out_whole() {
        let mut b = Utf8Buffer::default();
        let euro = "€".as_bytes();
        assert_eq!(b.push(b"5 "), "5 ");
        assert_eq!(b.push(&euro[..1]), "");
        assert_eq!(b.push(&euro[1..]), "€");
        assert_eq!(b.finish(), "");
    }

    #[test]
    fn invalid_bytes_are_replaced_and_an_unfinished_tail_is_flushed_at_the_end() {
        let mut b = Utf8Buffer::default();
        assert_eq!(b.push(&[0xff, b'a']), "\u{fffd}a");
        assert_eq!(b.push(&"é".as_bytes()[..1]), "");
        assert_eq!(b.finish(), "\u{fffd}");
    }
}
