#![allow(dead_code)]
pub mod play;
