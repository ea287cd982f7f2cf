//! `STILLREEL_TEMPLATES_DIR`: the deployment's own templates, read and checked at start-up.

use std::path::PathBuf;

use stillreel_core::Template;

/// Every `*.json` file in `dir`, in name order, checked by the core against the built-in
/// catalog and the files before it. A bad file is an error: a deployment that silently lost
/// a template would render requests naming it with nothing, or refuse them.
pub fn load_templates(dir: &std::path::Path) -> Result<Vec<Template>, String> {
    let entries = std::fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    files.sort();
    let mut known = stillreel_core::catalog::builtin_templates().to_vec();
    let builtin = known.len();
    for path in files {
        let text =
            std::fs::read_to_string(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        let name = path.display().to_string();
        let template = stillreel_core::template_file::parse_template_file(&name, &text, &known)
            .map_err(|err| err.to_string())?;
        known.push(template);
    }
    Ok(known.split_off(builtin))
}
