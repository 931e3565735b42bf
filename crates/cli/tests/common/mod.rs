//! What the service's process tests share: temporary folders and child processes that are
//! cleaned up however a test ends, `pitboss serve` and `pitboss worker` as processes, private
//! NATS and PostgreSQL servers, the store read from outside, and the fixed-seed runs that a run
//! with faults is compared with.
//!
//! Each test binary (`mod common;`) uses only a part of this: the rest would be dead code there.
#![allow(dead_code)]

pub mod db;
pub mod fixture;
pub mod fresh;
pub mod nats;
pub mod pg;
pub mod proc;
pub mod tmp;
