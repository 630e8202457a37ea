//! Ids as types of their own: a thread's id is a [`ThreadId`] and cannot be passed where a run's is
//! expected. Each is a `String` underneath, transparent in JSON (the wire does not change) and stored
//! as TEXT (under the `sqlx` feature, native only, which also mints new ones: UUID v7, time-ordered).
//!
//! Ids are opaque: nothing checks their shape, so any string (from a URL, a JSON body, an import) is
//! one, and an id that names nothing is the store's `NotFound`. A provider's own call id is not one of
//! these: it stays the model's `String` (`call_id`), so it cannot be mistaken for Warden's [`ToolCallId`].

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
        pub struct $name(String);

        impl $name {
            /// A fresh id, as the store makes them (UUID v7: ordered by time).
            #[cfg(feature = "sqlx")]
            #[allow(clippy::new_without_default)]
            pub fn new() -> Self {
                Self(uuid::Uuid::now_v7().to_string())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<&$name> for $name {
            fn from(id: &$name) -> Self {
                id.clone()
            }
        }

        impl From<&$name> for String {
            fn from(id: &$name) -> Self {
                id.0.clone()
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok(Self(s.to_owned()))
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self.0 == other.0
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                **self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    )*};
}

ids! {
    /// A conversation.
    ThreadId;
    /// One agent loop of a thread.
    RunId;
    /// A stored message.
    MessageId;
    /// Warden's record of one tool call (the model's own id for it is `call_id`, a `String`).
    ToolCallId;
    /// A gated call's approval.
    ApprovalId;
    /// A thread rule ("allow for this thread").
    RuleId;
    /// A connection check (a run waiting for an MCP server).
    ConnectionCheckId;
    /// A configured model provider (`env-openai`, `local`, or a stored one's id).
    ProviderId;
    /// A registered outside client (executor or agent).
    ClientId;
    /// Warden's id of an outside client's request (the client's own id is `client_request_id`).
    OutsideRequestId;
    /// An executor Warden dials.
    ExecutorId;
    /// A person with an account (the founding owner included).
    PersonId;
    /// An invitation not yet used.
    InvitationId;
    /// An approval policy (who decides which requests, how many must agree).
    PolicyId;
    /// One message sent about a request, to one channel (the delivery log's row).
    NotificationId;
    /// A single-use decision link (its secret is kept only hashed).
    DecisionLinkId;
    /// A notification channel (a person's own, or a shared one an owner made).
    ChannelId;
}
