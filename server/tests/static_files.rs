//! Static site files (the wasm above all) are served as their brotli copy or gzipped to a client that
//! accepts it, and plain to one that does not, without the access token (they hold nothing secret).
//! Pages go out gzipped too; server functions' JSON does not.

use crate::common;

use std::io::Read;

use leptos::prelude::LeptosOptions;
use leptos::server_fn::ServerFn;
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

#[tokio::test]
async fn a_brotli_copy_made_at_build_time_goes_to_clients_that_accept_br() {
    let dir = tempfile::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).expect("site dir");
    std::fs::write(site.join("pkg/warden_bg.wasm"), b"the wasm as built").expect("wasm written");
    // What `cargo xtask site --release` writes beside it; any bytes do, the server sends them as they are.
    std::fs::write(site.join("pkg/warden_bg.wasm.br"), b"brotli bytes").expect("copy written");
    std::fs::write(site.join("pkg/warden.js"), "export {}").expect("js written");

    let leptos_options = LeptosOptions::builder().output_name("warden").site_root(site.display().to_string()).build();
    let addr = common::serve_app(Config::with_data_dir(dir.path()), leptos_options).await.addr;
    let http = common::anonymous();

    let url = format!("http://{addr}/pkg/warden_bg.wasm");
    let br = http.get(&url).header("accept-encoding", "gzip, deflate, br").send().await.expect("request");
    assert_eq!(br.status(), 200);
    assert_eq!(br.headers()["content-encoding"], "br");
    assert_eq!(br.headers()["content-type"], "application/wasm");
    assert_eq!(br.bytes().await.expect("body").as_ref(), b"brotli bytes");

    let plain = http.get(&url).send().await.expect("request");
    assert!(plain.headers().get("content-encoding").is_none());
    assert_eq!(plain.bytes().await.expect("body").as_ref(), b"the wasm as built");

    // A file without a copy is still compressed on the fly; a path that names no file is not public.
    let js =
        http.get(format!("http://{addr}/pkg/warden.js")).header("accept-encoding", "br").send().await.expect("request");
    assert_eq!(js.status(), 200);
    assert!(js.headers().get("content-encoding").is_none_or(|e| e != "br"), "no copy, no br label on plain bytes");
    let missing = http.get(format!("http://{addr}/pkg/nothing.wasm")).send().await.expect("request");
    assert_eq!(missing.status(), 401);
    // Public, but only under this server's own name: a rebinding page's host gets nothing.
    let stranger = http.get(&url).header("host", "evil.example").header("accept-encoding", "br").send().await;
    assert_eq!(stranger.expect("request").status(), 403);
}

/// A chat page is gzipped for a client that accepts it and is the same page once unpacked (but for
/// its CSP nonce, new in every answer); a server function's JSON answer is never compressed.
#[tokio::test]
async fn pages_go_out_gzipped_and_server_function_answers_do_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).expect("site dir");
    let leptos_options = LeptosOptions::builder().output_name("warden").site_root(site.display().to_string()).build();
    let served = common::serve_app(Config::with_data_dir(dir.path()), leptos_options).await;
    let thread = served.engine().create_thread(Some("A compressed page".into())).await.expect("thread");
    let http = common::client();
    let url = format!("{}/chat/{}", served.base, thread.id);

    let gzipped = http.get(&url).header("accept-encoding", "gzip").send().await.expect("request");
    assert_eq!(gzipped.status(), 200);
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    let body = gzipped.bytes().await.expect("body");
    let mut unpacked = String::new();
    flate2::read::GzDecoder::new(&body[..]).read_to_string(&mut unpacked).expect("valid gzip");
    assert!(body.len() < unpacked.len(), "compressed: {} of {} bytes", body.len(), unpacked.len());
    let plain = http.get(&url).send().await.expect("request");
    assert!(plain.headers().get("content-encoding").is_none());
    let plain = plain.text().await.expect("body");
    // The nonce is in the page as the scripts' `nonce` and the preloads' `crossorigin`.
    let without_nonce = |page: &str| {
        let at = page.find("crossorigin=\"").expect("a preload with the nonce") + "crossorigin=\"".len();
        let nonce = &page[at..at + page[at..].find('"').expect("its end")];
        assert!(nonce.len() >= 16, "a nonce: {nonce}");
        page.replace(nonce, "")
    };
    assert!(unpacked.contains("A compressed page"), "{unpacked}");
    assert_eq!(without_nonce(&unpacked), without_nonce(&plain));

    let json = http
        .post(format!("{}{}", served.base, warden_app::server_fns::ListThreads::PATH))
        .header("accept-encoding", "gzip")
        .json(&serde_json::json!({"archived": false}))
        .send()
        .await
        .expect("request");
    assert_eq!(json.status(), 200);
    assert!(json.headers().get("content-encoding").is_none());
    assert!(json.text().await.expect("body").contains("A compressed page"));
}

/// The site's files are checked with the server before each use, and an unchanged one is not sent
/// again: the files of one build work only together (a lazy page's module links only to the main
/// wasm it was split from), so a browser must not go on using a copy an update replaced.
#[tokio::test]
async fn site_files_are_checked_before_each_use_and_not_sent_again_unchanged() {
    let dir = tempfile::tempdir().expect("temp dir");
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("pkg")).expect("site dir");
    std::fs::write(site.join("pkg/split_settings.wasm"), b"a lazy page's module").expect("module written");

    let leptos_options = LeptosOptions::builder().output_name("warden").site_root(site.display().to_string()).build();
    let addr = common::serve_app(Config::with_data_dir(dir.path()), leptos_options).await.addr;
    let http = common::anonymous();
    let url = format!("http://{addr}/pkg/split_settings.wasm");

    let first = http.get(&url).send().await.expect("request");
    assert_eq!(first.status(), 200);
    assert_eq!(first.headers()["cache-control"], "no-cache");
    let modified = first.headers()["last-modified"].clone();
    assert_eq!(first.bytes().await.expect("body").as_ref(), b"a lazy page's module");

    let again = http.get(&url).header("if-modified-since", modified).send().await.expect("request");
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["cache-control"], "no-cache");
    assert!(again.bytes().await.expect("body").is_empty());
}
