//! Where the next page of a newest-first list starts: the `(timestamp, id)` of the last row shown,
//! so the next page holds the rows strictly before it in `(timestamp, id)` order. One type for every
//! list paged this way; which list (and so which timestamp) is in its type, so a thread cursor cannot
//! be handed to the audit log. On the wire it is one string, `<timestamp><separator><id>`, parsed
//! here once, whether it came in an address, a JSON body or a server function's arguments.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A list paged by a [`Cursor`]: how its cursor is written.
pub trait Paged {
    /// The row's timestamp, as the error names it (`updated_at`).
    const TIMESTAMP: &'static str;
    /// Between the timestamp and the id (neither holds it).
    const SEPARATOR: char;
}

/// The threads of the sidebar and `GET /api/threads`, by `updated_at`: `<updated_at>,<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {}

impl Paged for Threads {
    const TIMESTAMP: &'static str = "updated_at";
    const SEPARATOR: char = ',';
}

/// The audit log's decisions (chats and outside clients merged), by `decided_at`: `<decided_at>~<id>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditLog {}

impl Paged for AuditLog {
    const TIMESTAMP: &'static str = "decided_at";
    const SEPARATOR: char = '~';
}

pub type ThreadCursor = Cursor<Threads>;
pub type AuditCursor = Cursor<AuditLog>;

/// Longest timestamp and id a cursor carries (ours are 24 and 36 characters).
const MAX_TIMESTAMP_CHARS: usize = 40;
const MAX_ID_CHARS: usize = 128;

/// The position of one row of list `P`: pages continue with the rows before it.
pub struct Cursor<P> {
    at: String,
    id: String,
    list: PhantomData<fn() -> P>,
}

/// A `before` that is not a position in its list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`before` must be `<{timestamp}>{separator}<id>` (the position of the last row of the page before)")]
pub struct CursorError {
    timestamp: &'static str,
    separator: char,
}

impl<P: Paged> Cursor<P> {
    /// The position of the row with this timestamp and id.
    pub fn new(at: impl Into<String>, id: impl Into<String>) -> Self {
        Self { at: at.into(), id: id.into(), list: PhantomData }
    }

    /// The row's timestamp: the next page has the rows before it (or at it, with a smaller id).
    pub fn at(&self) -> &str {
        &self.at
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// A `before` parameter of an address: absent or empty is the first page.
    pub fn param(text: Option<&str>) -> Result<Option<Self>, CursorError> {
        text.filter(|t| !t.is_empty()).map(str::parse).transpose()
    }
}

impl<P: Paged> FromStr for Cursor<P> {
    type Err = CursorError;

    fn from_str(text: &str) -> Result<Self, CursorError> {
        let error = CursorError { timestamp: P::TIMESTAMP, separator: P::SEPARATOR };
        let (at, id) = text.split_once(P::SEPARATOR).ok_or_else(|| error.clone())?;
        let fine = |s: &str, max: usize| !s.is_empty() && s.chars().count() <= max && !s.chars().any(char::is_control);
        if !fine(at, MAX_TIMESTAMP_CHARS) || !fine(id, MAX_ID_CHARS) {
            return Err(error);
        }
        Ok(Self::new(at, id))
    }
}

impl<P: Paged> fmt::Display for Cursor<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.at, P::SEPARATOR, self.id)
    }
}

impl<P: Paged> fmt::Debug for Cursor<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cursor({self})")
    }
}

// By hand: derived, these would ask the marker `P` for them too.
impl<P> Clone for Cursor<P> {
    fn clone(&self) -> Self {
        Self { at: self.at.clone(), id: self.id.clone(), list: PhantomData }
    }
}

impl<P> PartialEq for Cursor<P> {
    fn eq(&self, other: &Self) -> bool {
        (&self.at, &self.id) == (&other.at, &other.id)
    }
}

impl<P> Eq for Cursor<P> {}

impl<P: Paged> Serialize for Cursor<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de, P: Paged> Deserialize<'de> for Cursor<P> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_what_it_wrote_in_todays_format() {
        let thread = ThreadCursor::new("2026-01-01T00:00:05.123Z", "0190-ab");
        assert_eq!(thread.to_string(), "2026-01-01T00:00:05.123Z,0190-ab");
        assert_eq!(thread.to_string().parse::<ThreadCursor>(), Ok(thread.clone()));
        let audit = AuditCursor::new("2026-01-01T00:00:05.123Z", "0190-ab");
        assert_eq!(audit.to_string(), "2026-01-01T00:00:05.123Z~0190-ab");
        assert_eq!(serde_json::to_value(&audit).unwrap(), serde_json::json!("2026-01-01T00:00:05.123Z~0190-ab"));
        assert_eq!(serde_json::from_value::<AuditCursor>(serde_json::json!(audit.to_string())).unwrap(), audit);
    }

    #[test]
    fn anything_else_is_refused_with_the_shape_it_must_have() {
        for bad in ["", "no-separator", "~id", "2026~", "2026~a\nb", "2026,id"] {
            assert!(bad.parse::<AuditCursor>().is_err(), "{bad:?}");
        }
        assert!(format!("2026~{}", "x".repeat(129)).parse::<AuditCursor>().is_err());
        let error = "garbage".parse::<ThreadCursor>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "`before` must be `<updated_at>,<id>` (the position of the last row of the page before)"
        );
        assert!(serde_json::from_value::<ThreadCursor>(serde_json::json!("garbage")).is_err());
    }

    #[test]
    fn an_absent_or_empty_parameter_is_the_first_page() {
        assert_eq!(ThreadCursor::param(None), Ok(None));
        assert_eq!(ThreadCursor::param(Some("")), Ok(None));
        assert_eq!(ThreadCursor::param(Some("t,i")), Ok(Some(ThreadCursor::new("t", "i"))));
    }
}
