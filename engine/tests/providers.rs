//! Model providers end to end: the environment's entries, a provider added as in Settings (over real
//! HTTP to a second fixture server with its own key), a thread choosing it, the run recording it across
//! a restart, connection tests, and keys that never come back or move to another server.

use crate::common::*;
use warden_engine::Error;
use warden_testkit::{FixtureModel, Scenario, Script, Turn};
use warden_types::provider::{ModelChoice, ProviderInput, ProviderKind};
use warden_types::thread::ThreadOptions;

fn input(name: &str, base_url: &str, key: Option<&str>, model: &str) -> ProviderInput {
    ProviderInput {
        id: None,
        name: name.into(),
        kind: ProviderKind::OpenaiCompatible,
        base_url: base_url.into(),
        api_key: key.map(Into::into),
        default_model: model.into(),
        text_tool_calls: false,
    }
}

/// The model named by each streamed turn the server was asked for (title requests are not streamed).
fn models_asked(model: &FixtureModel) -> Vec<String> {
    let turns = model.requests().into_iter().filter(|r| r["stream"] == true);
    turns.filter_map(|r| r["model"].as_str().map(str::to_string)).collect()
}

#[tokio::test]
async fn the_environments_provider_is_a_read_only_default_entry() {
    let h = Harness::start(Script::default()).await;
    let list = h.engine.providers();
    let env = list.entries.iter().find(|e| e.id == "env-openai").expect("the environment's entry");
    assert!(env.read_only);
    assert_eq!((env.base_url.as_str(), env.default_model.as_str()), (h.model.base_url().as_str(), "fixture"));
    assert_eq!(list.default, Some(ModelChoice { provider_id: "env-openai".into(), model: "fixture".into() }));
    let err = h.engine.remove_provider(&"env-openai".into()).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
}

#[tokio::test]
async fn a_thread_that_chose_an_added_provider_is_answered_by_it_and_its_runs_record_it() {
    let mut h = Harness::start(Script::default()).await;
    let other = FixtureModel::start_with_key(Script::default(), "sk-other-provider-key").await.unwrap();
    let added = h
        .engine
        .save_provider(input("Second", &other.base_url(), Some("sk-other-provider-key"), "second-model"))
        .await
        .unwrap();
    assert_eq!(added.key.as_deref(), Some("••••-key"), "the key comes back masked");

    let thread = h.engine.create_thread(None).await.unwrap();
    let choice = ModelChoice { provider_id: added.id.clone(), model: "picked-model".into() };
    h.engine.set_thread_model(&thread.id, Some(choice.clone())).await.unwrap();
    let started = h.engine.send_message(&thread.id, "which model?".into(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &started.run_id).await;
    assert_eq!(text_of(&events), "You said: which model?");
    assert_eq!(models_asked(&other), ["picked-model"], "the chosen provider got the turn, with the chosen model");
    assert!(models_asked(&h.model).is_empty(), "the default provider was not asked");
    assert_eq!(h.engine.run(&started.run_id).await.unwrap().model, Some(choice.clone()));
    assert_eq!(h.engine.thread(&thread.id).await.unwrap().model, Some(choice.clone()));

    // A thread without a choice keeps using the default.
    let (_, default_run) = h.send("and you?").await;
    run_to_end(&h.engine, &default_run).await;
    assert_eq!(models_asked(&h.model), ["fixture"]);

    // After a restart the stored provider and the thread's choice are still there.
    h.restart(|_| {}).await;
    assert!(h.engine.providers().entries.iter().any(|e| e.id == added.id && e.name == "Second"));
    let again = h.engine.send_message(&thread.id, "still you?".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &again.run_id).await;
    assert_eq!(models_asked(&other).len(), 2);
    assert_eq!(h.engine.run(&again.run_id).await.unwrap().model, Some(choice));
}

#[tokio::test]
async fn a_stored_key_is_kept_for_its_server_and_never_sent_to_another() {
    let h = Harness::start(Script::default()).await;
    let other = FixtureModel::start_with_key(Script::default(), "sk-other-provider-key").await.unwrap();
    let added =
        h.engine.save_provider(input("Keyed", &other.base_url(), Some("sk-other-provider-key"), "m")).await.unwrap();
    let shown = h.engine.providers();
    let shown = serde_json::to_string(&shown).unwrap();
    assert!(!shown.contains("sk-other-provider-key"), "{shown}");

    // Renamed with the key as shown: kept, and it still works.
    let mut rename = input("Renamed", &other.base_url(), added.key.as_deref(), "m");
    rename.id = Some(added.id.clone());
    h.engine.save_provider(rename).await.unwrap();
    let probe = h.engine.test_provider_entry(&added.id).await.unwrap();
    assert!(probe.ok, "{}", probe.message);
    assert_eq!(probe.models, ["fixture-model"]);
    let listed = h.engine.providers().entries.into_iter().find(|e| e.id == added.id).unwrap();
    assert_eq!(listed.models, ["fixture-model"], "the entry keeps the models its test listed");

    // Pointed elsewhere with the masked key: refused, and nothing reached the other address.
    let elsewhere = FixtureModel::start(Script::default()).await.unwrap();
    let mut moved = input("Renamed", &elsewhere.base_url(), added.key.as_deref(), "m");
    moved.id = Some(added.id.clone());
    let err = h.engine.save_provider(moved.clone()).await.unwrap_err();
    assert!(err.to_string().contains("enter the key again"), "{err}");
    let err = h.engine.test_provider(moved).await.unwrap_err();
    assert!(err.to_string().contains("enter the key again"), "{err}");
    assert!(elsewhere.requests().is_empty());
}

#[tokio::test]
async fn a_connection_test_lists_models_or_says_what_went_wrong() {
    let h = Harness::start(Script::default()).await;
    let other = FixtureModel::start_with_key(Script::default(), "sk-right-key-0000").await.unwrap();
    let probe = h.engine.test_provider(input("T", &other.base_url(), Some("sk-right-key-0000"), "m")).await.unwrap();
    assert!(probe.ok && probe.models == ["fixture-model"], "{probe:?}");
    let probe = h.engine.test_provider(input("T", &other.base_url(), Some("sk-wrong-key-1111"), "m")).await.unwrap();
    assert!(!probe.ok && probe.message.contains("401"), "{probe:?}");
    assert!(!probe.message.contains("sk-wrong-key-1111"));
    let probe = h.engine.test_provider(input("T", "http://127.0.0.1:9/v1", None, "m")).await.unwrap();
    assert!(!probe.ok && probe.message.contains("127.0.0.1:9"), "{probe:?}");
}

#[tokio::test]
async fn removing_a_provider_sends_its_threads_back_to_the_default() {
    let h = Harness::start(Script::default()).await;
    let other = FixtureModel::start(Script::default()).await.unwrap();
    let added = h.engine.save_provider(input("Gone soon", &other.base_url(), None, "m")).await.unwrap();
    let thread = h.engine.create_thread(None).await.unwrap();
    let choice = ModelChoice { provider_id: added.id.clone(), model: "m".into() };
    h.engine.set_thread_model(&thread.id, Some(choice)).await.unwrap();
    h.engine.remove_provider(&added.id).await.unwrap();
    assert_eq!(h.engine.thread(&thread.id).await.unwrap().model, None);
    let started = h.engine.send_message(&thread.id, "hello".into(), &crate::common::owner()).await.unwrap();
    run_to_end(&h.engine, &started.run_id).await;
    assert_eq!(models_asked(&h.model), ["fixture"]);
    assert!(other.requests().is_empty());
}

#[tokio::test]
async fn a_choice_must_name_a_configured_provider_and_a_sane_model() {
    let h = Harness::start(Script::default()).await;
    let thread = h.engine.create_thread(None).await.unwrap();
    let unknown = ModelChoice { provider_id: "nope".into(), model: "m".into() };
    assert!(matches!(h.engine.set_thread_model(&thread.id, Some(unknown)).await, Err(Error::NotFound { .. })));
    for model in ["", "a\nb", &"x".repeat(201)] {
        let bad = ModelChoice { provider_id: "env-openai".into(), model: model.to_string() };
        assert!(h.engine.set_thread_model(&thread.id, Some(bad)).await.is_err(), "{model:?}");
    }
    let err = h.engine.save_provider(input("x", "http://127.0.0.1:1/v1", None, "m")).await.map(|_| ());
    assert!(err.is_ok());
    let err = h.engine.save_provider(input("x", "http://127.0.0.1:2/v1", None, "m")).await.unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
}

/// Which API a recorded request body was sent to.
fn api_of(request: &serde_json::Value) -> &'static str {
    if request.get("contents").is_some() {
        "gemini"
    } else if request.get("max_tokens").is_some() {
        "anthropic"
    } else {
        "openai"
    }
}

#[tokio::test]
async fn anthropic_and_gemini_added_in_settings_answer_a_thread_in_their_own_wire_format() {
    let h = Harness::start(Script::default()).await;
    let server = FixtureModel::start_with_key(Script::default(), "sk-fixture-key-123").await.unwrap();
    let root = format!("http://{}", server.addr());
    for (kind, api) in [(ProviderKind::Anthropic, "anthropic"), (ProviderKind::Gemini, "gemini")] {
        let mut entry = input(api, &root, Some("sk-fixture-key-123"), "fixture-model");
        entry.kind = kind;
        let probe = h.engine.test_provider(entry.clone()).await.unwrap();
        assert!(probe.ok && probe.models == ["fixture-model"], "{api}: {probe:?}");
        let added = h.engine.save_provider(entry).await.unwrap();
        let thread = h.engine.create_thread(None).await.unwrap();
        let choice = ModelChoice { provider_id: added.id, model: "fixture-model".into() };
        h.engine.set_thread_model(&thread.id, Some(choice)).await.unwrap();
        server.reset();
        let started = h.engine.send_message(&thread.id, format!("hello {api}"), &crate::common::owner()).await.unwrap();
        let events = run_to_end(&h.engine, &started.run_id).await;
        assert_eq!(text_of(&events), format!("You said: hello {api}"));
        let apis: Vec<&str> = server.requests().iter().map(api_of).collect();
        assert!(!apis.is_empty() && apis.iter().all(|a| *a == api), "{api}: {apis:?}");
    }
}

#[tokio::test]
async fn warden_model_with_a_prefix_makes_that_environment_provider_the_default() {
    let server = FixtureModel::start_with_key(Script::default(), "sk-env-key-456789").await.unwrap();
    let root = format!("http://{}", server.addr());
    let h = Harness::start_with(Script::default(), |c| {
        let key = Some("sk-env-key-456789".to_string());
        c.gemini =
            Some(warden_engine::config::ModelConfig { base_url: root.clone(), api_key: key, model: "g-model".into() });
        c.preferred_provider = Some(ProviderKind::Gemini);
    })
    .await;
    let list = h.engine.providers();
    assert_eq!(list.default, Some(ModelChoice { provider_id: "env-gemini".into(), model: "g-model".into() }));
    let env = list.entries.iter().find(|e| e.id == "env-gemini").unwrap();
    assert!(env.read_only && env.key.as_deref() == Some("••••6789"));
    let (_, run_id) = h.send("who answers?").await;
    run_to_end(&h.engine, &run_id).await;
    assert!(server.requests().iter().any(|r| api_of(r) == "gemini"));
    assert!(h.model.requests().is_empty(), "the OpenAI-compatible entry is not the default");
    assert_eq!(h.engine.model_status().provider, "gemini");
}

#[tokio::test]
async fn each_api_is_asked_for_the_threads_model_and_offered_the_threads_tools() {
    let echo = Turn { echo_model: true, echo_tool_count: true, ..Turn::text("Answered:") };
    let script = Script { scenarios: vec![Scenario::new("which", vec![echo])], default_title: None };
    let h = Harness::start(Script::default()).await;
    let server = FixtureModel::start_with_key(script, "sk-fixture-key-123").await.unwrap();
    let root = format!("http://{}", server.addr());
    for (kind, base_url) in [
        (ProviderKind::OpenaiCompatible, server.base_url()),
        (ProviderKind::Anthropic, root.clone()),
        (ProviderKind::Gemini, root.clone()),
    ] {
        let api = kind.as_str();
        let mut entry = input(api, &base_url, Some("sk-fixture-key-123"), &format!("default-{api}"));
        entry.kind = kind;
        let added = h.engine.save_provider(entry).await.unwrap();
        let thread = h.engine.create_thread(None).await.unwrap();
        let choice = ModelChoice { provider_id: added.id, model: format!("picked-{api}") };
        h.engine.set_thread_model(&thread.id, Some(choice)).await.unwrap();
        let started = h.engine.send_message(&thread.id, "which model?".into(), &crate::common::owner()).await.unwrap();
        let events = run_to_end(&h.engine, &started.run_id).await;
        assert_eq!(text_of(&events), format!("Answered: model=picked-{api} tools=5"));

        let off = ThreadOptions { tools: false, ..ThreadOptions::default() };
        h.engine.set_thread_options(&thread.id, off).await.unwrap();
        let started =
            h.engine.send_message(&thread.id, "which model now?".into(), &crate::common::owner()).await.unwrap();
        let events = run_to_end(&h.engine, &started.run_id).await;
        assert_eq!(text_of(&events), format!("Answered: model=picked-{api} tools=0"));
    }
    assert!(h.model.requests().is_empty(), "the default provider was never asked");
}

#[tokio::test]
async fn an_environment_provider_that_cannot_be_a_client_stops_the_start_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = warden_engine::config::Config::with_data_dir(dir.path());
    config.model =
        Some(warden_engine::config::ModelConfig { base_url: "ftp://nowhere".into(), api_key: None, model: "m".into() });
    let err = warden_engine::Engine::open(config).await.err().expect("the start is refused");
    assert!(err.to_string().contains("not a valid http(s) URL"), "{err}");
}
