//! The Tokio runtime a session runs its I/O on.

/// The runtime a session's I/O runs on: its own current-thread runtime (the default: the pipes
/// are polled by the referee's worker thread inside `block_on`), or, with
/// `PITBOSS_SHARED_RUNTIME=1`, one multi-thread runtime shared by all sessions (its worker polls
/// the pipes and wakes the referee thread) — kept for the comparison in `EXTERNAL-BENCH.md`.
pub(crate) enum Rt {
    Own(tokio::runtime::Runtime),
    Shared(tokio::runtime::Handle),
}

impl Rt {
    pub(crate) fn new() -> std::io::Result<Rt> {
        static SHARED: std::sync::OnceLock<Option<tokio::runtime::Runtime>> =
            std::sync::OnceLock::new();
        let shared = SHARED.get_or_init(|| {
            (std::env::var_os("PITBOSS_SHARED_RUNTIME").is_some_and(|v| v == "1"))
                .then(|| {
                    tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(1)
                        .enable_all()
                        .build()
                        .ok()
                })
                .flatten()
        });
        Ok(match shared {
            Some(rt) => Rt::Shared(rt.handle().clone()),
            None => Rt::Own(
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?,
            ),
        })
    }

    pub(crate) fn handle(&self) -> tokio::runtime::Handle {
        match self {
            Rt::Own(r) => r.handle().clone(),
            Rt::Shared(h) => h.clone(),
        }
    }

    pub(crate) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        match self {
            Rt::Own(r) => r.block_on(f),
            Rt::Shared(h) => h.block_on(f),
        }
    }
}
