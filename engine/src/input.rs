//! The checks on what a person sends, written once: the JSON API and the UI's server functions both
//! reach them through the engine (a server function that must check before its first engine call,
//! like a new chat's prompt, calls these directly).

use crate::error::{Error, Result};

/// The longest message a person may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 200_000;
/// The longest thread title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// The longest search, in characters.
pub const MAX_SEARCH_CHARS: usize = 500;

/// A message as it is stored: trimmed, not empty, at most [`MAX_MESSAGE_CHARS`].
pub fn message(content: &str) -> Result<String> {
    let content = content.trim();
    if content.is_empty() {
        return Err(Error::Invalid("the message is empty".into()));
    }
    if content.chars().count() > MAX_MESSAGE_CHARS {
        return Err(Error::Invalid(format!("the message is longer than {MAX_MESSAGE_CHARS} characters")));
    }
    Ok(content.to_string())
}

/// A thread id a client chose: 8 to 64 ASCII letters, digits, `-` or `_` (a UUID is one).
pub fn thread_id(id: &str) -> Result<()> {
    let fits = (8..=64).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !fits {
        return Err(Error::Invalid("a thread id is 8 to 64 letters, digits, `-` or `_` (a UUID, for one)".into()));
    }
    Ok(())
}

/// A title a person gives a thread: trimmed, not empty, at most [`MAX_TITLE_CHARS`].
pub fn title(title: &str) -> Result<String> {
    let title = title.trim();
    if title.is_empty() {
        return Err(Error::Invalid("title must not be empty".into()));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(Error::Invalid(format!("title must be at most {MAX_TITLE_CHARS} characters")));
    }
    Ok(title.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_titles_are_trimmed_and_bounded() {
        assert_eq!(message("  hi \n").ok().as_deref(), Some("hi"));
        assert!(matches!(message(" \n\t"), Err(Error::Invalid(_))));
        assert!(message(&"x".repeat(MAX_MESSAGE_CHARS)).is_ok());
        assert!(matches!(message(&"x".repeat(MAX_MESSAGE_CHARS + 1)), Err(Error::Invalid(_))));
        assert_eq!(title(" Plans ").ok().as_deref(), Some("Plans"));
        assert!(matches!(title("   "), Err(Error::Invalid(_))));
        assert!(title(&"é".repeat(MAX_TITLE_CHARS)).is_ok());
        assert!(matches!(title(&"é".repeat(MAX_TITLE_CHARS + 1)), Err(Error::Invalid(_))));
    }
}
