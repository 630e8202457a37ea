//! Who a request comes from, as the server's access gate found them: put in the request's extensions, read by
//! the role checks, the handlers and the server functions.

use warden_types::id::PersonId;
use warden_types::person::{ActingPerson, Person, Reader, Role};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asker {
    pub person: Person,
    /// Let in by the access token (the founding owner's, as printed at start) rather than a session.
    pub by_token: bool,
}

impl Asker {
    pub fn id(&self) -> &PersonId {
        &self.person.id
    }

    pub fn role(&self) -> Role {
        self.person.role
    }

    /// Who the engine reads threads for (`Engine::as_reader`): the acting person, without the name.
    pub fn reader(&self) -> Reader {
        self.acting().reader()
    }

    /// The person as a run or a vote records them (the founding owner let in by the token included: a
    /// person, never a client).
    pub fn acting(&self) -> ActingPerson {
        self.person.acting()
    }
}
