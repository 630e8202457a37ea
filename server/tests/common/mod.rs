//! Helpers shared by the server's integration tests.

use reqwest::{Client, Method, StatusCode};
use serde_json::Value;

/// Sends `body` (if any) as JSON and reads the answer as JSON (`Null` when it is not JSON).
pub async fn send_json(http: &Client, method: Method, url: String, body: Option<Value>) -> (StatusCode, Value) {
    let mut req = http.request(method, url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.expect("request sent");
    let status = res.status();
    let text = res.text().await.expect("body read");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}
