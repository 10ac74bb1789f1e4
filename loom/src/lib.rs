//! Every interleaving of the engine's lanes protocol (`src/engine/lanes/protocol.rs`,
//! compiled here with loom's atomics) by loom's model checker:
//! `RUSTFLAGS="--cfg loom" cargo test -p antipode-loom --target-dir target/loom`.
//!
//! A lane's marks are one word, and work item `k` sets its bit `k` as the stores do: a
//! plain writer loads the word and stores it back (`PackedMarks::mark_unseen_alone`),
//! a shared one ORs atomically. A mark lost in any interleaving fails the test.

#[cfg(loom)]
#[path = "../../src/engine/lanes/protocol.rs"]
pub mod protocol;

#[cfg(all(test, loom))]
mod model {
    use super::protocol::{self, Writer};
    use loom::sync::Arc;
    use loom::sync::atomic::{AtomicU64, Ordering};

    /// A work item: its lane, and the bit of the lane's word it sets.
    struct Item {
        lane: usize,
        bit: u32,
    }

    /// Runs even lanes with `counts[k]` items in lane `k` on two threads, in every
    /// interleaving; each lane's word must end with every item's bit.
    fn check(counts: &'static [usize]) {
        // Interleavings with up to two preemptions: a lost mark needs one (a shared
        // OR between a plain load and its store); the whole space is too big.
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(2);
        model.check(move || {
            let all: &'static [Item] = Vec::leak(
                counts
                    .iter()
                    .enumerate()
                    .flat_map(|(lane, &n)| vec![lane; n])
                    .zip(0..)
                    .map(|(lane, bit)| Item { lane, bit })
                    .collect(),
            );
            let mut by_lane = vec![Vec::new(); counts.len()];
            for item in all {
                by_lane[item.lane].push(item);
            }
            let halves = Arc::new(protocol::halves(by_lane));
            let words: Arc<Vec<AtomicU64>> =
                Arc::new(counts.iter().map(|_| AtomicU64::new(0)).collect());
            let thread = |halves: Arc<[Vec<protocol::Lane<'static, Item>>; 2]>,
                          words: Arc<Vec<AtomicU64>>| {
                move || {
                    let mark = |item: &Item, writer| {
                        let word = &words[item.lane];
                        let bit = 1 << item.bit;
                        match writer {
                            Writer::Alone => {
                                let before = word.load(Ordering::Relaxed);
                                word.store(before | bit, Ordering::Relaxed);
                            }
                            Writer::Shared => {
                                word.fetch_or(bit, Ordering::Relaxed);
                            }
                        }
                    };
                    // The even lanes: one half, as one `rayon::broadcast` runs it.
                    protocol::run_half(&halves[0], &|| false, &mark);
                }
            };
            let other = loom::thread::spawn(thread(halves.clone(), words.clone()));
            thread(halves, words.clone())();
            other.join().unwrap();
            for (lane, word) in words.iter().enumerate() {
                let wanted = all
                    .iter()
                    .filter(|item| item.lane == lane)
                    .fold(0, |w, item| w | 1 << item.bit);
                assert_eq!(
                    word.load(Ordering::Relaxed),
                    wanted,
                    "lane {lane} lost a mark"
                );
            }
        });
    }

    #[test]
    fn one_lane_two_threads_never_lose_a_mark() {
        check(&[2]);
    }

    #[test]
    fn two_lanes_of_a_half_never_lose_a_mark() {
        check(&[1, 0, 2]);
    }
}
