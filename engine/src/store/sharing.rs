//! Who a thread belongs to and who else may read it: its `owner_id` and its `thread_shares` rows
//! (migration `20261201000100_thread_owners`). What that lets a person do is `crate::access`'s rule;
//! this module reads and writes the facts, and gives the lists and the search their filter.

use sqlx::Row;
use warden_db::timestamp::now;
use warden_types::id::{PersonId, ThreadId};
use warden_types::person::Reader;
use warden_types::policy::ApprovalRoute;
use warden_types::thread::Sharing;

use super::Store;
use crate::error::{Error, Result};

/// The condition on `threads` that keeps the rows a reader may read, with three parameters in this
/// order: whether they read everything (an owner by role), and their id twice ([`Readable`]). The
/// threads routed to an approver are `ROUTED_TO_READER` (none yet).
pub(super) const READABLE: &str = "(? OR threads.owner_id = ? OR EXISTS (SELECT 1 FROM thread_shares s \
     WHERE s.thread_id = threads.id AND (s.person_id IS NULL OR s.person_id = ?)) OR (0))";

/// Whether an approval of thread `thread` is (or was) routed to `reader`: they may read the thread to judge
/// it. An approval's route names its approvers (people and roles); one from before routing, any owner or
/// approver. The lists and the search do not add these threads (the `(0)` at the end of [`READABLE`]): an
/// approver reaches them from the card.
pub async fn routed_to(store: &Store, reader: &Reader, thread: &ThreadId) -> Result<bool> {
    if !reader.role.decides() {
        return Ok(false);
    }
    // Each distinct route once: a thread's cards mostly share one (the same policy, the same requester).
    let routes: Vec<Option<String>> = sqlx::query_scalar("SELECT DISTINCT route FROM approvals WHERE thread_id = ?")
        .bind(thread)
        .fetch_all(&store.pool)
        .await?;
    for route in routes {
        let named = match route {
            None => true,
            Some(json) => {
                let route: ApprovalRoute = serde_json::from_str(&json)
                    .map_err(|e| Error::Corrupt(format!("an approval's route of thread {thread}: {e}")))?;
                route.approvers.people.contains(&reader.person) || route.approvers.roles.contains(&reader.role)
            }
        };
        if named {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The parameters of [`READABLE`] for one reader, or for nobody in particular (every thread).
pub(super) struct Readable<'a> {
    pub everything: bool,
    pub person: &'a str,
}

impl<'a> Readable<'a> {
    pub fn by(reader: Option<&'a Reader>) -> Self {
        match reader {
            Some(r) => Readable { everything: crate::access::reads_everything(r), person: r.person.as_str() },
            None => Readable { everything: true, person: "" },
        }
    }
}

/// What the access rule needs to know of one thread for one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadFacts {
    pub owner: Option<PersonId>,
    /// Shared with this person by name, or with everyone.
    pub shared: bool,
}

impl Store {
    /// The owner of `thread`, and whether it is shared with `person`; `NotFound` if there is no such thread.
    pub async fn thread_facts(&self, thread: &ThreadId, person: &PersonId) -> Result<ThreadFacts> {
        let row = sqlx::query(
            "SELECT owner_id, EXISTS (SELECT 1 FROM thread_shares s WHERE s.thread_id = threads.id \
               AND (s.person_id IS NULL OR s.person_id = ?)) AS shared \
             FROM threads WHERE id = ?",
        )
        .bind(person)
        .bind(thread)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| Error::not_found("thread", thread))?;
        Ok(ThreadFacts { owner: row.try_get("owner_id")?, shared: row.try_get::<i64, _>("shared")? != 0 })
    }

    /// Who besides its owner may read `thread`.
    pub async fn sharing(&self, thread: &ThreadId) -> Result<Sharing> {
        let people: Vec<Option<PersonId>> = sqlx::query_scalar(
            "SELECT person_id FROM thread_shares WHERE thread_id = ? ORDER BY created_at, person_id",
        )
        .bind(thread)
        .fetch_all(&self.pool)
        .await?;
        if people.iter().any(Option::is_none) {
            return Ok(Sharing::Everyone);
        }
        let people: Vec<PersonId> = people.into_iter().flatten().collect();
        Ok(if people.is_empty() { Sharing::Private } else { Sharing::People { people } })
    }

    /// Replaces who may read `thread` (checked by the engine: people exist, the owner is not among them).
    pub async fn set_sharing(&self, thread: &ThreadId, sharing: &Sharing) -> Result<()> {
        let mut tx = self.write_tx().await?;
        sqlx::query("DELETE FROM thread_shares WHERE thread_id = ?").bind(thread).execute(&mut *tx).await?;
        let ts = now();
        let people: Vec<Option<&PersonId>> = match sharing {
            Sharing::Private => Vec::new(),
            Sharing::Everyone => vec![None],
            Sharing::People { people } => people.iter().map(Some).collect(),
        };
        for person in people {
            sqlx::query(
                "INSERT INTO thread_shares (thread_id, person_id, created_at) VALUES (?, ?, ?) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(thread)
            .bind(person)
            .bind(&ts)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Gives every thread of nobody's (made before Warden knew people) to `owner`; how many.
    pub async fn adopt_unowned_threads(&self, owner: &PersonId) -> Result<u64> {
        let done = sqlx::query("UPDATE threads SET owner_id = ? WHERE owner_id IS NULL")
            .bind(owner)
            .execute(&self.writer)
            .await?;
        Ok(done.rows_affected())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_db::store;
    use super::*;
    use warden_types::person::Role;
    use warden_types::thread::ThreadQuery;

    fn reader(id: &str, role: Role) -> Reader {
        Reader::new(PersonId::from(id), role)
    }

    #[tokio::test]
    async fn a_list_holds_what_is_mine_or_shared_with_me_and_an_owner_reads_everything() {
        let (_dir, store) = store().await;
        let (ada, bob) = (PersonId::from("ada"), PersonId::from("bob"));
        let adas = store.create_thread_with_id(&ThreadId::new(), Some("Ada's"), Some(&ada)).await.unwrap().0;
        let bobs = store.create_thread_with_id(&ThreadId::new(), Some("Bob's"), Some(&bob)).await.unwrap().0;
        let titles = |threads: Vec<warden_types::thread::Thread>| {
            let mut t: Vec<String> = threads.into_iter().map(|t| t.title).collect();
            t.sort();
            t
        };
        let q = ThreadQuery::default();
        let as_ada = reader("ada", Role::Member);
        assert_eq!(titles(store.list_threads(&q, Some(&as_ada)).await.unwrap()), ["Ada's"]);
        assert_eq!(titles(store.list_threads(&q, Some(&reader("cy", Role::Owner))).await.unwrap()), ["Ada's", "Bob's"]);

        store.set_sharing(&bobs.id, &Sharing::People { people: vec![ada.clone()] }).await.unwrap();
        assert_eq!(titles(store.list_threads(&q, Some(&as_ada)).await.unwrap()), ["Ada's", "Bob's"]);
        assert!(store.thread_facts(&bobs.id, &ada).await.unwrap().shared);
        let as_cy = reader("cy", Role::Viewer);
        assert!(store.list_threads(&q, Some(&as_cy)).await.unwrap().is_empty());

        store.set_sharing(&bobs.id, &Sharing::Everyone).await.unwrap();
        assert_eq!(titles(store.list_threads(&q, Some(&as_cy)).await.unwrap()), ["Bob's"]);
        assert_eq!(store.sharing(&bobs.id).await.unwrap(), Sharing::Everyone);
        store.set_sharing(&bobs.id, &Sharing::Private).await.unwrap();
        assert_eq!(store.sharing(&bobs.id).await.unwrap(), Sharing::Private);
        assert!(!store.thread_facts(&bobs.id, &ada).await.unwrap().shared);
        assert_eq!(store.thread_facts(&adas.id, &bob).await.unwrap().owner, Some(ada));
    }

    #[tokio::test]
    async fn threads_of_nobody_are_adopted_once() {
        let (_dir, store) = store().await;
        let old = store.create_thread(Some("old")).await.unwrap();
        assert_eq!(old.owner_id, None);
        let founder = PersonId::from("founder");
        assert_eq!(store.adopt_unowned_threads(&founder).await.unwrap(), 1);
        assert_eq!(store.adopt_unowned_threads(&PersonId::from("later")).await.unwrap(), 0);
        assert_eq!(store.thread(&old.id).await.unwrap().owner_id, Some(founder));
    }
}
