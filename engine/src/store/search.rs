//! Full-text search over thread titles and the text of messages (SQLite FTS5): the threads that match,
//! best first, each with the snippet of its best match. Titles are indexed by the triggers of migration
//! `20261126000100_search_and_pins` as they change; messages wait in `search_pending` (migration
//! `20261128000100_search_indexed_in_batches`) and are indexed many at a time, every
//! [`INDEX_EVERY`] and before each search.

use std::time::Duration;
use warden_types::id::MessageId;

use sqlx::Row;
use tokio_util::sync::CancellationToken;

use super::batch::WriteBatch;
use super::threads::COLUMNS;
use super::Store;
use crate::error::Result;
use sqlx::FromRow;
use warden_types::person::Reader;
use warden_types::thread::Thread;
use warden_types::thread::{SearchHit, SnippetPiece};

/// How often the messages stored meanwhile are indexed. Each write to the FTS5 table makes an index
/// segment of its own, which SQLite merges into larger ones later; written with the message, that was
/// a segment (and its merging) per message. Measured in `warden-bench streams`, a later turn took
/// 2.32-2.45 ms of server CPU with the index written at once and 1.89-1.99 with no index at all; in
/// batches, medians of five alternating pairs 2.43 against 2.67 ms. `warden-bench approvals` (50,000
/// messages indexed already): message to card p50 1.78-1.90 against 1.95-2.36 ms, decision to result
/// 2.82-3.19 against 3.23-4.06.
pub const INDEX_EVERY: Duration = Duration::from_secs(1);

/// Puts each waiting message's text blocks, as they are now, into the index and empties the queue, in
/// one write. A message deleted meanwhile left the queue with it (its trigger, and its thread's); a
/// number whose message is gone anyway has nothing to join and is dropped.
const INDEX_PENDING: &str = "\
    INSERT INTO search_text (rowid, body) \
        SELECT p.row, coalesce((SELECT group_concat(json_extract(value, '$.text'), '') FROM json_each(m.blocks) \
                                WHERE json_extract(value, '$.type') = 'text'), '') \
        FROM search_pending p JOIN search_rows r ON r.rowid = p.row JOIN messages m ON m.id = r.source; \
    DELETE FROM search_pending";

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
    /// Only threads `reader` may read are searched (`None`: every thread).
    pub async fn search(&self, text: &str, limit: u32, reader: Option<&Reader>) -> Result<Vec<SearchHit>> {
        let Some(query) = fts_query(text) else { return Ok(Vec::new()) };
        // Every message stored before the search is found by it.
        self.index_pending().await?;
        let readable = super::sharing::Readable::by(reader);
        // Each match with its thread's row, in one query.
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT r.source, snippet(search_text, 0, char(1), char(2), '…', 12) AS snippet, {COLUMNS} \
             FROM search_text JOIN search_rows r ON r.rowid = search_text.rowid \
             JOIN threads ON threads.id = r.thread_id \
             WHERE search_text MATCH ? AND {READABLE} ORDER BY bm25(search_text) LIMIT ?",
            READABLE = super::sharing::READABLE
        )))
        .bind(&query)
        .bind(readable.everything)
        .bind(readable.person)
        .bind(readable.person)
        .bind(MATCHES_READ)
        .fetch_all(&self.pool)
        .await?;
        let mut hits: Vec<SearchHit> = Vec::new();
        for row in rows {
            let thread = Thread::from_row(&row)?;
            if hits.iter().any(|h| h.thread.id == thread.id) {
                continue;
            }
            let source: String = row.try_get("source")?;
            hits.push(SearchHit {
                message_id: (source != thread.id).then(|| MessageId::from(source)),
                thread,
                snippet: pieces(&row.try_get::<String, _>("snippet")?),
            });
            if hits.len() >= limit as usize {
                break;
            }
        }
        Ok(hits)
    }

    /// Indexes the messages waiting for it, if any (a read finds none waiting without taking the writer).
    pub async fn index_pending(&self) -> Result<()> {
        let waiting: bool =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM search_pending)").fetch_one(&self.pool).await?;
        if waiting {
            let mut batch = WriteBatch::new();
            batch.push(INDEX_PENDING);
            self.commit(batch).await?;
        }
        Ok(())
    }
}

/// Indexes the messages stored meanwhile every [`INDEX_EVERY`] until `stop` (a task of the engine's).
pub async fn index_now_and_then(store: Store, stop: CancellationToken) {
    let mut every = tokio::time::interval(INDEX_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = stop.cancelled() => return,
        }
        if let Err(error) = store.index_pending().await {
            tracing::warn!(%error, "could not index the messages stored meanwhile for search");
        }
    }
}

/// What a person typed as an FTS5 query: each word quoted (so no character of theirs is query syntax)
/// and matched as a prefix, all of them required. `None` when there is no word. Quotes and control
/// characters separate words: FTS5 reads its query as a C string, so a NUL inside a quoted word ended
/// the query there, unterminated (`?q=a%00b` answered 500).
pub(crate) fn fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c.is_control() || c == '"')
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
    use crate::store::test_db;
    use warden_types::id::ThreadId;
    use warden_types::message::{Block, Role};

    async fn waiting(store: &Store) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM search_pending").fetch_one(store.pool()).await.unwrap()
    }

    async fn indexed(store: &Store, word: &str) -> i64 {
        sqlx::query_scalar("SELECT COUNT(*) FROM search_text WHERE search_text MATCH ?")
            .bind(word)
            .fetch_one(store.pool())
            .await
            .unwrap()
    }

    async fn say(store: &Store, thread: &ThreadId, role: Role, text: &str) -> MessageId {
        let mut batch = WriteBatch::new();
        let message =
            Store::insert_message(&mut batch, thread, None, role, &[Block::Text { text: text.into() }]).unwrap();
        store.commit(batch).await.unwrap();
        message.id
    }

    /// Storing a message does not write the index: it waits, and the next search (or the engine's
    /// indexer) indexes every waiting message in one write, text as stored, then finds them.
    #[tokio::test]
    async fn messages_wait_for_the_index_and_a_search_indexes_them_first() {
        let (_dir, store) = test_db::store().await;
        let thread = store.create_thread(Some("Animals")).await.unwrap().id;
        say(&store, &thread, Role::User, "Tell me about the quokka").await;
        say(&store, &thread, Role::Assistant, "The quokka smiles; wombats dig.").await;
        assert_eq!(waiting(&store).await, 2);
        assert_eq!(indexed(&store, "quokka").await, 0, "the message's write left the index alone");
        // The title is indexed as it is set.
        assert_eq!(indexed(&store, "animals").await, 1);

        let hits = store.search("wombat", 10, None).await.unwrap();
        assert_eq!(hits.len(), 1);
        assert!(hits[0].message_id.is_some());
        assert_eq!(waiting(&store).await, 0);
        assert_eq!(indexed(&store, "quokka").await, 2);

        // Nothing waits: indexing again adds nothing.
        store.index_pending().await.unwrap();
        assert_eq!(indexed(&store, "quokka").await, 2);
    }

    /// A message whose thread is deleted while it waits is never indexed, and the number it waited
    /// under, given again, does not stop a later message from being stored and found.
    #[tokio::test]
    async fn a_message_deleted_while_it_waits_is_never_indexed() {
        let (_dir, store) = test_db::store().await;
        let gone = store.create_thread(None).await.unwrap().id;
        say(&store, &gone, Role::User, "capybara").await;
        store.delete_thread(&gone).await.unwrap();
        assert_eq!(waiting(&store).await, 0);

        let kept = store.create_thread(None).await.unwrap().id;
        say(&store, &kept, Role::User, "axolotl").await;
        store.index_pending().await.unwrap();
        assert_eq!(indexed(&store, "capybara").await, 0);
        assert_eq!(store.search("axolotl", 10, None).await.unwrap().len(), 1);
    }

    #[test]
    fn every_word_is_quoted_and_matched_as_a_prefix() {
        assert_eq!(fts_query("deploy stag").as_deref(), Some("\"deploy\"* \"stag\"*"));
        // Query syntax typed by a person is only text.
        assert_eq!(fts_query("a OR b\" NEAR(x) *").as_deref(), Some("\"a\"* \"OR\"* \"b\"* \"NEAR(x)\"*"));
        assert_eq!(fts_query("  \"  * - "), None);
        // A NUL or another control character is no part of a word.
        assert_eq!(fts_query("a\0b c\u{7}d").as_deref(), Some("\"a\"* \"b\"* \"c\"* \"d\"*"));
    }

    /// Whatever a person types, a search answers with hits (maybe none), never a query error: any
    /// string, and strings made of FTS5's own syntax, quotes, NULs and control characters.
    #[test]
    fn no_string_makes_a_search_fail() {
        use proptest::prelude::*;
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (_dir, store) = runtime.block_on(async {
            let (dir, store) = test_db::store().await;
            let thread = store.create_thread(Some("Deploy staging")).await.unwrap().id;
            say(&store, &thread, Role::User, "the quokka said \"NEAR(a b)\" OR * ^ NOT").await;
            (dir, store)
        });
        let syntax = "[a-zA-Z0-9 \"*^:+()\\-.,{}\\[\\]\u{0}-\u{1f}\u{7f}\u{85}\u{200b}\u{202e}\u{fffd}²é]{0,40}";
        let strings = prop_oneof![any::<String>(), syntax, "(NEAR|OR|AND|NOT|[a-z\"*\u{0} ]){0,12}"];
        proptest!(ProptestConfig::with_cases(2000), |(text in strings)| {
            let found = runtime.block_on(store.search(&text, 10, None));
            prop_assert!(found.is_ok(), "{text:?} -> {:?} (query {:?})", found.err(), fts_query(&text));
        });
    }

    #[test]
    fn a_snippet_is_split_at_its_marks() {
        let parts = pieces("before \u{1}word\u{2} after \u{1}x\u{2}");
        let shown: Vec<(&str, bool)> = parts.iter().map(|p| (p.text.as_str(), p.hit)).collect();
        assert_eq!(shown, [("before ", false), ("word", true), (" after ", false), ("x", true)]);
    }
}
