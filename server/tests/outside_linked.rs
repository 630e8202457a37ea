//! An outside request from an executor that Warden's own chat is calling, end to end on the whole app:
//! the scripted model calls the rmcp fixture's `run_code`, whose tool reads Warden's call id from the
//! `tools/call` `_meta`, asks Warden over `/ws/approvals` as a registered client naming that call, and
//! answers by the decision. The request belongs to the running call: listed with the thread's calls,
//! not as an inbox item of its own, counted once with the chats; decided through the same
//! `decide_outside` as the inbox, and the model's next request carries the tool result the decision
//! made. A request naming an unknown or finished call stays one of its own; the policy applies as to
//! any request; a request still waiting when its call ends (the run stopped) is rejected with it.

use crate::common;
use warden_types::id::{OutsideRequestId, ThreadId};

use std::collections::BTreeMap;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tempfile::TempDir;
use warden_app::server_fns::inbox::{DecideOutside, ListInbox};
use warden_app::server_fns::outside_linked::LinkedOutsideRequests;
use warden_app::server_fns::ListThreads;
use warden_engine::config::{Config, ModelConfig};
use warden_engine::Engine;
use warden_mcp::{McpServerConfig, ToolPolicy, Transport};
use warden_mcp_fixture::{binary as fixture_bin, PATIENCE};
use warden_outside::{OutsideHub, OutsideRequest, RequestQuery, RequestStatus};
use warden_testkit::{FixtureModel, Scenario, Script, ScriptedCall, Turn};
use warden_types::run::{ToolCallRecord, ToolCallStatus};

use crate::common::outside::{ask, evaluation, register};
use crate::common::{client, Served};

const PROMPT: &str = "run the tests please";

struct Linked {
    _dir: TempDir,
    model: FixtureModel,
    served: Served,
    engine: Engine,
    hub: OutsideHub,
    token: String,
}

impl Linked {
    /// The whole app with the scripted model and the fixture MCP server `fx`, whose `run_code` Warden
    /// runs without asking (the executor behind it asks instead) and which asks as the client
    /// `runner` (with `policy`, if not null).
    async fn start(policy: Value) -> Linked {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = Script {
            scenarios: vec![Scenario::new(
                PROMPT,
                vec![
                    Turn::calls(vec![ScriptedCall::new("fx__run_code", json!({"code": "pytest -q"}))]),
                    Turn { echo_tool_results: true, ..Turn::text("Finished.") },
                ],
            )],
            default_title: None,
        };
        let model = FixtureModel::start(script).await.expect("fixture model");
        let mut config = Config::with_data_dir(dir.path());
        config.model = Some(ModelConfig { base_url: model.base_url(), api_key: None, model: "fixture".into() });
        let served = common::serve_app(config, LeptosOptions::builder().output_name("warden").build()).await;
        let (_, token) = register(&served.base, "runner", policy).await;

        let env = BTreeMap::from([
            ("WARDEN_URL".to_string(), served.base.clone()),
            ("WARDEN_CLIENT_TOKEN".to_string(), token.clone()),
        ]);
        let transport = Transport::Stdio { command: fixture_bin().display().to_string(), args: vec![], env };
        let mut fx = McpServerConfig::new("fx", transport);
        fx.tool_policies.insert("run_code".into(), ToolPolicy::NeverAsk);
        let mcp = served.mcp().clone();
        mcp.upsert(fx).await.expect("saved");
        let connected = tokio::time::timeout(PATIENCE, async {
            while mcp.get("fx").is_none_or(|s| s.state != warden_mcp::ServerState::Connected) {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        connected.await.expect("the fixture connects");
        let (engine, hub) = (served.engine().clone(), served.state.outside.clone());
        Linked { _dir: dir, model, served, engine, hub, token }
    }

    /// Calls a server function with a JSON body, as the page does; the status and the JSON answer.
    async fn call(&self, path: &str, body: Value) -> (StatusCode, Value) {
        common::send_json(&client(), Method::POST, format!("{}{}", self.served.base, path), Some(body)).await
    }

    /// A chat (with no policy for the client) whose running call's executor asked and waits: the
    /// thread's id, the call and the request.
    async fn waiting_on_a_call() -> (Self, String, ToolCallRecord, OutsideRequest) {
        let linked = Self::start(Value::Null).await;
        let thread_id = linked.chat().await;
        let call = linked.call_in(&ThreadId::from(thread_id.as_str()), ToolCallStatus::Running).await;
        let request = linked.request(RequestStatus::Pending).await;
        (linked, thread_id, call, request)
    }

    /// Starts a chat whose model calls `fx__run_code`; the thread's id.
    async fn chat(&self) -> String {
        let thread = self.engine.create_thread(None).await.expect("thread");
        self.engine.send_message(&thread.id, PROMPT.into(), &crate::common::owner()).await.expect("sent");
        thread.id.to_string()
    }

    /// The thread's `fx__run_code` call once it is `status`.
    async fn call_in(&self, thread_id: &ThreadId, status: ToolCallStatus) -> ToolCallRecord {
        let engine = self.engine.clone();
        let found = tokio::time::timeout(PATIENCE, async move {
            loop {
                let detail = engine.thread(thread_id).await.expect("thread");
                if let Some(call) =
                    detail.tool_calls.into_iter().find(|c| c.name == "fx__run_code" && c.status == status)
                {
                    return call;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        found.await.unwrap_or_else(|_| panic!("the call is {status:?} in time"))
    }

    /// The one request of `runner` with `status`, once there is one.
    async fn request(&self, status: RequestStatus) -> OutsideRequest {
        let hub = self.hub.clone();
        let found = tokio::time::timeout(PATIENCE, async move {
            loop {
                let query = RequestQuery { status: Some(status), ..Default::default() };
                if let Some(request) = hub.list(&query).await.expect("list").into_iter().next() {
                    return request;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        found.await.expect("the executor asked in time")
    }

    /// The run's answer once the run is over.
    async fn answer(&self, thread_id: &ThreadId) -> String {
        let engine = self.engine.clone();
        let done = tokio::time::timeout(PATIENCE, async move {
            loop {
                let detail = engine.thread(thread_id).await.expect("thread");
                // The last message must be the model's words: between a decision and the run
                // resuming, no run is active and the last message is still the call's (no text).
                let last = detail.messages.last().filter(|m| detail.messages.len() >= 2 && !m.content.is_empty());
                if let (None, Some(last)) = (&detail.active_run, last) {
                    return last.content.clone();
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        });
        done.await.expect("the run finished in time")
    }

    /// The pending outside items `/inbox` lists.
    async fn inbox_outside_ids(&self, source: &str) -> Vec<(String, bool)> {
        let filter = json!({"source": {"kind": source}, "risk": null, "status": "pending"});
        let (status, list) = self.call(ListInbox::PATH, json!({ "filter": filter })).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        let items = list["items"].as_array().expect("items");
        items
            .iter()
            .filter(|i| i["source"] == "outside")
            .map(|i| (i["item"]["id"].as_str().unwrap().into(), !i["item"]["linked_call"].is_null()))
            .collect()
    }

    /// What the sidebar's row of the thread counts as waiting.
    async fn waiting_in_sidebar(&self, thread_id: &ThreadId) -> Value {
        let res = client()
            .post(format!("{}{}", self.served.base, ListThreads::PATH))
            .json(&json!({"archived": false}))
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::OK);
        let page: Value = res.json().await.expect("JSON");
        let threads = page["threads"].as_array().expect("threads");
        threads.iter().find(|t| t["id"] == thread_id.as_str()).expect("the thread is listed")["pending_approvals"]
            .clone()
    }

    /// The feed's first `count`: what the sidebar badge and the title show.
    async fn count(&self) -> Value {
        let res = client().get(format!("{}/api/inbox/events", self.served.base)).send().await.expect("sent");
        let mut feed = res.bytes_stream().eventsource();
        let event = tokio::time::timeout(Duration::from_secs(30), feed.next())
            .await
            .expect("an event in time")
            .expect("the feed is open")
            .expect("a readable event");
        assert_eq!(event.event, "count");
        serde_json::from_str(&event.data).expect("JSON")
    }

    /// The text of the `tool` messages of the model's newest turn request (not a title's).
    fn tool_results_sent(&self) -> Vec<String> {
        let requests = self.model.requests();
        let last = requests.iter().rev().find(|r| r["stream"] == true).expect("the model was asked");
        let messages = last["messages"].as_array().expect("messages");
        messages.iter().filter(|m| m["role"] == "tool").map(|m| m["content"].to_string()).collect()
    }
}

#[tokio::test]
async fn an_executor_the_chat_is_calling_asks_on_the_calls_card_and_the_decision_makes_the_tool_result() {
    let (linked, thread_id, call, request) = Linked::waiting_on_a_call().await;

    // It names the call Warden passed in `_meta`, and belongs to it.
    assert_eq!(request.request.warden_call_id(), Some(call.id.as_str()), "{request:?}");
    let link = request.linked_call.clone().expect("linked to the running call");
    assert_eq!((link.call_id.as_str(), link.thread_id.as_str()), (call.id.as_str(), thread_id.as_str()));
    let (status, on_cards) = linked.call(LinkedOutsideRequests::PATH, json!({"thread_id": thread_id})).await;
    assert_eq!(status, StatusCode::OK, "{on_cards}");
    let on_cards: Vec<OutsideRequest> = serde_json::from_value(on_cards).expect("requests");
    assert_eq!(on_cards.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), [request.id.as_str()]);
    // Not an inbox item of its own; counted once, with the chats.
    // Listed once, with the chats (on its call's card, not apart).
    let once = vec![(request.id.to_string(), true)];
    assert_eq!(linked.inbox_outside_ids("all").await, once);
    assert_eq!(linked.inbox_outside_ids("chat").await, once);
    assert_eq!(linked.count().await, json!({"chat": 1, "outside": 0, "checks": 0}));
    assert_eq!(
        linked.waiting_in_sidebar(&ThreadId::from(thread_id.as_str())).await,
        json!(1),
        "counted with its thread"
    );
    // What a restart reads: the link is stored with the request.
    let reopened = OutsideHub::open(&linked.engine.database()).await.expect("reopened");
    let stored = reopened.linked_to_thread(&ThreadId::from(thread_id.as_str())).await.expect("linked");
    assert_eq!((stored.len(), stored[0].status, &stored[0].linked_call), (1, RequestStatus::Pending, &Some(link)));
    reopened.shutdown();

    // Denied on the card (the inbox's own decision path): the executor refuses, and the model is told.
    let denial = json!({"id": request.id, "decision": {"decision": "rejected", "reason": "not on Fridays"}});
    let (status, decided) = linked.call(DecideOutside::PATH, denial.clone()).await;
    assert_eq!((status, &decided["status"]), (StatusCode::OK, &json!("rejected")), "{decided}");
    let answer = linked.answer(&ThreadId::from(thread_id.as_str())).await;
    assert!(answer.contains("[tool said: refused: not on Fridays]"), "{answer}");
    assert_eq!(linked.tool_results_sent(), [json!("refused: not on Fridays").to_string()]);
    let (status, again) = linked.call(DecideOutside::PATH, denial).await;
    assert_eq!(status, StatusCode::CONFLICT, "decided once: {again}");
    assert_eq!(linked.count().await, json!({"chat": 0, "outside": 0, "checks": 0}));
    assert_eq!(linked.waiting_in_sidebar(&ThreadId::from(thread_id.as_str())).await, json!(0));

    // A request naming that call now it is finished, or a call that never was, is one of its own.
    let finished = linked.call_in(&ThreadId::from(thread_id.as_str()), ToolCallStatus::Done).await;
    let mut socket = common::outside::connect(&linked.served.base, &linked.token).await;
    let mut late = evaluation("late", "make", "low");
    late["warden_call_id"] = json!(finished.id);
    let mut unknown = evaluation("unknown", "make test", "low");
    unknown["warden_call_id"] = json!("no-such-call");
    let mut apart = Vec::new();
    for frame in [late, unknown] {
        let ack = ask(&mut socket, &frame).await;
        assert_eq!(ack["type"], "ack", "stored and waiting: {ack}");
        let id = ack["request_id"].as_str().expect("request id").to_string();
        assert_eq!(linked.hub.request(&OutsideRequestId::from(id.as_str())).await.expect("stored").linked_call, None);
        apart.push(id);
    }
    apart.reverse();
    let apart: Vec<(String, bool)> = apart.into_iter().map(|id| (id, false)).collect();
    assert_eq!(linked.inbox_outside_ids("all").await, apart, "both listed apart, newest first");
    assert_eq!(linked.inbox_outside_ids("chat").await, [], "neither is a chat's");
    assert_eq!(linked.count().await, json!({"chat": 0, "outside": 2, "checks": 0}));
    let (_, on_cards) = linked.call(LinkedOutsideRequests::PATH, json!({"thread_id": thread_id})).await;
    assert_eq!(on_cards.as_array().map(Vec::len), Some(1), "only the first is on the card: {on_cards}");
    linked.engine.shutdown();
}

#[tokio::test]
async fn the_policy_decides_a_linked_request_as_any_other_and_the_card_says_so() {
    let linked = Linked::start(json!({"security_evaluation": "medium"})).await;
    let thread_id = linked.chat().await;
    let answer = linked.answer(&ThreadId::from(thread_id.as_str())).await;
    assert!(answer.contains("[tool said: ran: pytest -q]"), "{answer}");
    assert_eq!(linked.tool_results_sent(), [json!("ran: pytest -q").to_string()]);

    let request = linked.request(RequestStatus::Approved).await;
    let call = linked.call_in(&ThreadId::from(thread_id.as_str()), ToolCallStatus::Done).await;
    assert_eq!(request.linked_call.as_ref().map(|l| l.call_id.as_str()), Some(call.id.as_str()));
    let decided_by = request.decision.as_ref().map(|d| d.decided_by.kind.to_string());
    assert_eq!(decided_by.as_deref(), Some("policy"), "{request:?}");
    let (_, on_cards) = linked.call(LinkedOutsideRequests::PATH, json!({"thread_id": thread_id})).await;
    assert_eq!(on_cards[0]["decision"]["decided_by"]["kind"], "policy", "{on_cards}");
    // Decided as it came: nothing waits in the inbox.
    assert_eq!(linked.inbox_outside_ids("all").await, []);
    linked.engine.shutdown();
}

#[tokio::test]
async fn a_request_still_waiting_when_the_run_is_stopped_is_rejected_with_its_call() {
    let (linked, thread_id, call, request) = Linked::waiting_on_a_call().await;
    assert_eq!(request.linked_call.as_ref().map(|l| l.call_id.as_str()), Some(call.id.as_str()));

    let run = linked
        .engine
        .thread(&ThreadId::from(thread_id.as_str()))
        .await
        .expect("thread")
        .active_run
        .expect("the run waits on its call");
    linked.engine.stop_run(&run.id).await.expect("stopped");
    // Stopped while it ran, the call ends (done, with the stop as its result).
    let ended_call = linked.call_in(&ThreadId::from(thread_id.as_str()), ToolCallStatus::Done).await;
    assert_eq!(ended_call.id, call.id);

    // Nobody is left to use a decision: rejected at once, saying why, and nothing waits any more.
    let ended = linked.request(RequestStatus::Rejected).await;
    assert_eq!(ended.id, request.id);
    let decision = ended.decision.expect("decided");
    assert_eq!(decision.decided_by.kind.to_string(), "call_ended", "{decision:?}");
    assert!(decision.decided_by.detail.contains("ended before a decision"), "{decision:?}");
    assert_eq!(linked.count().await, json!({"chat": 0, "outside": 0, "checks": 0}));
    assert_eq!(linked.inbox_outside_ids("all").await, []);
    let (_, on_cards) = linked.call(LinkedOutsideRequests::PATH, json!({"thread_id": thread_id})).await;
    assert_eq!(on_cards[0]["status"], "rejected", "{on_cards}");
    // A person's decision after that is refused: it was decided.
    let late = json!({"id": request.id, "decision": {"decision": "approved"}});
    assert_eq!(linked.call(DecideOutside::PATH, late).await.0, StatusCode::CONFLICT);
    linked.engine.shutdown();
}
