//! A result the scheduler holds unrecorded (the database away, retried) stays with the server:
//! its message is kept from redelivery by in-progress acknowledgements, not handed over again
//! every ack wait of the results consumer (30 s by default; 2 s here), each copy one more result
//! in memory. On the machine's NATS (127.0.0.1:4222, a stream prefix of this test's own, removed
//! at the end) and a real worker; it waits 7 s.

use std::time::Duration;

use async_nats::jetstream;
use pitboss_queue::{NatsWorkers, QueueSettings};
use pitboss_service::workers::Workers;
use pitboss_worker::JobResult;

mod common;

use common::NATS;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_waiting_to_be_recorded_is_not_delivered_again() {
    let Some(s) = common::server("waiting").await else {
        return;
    };
    let mut q = QueueSettings::new(NATS, &s.prefix);
    q.results_ack_wait = Duration::from_secs(2);
    let nats = NatsWorkers::start(q.clone(), &s.cfg, s.store.clone(), 4)
        .await
        .unwrap();
    let (id, job) = s.call_raise(3, 200).await;
    let (tx, mut results) = tokio::sync::mpsc::unbounded_channel();
    nats.submit(job, tx);
    let worker = tokio::spawn(pitboss_queue::worker::run(s.worker(&q, "w-wait")));
    let first = tokio::time::timeout(Duration::from_secs(60), results.recv())
        .await
        .expect("a result within a minute")
        .unwrap();
    assert!(matches!(first.result, JobResult::Played { id: got, .. } if got == id));
    // Held past the results consumer's ack wait three times over, as a scheduler whose database
    // is away.
    let again = tokio::time::timeout(Duration::from_secs(7), results.recv()).await;
    worker.abort();
    assert!(
        again.is_err(),
        "the result was handed over again while it waited"
    );
    let stream =
        s.js.get_stream(format!("{}_RESULTS", s.prefix))
            .await
            .unwrap();
    let mut c: jetstream::consumer::PullConsumer = stream
        .get_consumer(&format!("{}_server", s.prefix))
        .await
        .unwrap();
    let info = c.info().await.unwrap().clone();
    assert_eq!(info.num_ack_pending, 1, "{info:?}");
    assert_eq!(info.num_redelivered, 0, "{info:?}");
    // Recorded at last: acknowledged.
    first.recorded.unwrap().send(()).unwrap();
    let mut left = 1;
    for _ in 0..100 {
        left = c.info().await.unwrap().num_ack_pending;
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(left, 0);
}
