//! People for the tests: someone of a role, invited by the founding owner and signed in on a browser.

use warden_people::NewInvitation;
use warden_types::id::PersonId;
use warden_types::person::Role;

use super::Served;

pub const PASSWORD: &str = "correct horse battery staple";

/// A person of `role` signing in as `login` (the founding owner for `Role::Owner`, whatever `login`), with a
/// signed-in browser: their id and the `Cookie` header value that is theirs.
pub async fn signed_in_as(served: &Served, role: Role, login: &str) -> (PersonId, String) {
    let state = &served.state;
    let owner = state.access.founding_owner().expect("people are on").clone();
    let person = if role == Role::Owner {
        state.people.person(&owner).await.expect("the founding owner")
    } else {
        let (_, secret) = state.people.invite(&owner, NewInvitation::new(role)).await.expect("invited");
        state.people.accept_invitation(secret.expose(), login, login, PASSWORD).await.expect("joined")
    };
    let started = state.sessions.start(&person.id, None, None).await.expect("signed in");
    (person.id, format!("{}={}", state.access.cookie().name(false), started.secret.expose()))
}
