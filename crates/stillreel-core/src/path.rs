//! Field paths in form-field notation, built without allocating until an error needs one.

use std::fmt;

/// A position in the request body: a linked list on the stack, from leaf to root.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    pub(crate) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    pub(crate) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(parent, key) => {
                if matches!(parent, Path::Root) {
                    f.write_str(key)
                } else {
                    write!(f, "{parent}.{key}")
                }
            }
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}
