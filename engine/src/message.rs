//! The provider-neutral conversation: role-tagged messages made of content blocks (defined in
//! warden-types, shared with the browser).

pub use warden_types::message::{Block, Message, Role};
