//! The real router on port 0 with a real SQLite file: pages are rendered on the server and say
//! what to configure when no model is set.

use leptos::prelude::LeptosOptions;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_server::{router, AppState};

/// Serves the app on a free port; returns its base URL and the data dir (kept alive by the caller).
async fn serve() -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let engine = Engine::open(Config::with_data_dir(dir.path())).await.expect("engine opens");
    let leptos_options = LeptosOptions::builder().output_name("warden").build();
    let mcp = warden_mcp::McpHub::new(engine.store().pool().clone());
    let app = router(AppState { leptos_options, engine, mcp });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), dir)
}

async fn page(url: &str) -> (u16, String) {
    let response = reqwest::get(url).await.expect("request");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

#[tokio::test]
async fn welcome_page_is_rendered_and_names_the_settings_to_make() {
    let (base, _dir) = serve().await;
    let (status, html) = page(&format!("{base}/")).await;
    assert_eq!(status, 200);
    assert!(html.contains("What should we work on?"), "{html}");
    assert!(html.contains("OPENAI_BASE_URL"), "{html}");
    assert!(html.contains(r#"<link rel="icon" href="data:,">"#), "{html}");
}

#[tokio::test]
async fn an_unknown_thread_is_a_404_that_says_so_not_a_crash() {
    let (base, _dir) = serve().await;
    let (status, html) = page(&format!("{base}/chat/does-not-exist")).await;
    assert_eq!(status, 404);
    assert!(html.contains("not found"), "{html}");
}

#[tokio::test]
async fn an_address_that_matches_no_page_is_a_404_with_a_way_back() {
    let (base, _dir) = serve().await;
    let (status, html) = page(&format!("{base}/no/such/page")).await;
    assert_eq!(status, 404);
    assert!(html.contains("Page not found"), "{html}");
    assert!(html.contains(r#"href="/""#), "{html}");
}
