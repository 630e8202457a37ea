//! Passkey ceremonies under way: what the server said to the browser (webauthn-rs's state, with its
//! challenge) kept in memory under a random id until the browser answers, for five minutes at most, and
//! used once. Memory rather than a table: a ceremony lasts a minute, a restart only asks the person to try
//! again, anonymous sign-in attempts write nothing to the database, and the state never leaves the process
//! (webauthn-rs's `danger-allow-state-serialisation` stays off). The map is bounded.

use warden_types::id::PersonId;
use webauthn_rs::prelude::{DiscoverableAuthentication, PasskeyRegistration};

use crate::access::pending::Pending;

/// One ceremony's state.
pub enum Ceremony {
    /// Signing in on `/sign-in`.
    SignIn(DiscoverableAuthentication),
    /// Joining by the invitation whose link carries `secret`, as the new person `person`.
    Join { secret: String, person: PersonId, login: String, name: String, state: PasskeyRegistration },
    /// Adding a passkey called `name` to `person`'s account.
    Add { person: PersonId, name: String, state: PasskeyRegistration },
}

/// The ceremonies under way, five minutes at most each (webauthn-rs asks authenticators for five minutes at
/// most).
pub type Ceremonies = Pending<Ceremony, { 5 * 60 }>;
