//! Decision links over real HTTP on the whole app: opening a link (as a mail scanner does, as often as it
//! likes) shows the request and decides nothing; the tap on its page decides once, as the link's person,
//! recorded "by link"; two taps racing decide once; a link that was used, expired, is for someone the request
//! is no longer routed to, or for the requester, refuses; a request that changed since its page was shown is
//! shown again and the link still works.

use std::time::{Duration, SystemTime};

use leptos::prelude::LeptosOptions;
use reqwest::header::ORIGIN;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use warden_engine::config::Config;
use warden_reach::NewLink;
use warden_types::approval::Verdict;
use warden_types::id::{OutsideRequestId, PersonId};
use warden_types::notification::RequestRef;
use warden_types::person::Role;

use crate::common::outside::{ask, connect, evaluation, next_frame};
use crate::common::people::signed_in_as;
use crate::common::{self, anonymous, send_json, Served};

async fn served() -> (tempfile::TempDir, Served) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::with_data_dir(dir.path());
    let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
    (dir, served)
}

/// The owner (by the token) adds a policy.
async fn policy(served: &Served, body: Value) {
    let (status, policy) =
        send_json(&common::client(), Method::POST, format!("{}/api/policies", served.base), Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{policy}");
}

/// `cookie`'s person registers an outside client; its token.
async fn client_of(served: &Served, cookie: &str, name: &str) -> String {
    let response = anonymous()
        .post(format!("{}/api/outside/clients", served.base))
        .header(reqwest::header::COOKIE, cookie)
        .header(ORIGIN, &served.base)
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string()
}

/// A link for `person` to `intent` on `request`, as a notification carries it: its URL.
async fn link(
    served: &Served,
    request: &OutsideRequestId,
    person: &PersonId,
    intent: Verdict,
    valid: Duration,
) -> String {
    let new = NewLink {
        request: RequestRef::Outside(request.clone()),
        person: person.clone(),
        intent,
        notification: None,
        expires_at: SystemTime::now() + valid,
    };
    let (_, secret) = served.state.reach.links.mint(&new).await.unwrap();
    format!("{}/decide/{}", served.base, secret.expose())
}

/// Opens `url` as a browser or a scanner does (no session, no cookie): the status and the page.
async fn open(url: &str) -> (StatusCode, String) {
    let response = anonymous().get(url).send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

/// The fingerprint of what a confirm page shows (its form's hidden field).
fn shown(page: &str) -> String {
    let start = page.find(r#"name="shown" value=""#).expect("a confirm form") + r#"name="shown" value=""#.len();
    page[start..start + 64].to_string()
}

/// Taps the page's button: the form's POST from the page's origin.
async fn tap(served: &Served, url: &str, fields: &[(&str, &str)]) -> (StatusCode, String) {
    let response = anonymous().post(url).header(ORIGIN, &served.base).form(fields).send().await.unwrap();
    (response.status(), response.text().await.unwrap())
}

async fn status_of(served: &Served, id: &OutsideRequestId) -> String {
    served.state.outside.request(id).await.unwrap().status.to_string()
}

/// Ada (a member) has a client; a policy routes its risky requests to approvers (`quorum` of them).
async fn routed(served: &Served, quorum: u32) -> (String, String) {
    policy(
        served,
        json!({"name": "Approvers for commands", "match": {"source": "outside_client", "risk_at_least": "medium"},
               "approvers": {"roles": ["approver"]}, "quorum": quorum}),
    )
    .await;
    let (_, ada_cookie) = signed_in_as(served, Role::Member, "ada").await;
    let token = client_of(served, &ada_cookie, "ada-runner").await;
    (ada_cookie, token)
}

#[tokio::test]
async fn opening_a_link_decides_nothing_and_the_tap_on_its_page_decides_once_as_its_person() {
    let (_dir, served) = served().await;
    let (_, token) = routed(&served, 1).await;
    let (bob, _) = signed_in_as(&served, Role::Approver, "bob").await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("r1", "rm -rf build", "high")).await;
    let id = OutsideRequestId::from(ack["request_id"].as_str().unwrap());
    let url = link(&served, &id, &bob, Verdict::Approve, Duration::from_secs(600)).await;

    // A scanner follows the link again and again (and asks for its head): the page, nothing decided.
    for _ in 0..3 {
        let (status, page) = open(&url).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        assert!(page.contains("rm -rf build") && page.contains("Approve this request?"), "{page}");
        assert!(page.contains("Asked by ada (member)") && page.contains("High risk"), "{page}");
    }
    let head = anonymous().head(&url).send().await.unwrap();
    assert_eq!(head.status(), StatusCode::OK);
    assert_eq!(status_of(&served, &id).await, "pending");
    let links = served.state.reach.links.for_request(&RequestRef::Outside(id.clone())).await.unwrap();
    assert!(links[0].opened_at.is_some() && links[0].used_at.is_none(), "opened, not used: {links:?}");

    // The page's own POST, from another site, is refused by the gate.
    let (_, page) = open(&url).await;
    let fingerprint = shown(&page);
    let foreign = anonymous()
        .post(&url)
        .header(ORIGIN, "https://evil.example")
        .form(&[("shown", fingerprint.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    assert_eq!(status_of(&served, &id).await, "pending");

    // The tap decides, as Bob, by link; the client hears it.
    let (status, page) = tap(&served, &url, &[("shown", &fingerprint)]).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("Approved. The run goes on."), "{page}");
    let decision = next_frame(&mut socket).await;
    assert_eq!(decision["decision"], "approved", "{decision}");
    assert_eq!(
        decision["decided_by"]["detail"], "approved by bob (by link) (policy “Approvers for commands”)",
        "{decision}"
    );

    // Used: the link says so, and decides nothing more.
    let (status, page) = tap(&served, &url, &[("shown", &fingerprint)]).await;
    assert_eq!(status, StatusCode::GONE, "{page}");
    assert!(page.contains("This link was used") && page.contains("Approved. The run goes on."), "{page}");
    let (status, page) = open(&url).await;
    assert_eq!(status, StatusCode::GONE, "{page}");

    // A secret nobody has, or no secret at all.
    let (status, _) = open(&format!("{}/decide/{}", served.base, "0".repeat(64))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = open(&format!("{}/decide/not-a-secret", served.base)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn two_taps_at_once_decide_once() {
    let (_dir, served) = served().await;
    let (_, token) = routed(&served, 1).await;
    let (bob, _) = signed_in_as(&served, Role::Approver, "bob").await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("r1", "rm -rf build", "high")).await;
    let id = OutsideRequestId::from(ack["request_id"].as_str().unwrap());
    let url = link(&served, &id, &bob, Verdict::Deny, Duration::from_secs(600)).await;
    let (_, page) = open(&url).await;
    assert!(page.contains("Deny this request?") && page.contains(r#"name="reason""#), "{page}");
    let fingerprint = shown(&page);

    let fields = [("shown", fingerprint.as_str()), ("reason", "not on a Friday")];
    let (a, b) = tokio::join!(tap(&served, &url, &fields), tap(&served, &url, &fields));
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::GONE], "{} / {}", a.1, b.1);
    let decision = next_frame(&mut socket).await;
    assert_eq!(decision["decision"], "rejected", "{decision}");
    assert_eq!(decision["reason"], "not on a Friday", "{decision}");
    assert_eq!(status_of(&served, &id).await, "rejected");
}

#[tokio::test]
async fn a_link_refuses_when_expired_or_when_its_person_may_no_longer_decide() {
    let (_dir, served) = served().await;
    let (_, token) = routed(&served, 1).await;
    let (bob, _) = signed_in_as(&served, Role::Approver, "bob").await;
    let (cy, _) = signed_in_as(&served, Role::Approver, "cy").await;
    let ada = served.state.people.list().await.unwrap().into_iter().find(|p| p.login == "ada").unwrap().id;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("r1", "rm -rf build", "high")).await;
    let id = OutsideRequestId::from(ack["request_id"].as_str().unwrap());

    // Expired.
    let expired = link(&served, &id, &bob, Verdict::Approve, Duration::ZERO).await;
    let (status, page) = open(&expired).await;
    assert_eq!(status, StatusCode::GONE, "{page}");
    assert!(page.contains("This link has expired"), "{page}");

    // The requester's own link (she may not approve her own request).
    let own = link(&served, &id, &ada, Verdict::Approve, Duration::from_secs(600)).await;
    let (status, page) = open(&own).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{page}");
    assert!(page.contains("Not yours to decide"), "{page}");

    // Cy's link, after the owner made Cy a member: the request is no longer routed to Cy.
    let cys = link(&served, &id, &cy, Verdict::Approve, Duration::from_secs(600)).await;
    let (_, page) = open(&cys).await;
    let fingerprint = shown(&page);
    let owner = served.state.access.founding_owner().unwrap().clone();
    served.state.people.set_role(&owner, &cy, Role::Member).await.unwrap();
    let (status, page) = tap(&served, &cys, &[("shown", &fingerprint)]).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{page}");
    assert!(page.contains("This link no longer decides anything: your role decides nothing"), "{page}");
    assert_eq!(status_of(&served, &id).await, "pending");

    // Decided meanwhile (by Bob in the app): Bob's link says so.
    let bobs = link(&served, &id, &bob, Verdict::Deny, Duration::from_secs(600)).await;
    served
        .state
        .outside
        .decide(
            &id,
            serde_json::from_value(json!({"decision": "approved"})).unwrap(),
            &served.state.people.person(&bob).await.unwrap().acting(),
        )
        .await
        .unwrap();
    let (status, page) = open(&bobs).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("Already decided") && page.contains("Approved (approved by bob"), "{page}");
}

#[tokio::test]
async fn a_request_edited_since_its_page_was_shown_is_shown_again_and_the_link_still_works() {
    let (_dir, served) = served().await;
    let (_, token) = routed(&served, 2).await;
    let (bob, _) = signed_in_as(&served, Role::Approver, "bob").await;
    let (cy, _) = signed_in_as(&served, Role::Approver, "cy").await;
    let mut socket = connect(&served.base, &token).await;
    let ack = ask(&mut socket, &evaluation("r1", "rm -rf build", "high")).await;
    let id = OutsideRequestId::from(ack["request_id"].as_str().unwrap());
    let url = link(&served, &id, &bob, Verdict::Approve, Duration::from_secs(600)).await;
    let (_, page) = open(&url).await;
    assert!(page.contains("0 of 2 approvals"), "{page}");
    let before = shown(&page);

    // Cy edits the code (with a quorum, an edit is what the card shows and the count starts on it).
    let cy_person = served.state.people.person(&cy).await.unwrap().acting();
    let edit = json!({"decision": "approved", "edited_code": "rm -rf build/tmp"});
    served.state.outside.decide(&id, serde_json::from_value(edit).unwrap(), &cy_person).await.unwrap();

    let (status, page) = tap(&served, &url, &[("shown", &before)]).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert!(page.contains("This request changed since the page was shown"), "{page}");
    assert!(page.contains("rm -rf build/tmp") && page.contains("1 of 2 approvals (approved by cy)"), "{page}");
    assert_eq!(status_of(&served, &id).await, "pending");

    // Looked at again, the tap counts, on what it showed: the edit, approved by both.
    let (status, page) = tap(&served, &url, &[("shown", &shown(&page))]).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let decision = next_frame(&mut socket).await;
    assert_eq!(decision["decision"], "approved", "{decision}");
    assert_eq!(decision["edited_code"], "rm -rf build/tmp", "{decision}");
    assert!(
        decision["decided_by"]["detail"].as_str().unwrap().starts_with("approved by cy, then bob (by link)"),
        "{decision}"
    );
}
