//! What the connection check knows about MCP servers when a run needs one: which are offline or
//! disabled now, which the thread goes on without (a "Continue anyway" of the last hour), which
//! server a called tool belongs to, and which servers a person's message names with `@name`.

use std::collections::HashSet;

use warden_types::connection::ServerDown;

use crate::toolbox::SourceServer;

/// The MCP servers as a run sees them at one moment.
#[derive(Debug, Default)]
pub struct ServerView {
    servers: Vec<SourceServer>,
    /// Servers the thread goes on without for now.
    left_out: HashSet<String>,
}

/// A server a call or a message needs that is down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed {
    pub server: String,
    pub down: ServerDown,
    /// The thread goes on without it: nothing is asked, nothing of it runs.
    pub left_out: bool,
}

impl ServerView {
    pub fn new(servers: Vec<SourceServer>, left_out: impl IntoIterator<Item = String>) -> Self {
        Self { servers, left_out: left_out.into_iter().collect() }
    }

    /// Whether any server is down that the thread does not go on without (else nothing needs asking).
    pub fn any_to_ask_about(&self) -> bool {
        self.servers.iter().any(|s| s.down.is_some() && !self.left_out.contains(&s.name))
    }

    /// The server behind the tool `name`, if it is down: a tool it offered when last connected, or
    /// else a name in its `server__` form (the longest server name that fits wins).
    pub fn needed_by_call(&self, name: &str) -> Option<Needed> {
        let known = self.servers.iter().find(|s| s.tools.iter().any(|t| t == name));
        let by_prefix = || {
            self.servers
                .iter()
                .filter(|s| name.strip_prefix(s.name.as_str()).is_some_and(|rest| rest.starts_with("__")))
                .max_by_key(|s| s.name.len())
        };
        self.needed(known.or_else(by_prefix)?)
    }

    /// The servers the text names as `@name` (exactly, ignoring case) that are down, each once.
    pub fn needed_by_mentions(&self, text: &str) -> Vec<Needed> {
        let mut named: Vec<&SourceServer> = Vec::new();
        for word in mentions(text) {
            let found = self.servers.iter().find(|s| s.name.eq_ignore_ascii_case(word));
            if let Some(server) = found.filter(|s| !named.iter().any(|n| n.name == s.name)) {
                named.push(server);
            }
        }
        named.into_iter().filter_map(|s| self.needed(s)).collect()
    }

    fn needed(&self, server: &SourceServer) -> Option<Needed> {
        let down = server.down?;
        Some(Needed { server: server.name.clone(), down, left_out: self.left_out.contains(&server.name) })
    }
}

/// Longest name looked at after an `@` (server names are at most 32 characters).
const MAX_MENTION_CHARS: usize = 64;

/// The `name` of every word `@name` in the text: an `@` at the start or after a character that
/// cannot be part of a name or an address (so `me@fx.com` names nothing), then letters, digits, `-`
/// and `_`.
pub fn mentions(text: &str) -> Vec<&str> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut found = Vec::new();
    let mut before: Option<char> = None;
    for (at, c) in text.char_indices() {
        let starts_word = before.is_none_or(|b| !(is_name(b) || b == '.' || b == '@'));
        if c == '@' && starts_word {
            let rest = &text[at + 1..];
            let len = rest.find(|c: char| !is_name(c)).unwrap_or(rest.len());
            if (1..=MAX_MENTION_CHARS).contains(&len) {
                found.push(&rest[..len]);
            }
        }
        before = Some(c);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, down: Option<ServerDown>, tools: &[&str]) -> SourceServer {
        SourceServer { name: name.into(), down, tools: tools.iter().map(|t| t.to_string()).collect() }
    }

    fn view() -> ServerView {
        ServerView::new(
            vec![
                server("fx", Some(ServerDown::Offline), &["fx__echo"]),
                server("fx_b", Some(ServerDown::Disabled), &[]),
                server("up", None, &["up__ping"]),
                server("Notes", Some(ServerDown::Disabled), &["Notes__add"]),
            ],
            ["Notes".to_string()],
        )
    }

    #[test]
    fn a_word_starting_with_an_at_sign_names_a_server_and_an_address_does_not() {
        assert_eq!(mentions("@fx please, and @notes."), ["fx", "notes"]);
        assert_eq!(mentions("mail me@fx.com or (@up)"), ["up"]);
        assert_eq!(mentions("@@fx @ fx a@b"), Vec::<&str>::new());
        assert_eq!(mentions("ça @fx-2_x!"), ["fx-2_x"]);
        assert!(mentions(&format!("@{}", "x".repeat(MAX_MENTION_CHARS + 1))).is_empty());
    }

    #[test]
    fn mentions_match_a_configured_name_exactly_ignoring_case_and_only_down_servers_count() {
        let needed = view().needed_by_mentions("ask @FX and @up and @notes and @fx again, not @fxx");
        let names: Vec<(&str, ServerDown, bool)> =
            needed.iter().map(|n| (n.server.as_str(), n.down, n.left_out)).collect();
        assert_eq!(names, [("fx", ServerDown::Offline, false), ("Notes", ServerDown::Disabled, true)]);
    }

    #[test]
    fn only_a_down_server_the_thread_has_not_left_out_is_worth_asking_about() {
        assert!(view().any_to_ask_about());
        let quiet = ServerView::new(
            vec![server("up", None, &[]), server("Notes", Some(ServerDown::Disabled), &[])],
            ["Notes".to_string()],
        );
        assert!(!quiet.any_to_ask_about());
    }

    #[test]
    fn a_call_needs_the_server_whose_tool_it_is_or_whose_prefix_it_has() {
        let view = view();
        assert_eq!(view.needed_by_call("fx__echo").map(|n| n.server), Some("fx".into()));
        assert_eq!(view.needed_by_call("fx_b__anything").map(|n| n.server), Some("fx_b".into()));
        assert_eq!(view.needed_by_call("fx__unknown").map(|n| n.server), Some("fx".into()));
        assert_eq!(view.needed_by_call("up__ping"), None, "connected servers need no check");
        assert_eq!(view.needed_by_call("shell"), None);
        assert_eq!(view.needed_by_call("fxecho"), None);
    }
}
