//! Helpers shared by the server's integration tests: the real router behind the real access gate,
//! served by the real server loop on port 0, and a client that signs in with the bearer token.
#![allow(dead_code)]

pub mod outside;
pub mod people;
pub mod process;

use std::net::SocketAddr;
use std::time::Duration;

use leptos::prelude::LeptosOptions;
use reqwest::header::{HeaderMap, HeaderValue, AUTHORIZATION};
use reqwest::{Client, Method, StatusCode};
use serde_json::Value;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_mcp::McpHub;
use warden_server::access::{Access, AllowedHosts, Token};
use warden_server::serve::{serve, ServeOptions};
use warden_server::{protect, router, AppState};

/// The token every test server is started with.
pub const TOKEN: &str = "warden-test-token-0123456789abcdef0123456789";

/// A server listening on a free port, with the state `AppState::open` made for it.
pub struct Served {
    pub addr: SocketAddr,
    pub base: String,
    pub state: AppState,
}

impl Served {
    pub fn engine(&self) -> &Engine {
        &self.state.engine
    }

    pub fn mcp(&self) -> &McpHub {
        &self.state.mcp
    }
}

/// Binds a free loopback port; the access policy needs the port before the router is built.
pub async fn listener() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    (listener, addr)
}

pub fn access(port: u16) -> Access {
    Access::new(Token::parse(TOKEN, "test token").expect("valid token"), AllowedHosts::loopback(port))
}

fn spawn(
    listener: tokio::net::TcpListener,
    addr: SocketAddr,
    app: axum::Router,
    state: AppState,
    options: ServeOptions,
) -> Served {
    tokio::spawn(serve(listener, app, options, std::future::pending()));
    Served { addr, base: format!("http://{addr}"), state }
}

/// The state exactly as the binary opens it (`AppState::open`), for a server on `addr`.
pub async fn open(config: Config, leptos_options: LeptosOptions, addr: SocketAddr) -> AppState {
    AppState::open(config, leptos_options, access(addr.port())).await.expect("state opens")
}

/// The API routes alone, behind the access gate.
pub async fn serve_api(config: Config) -> Served {
    let (listener, addr) = listener().await;
    let state = open(config, LeptosOptions::builder().output_name("warden").build(), addr).await;
    let app =
        protect(warden_server::api::routes::<AppState>().into_router().with_state(state.clone()), state.access.clone());
    spawn(listener, addr, app, state, ServeOptions::default())
}

/// The whole app (pages, server functions, static files, API), with `options` for serving.
pub async fn serve_app_with(config: Config, leptos_options: LeptosOptions, options: ServeOptions) -> Served {
    let (listener, addr) = listener().await;
    let state = open(config, leptos_options, addr).await;
    let app = router(state.clone());
    spawn(listener, addr, app, state, options)
}

pub async fn serve_app(config: Config, leptos_options: LeptosOptions) -> Served {
    serve_app_with(config, leptos_options, ServeOptions::default()).await
}

/// The whole app, answering also to the names of `allowed_hosts` (as `WARDEN_ALLOWED_HOSTS` says them).
pub async fn serve_app_allowing(config: Config, leptos_options: LeptosOptions, allowed_hosts: &str) -> Served {
    let (listener, addr) = listener().await;
    let hosts = AllowedHosts::loopback(addr.port()).with_extra(allowed_hosts).expect("a valid host list");
    let access = Access::new(Token::parse(TOKEN, "test token").expect("valid token"), hosts);
    let state = AppState::open(config, leptos_options, access).await.expect("state opens");
    let app = router(state.clone());
    spawn(listener, addr, app, state, ServeOptions::default())
}

/// A client that sends `Authorization: Bearer TOKEN` on every request.
pub fn client() -> Client {
    let mut headers = HeaderMap::new();
    headers.insert(AUTHORIZATION, HeaderValue::from_str(&format!("Bearer {TOKEN}")).expect("header"));
    warden_llm::tls::install_crypto_provider();
    Client::builder().default_headers(headers).timeout(Duration::from_secs(120)).build().expect("client")
}

/// A client with no credentials that does not follow redirects (to see the sign-in answer itself).
pub fn anonymous() -> Client {
    warden_llm::tls::install_crypto_provider();
    Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client")
}

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

pub use warden_testkit::people::owner;
