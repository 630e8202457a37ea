//! People for the tests that call the engine directly.

use warden_types::person::{ActingPerson, Role};

/// The founding owner as a run or a vote records a person.
pub fn owner() -> ActingPerson {
    ActingPerson { id: "owner".into(), name: "Owner".into(), role: Role::Owner }
}
