//! Who a request waits for: every enabled person its route lets decide it (the requester left out where the
//! route says so; no policy: every owner and approver).

use warden_people::People;
use warden_policies::may_decide;
use warden_types::person::ActingPerson;
use warden_types::policy::ApprovalRoute;

pub async fn deciders(people: &People, route: &ApprovalRoute) -> warden_people::Result<Vec<ActingPerson>> {
    Ok(people
        .list()
        .await?
        .into_iter()
        .filter(|person| person.disabled_at.is_none())
        .map(|person| person.acting())
        .filter(|person| may_decide(route, person).is_ok())
        .collect())
}
