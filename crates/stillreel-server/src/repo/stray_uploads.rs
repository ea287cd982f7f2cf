//! Stored uploads no row points at: a process stopped between storing an upload and recording
//! it (or between refusing it and removing it) leaves such a file. Swept once at start-up,
//! listing only the `uploads/<account>/` folder of each account, never the whole store.
//! A file younger than [`GRACE`] is kept: another node may still be recording it.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use uuid::Uuid;

use crate::db::{Db, DbError, now_ms, on_db};
use crate::storage::Storage;

/// How old an unrecorded upload must be before the sweep removes it: far longer than storing
/// and recording one takes.
pub const GRACE: Duration = Duration::from_secs(3600);

/// The folder of `account`'s uploads (`routes/uploads.rs` names files under it).
pub fn folder(account: Uuid) -> String {
    format!("uploads/{}", account.simple())
}

/// Of the keys `listed` under an account's folder, those no row names (`recorded`) and older
/// than `grace_ms` at `now_ms`. An upload's file name is its id, a UUIDv7 carrying the time it
/// was received; a name without one (made before ids carried their time) counts as old.
pub fn strays<'a>(
    listed: &'a [String],
    recorded: &HashSet<String>,
    now_ms: i64,
    grace_ms: i64,
) -> Vec<&'a str> {
    listed
        .iter()
        .filter(|key| !recorded.contains(*key))
        .filter(|key| {
            let stem = key.rsplit('/').next().unwrap_or("");
            let stem = stem.split('.').next().unwrap_or("");
            let made = Uuid::try_parse(stem)
                .ok()
                .and_then(|id| id.get_timestamp())
                .map(|t| {
                    let (secs, nanos) = t.to_unix();
                    i64::try_from(secs).unwrap_or(i64::MAX) * 1000 + i64::from(nanos / 1_000_000)
                });
            made.is_none_or(|ms| now_ms.saturating_sub(ms) > grace_ms)
        })
        .map(String::as_str)
        .collect()
}

/// Removes every account's stray uploads; answers how many files it removed.
pub async fn sweep(db: &Db, storage: &Arc<dyn Storage>) -> Result<usize, DbError> {
    let accounts: Vec<Uuid> =
        on_db!(db, pool => sqlx::query_scalar("SELECT id FROM accounts").fetch_all(pool).await?);
    let grace_ms = i64::try_from(GRACE.as_millis()).unwrap_or(i64::MAX);
    let mut removed = 0;
    for account in accounts {
        let lister = Arc::clone(storage);
        let prefix = folder(account);
        let listed = tokio::task::spawn_blocking(move || lister.list(&prefix))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        if listed.is_empty() {
            continue;
        }
        let keys: Vec<String> = on_db!(db, pool => sqlx::query_scalar(
            "SELECT key FROM uploads WHERE account_id = $1",
        )
        .bind(account)
        .fetch_all(pool)
        .await?);
        let recorded: HashSet<String> = keys.into_iter().collect();
        let storage = Arc::clone(storage);
        removed += tokio::task::spawn_blocking(move || {
            let mut removed = 0;
            for key in strays(&listed, &recorded, now_ms(), grace_ms) {
                match storage.delete(key) {
                    Ok(()) => {
                        removed += 1;
                        tracing::info!(key, "removed an upload no record points at");
                    }
                    Err(err) => tracing::warn!(key, error = %err, "cannot remove a stray upload"),
                }
            }
            removed
        })
        .await
        .unwrap_or(0);
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unrecorded_files_past_the_grace_period_are_strays() {
        let now = 1_800_000_000_000_i64;
        let v7_at = |ms: i64| {
            let ts = uuid::Timestamp::from_unix(
                uuid::NoContext,
                u64::try_from(ms / 1000).expect("seconds"),
                u32::try_from(ms % 1000).expect("millis") * 1_000_000,
            );
            Uuid::new_v7(ts)
        };
        let old = format!("uploads/a/{}.jpg", v7_at(now - 2 * 3_600_000));
        let young = format!("uploads/a/{}.png", v7_at(now - 1000));
        let recorded_old = format!("uploads/a/{}.jpg", v7_at(now - 9 * 3_600_000));
        let legacy = format!("uploads/a/{}.mp3", Uuid::new_v4());
        let listed = vec![
            old.clone(),
            young.clone(),
            recorded_old.clone(),
            legacy.clone(),
        ];
        let recorded = HashSet::from([recorded_old]);
        assert_eq!(
            strays(&listed, &recorded, now, 3_600_000),
            [old.as_str(), legacy.as_str()]
        );
    }
}
