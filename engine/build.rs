//! `sqlx::migrate!` embeds `migrations/` when the crate compiles, and Cargo does not know that: without
//! this, a migration added or edited after the last build left the old set in the binary.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
