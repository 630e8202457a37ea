//! Full-text search over thread titles and the text of messages (SQLite FTS5, kept up to date by the
//! triggers of migration `20261126000100_search_and_pins`): the threads that match, best first, each
//! with the snippet of its best match.

use sqlx::Row;

use super::threads::{thread_from_row, COLUMNS};
use super::Store;
use crate::error::Result;
use warden_types::thread::{SearchHit, SnippetPiece};

/// Marks FTS5 puts around a matched word in a snippet (control characters, split off again below).
const HIT_OPEN: char = '\u{1}';
const HIT_CLOSE: char = '\u{2}';
/// Matches read before they are grouped by thread.
const MATCHES_READ: i64 = 400;
/// At most this many words are searched for; more are ignored.
const MAX_WORDS: usize = 12;

impl Store {
    /// The threads (archived ones too) whose title or messages hold every word of `text` (each word
    /// also as the start of a longer one), best match first, at most `limit`.
    pub async fn search(&self, text: &str, limit: u32) -> Result<Vec<SearchHit>> {
        let Some(query) = fts_query(text) else { return Ok(Vec::new()) };
        // Each match with its thread's row, in one query.
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT r.source, snippet(search_text, 0, char(1), char(2), '…', 12) AS snippet, {COLUMNS} \
             FROM search_text JOIN search_rows r ON r.rowid = search_text.rowid \
             JOIN threads ON threads.id = r.thread_id \
             WHERE search_text MATCH ? ORDER BY bm25(search_text) LIMIT ?"
        )))
        .bind(&query)
        .bind(MATCHES_READ)
        .fetch_all(&self.pool)
        .await?;
        let mut hits: Vec<SearchHit> = Vec::new();
        for row in rows {
            let thread = thread_from_row(&row)?;
            if hits.iter().any(|h| h.thread.id == thread.id) {
                continue;
            }
            let source: String = row.try_get("source")?;
            hits.push(SearchHit {
                message_id: (source != thread.id).then_some(source),
                thread,
                snippet: pieces(&row.try_get::<String, _>("snippet")?),
            });
            if hits.len() >= limit as usize {
                break;
            }
        }
        Ok(hits)
    }
}

/// What a person typed as an FTS5 query: each word quoted (so no character of theirs is query syntax)
/// and matched as a prefix, all of them required. `None` when there is no word.
pub(crate) fn fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == '"')
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .take(MAX_WORDS)
        .map(|w| format!("\"{w}\"*"))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Splits a snippet at its hit marks; the marks' own characters never reach the page.
fn pieces(snippet: &str) -> Vec<SnippetPiece> {
    let mut pieces: Vec<SnippetPiece> = Vec::new();
    let mut hit = false;
    let mut text = String::new();
    for c in snippet.chars() {
        match c {
            HIT_OPEN | HIT_CLOSE => {
                if !text.is_empty() {
                    pieces.push(SnippetPiece { text: std::mem::take(&mut text), hit });
                }
                hit = c == HIT_OPEN;
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(SnippetPiece { text, hit });
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_quoted_and_matched_as_a_prefix() {
        assert_eq!(fts_query("deploy stag").as_deref(), Some("\"deploy\"* \"stag\"*"));
        // Query syntax typed by a person is only text.
        assert_eq!(fts_query("a OR b\" NEAR(x) *").as_deref(), Some("\"a\"* \"OR\"* \"b\"* \"NEAR(x)\"*"));
        assert_eq!(fts_query("  \"  * - "), None);
    }

    #[test]
    fn a_snippet_is_split_at_its_marks() {
        let parts = pieces("before \u{1}word\u{2} after \u{1}x\u{2}");
        let shown: Vec<(&str, bool)> = parts.iter().map(|p| (p.text.as_str(), p.hit)).collect();
        assert_eq!(shown, [("before ", false), ("word", true), (" after ", false), ("x", true)]);
    }
}
