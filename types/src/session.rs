//! A browser signed in to Warden, as Settings lists it under "Signed-in browsers".

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedInBrowser {
    /// The session's public id (not its secret): what revoking names.
    pub id: String,
    /// When the sign-in link was opened (RFC 3339 UTC).
    pub created_at: String,
    /// The last request it made, to the minute.
    pub last_seen_at: String,
    /// What the browser said it was at sign-in (`User-Agent`), cut to a few hundred characters.
    pub user_agent: Option<String>,
    /// Where it signed in from: the peer address Warden saw (a reverse proxy's, behind one), and the
    /// `X-Forwarded-For` it was given, if any.
    pub address: Option<String>,
    /// The browser asking for the list.
    pub this_browser: bool,
}
