//! Field paths in form-field notation, built without allocating until an error needs one.

use std::fmt;

/// A position in the request body: a linked list on the stack, from leaf to root.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    /// A member whose position among its object's members is known (the caller is walking
    /// the members): ordering errors by document position then needs no lookup, which keeps
    /// an object of 90,000 unknown or repeated members linear instead of quadratic.
    Member(&'a Path<'a>, &'a str, usize),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    pub(crate) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The `position`-th member (0-based, counting repeats) of this object, named `key`.
    pub(crate) fn member(&'a self, key: &'a str, position: usize) -> Path<'a> {
        Path::Member(self, key, position)
    }

    pub(crate) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => Ok(()),
            Path::Key(parent, key) | Path::Member(parent, key, _) => {
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
