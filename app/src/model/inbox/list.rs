//! What the inbox's server function answers: the items, the clients to filter by, and what was cut.

use serde::{Deserialize, Serialize};

use super::item::{InboxItem, ItemKey};
use super::trim::CutCode;

/// An outside client as the source filter offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRef {
    pub id: String,
    pub name: String,
}

/// One answer of the inbox's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InboxList {
    /// Trimmed (see [`trimmed`](super::trim::trimmed)).
    pub items: Vec<InboxItem>,
    pub clients: Vec<ClientRef>,
    /// The items with a text cut short.
    #[serde(default)]
    pub cut: Vec<ItemKey>,
    /// The outside requests whose code (or output) is cut short: Approve waits until all is shown.
    #[serde(default)]
    pub cut_code: Vec<CutCode>,
}
