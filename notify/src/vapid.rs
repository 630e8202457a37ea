//! This Warden's VAPID key pair (RFC 8292): made once and kept in the database. Browsers subscribe with its
//! public key, and a push service takes only pushes signed with the private one.

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sqlx::SqlitePool;
use warden_db::timestamp;
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256KeyPair};

use crate::error::{Error, Result};

#[derive(Clone)]
pub struct Vapid {
    key_pair: Arc<ES256KeyPair>,
    /// base64url of the uncompressed P-256 public key, as `PushManager.subscribe` takes it.
    public_key: String,
}

impl Vapid {
    /// The stored key pair, or a new one kept for next time.
    pub async fn load_or_make(pool: &SqlitePool) -> Result<Self> {
        let stored: Option<(String,)> =
            sqlx::query_as("SELECT private_key FROM notify_vapid WHERE id = 1").fetch_optional(pool).await?;
        if let Some((private,)) = stored {
            let bytes = URL_SAFE_NO_PAD.decode(private.as_bytes()).map_err(|e| Error::Vapid(e.to_string()))?;
            return Self::from_key_pair(ES256KeyPair::from_bytes(&bytes).map_err(|e| Error::Vapid(e.to_string()))?);
        }
        let made = ES256KeyPair::generate();
        sqlx::query(
            "INSERT INTO notify_vapid (id, private_key, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING",
        )
        .bind(URL_SAFE_NO_PAD.encode(made.to_bytes()))
        .bind(timestamp::now())
        .execute(pool)
        .await?;
        // Another start may have made one first: the stored one is the one.
        Box::pin(Self::load_or_make(pool)).await
    }

    fn from_key_pair(key_pair: ES256KeyPair) -> Result<Self> {
        let public = key_pair.public_key().public_key().to_bytes_uncompressed();
        Ok(Self { public_key: URL_SAFE_NO_PAD.encode(public), key_pair: Arc::new(key_pair) })
    }

    pub fn key_pair(&self) -> &ES256KeyPair {
        &self.key_pair
    }

    pub fn public_key(&self) -> &str {
        &self.public_key
    }
}
