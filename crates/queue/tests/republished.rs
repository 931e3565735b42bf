//! A match's job published again — by a server restarted before the match's result was
//! recorded, which re-queues the match and hands it out anew — is played and answered again,
//! even by the same worker at the same delivery number: each publication's result has a
//! message id of its own. (With ids made of match, worker and delivery alone, JetStream took the
//! second result for a copy of the first within its duplicate window and dropped it, and the
//! match stayed running for ever.) On the machine's NATS (127.0.0.1:4222, a stream prefix of
//! this test's own, removed at the end) and a real worker.

use std::time::Duration;

use pitboss_queue::{NatsWorkers, QueueSettings};
use pitboss_service::workers::{Finished, Workers};
use pitboss_worker::JobResult;
use tokio::sync::mpsc::UnboundedReceiver;

mod common;

use common::NATS;

/// The next result on either server's channel, recorded at once (as the scheduler does).
async fn next(
    a: &mut UnboundedReceiver<Finished>,
    b: &mut UnboundedReceiver<Finished>,
) -> Option<JobResult> {
    let f = tokio::time::timeout(Duration::from_secs(60), async {
        tokio::select! {
            f = a.recv() => f,
            f = b.recv() => f,
        }
    })
    .await
    .ok()??;
    if let Some(r) = f.recorded {
        let _ = r.send(());
    }
    Some(f.result)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_published_again_after_a_restart_gets_its_own_result() {
    let Some(s) = common::server("republished").await else {
        return;
    };
    let q = QueueSettings::new(NATS, &s.prefix);
    // Two boots of the server on the same streams and store.
    let first = NatsWorkers::start(q.clone(), &s.cfg, s.store.clone(), 4)
        .await
        .unwrap();
    let second = NatsWorkers::start(q.clone(), &s.cfg, s.store.clone(), 4)
        .await
        .unwrap();
    let (id, job) = s.call_raise(5, 300).await;
    let (tx1, mut rx1) = tokio::sync::mpsc::unbounded_channel();
    let (tx2, mut rx2) = tokio::sync::mpsc::unbounded_channel();

    // One worker, one slot: it plays both publications, each its first delivery.
    let worker = tokio::spawn(pitboss_queue::worker::run(s.worker(&q, "w-same")));

    first.submit(job.clone(), tx1);
    let one = next(&mut rx1, &mut rx2)
        .await
        .expect("the first publication's result");
    second.submit(job, tx2);
    let two = next(&mut rx1, &mut rx2)
        .await
        .expect("the second publication's result (not taken for a duplicate of the first)");
    worker.abort();
    for r in [&one, &two] {
        match r {
            JobResult::Played { id: got, outcome } => {
                assert_eq!(*got, id);
                assert_eq!(outcome.worker, "w-same");
            }
            other => panic!("{other:?}"),
        }
    }
    let units = |r: &JobResult| match r {
        JobResult::Played { outcome, .. } => outcome.stored.units,
        _ => unreachable!(),
    };
    assert_eq!(
        units(&one),
        units(&two),
        "the same seed plays the same match"
    );
}
