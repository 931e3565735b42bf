#![allow(dead_code)]
pub mod play;
pub mod views;
