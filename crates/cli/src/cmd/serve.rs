//! `pitboss serve`, `pitboss token`, `pitboss backup`: the service's commands, thin over the
//! crate `pitboss-service` (and the store for accounts and backups).

use anyhow::Context;
use pitboss_service::ServeConfig;
use pitboss_store::Store;

use crate::args_service::{BackupArgs, DataArgs, ServeArgs, TokenCommand};

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mut cfg = ServeConfig::load(&args.data, args.listen)?;
    cfg.database = args.database;
    if let Some(w) = args.workers {
        anyhow::ensure!((1..=256).contains(&w), "--workers {w}: use 1 to 256");
        cfg.workers = w;
    }
    if let Some(h) = args.hands_per_match {
        anyhow::ensure!(
            h >= 2 && h.is_multiple_of(2),
            "--hands-per-match {h}: an even number of at least 2 (every deal from both seats)"
        );
        cfg.hands_per_match = h;
    }
    cfg.sandbox = !args.no_sandbox;
    if cfg.sandbox {
        // The jail needs the referee to reap what bots leave behind.
        pitboss_external::become_subreaper();
    }
    let data = cfg.data.display().to_string();
    let ready = move |addr| {
        eprintln!("pitboss: serving {data} on http://{addr}/ (Ctrl-C stops; a restart resumes)");
    };
    match args.queue.queue.clone() {
        None => runtime()?.block_on(pitboss_service::serve(cfg, ready))?,
        Some(url) => runtime()?.block_on(super::worker::serve_on_queue(
            cfg,
            &args.queue,
            &url,
            args.workers,
            ready,
        ))?,
    }
    Ok(())
}

pub(crate) async fn store(d: &DataArgs) -> anyhow::Result<Store> {
    Ok(match &d.database {
        Some(url) => Store::open(url).await?,
        None => Store::open_dir(&d.data).await?,
    })
}

pub fn token(cmd: TokenCommand) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        match cmd {
            TokenCommand::Create(a) => {
                anyhow::ensure!(
                    pitboss_arena::name::valid(&a.name),
                    "account name {:?}: use 1 to 64 of ASCII letters, digits, _ . + -",
                    pitboss_arena::name::terminal(&a.name)
                );
                let cfg = ServeConfig::load(&a.data.data, "127.0.0.1:0".parse().expect("addr"))?;
                let s = store(&a.data).await?;
                let (acc, tok) = s
                    .create_account(
                        &a.name,
                        a.uploads_per_hour.unwrap_or(cfg.uploads_per_hour),
                        a.max_bundle_mb.map_or(cfg.max_bundle_bytes, |m| m << 20),
                    )
                    .await?;
                eprintln!(
                    "pitboss: account {} created ({} uploads an hour, bundles up to {} MiB); its token, shown only now:",
                    acc.name,
                    acc.uploads_per_hour,
                    acc.max_bundle_bytes >> 20
                );
                println!("{tok}");
            }
            TokenCommand::Revoke(a) => {
                store(&a.data).await?.revoke_account(&a.name).await?;
                eprintln!("pitboss: the token of {} is revoked", a.name);
            }
            TokenCommand::Worker(w) => super::worker::token(w).await?,
            TokenCommand::List(d) => {
                for acc in store(&d).await?.accounts().await? {
                    println!(
                        "{}\t{}\tuploads/hour {}\tmax {} MiB",
                        acc.name,
                        if acc.revoked_at.is_some() { "revoked" } else { "live" },
                        acc.uploads_per_hour,
                        acc.max_bundle_bytes >> 20
                    );
                }
            }
        }
        Ok(())
    })
}

pub fn backup(a: BackupArgs) -> anyhow::Result<()> {
    let to = a.to.clone().unwrap_or_else(|| {
        a.data
            .data
            .join("backups")
            .join(format!("pitboss-{}.db", pitboss_arena::output::timestamp()))
    });
    runtime()?.block_on(async {
        let s = store(&a.data).await?;
        if let Some(p) = to.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("{}", p.display()))?;
        }
        s.backup(&to).await?;
        eprintln!("pitboss: database copied to {}", to.display());
        anyhow::Ok(())
    })
}
