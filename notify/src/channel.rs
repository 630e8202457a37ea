//! A channel as the server keeps it: whose it is, its settings with their secrets, its last test.

use warden_types::channel::{ChannelConfig, ChannelView, TestResult};
use warden_types::id::{ChannelId, PersonId};

/// Whose a channel is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChannelOwner {
    /// One person's own channel: only they see and change it.
    Person(PersonId),
    /// A team's (Slack, Discord, a webhook), made by an owner; policies name it per rule.
    Shared,
}

impl ChannelOwner {
    pub fn person(&self) -> Option<&PersonId> {
        match self {
            ChannelOwner::Person(id) => Some(id),
            ChannelOwner::Shared => None,
        }
    }
}

/// A stored channel, secrets included: never sent to a browser as is (see [`Channel::view`]).
#[derive(Clone, PartialEq, Eq)]
pub struct Channel {
    pub id: ChannelId,
    pub owner: ChannelOwner,
    pub name: String,
    pub config: ChannelConfig,
    pub created_at: String,
    pub last_test: Option<TestResult>,
    pub gone_at: Option<String>,
}

impl Channel {
    /// As Settings shows it: secrets masked.
    pub fn view(&self) -> ChannelView {
        ChannelView {
            id: self.id.clone(),
            name: self.name.clone(),
            kind: self.config.kind(),
            shared: self.owner == ChannelOwner::Shared,
            config: self.config.masked(),
            created_at: self.created_at.clone(),
            last_test: self.last_test.clone(),
            gone_at: self.gone_at.clone(),
        }
    }
}

impl std::fmt::Debug for Channel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Channel")
            .field("id", &self.id)
            .field("owner", &self.owner)
            .field("name", &self.name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
