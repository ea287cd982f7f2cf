//! The library: an account's videos a page at a time, newest first, and deleting one.
//!
//! Pages are cut by keyset on `(created_at, id)`, the order they are listed in: the cursor is
//! the last listed video's pair, and the next page starts strictly after it. A video created
//! meanwhile sorts before the cursor, so it never shifts a later page (no repeats, no gaps),
//! which an offset could not promise.

use stillreel_core::{Status, Video};
use uuid::Uuid;

use super::read::{self, RECORD_SELECT, VideoRow};
use crate::db::{Db, DbError, now_ms, on_db, on_tx};

/// What `GET /get_videos` asks for.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub project: Option<Uuid>,
    pub status: Option<Status>,
    pub limit: usize,
    /// The last listed video's `(created_at, id)`.
    pub after: Option<(i64, Uuid)>,
    /// Only videos whose title holds this text, ignoring case (`q`).
    pub title_contains: Option<String>,
}

/// The LIKE pattern that finds `text` anywhere in a folded title: lower-cased as titles are
/// when stored (`title_folded`), with the pattern's own characters escaped so a `%`, `_` or
/// `\` in the query is matched as itself.
pub fn title_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// The cursor of a listed video: opaque to clients, `<created_at ms>.<uuid>` inside.
pub fn cursor(created_at: i64, id: Uuid) -> String {
    format!("{created_at}.{}", id.simple())
}

/// The `(created_at, id)` of a cursor, `None` when it is not one we made.
pub fn parse_cursor(text: &str) -> Option<(i64, Uuid)> {
    let (ms, id) = text.split_once('.')?;
    Some((ms.parse().ok()?, Uuid::try_parse(id).ok()?))
}

/// One page of `account`'s videos (deleted ones left out) and the next page's cursor. Two
/// round trips at most: the page's records in one query (the page chosen by a subquery), and
/// the clips of the combined videos on it.
pub async fn list_videos(
    db: &Db,
    account: Uuid,
    query: &ListQuery,
    base_url: &str,
) -> Result<(Vec<Video>, Option<String>), DbError> {
    let mut filter = String::from("account_id = $1 AND deleted_at IS NULL");
    let mut n = 1;
    let mut arg = |filter: &mut String, clause: &str| {
        n += 1;
        filter.push_str(&clause.replace('#', &format!("${n}")));
    };
    if query.project.is_some() {
        arg(&mut filter, " AND project_id = #");
    }
    if query.status.is_some() {
        arg(&mut filter, " AND status = #");
    }
    if query.title_contains.is_some() {
        arg(&mut filter, " AND title_folded LIKE # ESCAPE '\\'");
    }
    if query.after.is_some() {
        // (created_at, id) < (a, b), spelled out: both backends use the index for it.
        n += 1;
        let (a, b) = (n, n + 1);
        n += 1;
        filter.push_str(&format!(
            " AND (created_at < ${a} OR (created_at = ${a} AND id < ${b}))"
        ));
    }
    let limit = n + 1;
    // One more than asked, to know whether a next page exists.
    let sql = format!(
        "{RECORD_SELECT}
         WHERE v.id IN (SELECT id FROM videos WHERE {filter}
                        ORDER BY created_at DESC, id DESC LIMIT ${limit})
         ORDER BY v.created_at DESC, v.id DESC, c.position"
    );
    let rows: Vec<VideoRow> = on_db!(db, pool => {
        let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone())).bind(account);
        if let Some(project) = query.project {
            q = q.bind(project);
        }
        if let Some(status) = query.status {
            q = q.bind(status.as_str());
        }
        if let Some(text) = &query.title_contains {
            q = q.bind(title_pattern(text));
        }
        if let Some((ms, id)) = query.after {
            q = q.bind(ms).bind(id);
        }
        q.bind(i64::try_from(query.limit + 1).unwrap_or(i64::MAX))
            .fetch_all(pool)
            .await?
    });
    // Group the rows by video, keeping the listing order.
    let mut groups: Vec<Vec<VideoRow>> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some(group) if group[0].id == row.id => group.push(row),
            _ => groups.push(vec![row]),
        }
    }
    let next = (groups.len() > query.limit).then(|| {
        let last = &groups[query.limit - 1][0];
        cursor(last.created_at, last.id)
    });
    groups.truncate(query.limit);
    let combined_ids: Vec<Uuid> = groups
        .iter()
        .filter(|g| g[0].kind == "combine")
        .map(|g| g[0].id)
        .collect();
    let mut combined = read::combine_clips(db, &combined_ids).await?;
    let mut videos = Vec::with_capacity(groups.len());
    for group in groups {
        let clips = combined.remove(&group[0].id).unwrap_or_default();
        videos.push(read::record(group, clips, base_url)?);
    }
    Ok((videos, next))
}

/// What deleting a video found.
#[derive(Debug)]
pub enum Deleted {
    /// Marked deleted; these stored keys are to be removed.
    Done(Vec<String>),
    NotFound,
    /// The video or its branded render is still queued or rendering.
    Busy,
}

/// What [`delete_video`] reads of a video and its branded render.
#[derive(sqlx::FromRow)]
struct DeleteRow {
    status: String,
    video_key: Option<String>,
    branding_status: Option<String>,
    branding_key: Option<String>,
}

/// Marks video `id` of `account` deleted and returns the storage keys it owns (its file, its
/// branded file, its clips, and the stills beside them). A video still rendering cannot be
/// deleted: its worker would store files after the keys were removed.
pub async fn delete_video(db: &Db, account: Uuid, id: Uuid) -> Result<Deleted, DbError> {
    let row: Option<DeleteRow> = on_db!(db, pool => sqlx::query_as(
        "SELECT v.status, v.video_key, b.status AS branding_status, b.video_key AS branding_key
         FROM videos v
         LEFT JOIN brandings b ON b.video_id = v.id
         WHERE v.id = $1 AND v.account_id = $2 AND v.deleted_at IS NULL",
    )
    .bind(id)
    .bind(account)
    .fetch_optional(pool)
    .await?);
    let Some(DeleteRow {
        status,
        video_key,
        branding_status: b_status,
        branding_key: b_key,
    }) = row
    else {
        return Ok(Deleted::NotFound);
    };
    let running = |s: &str| s == "queued" || s == "in_progress";
    if running(&status) || b_status.as_deref().is_some_and(running) {
        return Ok(Deleted::Busy);
    }
    let clip_keys: Vec<Option<String>> = on_db!(db, pool => sqlx::query_scalar(
        "SELECT clip_key FROM clips WHERE video_id = $1",
    )
    .bind(id)
    .fetch_all(pool)
    .await?);
    let mut tx = db.begin().await?;
    let marked = on_tx!(&mut tx, conn => sqlx::query(
        "UPDATE videos SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL",
    )
    .bind(now_ms())
    .bind(id)
    .execute(conn)
    .await?
    .rows_affected());
    tx.touch(id);
    tx.commit().await?;
    // Of parallel deletes, only the one whose statement marked the record reports it.
    if marked == 0 {
        return Ok(Deleted::NotFound);
    }
    db.invalidate_pages(account, None);
    let mut keys = Vec::new();
    // The branded sound the stitch made ahead, should the branded render never have taken it.
    keys.push(crate::storage::branded_sound_key(id));
    for key in [video_key, b_key].into_iter().chain(clip_keys).flatten() {
        keys.push(stillreel_render::store::storage::still_key(&key));
        keys.push(key);
    }
    Ok(Deleted::Done(keys))
}

/// The storage folders a video's files live in: the served one (clips, video, branded copy,
/// stills) and the private one (checked inputs, the branded sound made ahead).
pub fn folders_of(id: Uuid) -> [String; 2] {
    [
        format!("videos/{id}"),
        format!("{}/videos/{id}", crate::storage::PRIVATE_PREFIX),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_strangers_are_refused() {
        let id = Uuid::now_v7();
        assert_eq!(
            parse_cursor(&cursor(1_700_000_000_123, id)),
            Some((1_700_000_000_123, id))
        );
        for bad in ["", "x", "12", "12.", ".abc", "abc.0f1e", "1.not-a-uuid"] {
            assert_eq!(parse_cursor(bad), None, "{bad}");
        }
    }

    #[test]
    fn title_patterns_fold_case_and_match_wildcards_literally() {
        assert_eq!(title_pattern("Oak LANE"), "%oak lane%");
        assert_eq!(title_pattern("50% off_now\\"), "%50\\% off\\_now\\\\%");
        assert_eq!(title_pattern("ÉTÉ"), "%été%");
    }

    #[test]
    fn a_stored_video_and_its_still_share_a_name() {
        assert_eq!(
            stillreel_render::store::storage::still_key("videos/a/video.mp4"),
            "videos/a/video.jpg"
        );
    }
}
