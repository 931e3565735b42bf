//! Nothing to use: this crate only makes cargo build a few dependencies with the same features in
//! every command (see its `Cargo.toml`).
