//! Passkeys in the people's store, on a real database file: kept per person, listed, found for a sign-in only
//! while the account is enabled, never registered twice, and a person's last way in is not removed. (The
//! ceremonies' cryptography is webauthn-rs's and runs in the browser test, `end2end/tests/passkeys.spec.ts`.)
#![allow(clippy::unwrap_used, reason = "tests")]

use std::time::Duration;

use warden_db::Database;
use warden_people::passkeys::user_handle;
use warden_people::{Error, NewInvitation, NewPasskey, People};
use warden_types::person::Role;
use webauthn_rs::prelude::Passkey;

const PASSWORD: &str = "correct horse battery staple";

async fn open() -> (tempfile::TempDir, Database, People) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("warden.db").display());
    let database = Database::open(&url).await.unwrap();
    let people = People::open(&database).await.unwrap();
    (dir, database, people)
}

/// A stored passkey as webauthn-rs serialises one (an ES256 key; the ceremonies are not run here), with the
/// credential id `id`.
fn passkey(id: &[u8]) -> Passkey {
    let key: Vec<u8> = (1..=32).collect();
    serde_json::from_value(serde_json::json!({
        "cred": {
            "cred_id": hex_to_base64url(id),
            "cred": { "type_": "ES256", "key": { "EC_EC2": { "curve": "SECP256R1", "x": key, "y": key } } },
            "counter": 0,
            "transports": null,
            "user_verified": true,
            "backup_eligible": false,
            "backup_state": false,
            "registration_policy": "required",
            "extensions": { "cred_protect": "NotRequested", "hmac_create_secret": "NotRequested" },
            "attestation": { "data": "None", "metadata": "None" },
            "attestation_format": "none"
        }
    }))
    .unwrap()
}

/// `bytes` as base64url without padding (how webauthn-rs writes a credential id).
fn hex_to_base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

fn named(name: &str, id: &[u8]) -> NewPasskey {
    NewPasskey { name: name.into(), passkey: passkey(id) }
}

async fn invited(people: &People, role: Role) -> String {
    let owner = people.founding_owner().await.unwrap();
    let new = NewInvitation { role, name: None, valid_for: Duration::from_secs(3600) };
    let (_, secret) = people.invite(&owner.id, new).await.unwrap();
    secret.expose().to_string()
}

#[tokio::test]
async fn an_invitee_joins_with_a_passkey_and_no_password() {
    let (_dir, _database, people) = open().await;
    let secret = invited(&people, Role::Approver).await;
    let (invitation, login, name) = people.check_joining(&secret, " grace ", "Grace Hopper").await.unwrap();
    assert_eq!((invitation.role, login.as_str(), name.as_str()), (Role::Approver, "grace", "Grace Hopper"));
    let id = warden_types::id::PersonId::new();
    let grace =
        people.accept_invitation_with_passkey(&secret, &id, &login, &name, named("Laptop", &[1, 2, 3])).await.unwrap();
    assert_eq!((grace.id.clone(), grace.role, grace.has_password), (id.clone(), Role::Approver, false));
    let listed = people.passkeys_of(&id).await.unwrap();
    assert_eq!(listed.len(), 1);
    // The people's list says how each signs in: Grace by one passkey, the owner by neither.
    let everyone = people.list().await.unwrap();
    let of = |id: &warden_types::id::PersonId| everyone.iter().find(|p| p.id == *id).cloned().unwrap();
    let listed_grace = of(&id);
    assert_eq!((listed_grace.passkeys, listed_grace.has_password, listed_grace.has_oidc), (1, false, false));
    let owner = of(&people.founding_owner().await.unwrap().id);
    assert_eq!((owner.passkeys, owner.has_oidc), (0, false));
    assert_eq!((listed[0].id.as_str(), listed[0].name.as_str()), ("010203", "Laptop"));
    assert_eq!(listed[0].last_used_at, None);

    let (person, found) = people.passkey_for_sign_in(user_handle(&id).unwrap(), &[1, 2, 3]).await.unwrap().unwrap();
    assert_eq!(person.id, id);
    assert_eq!(found.cred_id().as_ref(), &[1, 2, 3]);

    let again = people.check_joining(&secret, "grace2", "Grace").await;
    assert!(matches!(again, Err(Error::InvitationNotValid)), "the link was used: {again:?}");
}

#[tokio::test]
async fn checking_what_an_invitee_typed_refuses_a_taken_login_before_any_passkey_is_made() {
    let (_dir, _database, people) = open().await;
    let secret = invited(&people, Role::Member).await;
    let taken = people.check_joining(&secret, "OWNER", "Someone").await;
    assert!(matches!(taken, Err(Error::LoginTaken(_))), "{taken:?}");
    let bad = people.check_joining(&secret, "two words", "Someone").await;
    assert!(matches!(bad, Err(Error::BadName(_))), "{bad:?}");
    assert!(people.check_joining(&secret, "someone", "Someone").await.is_ok(), "the link is still usable");
}

#[tokio::test]
async fn a_passkey_signs_in_only_its_own_enabled_person() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    let secret = invited(&people, Role::Member).await;
    let bob = people.accept_invitation(&secret, "bob", "Bob", PASSWORD).await.unwrap();
    people.add_passkey(&bob.id, named("Phone", &[9, 9])).await.unwrap();
    let handle = user_handle(&bob.id).unwrap();
    assert!(people.passkey_for_sign_in(handle, &[9, 9]).await.unwrap().is_some());
    let owners_handle = user_handle(&owner.id).unwrap();
    assert!(people.passkey_for_sign_in(owners_handle, &[9, 9]).await.unwrap().is_none(), "another person's handle");
    assert!(people.passkey_for_sign_in(handle, &[7]).await.unwrap().is_none(), "an unknown credential");

    people.disable(&owner.id, &bob.id).await.unwrap();
    assert!(people.passkey_for_sign_in(handle, &[9, 9]).await.unwrap().is_none(), "a disabled account");
    people.enable(&owner.id, &bob.id).await.unwrap();
    assert!(people.passkey_for_sign_in(handle, &[9, 9]).await.unwrap().is_some());
}

#[tokio::test]
async fn a_credential_is_registered_once_whoever_asks() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    people.add_passkey(&owner.id, named("Laptop", &[5])).await.unwrap();
    let twice = people.add_passkey(&owner.id, named("Laptop again", &[5])).await;
    assert!(matches!(twice, Err(Error::PasskeyTaken)), "{twice:?}");
    let secret = invited(&people, Role::Viewer).await;
    let id = warden_types::id::PersonId::new();
    let other = people.accept_invitation_with_passkey(&secret, &id, "vic", "Vic", named("Stolen", &[5])).await;
    assert!(matches!(other, Err(Error::PasskeyTaken)), "{other:?}");
    assert!(people.invitation_by_secret(&secret).await.unwrap().is_some(), "the link stays usable");
    assert_eq!(people.passkey_ids_of(&owner.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn the_last_way_in_of_someone_without_a_password_stays() {
    let (_dir, _database, people) = open().await;
    let secret = invited(&people, Role::Member).await;
    let id = warden_types::id::PersonId::new();
    people.accept_invitation_with_passkey(&secret, &id, "cy", "Cy", named("Laptop", &[1])).await.unwrap();
    people.add_passkey(&id, named("Phone", &[2])).await.unwrap();
    assert_eq!(people.person(&id).await.unwrap().passkeys, 2, "counted where the person is read");
    people.remove_passkey(&id, "01").await.unwrap();
    let last = people.remove_passkey(&id, "02").await;
    assert!(matches!(last, Err(Error::LastWayIn)), "{last:?}");
    assert_eq!(people.passkeys_of(&id).await.unwrap().len(), 1);
    let unknown = people.remove_passkey(&id, "ffff").await;
    assert!(matches!(unknown, Err(Error::PasskeyNotFound(_))), "{unknown:?}");

    // The founding owner keeps the printed link: they may remove their only passkey.
    let owner = people.founding_owner().await.unwrap();
    people.add_passkey(&owner.id, named("Laptop", &[3])).await.unwrap();
    people.remove_passkey(&owner.id, "03").await.unwrap();
    // Nor can one person remove another's.
    people.add_passkey(&owner.id, named("Laptop", &[4])).await.unwrap();
    let theirs = people.remove_passkey(&id, "04").await;
    assert!(matches!(theirs, Err(Error::PasskeyNotFound(_))), "{theirs:?}");
}
