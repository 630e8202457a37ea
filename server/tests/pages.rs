//! The real router on port 0 with a real SQLite file: pages are rendered on the server (for a
//! signed-in client) and say what to configure when no model is set.

use crate::common;

use leptos::prelude::LeptosOptions;
use warden_engine::config::Config;

/// Serves the app on a free port; returns its base URL and the data dir (kept alive by the caller).
async fn serve() -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let leptos_options = LeptosOptions::builder().output_name("warden").build();
    let served = common::serve_app(Config::with_data_dir(dir.path()), leptos_options).await;
    (served.base, dir)
}

async fn page(url: &str) -> (u16, String) {
    let response = common::client().get(url).send().await.expect("request");
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
