//! What the inbox's server function answers: the items, the clients to filter by, and what was cut.

use serde::{Deserialize, Serialize};

use super::item::{InboxItem, ItemKey};
use super::trim::CutCode;
use warden_types::person::PersonName;

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
    /// The people who decided the outside requests listed, by name (a request names its decider by id).
    #[serde(default)]
    pub deciders: Vec<PersonName>,
}

impl InboxList {
    /// The name of the person who decided `item`, if it is an outside request a person decided.
    pub fn decider_of(&self, item: &InboxItem) -> Option<String> {
        let InboxItem::Outside(request) = item else { return None };
        let id = request.decision.as_ref()?.person.as_ref()?;
        self.deciders.iter().find(|p| p.id == *id).map(|p| p.name.clone())
    }
}
