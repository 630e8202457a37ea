//! The people's store on a real database file: the founding owner, invitations, roles, sign-in.
#![allow(clippy::unwrap_used, reason = "tests")]

use std::time::Duration;

use warden_db::Database;
use warden_people::{Error, NewInvitation, PasswordRefused, People};
use warden_types::person::Role;

const PASSWORD: &str = "correct horse battery staple";

async fn open() -> (tempfile::TempDir, Database, People) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("warden.db").display());
    let database = Database::open(&url).await.unwrap();
    let people = People::open(&database).await.unwrap();
    (dir, database, people)
}

fn invitation(role: Role) -> NewInvitation {
    NewInvitation { role, name: Some("Ada Lovelace".into()), valid_for: Duration::from_secs(3600) }
}

#[tokio::test]
async fn a_fresh_install_has_one_owner_made_once_with_no_password() {
    let (_dir, database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    assert_eq!(owner.role, Role::Owner);
    assert!(!owner.has_password);
    assert_eq!(people.founding_owner().await.unwrap(), owner, "the same owner every time");
    let again = People::open(&database).await.unwrap();
    assert_eq!(again.founding_owner().await.unwrap().id, owner.id, "and after a restart");
    assert_eq!(people.list().await.unwrap(), vec![owner]);
}

#[tokio::test]
async fn an_invitation_is_used_once_and_its_secret_is_kept_only_hashed() {
    let (_dir, database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    let (invited, secret) = people.invite(&owner.id, invitation(Role::Approver)).await.unwrap();
    assert_eq!(people.pending_invitations().await.unwrap(), vec![invited.clone()]);
    assert_eq!(people.invitation_by_secret(secret.expose()).await.unwrap(), Some(invited.clone()));
    let stored: Vec<(String,)> =
        sqlx::query_as("SELECT secret_hash FROM invitations").fetch_all(database.pool()).await.unwrap();
    assert_ne!(stored[0].0, secret.expose());

    let ada = people.accept_invitation(secret.expose(), "ada", "Ada Lovelace", PASSWORD).await.unwrap();
    assert_eq!((ada.role, ada.login.as_str(), ada.has_password), (Role::Approver, "ada", true));
    let again = people.accept_invitation(secret.expose(), "ada2", "Ada again", PASSWORD).await;
    assert!(matches!(again, Err(Error::InvitationNotValid)), "{again:?}");
    assert_eq!(people.invitation_by_secret(secret.expose()).await.unwrap(), None);
    assert!(people.pending_invitations().await.unwrap().is_empty());
    assert_eq!(people.list().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_mistake_on_the_invitation_page_leaves_the_link_usable() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    let (_, secret) = people.invite(&owner.id, invitation(Role::Member)).await.unwrap();
    let short = people.accept_invitation(secret.expose(), "bob", "Bob", "too short").await;
    assert!(matches!(short, Err(Error::BadPassword(PasswordRefused::TooShort))), "{short:?}");
    let bad_login = people.accept_invitation(secret.expose(), "bob smith", "Bob", PASSWORD).await;
    assert!(matches!(bad_login, Err(Error::BadName(_))), "{bad_login:?}");
    let taken = people.accept_invitation(secret.expose(), "OWNER", "Bob", PASSWORD).await;
    assert!(matches!(taken, Err(Error::LoginTaken(_))), "a login is unique whatever its case: {taken:?}");
    let bob = people.accept_invitation(secret.expose(), "bob", "Bob", PASSWORD).await.unwrap();
    assert_eq!(bob.role, Role::Member);
}

#[tokio::test]
async fn an_expired_or_withdrawn_invitation_opens_nothing() {
    let (_dir, database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    let (old, old_secret) = people.invite(&owner.id, invitation(Role::Viewer)).await.unwrap();
    sqlx::query("UPDATE invitations SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?")
        .bind(&old.id)
        .execute(database.writer())
        .await
        .unwrap();
    assert_eq!(people.invitation_by_secret(old_secret.expose()).await.unwrap(), None);
    let late = people.accept_invitation(old_secret.expose(), "late", "Late", PASSWORD).await;
    assert!(matches!(late, Err(Error::InvitationNotValid)), "{late:?}");

    let (withdrawn, secret) = people.invite(&owner.id, invitation(Role::Viewer)).await.unwrap();
    people.withdraw_invitation(&owner.id, &withdrawn.id).await.unwrap();
    let after = people.accept_invitation(secret.expose(), "cy", "Cy", PASSWORD).await;
    assert!(matches!(after, Err(Error::InvitationNotValid)), "{after:?}");
    assert!(matches!(people.withdraw_invitation(&owner.id, &withdrawn.id).await, Err(Error::InvitationNotFound(_))));
    let forever = NewInvitation { valid_for: Duration::from_secs(365 * 24 * 3600), ..invitation(Role::Viewer) };
    assert!(matches!(people.invite(&owner.id, forever).await, Err(Error::BadExpiry { .. })));
}

#[tokio::test]
async fn only_an_enabled_owner_invites_or_changes_people() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    let (_, secret) = people.invite(&owner.id, invitation(Role::Approver)).await.unwrap();
    let ada = people.accept_invitation(secret.expose(), "ada", "Ada", PASSWORD).await.unwrap();
    assert!(matches!(people.invite(&ada.id, invitation(Role::Owner)).await, Err(Error::NotAnOwner)));
    assert!(matches!(people.set_role(&ada.id, &ada.id, Role::Owner).await, Err(Error::NotAnOwner)));
    assert!(matches!(people.disable(&ada.id, &owner.id).await, Err(Error::NotAnOwner)));
    assert!(matches!(people.invite(&"nobody".into(), invitation(Role::Viewer)).await, Err(Error::NotAnOwner)));

    let promoted = people.set_role(&owner.id, &ada.id, Role::Owner).await.unwrap();
    assert_eq!(promoted.role, Role::Owner);
    people.disable(&owner.id, &ada.id).await.unwrap();
    assert!(
        matches!(people.invite(&ada.id, invitation(Role::Viewer)).await, Err(Error::NotAnOwner)),
        "a disabled owner is no owner"
    );
}

#[tokio::test]
async fn warden_always_keeps_an_enabled_owner() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    assert!(matches!(people.set_role(&owner.id, &owner.id, Role::Member).await, Err(Error::LastOwner)));
    assert!(matches!(people.disable(&owner.id, &owner.id).await, Err(Error::LastOwner)));
    let (_, secret) = people.invite(&owner.id, invitation(Role::Owner)).await.unwrap();
    let second = people.accept_invitation(secret.expose(), "second", "Second", PASSWORD).await.unwrap();
    assert_eq!(second.role, Role::Owner);
    people.set_role(&second.id, &owner.id, Role::Approver).await.unwrap();
    assert!(matches!(people.disable(&second.id, &second.id).await, Err(Error::LastOwner)));
}

#[tokio::test]
async fn sign_in_needs_the_right_password_and_an_enabled_account() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    let (_, secret) = people.invite(&owner.id, invitation(Role::Member)).await.unwrap();
    let bob = people.accept_invitation(secret.expose(), "Bob", "Bob", PASSWORD).await.unwrap();
    assert_eq!(people.sign_in("bob", PASSWORD).await.unwrap().map(|p| p.id), Some(bob.id.clone()));
    assert_eq!(people.sign_in(" BOB ", PASSWORD).await.unwrap().map(|p| p.id), Some(bob.id.clone()));
    assert_eq!(people.sign_in("bob", "correct horse battery stapler").await.unwrap(), None);
    assert_eq!(people.sign_in("nobody", PASSWORD).await.unwrap(), None);
    assert_eq!(people.sign_in("owner", "").await.unwrap(), None, "the owner has no password until they set one");
    people.disable(&owner.id, &bob.id).await.unwrap();
    assert_eq!(people.sign_in("bob", PASSWORD).await.unwrap(), None);
    people.enable(&owner.id, &bob.id).await.unwrap();
    assert!(people.sign_in("bob", PASSWORD).await.unwrap().is_some());
}

#[tokio::test]
async fn a_password_is_changed_only_with_the_current_one() {
    let (_dir, _database, people) = open().await;
    let owner = people.founding_owner().await.unwrap();
    people.set_password(&owner.id, None, PASSWORD).await.unwrap();
    assert!(people.sign_in("owner", PASSWORD).await.unwrap().is_some());
    let new = "a different long passphrase";
    assert!(matches!(people.set_password(&owner.id, None, new).await, Err(Error::WrongPassword)));
    assert!(matches!(people.set_password(&owner.id, Some("guess"), new).await, Err(Error::WrongPassword)));
    assert!(matches!(people.set_password(&owner.id, Some(PASSWORD), "owner").await, Err(Error::BadPassword(_))));
    people.set_password(&owner.id, Some(PASSWORD), new).await.unwrap();
    assert!(people.sign_in("owner", new).await.unwrap().is_some());
    assert!(people.sign_in("owner", PASSWORD).await.unwrap().is_none());
}
