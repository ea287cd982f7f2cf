//! Which ffmpeg processes run where (Linux `/proc`): for tests that check a dropped render
//! leaves none behind. Shared with the server's tests through `#[path]`.

use std::path::Path;

/// Processes named ffmpeg whose working directory is inside `dir`.
pub fn ffmpeg_running_in(dir: &Path) -> Vec<u32> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
            comm.trim() == "ffmpeg" && cwd.starts_with(&dir)
        })
        .collect()
}
