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

/// Pages rendered side by side on a multi-threaded runtime each finish whole. Every page keeps its
/// reactive values in an arena of its own; Leptos' render went on in whichever arena another request
/// had left current on the thread, and about one page in a few hundred then panicked ("already
/// disposed") and was cut off or never finished (`render_arena` keeps each page in its own).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_rendered_at_the_same_time_each_finish_whole() {
    let (base, _dir) = serve().await;
    let cut = load_rounds(&base, 100).await;
    assert!(cut.is_empty(), "{} of 800 pages were not whole: {cut:#?}", cut.len());
}

/// Eight servers started at once, each loaded with eight pages at a time as soon as it is up: every
/// page finishes whole, here and in the other tests of this process. Each new router listed the app's
/// routes, which holds back every resource of the process while it runs (leptos-rs/leptos#4773), and
/// a page another server was rendering meanwhile never finished (the sidebar sent, then nothing; a 503
/// after 30 s). With the routes listed anew per router, this file's tests failed (a page of
/// `pages_rendered_at_the_same_time_each_finish_whole`, whose server shares the process); listed once
/// per process, they passed three runs of three.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_pages_of_servers_started_at_once_each_finish_whole() {
    let mut cut = Vec::new();
    for _ in 0..3 {
        let servers = (0..8).map(|_| {
            tokio::spawn(async {
                let (base, _dir) = serve().await;
                load_rounds(&base, 5).await
            })
        });
        for unfinished in futures::future::join_all(servers).await {
            cut.extend(unfinished.expect("a server's loads"));
        }
    }
    assert!(cut.is_empty(), "{} of 960 pages were not whole: {cut:#?}", cut.len());
}

/// Starts a thread, then loads its chat, the welcome page, Settings and an unknown thread's page
/// eight at a time, `rounds` times; returns what did not arrive whole.
async fn load_rounds(base: &str, rounds: usize) -> Vec<String> {
    let http = common::client();
    let (status, thread) =
        common::send_json(&http, reqwest::Method::POST, format!("{base}/api/threads"), Some(serde_json::json!({})))
            .await;
    assert_eq!(status, reqwest::StatusCode::CREATED, "{thread}");
    let chat = format!("{base}/chat/{}", thread["id"].as_str().expect("thread id"));
    let urls = [format!("{base}/"), chat, format!("{base}/settings"), format!("{base}/chat/does-not-exist")];
    let mut cut = Vec::new();
    for round in 0..rounds {
        let loads = urls.iter().cycle().skip(round % urls.len()).take(8).map(|url| unfinished(&http, url));
        cut.extend(futures::future::join_all(loads).await.into_iter().flatten());
    }
    cut
}

/// Loads `url`; says how, if the page did not arrive whole.
async fn unfinished(http: &reqwest::Client, url: &str) -> Option<String> {
    // A render that hangs shows as this error, not as a stuck test.
    let answer = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        let response = http.get(url).send().await?;
        let status = response.status().as_u16();
        Ok::<_, reqwest::Error>((status, response.text().await?))
    })
    .await;
    match answer {
        Ok(Ok((200 | 404, html))) if html.contains("</html>") => None,
        Ok(Ok((status, html))) => Some(format!("{url}: {status}, {} bytes, unfinished", html.len())),
        Ok(Err(e)) => Some(format!("{url}: {e}")),
        Err(_) => Some(format!("{url}: no whole answer in 60 s")),
    }
}
