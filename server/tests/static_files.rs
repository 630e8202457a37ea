//! Static site files (the wasm above all) are served gzipped to a client that accepts it, and
//! plain to one that does not, without the access token (they hold nothing secret).

mod common;

use std::io::Read;

use leptos::prelude::LeptosOptions;
use warden_engine::config::Config;

#[tokio::test]
async fn site_files_go_out_gzipped_when_the_client_accepts_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).expect("site dir");
    let wasm: Vec<u8> = (0..64 * 1024u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(site.join("pkg/warden.wasm"), &wasm).expect("wasm written");

    let leptos_options = LeptosOptions::builder().output_name("warden").site_root(site.display().to_string()).build();
    let addr = common::serve_app(Config::with_data_dir(dir.path()), leptos_options).await.addr;
    // reqwest is built without its gzip feature: the test sees what went over the wire. No token:
    // static files are public.
    let http = common::anonymous();
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
