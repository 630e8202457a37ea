//! Warden's approval inbox for outside executors and agents. A registered client (its token stored
//! hashed) sends requests as JSON frames ([`protocol`]) over a WebSocket or HTTP; [`OutsideHub`]
//! stores each one before answering, approves it at once if the [`policy`] says so, and otherwise
//! waits for a person or the timeout, then sends the decision back, also to a client that was
//! away or after a restart.
//!
//! Where things happen: a frame is read by `protocol::parse_client_frame`; a request is taken by
//! `OutsideHub::submit` and decided by `OutsideHub::decide` (a person), `policy::auto_approval`
//! (on arrival) or the hub's deadline task (timeout); `Connection` is one live socket's side.
//! Without the `server` feature only the protocol, the records and the policy are built (serde
//! only), for the browser UI.

pub mod executor;
pub mod permission_prompt;
pub mod policy;
pub mod protocol;
pub mod record;

#[cfg(feature = "server")]
pub mod audit;
#[cfg(feature = "server")]
mod connection;
#[cfg(feature = "server")]
mod dial;
#[cfg(feature = "server")]
mod dial_socket;
#[cfg(feature = "server")]
pub mod error;
#[cfg(feature = "server")]
mod executor_store;
#[cfg(feature = "server")]
mod hub;

/// Who may see and revoke an outside client.
pub mod ownership;
#[cfg(feature = "server")]
pub mod quota;
#[cfg(feature = "server")]
mod store;

#[cfg(feature = "server")]
pub use connection::{Connection, MissedPages, Wake};
#[cfg(feature = "server")]
pub use dial::{Backoff, Dialer};
#[cfg(feature = "server")]
pub use error::{Error, Result};
#[cfg(feature = "server")]
pub use hub::{Answer, ClientSignal, OutsideHub, PendingFor};
pub use ownership::Manager;
#[cfg(feature = "server")]
pub use quota::{Held, Limits, Permit};
#[cfg(feature = "server")]
pub use store::MIGRATIONS_TABLE;

pub use executor::{DialState, DialStatus, Executor, NewExecutor};
pub use permission_prompt::{PermissionAnswer, PermissionPrompt};
pub use policy::{ClientPolicy, CodeResponseAuto, Policy, SecurityAuto, Timeouts};
pub use protocol::{ClientFrame, DecisionFrame, ServerFrame};
pub use record::{
    Client, Decision, DecisionInput, InboxEvent, LinkedCall, NewClient, OutsideRequest, RequestQuery, RequestStatus,
};
