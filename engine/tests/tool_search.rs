//! Many tools: above `tool_search_above` the model is offered the built-in tools, `search_tools` and
//! what it found in the run, not every schema; what it found is callable on its next turn and stays
//! offered after a restart. The tools come from a `ToolSource`, as MCP servers' do.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};
use warden_engine::toolbox::ToolSource;
use warden_testkit::{Scenario, Script, ScriptedCall, Turn};
use warden_tools::{Risk, Tool, ToolContext, ToolError, ToolOrigin, ToolOutput, ToolSpec};
use warden_types::approval::DecisionInput;

use crate::common::*;

const ALWAYS: [&str; 6] = ["list_dir", "read_file", "write_file", "shell", "search_tools", "read_result"];

/// A remote-looking tool: `server__name`, answering with its name and arguments.
struct Remote {
    name: String,
    description: String,
    needs_approval: bool,
}

#[async_trait]
impl Tool for Remote {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: json!({"type": "object", "properties": {"what": {"type": "string"}}}),
        }
    }
    fn origin(&self) -> ToolOrigin {
        ToolOrigin::Mcp { server: self.name.split("__").next().unwrap_or_default().into() }
    }
    fn needs_approval(&self, _: &Value) -> bool {
        self.needs_approval
    }
    fn risk(&self, _: &Value) -> Risk {
        Risk::Low
    }
    fn summary(&self, _: &Value) -> String {
        format!("Call {}", self.name)
    }
    async fn call(&self, args: Value, _: ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!("{} ran for {}", self.name, args["what"].as_str().unwrap_or("?"))))
    }
}

/// Fifty tools of ten services; two of them are the ones the scripts look for.
struct ManyTools;

impl ToolSource for ManyTools {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let services = ["crm", "billing", "wiki", "chat", "storage", "metrics", "deploy", "dns", "mail", "forms"];
        let verbs = ["list", "create", "delete", "update", "export"];
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for service in services {
            for verb in verbs {
                tools.push(Arc::new(Remote {
                    name: format!("{service}__{verb}_records"),
                    description: format!("{verb} records in {service}"),
                    needs_approval: false,
                }));
            }
        }
        tools.push(Arc::new(Remote {
            name: "weather__get_forecast".into(),
            description: "Get the weather forecast for a location".into(),
            needs_approval: false,
        }));
        tools.push(Arc::new(Remote {
            name: "calendar__create_event".into(),
            description: "Create an event in the user's calendar".into(),
            needs_approval: true,
        }));
        tools
    }
}

fn script(when: &str, turns: Vec<Turn>) -> Script {
    Script { scenarios: vec![Scenario::new(when, turns)], default_title: None }
}

fn search(query: &str) -> Turn {
    Turn::calls(vec![ScriptedCall::new("search_tools", json!({ "query": query }))])
}

fn call(name: &str, what: &str) -> Turn {
    Turn::calls(vec![ScriptedCall::new(name, json!({ "what": what }))])
}

fn echo() -> Turn {
    Turn { echo_tool_results: true, ..Turn::text("Done.") }
}

fn streamed(h: &Harness) -> Vec<Value> {
    h.model.requests().into_iter().filter(|r| r["stream"] == true).collect()
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["function"]["name"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn last_tool_text(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    messages.iter().rev().find(|m| m["role"] == "tool").unwrap()["content"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn with_many_tools_the_model_searches_and_calls_what_it_found_next_turn() {
    let turns = vec![search("weather forecast"), call("weather__get_forecast", "Oslo"), echo()];
    let h = Harness::start(script("weather", turns)).await;
    h.engine.add_tool_source(Arc::new(ManyTools));
    let (_, run_id) = h.send("what is the weather in Oslo").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(of_kind(&events, "run_failed").is_empty(), "{:?}", kinds(&events));

    let requests = streamed(&h);
    assert_eq!(requests.len(), 3);
    assert_eq!(offered(&requests[0]), ALWAYS, "52 remote tools are not sent, only the way to find them");

    let found = last_tool_text(&requests[1]);
    let lines: Vec<&str> = found.lines().collect();
    assert!(lines[0].starts_with("Found ") && lines.len() <= 9, "{found}");
    assert_eq!(lines[1], "- `weather__get_forecast`: Get the weather forecast for a location", "{found}");
    let names: Vec<String> =
        lines[1..].iter().map(|l| l.trim_start_matches("- `").split('`').next().unwrap().to_string()).collect();
    let now = offered(&requests[1]);
    assert_eq!(now[..4], ALWAYS[..4]);
    assert!(now.contains(&"search_tools".to_string()) && now.contains(&"read_result".to_string()));
    assert_eq!(now.len(), ALWAYS.len() + names.len(), "the built-ins and what was found: {now:?}");
    assert!(names.iter().all(|n| now.contains(n)), "{names:?} in {now:?}");

    assert_eq!(last_tool_text(&requests[2]), "weather__get_forecast ran for Oslo");
    assert!(text_of(&events).contains("weather__get_forecast ran for Oslo"));
    assert_eq!(offered(&requests[2]), now, "still offered on later turns");
}

#[tokio::test]
async fn tools_found_before_a_restart_stay_offered_to_the_resumed_run() {
    let turns = vec![search("calendar event"), call("calendar__create_event", "standup"), echo()];
    let mut h = Harness::start(script("meeting", turns)).await;
    h.engine.add_tool_source(Arc::new(ManyTools));
    let (_, run_id) = h.send("book a meeting").await;
    pending_approvals(&h.engine, &run_id, 1).await;

    h.restart(|_| {}).await;
    h.engine.add_tool_source(Arc::new(ManyTools));
    let approval = pending_approvals(&h.engine, &run_id, 1).await.remove(0);
    h.engine.decide(&approval, DecisionInput::approve(), &crate::common::owner()).await.unwrap();
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(text_of(&events).contains("calendar__create_event ran for standup"), "{}", text_of(&events));

    let after = streamed(&h).pop().unwrap();
    assert!(offered(&after).contains(&"calendar__create_event".to_string()), "{:?}", offered(&after));
    assert!(!offered(&after).contains(&"crm__list_records".to_string()));
}

#[tokio::test]
async fn a_tool_not_searched_for_can_still_be_called_by_its_name() {
    let h = Harness::start(script("forecast", vec![call("weather__get_forecast", "Bergen"), echo()])).await;
    h.engine.add_tool_source(Arc::new(ManyTools));
    let (_, run_id) = h.send("forecast for Bergen").await;
    let events = run_to_end(&h.engine, &run_id).await;
    assert!(text_of(&events).contains("weather__get_forecast ran for Bergen"), "{}", text_of(&events));
}

#[tokio::test]
async fn with_few_tools_or_search_off_every_tool_is_offered() {
    for above in [100, 0] {
        let h = Harness::start_with(script("hello", vec![Turn::text("Hi.")]), |c| c.tool_search_above = above).await;
        h.engine.add_tool_source(Arc::new(ManyTools));
        let (_, run_id) = h.send("hello").await;
        run_to_end(&h.engine, &run_id).await;
        let tools = offered(&streamed(&h)[0]);
        assert_eq!(tools.len(), 4 + 52 + 1, "{tools:?}");
        assert!(!tools.contains(&"search_tools".to_string()) && tools.contains(&"weather__get_forecast".to_string()));
    }
}
