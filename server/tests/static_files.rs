//! Static site files (the wasm above all) are served gzipped to a client that accepts it, and
//! plain to one that does not.


use std::io::Read;

use leptos::prelude::LeptosOptions;
use warden_engine::config::Config;
use warden_engine::Engine;
use warden_server::{router, AppState};

#[tokio::test]
async fn site_files_go_out_gzipped_when_the_client_accepts_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).expect("site dir");
    let wasm: Vec<u8> = (0..64 * 1024u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(site.join("pkg/warden.wasm"), &wasm).expect("wasm written");

    let engine = Engine::open(Config::with_data_dir(dir.path())).await.expect("engine opens");
    let leptos_options = LeptosOptions::builder()
        .output_name("warden")
        .site_root(site.display().to_string())
        .build();
    let mcp = warden_mcp::McpHub::new(engine.store().pool().clone());
    let app = router(AppState { leptos_options, engine, mcp });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    // reqwest is built without its gzip feature: the test sees what went over the wire.
    let http = reqwest::Client::new();
    let url = format!("http://{addr}/pkg/warden.wasm");

    let gzipped = http.get(&url).header("accept-encoding", "gzip").send().await.expect("request");
    assert_eq!(gzipped.status(), 200);
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    let body = gzipped.bytes().await.expect("body");
    assert!(body.len() < wasm.len(), "compressed: {} of {} bytes", body.len(), wasm.len());
    let mut unpacked = Vec::new();
    flate2::read::GzDecoder::new(&body[..]).read_to_end(&mut unpacked).expect("valid gzip");
    assert_eq!(unpacked, wasm);

    let plain = http.get(&url).send().await.expect("request");
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.bytes().await.expect("body").to_vec(), wasm);
}
