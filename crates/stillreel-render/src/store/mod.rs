//! Where files go: the [`storage::Storage`] trait with local files ([`storage`]) and object
//! stores ([`objects`]) behind it, moving files between a step's work directory and storage
//! ([`files`]), generated inputs kept and reused ([`generated`]), and the free space of a
//! folder's file system ([`space`]).

pub(crate) mod files;
pub mod generated;
pub mod objects;
pub mod space;
pub mod storage;
