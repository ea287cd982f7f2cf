//! Files stored by attempts that never recorded them: a worker killed (or cut off) between
//! storing a clip and committing its record leaves an object no record points at, and the
//! retry stores its own under a new name. Every name a job stores carries its lease token
//! (`worker/kinds/keys.rs`), so the lease sweep notes each attempt it takes back (video and
//! token, [`note_expired_in`], in the transaction that takes it back) and the orphan sweep
//! removes, under that video's folder only, the names carrying the token ([`orphaned`]).

use uuid::Uuid;

use crate::db::{Db, DbError, Tx, on_db, on_tx};

/// An attempt taken back from its worker, whose stored files may be orphans.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Abandoned {
    pub id: i64,
    pub video_id: Uuid,
    pub token: String,
}

/// Notes, in `tx`, every running job whose lease expired before `now` (run before the
/// statements that fail or requeue them, which clear the token).
pub async fn note_expired_in(tx: &mut Tx, now: i64) -> Result<u64, DbError> {
    Ok(on_tx!(tx, conn => sqlx::query(
        "INSERT INTO abandoned_attempts (video_id, token, created_at)
         SELECT video_id, lease_token, $1 FROM jobs
         WHERE state = 'running' AND lease_expires_at < $1 AND lease_token IS NOT NULL",
    )
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected()))
}

/// Up to `limit` noted attempts, oldest first.
pub async fn abandoned(db: &Db, limit: i64) -> Result<Vec<Abandoned>, DbError> {
    Ok(on_db!(db, pool => sqlx::query_as(
        "SELECT id, video_id, token FROM abandoned_attempts ORDER BY id LIMIT $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await?))
}

/// Forgets a noted attempt once its orphans are removed.
pub async fn forget(db: &Db, id: i64) -> Result<(), DbError> {
    let mut tx = db.begin().await?;
    on_tx!(&mut tx, conn => sqlx::query("DELETE FROM abandoned_attempts WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await
        .map(drop)?);
    tx.commit().await
}

/// Of the keys `listed` under a video's folder, those an attempt with lease `token` stored:
/// the token is in their file name (`clip-000-<token>.mp4`, its still `...-<token>.jpg`) or is
/// their folder (`<token>/branded.mp4`). Tokens are 128 random bits, so no other name
/// contains one. An empty token matches nothing.
pub fn orphaned<'a>(listed: &'a [String], token: &str) -> Vec<&'a str> {
    if token.len() < 16 {
        return Vec::new();
    }
    listed
        .iter()
        .map(String::as_str)
        .filter(|key| key.split('/').any(|segment| segment.contains(token)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_carrying_the_token_are_orphans() {
        let token = "0123456789abcdef0123456789abcdef";
        let other = "fedcba9876543210fedcba9876543210";
        let listed: Vec<String> = [
            format!("videos/v/clip-000-{token}.mp4"),
            format!("videos/v/clip-000-{token}.jpg"),
            format!("videos/v/clip-000-{other}.mp4"),
            format!("videos/v/video-{other}.mp4"),
            format!("videos/v/{token}/branded.mp4"),
            "videos/v/music.mp3".to_owned(),
        ]
        .into();
        assert_eq!(
            orphaned(&listed, token),
            [
                format!("videos/v/clip-000-{token}.mp4"),
                format!("videos/v/clip-000-{token}.jpg"),
                format!("videos/v/{token}/branded.mp4"),
            ]
        );
        assert!(orphaned(&listed, "").is_empty());
    }
}
