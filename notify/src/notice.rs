//! One message about one request, for one person or one shared channel: what every channel renders.

use warden_types::tool::Risk;

/// Why the message is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// A request waits for this person's decision.
    Request,
    /// It still waits.
    Reminder,
    /// Nobody answered in time, so it came to this person.
    Escalated,
    /// "Send a test" in Settings.
    Test,
}

impl NoticeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::Request => "request",
            NoticeKind::Reminder => "reminder",
            NoticeKind::Escalated => "escalated",
            NoticeKind::Test => "test",
        }
    }
}

/// What following a link means (the page it opens decides nothing by itself).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkIntent {
    Open,
    Approve,
    Deny,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoticeLink {
    pub label: String,
    pub url: String,
    pub intent: LinkIntent,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Notice {
    pub kind: NoticeKind,
    /// "Approval needed: Run a command".
    pub title: String,
    /// "Ann (member)", "Build bot (outside client)".
    pub asked_by: String,
    /// Untrusted text (model, tool, outside client): escaped in HTML, never markup in Slack or Discord.
    pub summary: String,
    pub risk: Risk,
    /// RFC 3339 UTC: every message says how long is left.
    pub expires_at: Option<String>,
    /// "1 of 2 approvals", when a policy asks for more than one.
    pub quorum: Option<String>,
    pub links: Vec<NoticeLink>,
}

impl Notice {
    /// The message "Send a test" sends, with `link` to open.
    pub fn test(person: &str, link: &str) -> Self {
        Notice {
            kind: NoticeKind::Test,
            title: "Test notification from Warden".into(),
            asked_by: person.into(),
            summary: "This is a test. When an agent's action waits for you, a message like this one says who asks, \
                      what, its risk and how long is left, with a link to decide."
                .into(),
            risk: Risk::Low,
            expires_at: None,
            quorum: None,
            links: vec![NoticeLink { label: "Open Warden".into(), url: link.into(), intent: LinkIntent::Open }],
        }
    }

    /// The link a tap on the whole message opens: the `Open` one, or the first.
    pub fn main_link(&self) -> Option<&NoticeLink> {
        self.links.iter().find(|l| l.intent == LinkIntent::Open).or_else(|| self.links.first())
    }
}
