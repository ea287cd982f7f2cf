//! Project names: 1 to 100 characters after trimming, no control characters.

use crate::ErrorCode;
use crate::limits::PROJECT_NAME_MAX_CHARS;

/// The trimmed name, or the code and message of what is wrong with it.
pub fn check_name(name: &str) -> Result<String, (ErrorCode, String)> {
    let trimmed = name.trim();
    let length = trimmed.chars().count();
    if length == 0 {
        return Err((ErrorCode::Empty, "name must not be empty".to_owned()));
    }
    if length > PROJECT_NAME_MAX_CHARS {
        return Err((
            ErrorCode::TooLong,
            format!("name must be at most {PROJECT_NAME_MAX_CHARS} characters; it has {length}"),
        ));
    }
    if trimmed.chars().any(char::is_control) {
        return Err((
            ErrorCode::InvalidValue,
            "name must not contain control characters".to_owned(),
        ));
    }
    Ok(trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_characters_not_bytes() {
        assert_eq!(
            check_name(&"é".repeat(100)).map(|n| n.chars().count()),
            Ok(100)
        );
        assert_eq!(
            check_name(&"é".repeat(101)).map_err(|e| e.0),
            Err(ErrorCode::TooLong)
        );
        assert_eq!(check_name(" \t ").map_err(|e| e.0), Err(ErrorCode::Empty));
    }
}
