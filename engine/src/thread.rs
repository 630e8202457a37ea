//! Threads: a conversation's identity, title and archive state, and what a page needs to show one.
//! A long thread's page shows its newest messages and adds earlier ones when the person asks.

use crate::message::Role;

pub use warden_types::thread::{
    SearchHit, StoredMessage, Thread, ThreadDetail, ThreadExport, ThreadOptions, ThreadPatch, ThreadQuery, ThreadSlice,
};

/// How many messages a chat page shows of a thread at first, and adds each time the person asks
/// for earlier ones. The API's thread is whole.
pub const MESSAGES_PER_PAGE: usize = 100;

/// The most messages a page read again keeps (what the person had loaded, up to this).
pub const MESSAGES_KEPT_ON_REREAD: usize = 5_000;

/// Of up to `limit + 1` consecutive messages of a branch (oldest first, the newest ones of what is
/// asked for), the ones a page shows, and whether messages before them exist. At most `limit`; with
/// `at_a_prompt` the cut moves forward to a person's message when one is in the first half, so that
/// a turn is not shown without the prompt it answers (without it, the first message shown is the
/// one a link named).
pub fn page_window(mut messages: Vec<StoredMessage>, limit: usize, at_a_prompt: bool) -> (Vec<StoredMessage>, bool) {
    if messages.len() <= limit {
        return (messages, false);
    }
    messages.drain(..messages.len() - limit);
    let first_prompt = messages.iter().position(|m| m.role == Role::User).filter(|&i| i <= limit / 2);
    if let Some(first_prompt) = first_prompt.filter(|_| at_a_prompt) {
        messages.drain(..first_prompt);
    }
    (messages, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(roles: &str) -> Vec<StoredMessage> {
        roles
            .chars()
            .enumerate()
            .map(|(i, r)| StoredMessage {
                id: format!("m{i}").into(),
                run_id: None,
                role: if r == 'u' { Role::User } else { Role::Assistant },
                content: String::new(),
                html: None,
                blocks: vec![],
                created_at: String::new(),
            })
            .collect()
    }

    fn ids(messages: &[StoredMessage]) -> Vec<&str> {
        messages.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn a_short_branch_is_shown_whole() {
        let (shown, earlier) = page_window(branch("uaua"), 4, true);
        assert_eq!(ids(&shown), ["m0", "m1", "m2", "m3"]);
        assert!(!earlier);
    }

    #[test]
    fn a_long_branch_shows_its_newest_messages_from_a_prompt() {
        // Five read for a window of four: m0 is cut, and m1 (an answer) with it, to start at m2.
        let (shown, earlier) = page_window(branch("uauaa"), 4, true);
        assert_eq!(ids(&shown), ["m2", "m3", "m4"]);
        assert!(earlier);
        // A window that must start where a link points is not moved.
        let (shown, _) = page_window(branch("uauaa"), 4, false);
        assert_eq!(ids(&shown), ["m1", "m2", "m3", "m4"]);
    }

    #[test]
    fn a_prompt_late_in_the_window_does_not_empty_it() {
        // The only prompt is the newest message: the window keeps the calls before it.
        let (shown, earlier) = page_window(branch("uaaaaaau"), 6, true);
        assert_eq!(ids(&shown), ["m2", "m3", "m4", "m5", "m6", "m7"]);
        assert!(earlier);
    }
}
